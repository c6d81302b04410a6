// The resources tab (a live table) and the events tab (a live tail, newest last).

import { clear, errorBox, h, statusBadge, when } from "./dom.js";

export function renderResources(ctx, stack, host) {
  const body = h("tbody", { id: "resources-body" });
  const problem = h("div");
  clear(host, problem, h("table", { class: "grid" }, h("thead", {}, h("tr", {},
    ["Resource", "Type", "Status", "Reason", "Physical id", "Updated"].map((t) => h("th", {}, t)))),
  body));
  const load = async () => {
    const got = await ctx.api.get(`${ctx.api.stackPath(stack)}/resources`);
    clear(body, got.resources.map((r) => h("tr", { dataset: { name: r.resource_name } },
      h("td", {}, r.resource_name), h("td", {}, r.resource_type),
      h("td", {}, statusBadge(r.resource_status)),
      h("td", { class: "reason" }, r.resource_status_reason || ""),
      h("td", { class: "mono" }, r.physical_resource_id || ""),
      h("td", {}, when(r.updated_time || r.creation_time)))));
    clear(problem);
  };
  load().catch((err) => clear(problem, errorBox(err.message)));
  return load;
}

export function renderEvents(ctx, stack, host) {
  const body = h("tbody", { id: "events-body" });
  const problem = h("div");
  clear(host, problem, h("table", { class: "grid" }, h("thead", {}, h("tr", {},
    ["Time", "Resource", "Status", "Reason"].map((t) => h("th", {}, t)))), body));
  let marker = null;
  const load = async () => {
    const query = `sort_dir=asc${marker ? `&marker=${encodeURIComponent(marker)}` : ""}`;
    const got = await ctx.api.get(`${ctx.api.stackPath(stack)}/events?${query}`);
    for (const e of got.events) {
      body.append(h("tr", {}, h("td", {}, when(e.event_time)), h("td", {}, e.resource_name),
        h("td", {}, statusBadge(e.resource_status)),
        h("td", { class: "reason" }, e.resource_status_reason || "")));
      marker = e.id;
    }
    clear(problem);
  };
  load().catch((err) => clear(problem, errorBox(err.message)));
  return load;
}
