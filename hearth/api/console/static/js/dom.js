// Small DOM helpers: element building without innerHTML (no markup injection from API data).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key in el && typeof value !== "string") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// Status colour class: IN_PROGRESS / COMPLETE / FAILED / other, from e.g. "CREATE_FAILED".
export function statusKind(status) {
  const s = String(status || "");
  if (s.startsWith("INIT_")) return "init"; // not acted on yet (INIT_COMPLETE included)
  if (s.endsWith("_FAILED")) return "failed";
  if (s.endsWith("_IN_PROGRESS")) return "progress";
  if (s.endsWith("_COMPLETE")) return s.startsWith("DELETE") ? "deleted" : "complete";
  return "init";
}

export function statusBadge(status) {
  return h("span", { class: `status status-${statusKind(status)}`, title: status }, status || "-");
}

export function when(iso) {
  if (!iso) return "-";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

export function errorBox(message) {
  return h("div", { class: "error", role: "alert" }, message || "Unknown error");
}

export function duration(seconds) {
  if (!Number.isFinite(seconds)) return "-";
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return `${m}m ${s}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

// Repeats `fn` every `ms` until `alive()` is false; errors are passed to `onError`.
export function poll(fn, ms, alive, onError) {
  let timer = null;
  const tick = async () => {
    if (!alive()) return;
    try { await fn(); } catch (err) { if (onError) onError(err); }
    if (alive()) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => clearTimeout(timer);
}
