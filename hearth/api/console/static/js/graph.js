// The resource graph of a stack, with chosen nested stacks expanded in place: a nested
// stack's resources replace its parent resource, and the parent's dependencies attach to the
// nested stack's first and last resources.

import { link, stackRefFromHref } from "./api.js";

export function nestedRef(resource) {
  return stackRefFromHref(link(resource, "nested"));
}

// stacks: Map of prefix ("" for the top, "web/" for resource web's nested stack) to the
// resource list of that stack; expanded: Set of node ids whose nested stack is shown.
export function buildGraph(stacks, expanded) {
  const nodes = new Map();
  const edges = [];
  const groups = [];
  const ends = new Map();

  const addStack = (resources, prefix, depth) => {
    const local = new Set(resources.map((r) => r.resource_name));
    const needed = new Set();
    for (const r of resources) for (const d of r.required_by || []) if (local.has(d)) needed.add(d);
    for (const r of resources) {
      const id = prefix + r.resource_name;
      const nested = stacks.get(`${id}/`);
      if (expanded.has(id) && nested && nested.length) {
        addStack(nested, `${id}/`, depth + 1);
        const inner = new Set();
        for (const c of nested) for (const d of c.required_by || []) inner.add(d);
        const names = new Set(nested.map((c) => c.resource_name));
        const first = [];
        const last = [];
        for (const c of nested) {
          const child = ends.get(`${id}/${c.resource_name}`);
          if (!inner.has(c.resource_name)) first.push(...child.first);
          if (!(c.required_by || []).some((d) => names.has(d))) last.push(...child.last);
        }
        ends.set(id, { first, last });
        groups.push({ id, resource: r, depth });
      } else {
        nodes.set(id, { id, resource: r, depth, expandable: Boolean(nestedRef(r)) });
        ends.set(id, { first: [id], last: [id] });
      }
    }
    for (const r of resources) {
      for (const d of r.required_by || []) {
        if (!local.has(d)) continue;
        for (const a of ends.get(prefix + r.resource_name).last) {
          for (const b of ends.get(prefix + d).first) edges.push([a, b]);
        }
      }
    }
  };
  addStack(stacks.get("") || [], "", 0);
  for (const g of groups) g.members = [...nodes.keys()].filter((id) => id.startsWith(`${g.id}/`));
  return { nodes, edges, groups };
}
