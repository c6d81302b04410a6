// The topology tab: the resource graph in SVG, coloured by state and refreshed live; pan
// (drag), zoom (wheel, buttons), search, and nested stacks expanded in place (click "+").

import { clear, errorBox, h, statusBadge, statusKind } from "./dom.js";
import { buildGraph, nestedRef } from "./graph.js";
import { layout, NODE_H, NODE_W } from "./layout.js";

const SVG = "http://www.w3.org/2000/svg";
const REFRESH_MS = 1500;
const LABEL_CHARS = 22;
const READABLE_ZOOM = 0.6;

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export function renderTopology(ctx, stack, host, isAlive) {
  const stacks = new Map();
  const expanded = new Set();
  const refs = new Map([["", stack]]);
  const view = { k: 1, tx: 20, ty: 20 };
  let graph = null;
  let shape = "";
  let drawn = new Map();
  let placed = null;
  let fitted = false;

  const svg = s("svg", { id: "topology-svg", class: "topology" });
  const viewport = s("g", { class: "viewport" });
  svg.append(viewport);
  const detail = h("aside", { class: "node-detail", id: "node-detail" },
    h("p", { class: "muted" }, "Click a resource to see it."));
  const found = h("span", { class: "muted", id: "topology-found" });
  const problem = h("div");
  const search = h("input", { type: "search", id: "topology-search",
    placeholder: "Search resources", oninput: () => highlight() });
  const zoomBy = (f) => { zoomAt(f, svg.clientWidth / 2, svg.clientHeight / 2); };
  clear(host, problem, h("div", { class: "toolbar" }, search, found,
    h("button", { onclick: () => zoomBy(1.25), title: "Zoom in" }, "+"),
    h("button", { onclick: () => zoomBy(0.8), title: "Zoom out" }, "−"),
    h("button", { onclick: () => fit(), id: "topology-fit" }, "Fit"),
    h("span", { class: "legend" }, ["init", "progress", "complete", "failed"].map((k) =>
      h("span", { class: `status status-${k}` }, k)))),
  h("div", { class: "topology-wrap" }, svg, detail));

  const apply = () => viewport.setAttribute("transform",
    `translate(${view.tx},${view.ty}) scale(${view.k})`);
  const zoomAt = (factor, px, py) => {
    const k = Math.min(4, Math.max(0.02, view.k * factor));
    view.tx = px - ((px - view.tx) * k) / view.k;
    view.ty = py - ((py - view.ty) * k) / view.k;
    view.k = k;
    apply();
  };
  const fit = () => {
    if (!placed) return;
    const w = svg.clientWidth || 900;
    const hgt = svg.clientHeight || 560;
    view.k = Math.min(1.2, (w - 40) / Math.max(placed.width, 1),
      (hgt - 40) / Math.max(placed.height, 1));
    view.tx = (w - placed.width * view.k) / 2;
    view.ty = (hgt - placed.height * view.k) / 2;
    apply();
  };
  // A graph too big to read whole starts at a readable zoom at its beginning (the first
  // resources to be created); Fit shows it all.
  const firstView = () => {
    fit();
    if (view.k >= READABLE_ZOOM) return;
    view.k = READABLE_ZOOM;
    view.tx = 20;
    view.ty = 20;
    apply();
  };
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const box = svg.getBoundingClientRect();
    zoomAt(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - box.left, ev.clientY - box.top);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.target.closest(".node")) return;
    drag = { x: ev.clientX, y: ev.clientY, tx: view.tx, ty: view.ty };
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    view.tx = drag.tx + ev.clientX - drag.x;
    view.ty = drag.ty + ev.clientY - drag.y;
    apply();
  });
  svg.addEventListener("pointerup", () => { drag = null; });

  let shown = null;
  const showDetail = (node) => {
    shown = node;
    const r = node.resource;
    clear(detail, h("h3", {}, node.id), statusBadge(r.resource_status),
      h("dl", {}, h("dt", {}, "Type"), h("dd", {}, r.resource_type),
        h("dt", {}, "Reason"), h("dd", {}, r.resource_status_reason || "-"),
        h("dt", {}, "Physical id"), h("dd", {}, r.physical_resource_id || "-"),
        h("dt", {}, "Updated"), h("dd", {}, r.updated_time || r.creation_time || "-")),
      node.expandable ? h("button", { onclick: () => toggle(node.id) },
        expanded.has(node.id) ? "Collapse nested stack" : "Expand nested stack") : null);
  };

  const toggle = async (id) => {
    if (expanded.has(id)) {
      expanded.delete(id);
      for (const key of [...expanded]) if (key.startsWith(`${id}/`)) expanded.delete(key);
    } else {
      expanded.add(id);
      const node = graph.nodes.get(id);
      if (node) refs.set(`${id}/`, nestedRef(node.resource));
    }
    await refresh().catch((err) => clear(problem, errorBox(err.message)));
    if (shown && shown.id === id) showDetail(shown);
  };

  const draw = () => {
    const ids = [...graph.nodes.keys()];
    const t0 = performance.now();
    placed = layout(ids, graph.edges, (id) => id.slice(0, id.lastIndexOf("/") + 1));
    const t1 = performance.now();
    const edgeLayer = s("g", { class: "edges" });
    const groupLayer = s("g", { class: "groups" });
    const nodeLayer = s("g", { class: "nodes" });
    for (const [a, b] of graph.edges) {
      const p = placed.at.get(a);
      const q = placed.at.get(b);
      const x1 = p.x + NODE_W;
      const y1 = p.y + NODE_H / 2;
      const x2 = q.x;
      const y2 = q.y + NODE_H / 2;
      const mid = (x1 + x2) / 2;
      edgeLayer.append(s("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}` }));
    }
    for (const g of graph.groups) {
      const boxes = g.members.map((m) => placed.at.get(m));
      if (!boxes.length) continue;
      // A group around other groups gets a wider margin, so that their frames do not meet.
      const inner = graph.groups.filter((o) => o.id.startsWith(`${g.id}/`)).length;
      const pad = 6 + inner * 10;
      const x = Math.min(...boxes.map((b) => b.x)) - pad;
      const y = Math.min(...boxes.map((b) => b.y)) - pad - 6;
      const w = Math.max(...boxes.map((b) => b.x)) + NODE_W + pad - x;
      const hgt = Math.max(...boxes.map((b) => b.y)) + NODE_H + pad - y;
      const el = s("g", { class: `group st-${statusKind(g.resource.resource_status)}`,
        "data-id": g.id },
      s("rect", { x, y, width: w, height: hgt, rx: 8 }),
      s("text", { x: x + 8, y: y + 4 }, `− ${g.id} (nested stack)`));
      el.addEventListener("click", () => toggle(g.id));
      groupLayer.append(el);
    }
    drawn = new Map();
    for (const node of graph.nodes.values()) {
      const p = placed.at.get(node.id);
      const r = node.resource;
      const label = node.id.length > LABEL_CHARS ? `${node.id.slice(0, LABEL_CHARS - 1)}…` : node.id;
      const el = s("g", { class: `node st-${statusKind(r.resource_status)}`,
        transform: `translate(${p.x},${p.y})`, "data-name": node.id,
        "data-status": r.resource_status },
      s("title", {}, `${node.id}\n${r.resource_type}\n${r.resource_status}`),
      s("rect", { width: NODE_W, height: NODE_H, rx: 5 }),
      s("text", { x: 8, y: 17 }, (node.expandable ? "+ " : "") + label));
      el.addEventListener("click", () => {
        showDetail(node);
        if (node.expandable && !expanded.has(node.id)) toggle(node.id);
      });
      drawn.set(node.id, el);
      nodeLayer.append(el);
    }
    viewport.replaceChildren(groupLayer, edgeLayer, nodeLayer);
    const t2 = performance.now();
    if (!fitted) { firstView(); fitted = true; }
    highlight();
    svg.dataset.nodes = String(ids.length);
    // Figures for the benchmark (python -m bench console): when the graph was painted.
    const figures = { nodes: ids.length, edges: graph.edges.length,
      layoutMs: t1 - t0, renderMs: t2 - t1, paintedAt: null };
    window.hearthTopology = figures;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      figures.paintedAt = performance.now();
    }));
  };

  const recolor = () => {
    for (const node of graph.nodes.values()) {
      const el = drawn.get(node.id);
      const status = node.resource.resource_status;
      if (el.dataset.status === status) continue;
      el.dataset.status = status;
      el.setAttribute("class", `node st-${statusKind(status)}`);
      el.querySelector("title").textContent =
        `${node.id}\n${node.resource.resource_type}\n${status}`;
    }
  };

  function highlight() {
    const needle = search.value.trim().toLowerCase();
    let first = null;
    let count = 0;
    for (const [id, el] of drawn) {
      const hit = needle && id.toLowerCase().includes(needle);
      el.classList.toggle("match", Boolean(hit));
      el.classList.toggle("dim", Boolean(needle) && !hit);
      if (hit) { count += 1; first ||= id; }
    }
    clear(found, needle ? `${count} found` : `${drawn.size} resources`);
    if (first && placed) {
      const p = placed.at.get(first);
      view.k = Math.max(view.k, 0.8);
      view.tx = svg.clientWidth / 2 - (p.x + NODE_W / 2) * view.k;
      view.ty = svg.clientHeight / 2 - (p.y + NODE_H / 2) * view.k;
      apply();
    }
  }

  const refresh = async () => {
    const keys = ["", ...[...expanded].map((id) => `${id}/`)];
    const lists = await Promise.all(keys.map((key) => {
      const ref = refs.get(key);
      return ctx.api.get(`${ctx.api.stackPath(ref)}/resources`).then((got) => got.resources);
    }));
    stacks.clear();
    keys.forEach((key, i) => stacks.set(key, lists[i]));
    graph = buildGraph(stacks, expanded);
    const next = [...graph.nodes.values()].map((n) => `${n.id}${n.expandable ? "+" : ""}`)
      .join("|") + `#${graph.edges.length}`;
    if (next !== shape) { shape = next; draw(); } else recolor();
    clear(problem);
  };

  const loop = async () => {
    try { await refresh(); } catch (err) { clear(problem, errorBox(err.message)); }
    if (isAlive()) setTimeout(loop, REFRESH_MS);
  };
  loop();
}
