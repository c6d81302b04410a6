// The failure tab: the root cause first, i.e. the deepest failed resource across nested
// stacks, its reason, and the path of nested-stack resources that leads to it.

import { link, stackRefFromHref } from "./api.js";
import { clear, errorBox, h, statusBadge } from "./dom.js";

const NESTED_DEPTH = 5;

const failed = (r) => String(r.resource_status).endsWith("_FAILED");

// resources: a resource list with nested_depth (each with its "stack" and maybe "nested" link).
export function rootCause(resources) {
  const owner = new Map();
  for (const r of resources) {
    const nested = stackRefFromHref(link(r, "nested"));
    if (nested) owner.set(nested.id, r);
  }
  const pathOf = (r) => {
    const path = [r];
    for (let up = owner.get(stackRefFromHref(link(path[0], "stack"))?.id); up;
      up = owner.get(stackRefFromHref(link(up, "stack"))?.id)) {
      if (path.includes(up)) break;
      path.unshift(up);
    }
    return path;
  };
  let best = null;
  for (const r of resources.filter(failed)) {
    const path = pathOf(r);
    const leaf = !stackRefFromHref(link(r, "nested"));
    const better = !best || path.length > best.path.length
      || (path.length === best.path.length && leaf && !best.leaf);
    if (better) best = { resource: r, path, leaf };
  }
  return best;
}

export function renderFailure(ctx, stack, host) {
  const load = async () => {
    const got = await ctx.api.get(
      `${ctx.api.stackPath(stack)}/resources?nested_depth=${NESTED_DEPTH}`);
    const cause = rootCause(got.resources);
    if (!cause) {
      clear(host, h("p", { id: "root-cause-none" },
        String(stack.stack_status).endsWith("_FAILED")
          ? `No failed resource was recorded. The stack says: ${stack.stack_status_reason}`
          : "No resource of this stack has failed."));
      return;
    }
    const r = cause.resource;
    const where = stackRefFromHref(link(r, "stack"));
    const others = got.resources.filter((x) => failed(x) && x !== r);
    clear(host, h("section", { class: "card root-cause", id: "root-cause" },
      h("h2", {}, "Root cause"),
      h("p", { class: "path", id: "root-cause-path" },
        [stack.stack_name, ...cause.path.map((p) => p.resource_name)].join(" › ")),
      h("p", {}, h("b", { id: "root-cause-resource" }, r.resource_name), " ",
        h("span", { class: "muted" }, r.resource_type), " ", statusBadge(r.resource_status)),
      h("pre", { class: "reason", id: "root-cause-reason" }, r.resource_status_reason || "-"),
      where ? h("a", { href: `#/stack/${encodeURIComponent(where.stack_name)}/${where.id}/overview` },
        `Open the stack it failed in (${where.stack_name})`) : null),
    others.length ? h("section", {}, h("h3", {}, "Other failed resources"),
      h("ul", {}, others.map((o) => h("li", {}, h("b", {}, o.resource_name), ` ${o.resource_status}: `,
        o.resource_status_reason || "")))) : null);
  };
  load().catch((err) => clear(host, errorBox(err.message)));
  return load;
}
