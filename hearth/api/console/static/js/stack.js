// The stack page: a live header with the stack's actions, and one tab per view of it.

import { link, stackRefFromHref } from "./api.js";
import { clear, errorBox, h, poll, statusBadge, when } from "./dom.js";
import { renderFailure } from "./failure.js";
import { renderLaunch } from "./launch.js";
import { renderEvents, renderResources } from "./lists.js";
import { renderTemplate } from "./template.js";
import { renderTimeline } from "./timeline.js";
import { renderTopology } from "./topology.js";

const REFRESH_MS = 1500;
const TABS = ["overview", "topology", "timeline", "failure", "resources", "events", "template",
  "outputs", "update"];
// POST .../actions bodies: {suspend: null} and so on.
const ACTIONS = [["suspend", "Suspend"], ["resume", "Resume"], ["check", "Check"],
  ["cancel_update", "Cancel update"]];

export function renderStack(ctx, name, id, tab) {
  let alive = true;
  const ref = { stack_name: name, id };
  // "_" stands for a stack known only by id (a nested stack's parent): the API looks it up.
  let path = name === "_" ? `/stacks/${encodeURIComponent(id)}` : ctx.api.stackPath(ref);
  const head = h("div", { class: "stack-head" });
  const notice = h("div", { id: "action-notice" });
  const body = h("div", { class: "tab-body", id: `tab-${tab}` });
  const tabs = h("nav", { class: "tabs" }, TABS.map((t) => h("a", {
    href: `#/stack/${encodeURIComponent(name)}/${id}/${t}`, class: t === tab ? "active" : "",
    id: `tab-link-${t}` }, t)));
  clear(ctx.page, head, notice, tabs, body);
  let stack = null;
  let refreshTab = null;
  let drawnAs = "";
  const isAlive = () => alive;

  const act = async (label, fn) => {
    clear(notice, h("p", { class: "muted" }, `${label}…`));
    try {
      await fn();
      clear(notice, h("p", { class: "ok" }, `${label}: accepted.`));
      await load();
    } catch (err) {
      clear(notice, errorBox(`${label}: ${err.message}`));
    }
  };
  const action = (actionBody) => () => ctx.api.post(`${path}/actions`, actionBody);

  const confirmDelete = () => clear(notice, h("div", { class: "confirm" },
    `Delete stack ${stack ? stack.stack_name : name} and all its resources? `,
    h("button", { class: "danger", id: "confirm-delete",
      onclick: () => act("Delete", () => ctx.api.del(path)) }, "Yes, delete"),
    h("button", { onclick: () => clear(notice) }, "No")));

  const takeSnapshot = (ev) => {
    ev.preventDefault();
    const snapName = new FormData(ev.target).get("name");
    act("Snapshot", () => ctx.api.post(`${path}/snapshots`, snapName ? { name: snapName } : {}));
  };
  const snapshot = () => clear(notice, h("form", { class: "confirm", id: "snapshot-form",
    onsubmit: takeSnapshot }, "Snapshot name ", h("input", { name: "name", id: "snapshot-name" }),
  h("button", { type: "submit" }, "Take snapshot")));

  // The header is built once; each refresh changes only its status and reason.
  const statusSlot = h("span", { id: "stack-status" });
  const reasonSlot = h("p", { class: "reason", id: "stack-reason" });
  const drawHead = () => {
    clear(statusSlot, statusBadge(stack.stack_status));
    reasonSlot.textContent = stack.stack_status_reason || "";
    if (head.firstChild) return;
    const parent = stack.parent;
    clear(head,
      h("h1", {}, stack.stack_name, " ", statusSlot),
      reasonSlot,
      parent ? h("p", {}, "Nested in ", h("a", { id: "parent-link",
        href: `#/stack/_/${parent}/overview` }, "its parent stack")) : null,
      h("div", { class: "toolbar actions" },
        h("a", { class: "button", href: `#/stack/${encodeURIComponent(stack.stack_name)}/${stack.id}/update` },
          "Update"),
        ACTIONS.map(([key, label]) => h("button", { dataset: { action: key },
          onclick: () => act(label, action({ [key]: null })) }, label)),
        h("button", { dataset: { action: "snapshot" }, onclick: snapshot }, "Snapshot"),
        h("button", { class: "danger", id: "delete-stack", onclick: confirmDelete }, "Delete")));
  };

  const gone = () => {
    clear(head, h("h1", {}, name), h("p", { id: "stack-gone" },
      "This stack no longer exists (deleted)."), h("a", { href: "#/stacks" }, "Back to stacks"));
    clear(body);
    alive = false;
  };

  const load = async () => {
    try {
      stack = (await ctx.api.get(path)).stack;
      path = ctx.api.stackPath(stack);
    } catch (err) {
      if (err.status === 404 && stack) { gone(); return; }
      throw err;
    }
    // A deleted stack is still found by its id (as in Heat), in DELETE_COMPLETE.
    if (stack.stack_status === "DELETE_COMPLETE") { gone(); return; }
    drawHead();
    // The overview and outputs are drawn again only when the stack changed.
    const seen = `${stack.stack_status}|${stack.updated_time}|${stack.stack_status_reason}`;
    if (seen !== drawnAs) {
      drawnAs = seen;
      if (tab === "overview") drawOverview(ctx, stack, body, path, act);
      if (tab === "outputs") drawOutputs(stack, body);
    }
    if (refreshTab) await refreshTab();
  };

  const start = async () => {
    await load();
    if (!stack) return;
    if (tab === "topology") renderTopology(ctx, stack, body, isAlive);
    else if (tab === "timeline") refreshTab = renderTimeline(ctx, stack, body);
    else if (tab === "failure") renderFailure(ctx, stack, body);
    else if (tab === "resources") refreshTab = renderResources(ctx, stack, body);
    else if (tab === "events") refreshTab = renderEvents(ctx, stack, body);
    else if (tab === "template") renderTemplate(ctx, stack, body);
    else if (tab === "update") renderLaunch(ctx, stack, body);
  };
  start().catch((err) => clear(body, errorBox(err.message)));
  const stop = poll(load, REFRESH_MS, isAlive, (err) => clear(notice, errorBox(err.message)));
  return () => { alive = false; stop(); };
}

function drawOverview(ctx, stack, host, path, act) {
  const params = Object.entries(stack.parameters || {}).filter(([k]) => !k.startsWith("OS::"));
  const snapshots = h("div", { id: "snapshots" });
  clear(host, h("div", { class: "cards" },
    h("section", { class: "card" }, h("h2", {}, "Overview"), h("dl", {},
      h("dt", {}, "Status"), h("dd", {}, statusBadge(stack.stack_status)),
      h("dt", {}, "Reason"), h("dd", {}, stack.stack_status_reason || "-"),
      h("dt", {}, "Description"), h("dd", {}, stack.description || "-"),
      h("dt", {}, "Created"), h("dd", {}, when(stack.creation_time)),
      h("dt", {}, "Updated"), h("dd", {}, when(stack.updated_time)),
      h("dt", {}, "Tags"), h("dd", {}, (stack.tags || []).map((t) => h("span", { class: "tag" }, t))),
      h("dt", {}, "Rollback"), h("dd", {}, stack.disable_rollback ? "disabled" : "enabled"),
      h("dt", {}, "Id"), h("dd", {}, stack.id))),
    h("section", { class: "card" }, h("h2", {}, "Parameters"), params.length
      ? h("dl", {}, params.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]))
      : h("p", { class: "muted" }, "None")),
    h("section", { class: "card" }, h("h2", {}, "Outputs"), outputList(stack)),
    h("section", { class: "card" }, h("h2", {}, "Nested stacks"), h("div", { id: "children" })),
    h("section", { class: "card" }, h("h2", {}, "Snapshots"), snapshots)));
  ctx.api.get(`${path}/snapshots`).then((got) => clear(snapshots, got.snapshots.length
    ? h("ul", {}, got.snapshots.map((s) => h("li", {}, `${s.name || s.id} `, statusBadge(s.status),
      " ", h("button", { onclick: () => act("Restore",
        () => ctx.api.post(`${path}/snapshots/${s.id}/restore`, {})) }, "Restore"))))
    : h("p", { class: "muted" }, "None"))).catch((err) => clear(snapshots, errorBox(err.message)));
  ctx.api.get(`${path}/resources`).then((got) => {
    const children = got.resources.map((r) => [r, stackRefFromHref(link(r, "nested"))])
      .filter(([, ref]) => ref);
    const el = host.querySelector("#children");
    if (!el) return;
    clear(el, children.length ? h("ul", {}, children.map(([r, ref]) => h("li", {},
      h("a", { href: `#/stack/${encodeURIComponent(ref.stack_name)}/${ref.id}/overview` },
        r.resource_name), " ", statusBadge(r.resource_status))))
      : h("p", { class: "muted" }, "None"));
  }).catch((err) => {
    const el = host.querySelector("#children");
    if (el) clear(el, errorBox(err.message));
  });
}

function outputList(stack) {
  const outputs = stack.outputs || [];
  if (!outputs.length) return h("p", { class: "muted" }, "None");
  return h("dl", { id: "outputs" }, outputs.map((o) => [
    h("dt", { title: o.description || "" }, o.output_key),
    h("dd", {}, o.output_error ? h("span", { class: "error-text" }, o.output_error)
      : h("code", {}, typeof o.output_value === "string" ? o.output_value
        : JSON.stringify(o.output_value)))]));
}

function drawOutputs(stack, host) {
  clear(host, h("section", { class: "card" }, h("h2", {}, "Outputs"), outputList(stack)));
}
