// The timeline tab: each resource's IN_PROGRESS -> COMPLETE/FAILED span from the events, as a
// Gantt chart, with the critical path (the chain of dependencies that set the end time).

import { clear, duration, errorBox, h, statusKind } from "./dom.js";

const seconds = (iso) => new Date(iso).getTime() / 1000;

// Stack-level operations (the stack's own *_IN_PROGRESS events), oldest first.
export function operations(events, stackId) {
  return events.filter((e) => e.physical_resource_id === stackId
    && String(e.resource_status).endsWith("_IN_PROGRESS"))
    .map((e) => ({ action: e.resource_status.replace(/_IN_PROGRESS$/, ""), start: e.event_time }));
}

// Spans of the resources between `from` and `to` (ISO times, `to` may be null for "now").
export function spans(events, stackId, from, to, now) {
  const open = new Map();
  const out = [];
  let seq = 0;
  const lo = from ? seconds(from) : -Infinity;
  const hi = to ? seconds(to) : Infinity;
  for (const e of events) {
    if (e.physical_resource_id === stackId) continue; // the stack's own events
    const t = seconds(e.event_time);
    if (t < lo || t >= hi) continue;
    const status = String(e.resource_status);
    const name = e.resource_name;
    if (status.endsWith("_IN_PROGRESS")) {
      if (!open.has(name)) open.set(name, { name, action: status.replace(/_IN_PROGRESS$/, ""),
        start: t, seq: seq++ });
    } else if (open.has(name)) {
      const span = open.get(name);
      open.delete(name);
      out.push({ ...span, end: t, status, running: false });
    }
  }
  for (const span of open.values()) {
    out.push({ ...span, end: now, status: `${span.action}_IN_PROGRESS`, running: true });
  }
  // Event times have whole seconds: within one, the order the events came in decides.
  return out.sort((a, b) => a.start - b.start || a.seq - b.seq);
}

// The critical path: from the span that ended last, walk back through the dependency that
// finished last before it (the one it was waiting for). requiredBy: name -> [dependants].
export function criticalPath(spanList, requiredBy) {
  const byName = new Map(spanList.map((s) => [s.name, s]));
  const deps = new Map();
  for (const [name, dependants] of Object.entries(requiredBy)) {
    for (const d of dependants) (deps.get(d) || deps.set(d, []).get(d)).push(name);
  }
  let current = spanList.reduce((best, s) => (!best || s.end > best.end ? s : best), null);
  const path = [];
  const seen = new Set();
  while (current && !seen.has(current.name)) {
    path.unshift(current.name);
    seen.add(current.name);
    const before = (deps.get(current.name) || []).map((n) => byName.get(n)).filter(Boolean);
    current = before.reduce((best, s) => (!best || s.end > best.end ? s : best), null);
  }
  return path;
}

export function renderTimeline(ctx, stack, host) {
  const problem = h("div");
  const chart = h("div", { class: "gantt", id: "timeline-chart" });
  const pick = h("select", { id: "timeline-operation" });
  const summary = h("p", { id: "timeline-summary" });
  clear(host, problem, h("div", { class: "toolbar" }, h("label", {}, "Operation ", pick)),
    summary, chart);
  let events = [];
  let requiredBy = {};
  let ops = [];

  const draw = () => {
    const i = Number(pick.value || ops.length - 1);
    const now = Date.now() / 1000;
    const op = ops[i];
    const list = spans(events, stack.id, op && op.start, ops[i + 1] && ops[i + 1].start, now);
    if (!list.length) {
      clear(summary, "No resource events in this operation yet.");
      clear(chart);
      return;
    }
    const t0 = Math.min(...list.map((s) => s.start));
    const t1 = Math.max(...list.map((s) => s.end));
    const total = Math.max(t1 - t0, 1);
    const path = criticalPath(list, requiredBy);
    const onPath = new Set(path);
    clear(summary, `${op ? op.action : "All"}: ${list.length} resources over ${duration(t1 - t0)}. `,
      h("b", {}, "Critical path: "), h("span", { id: "critical-path" }, path.join(" → ")),
      ` (${duration(path.length ? byEnd(list, path) - byStart(list, path) : 0)})`);
    clear(chart, list.map((s) => h("div", { class: `gantt-row${onPath.has(s.name) ? " critical" : ""}`,
      dataset: { name: s.name } },
    h("span", { class: "gantt-name", title: s.name }, s.name),
    h("span", { class: "gantt-track" }, h("span", {
      class: `gantt-bar st-${statusKind(s.status)}`,
      style: `left:${((s.start - t0) / total) * 100}%;width:${Math.max(((s.end - s.start) / total) * 100, 0.6)}%`,
      title: `${s.name}: ${s.status}, ${duration(s.end - s.start)}`,
    })),
    h("span", { class: "gantt-time" }, duration(s.end - s.start) + (s.running ? "…" : "")))));
  };

  const load = async () => {
    const base = ctx.api.stackPath(stack);
    const [ev, res] = await Promise.all([ctx.api.get(`${base}/events?sort_dir=asc`),
      ctx.api.get(`${base}/resources`)]);
    events = ev.events;
    requiredBy = Object.fromEntries(res.resources.map((r) => [r.resource_name, r.required_by || []]));
    const before = pick.value;
    ops = operations(events, stack.id);
    clear(pick, ops.map((o, i) => h("option", { value: String(i) }, `${o.action} at ${new Date(o.start).toLocaleString()}`)));
    pick.value = before && Number(before) < ops.length ? before : String(Math.max(ops.length - 1, 0));
    draw();
  };
  pick.addEventListener("change", draw);
  load().catch((err) => clear(problem, errorBox(err.message)));
  return load;
}

function byEnd(list, path) {
  return list.find((s) => s.name === path[path.length - 1]).end;
}

function byStart(list, path) {
  return list.find((s) => s.name === path[0]).start;
}
