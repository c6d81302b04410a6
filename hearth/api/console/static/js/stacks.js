// The stacks page: every stack of the project, filtered and sorted here, refreshed live.

import { clear, errorBox, h, poll, statusBadge, when } from "./dom.js";

const REFRESH_MS = 2000;
const SORTS = {
  created: (a, b) => String(b.creation_time).localeCompare(String(a.creation_time)),
  updated: (a, b) => String(b.updated_time || b.creation_time)
    .localeCompare(String(a.updated_time || a.creation_time)),
  name: (a, b) => a.stack_name.localeCompare(b.stack_name),
  status: (a, b) => a.stack_status.localeCompare(b.stack_status),
};

export function renderStacks(ctx) {
  let alive = true;
  let stacks = [];
  const state = { filter: "", sort: "created", nested: false };
  const body = h("tbody", { id: "stacks-body" });
  const problem = h("div");
  const count = h("span", { class: "muted", id: "stacks-count" });

  const draw = () => {
    const needle = state.filter.toLowerCase();
    const shown = stacks
      .filter((s) => state.nested || !s.parent)
      .filter((s) => !needle || s.stack_name.toLowerCase().includes(needle)
        || s.stack_status.toLowerCase().includes(needle)
        || (s.tags || []).some((t) => String(t).toLowerCase().includes(needle)))
      .sort(SORTS[state.sort]);
    clear(count, `${shown.length} of ${stacks.length}`);
    clear(body, shown.length ? shown.map((s) => h("tr", { dataset: { stack: s.stack_name } },
      h("td", {}, h("a", { href: `#/stack/${encodeURIComponent(s.stack_name)}/${s.id}` },
        s.stack_name), s.parent ? h("span", { class: "tag" }, "nested") : null),
      h("td", {}, statusBadge(s.stack_status)),
      h("td", { class: "reason" }, s.stack_status_reason || ""),
      h("td", {}, when(s.creation_time)),
      h("td", {}, when(s.updated_time)),
    )) : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No stacks.")));
  };

  const load = async () => {
    const got = await ctx.api.get(`/stacks${state.nested ? "?show_nested=true" : ""}`);
    stacks = got.stacks;
    clear(problem);
    draw();
  };

  const controls = h("div", { class: "toolbar" },
    h("input", { id: "stacks-filter", type: "search", placeholder: "Filter by name, status, tag",
      oninput: (ev) => { state.filter = ev.target.value; draw(); } }),
    h("label", {}, "Sort ", h("select", { id: "stacks-sort",
      onchange: (ev) => { state.sort = ev.target.value; draw(); } },
    Object.keys(SORTS).map((k) => h("option", { value: k }, k)))),
    h("label", {}, h("input", { type: "checkbox", id: "stacks-nested",
      onchange: (ev) => { state.nested = ev.target.checked; load().catch(showError); } }),
    " show nested stacks"),
    count,
    h("a", { class: "button primary", href: "#/launch" }, "Launch stack"));

  const showError = (err) => clear(problem, errorBox(err.message));
  clear(ctx.page, h("h1", {}, "Stacks"), controls, problem,
    h("table", { class: "grid" }, h("thead", {}, h("tr", {},
      ["Name", "Status", "Reason", "Created", "Updated"].map((t) => h("th", {}, t)))), body));
  load().catch(showError);
  const stop = poll(load, REFRESH_MS, () => alive, showError);
  return () => { alive = false; stop(); };
}
