"""The graph of one stack action: which units of work there are and what each waits for.

A node is a ``ResourceNode``, bringing a resource of the template to the action's target
state, or a ``RowNode``, cleaning up (deleting) one stored resource row. The graph is stored
with the stack (``current_deps``) so that another engine can continue the action; there a node
is ``["u", name]`` or ``["c", row_id]``, the form every engine version reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from hearth.engine import states
from hearth.engine.running.records import ResourceRecord


# Tuples, not dataclasses: a large action's graph hashes and compares its nodes constantly,
# and a tuple does that in C (a name is a str and a row id an int: the two never compare equal).
class ResourceNode(NamedTuple):
    """Bring the template's resource ``name`` to the action's target state."""

    name: str


class RowNode(NamedTuple):
    """Clean up (delete) the stored resource row ``row_id``."""

    row_id: int


Node = ResourceNode | RowNode


def forward(graph: Mapping[str, Iterable[str]]) -> dict[Node, set[Node]]:
    """Create, adopt, resume, check, snapshot: a resource after what it needs."""
    return {
        ResourceNode(name): {ResourceNode(dep) for dep in deps} for name, deps in graph.items()
    }


def reverse_rows(records: Iterable[ResourceRecord]) -> dict[Node, set[Node]]:
    """Delete, suspend: a resource before what it needs (from each row's stored requires),
    and a replacement before the row it replaced."""
    rows = list(records)
    nodes = {r.id: RowNode(r.id) for r in rows}
    out: dict[Node, set[Node]] = {node: set() for node in nodes.values()}
    for row in rows:
        for req in row.requires:
            if req in nodes and req != row.id:
                out[nodes[req]].add(nodes[row.id])
        if row.replaces in nodes and row.replaces != row.id:
            out[nodes[row.replaces]].add(nodes[row.id])
    return out


def stored_forward(records: Iterable[ResourceRecord]) -> dict[Node, set[Node]]:
    """Resume/check/snapshot over stored rows: a resource after the rows it requires."""
    rows = list(records)
    by_id = {r.id: r for r in rows}
    return {
        ResourceNode(r.name): {
            ResourceNode(by_id[q].name) for q in r.requires if q in by_id and q != r.id
        }
        for r in rows
    }


def update(
    new_graph: Mapping[str, Iterable[str]],
    current: Mapping[str, ResourceRecord],
    leftovers: Iterable[ResourceRecord],
) -> dict[Node, set[Node]]:
    """Update-like actions (update, rollback, restore), first phase.

    Every resource of the new template is updated after what it needs in the new template.
    Rows not kept (resources removed from the template, replaced rows left from earlier,
    replacements that were not kept) are deleted in reverse order of their stored
    dependencies, and only after every kept resource that used to depend on them, or that
    replaced them, has been updated.
    """
    nodes = forward(new_graph)
    old_rows = list(leftovers)
    nodes.update(reverse_rows(old_rows))
    old_ids = {r.id for r in old_rows}
    for name, record in current.items():
        node = ResourceNode(name)
        if node not in nodes:
            continue
        for req in (*record.requires, record.replaces):
            if req in old_ids:
                nodes[RowNode(req)].add(node)
    return nodes


def node_to_json(node: Node) -> list[Any]:
    return ["u", node.name] if isinstance(node, ResourceNode) else ["c", node.row_id]


def node_from_json(data: Any) -> Node:
    kind, key = data
    if kind == "u":
        return ResourceNode(str(key))
    if kind == "c":
        return RowNode(int(key))
    raise ValueError(f"unknown graph node kind {kind!r}")


def to_json(nodes: Mapping[Node, Iterable[Node]]) -> list[list[Any]]:
    return [[node_to_json(node), [node_to_json(r) for r in reqs]] for node, reqs in nodes.items()]


def stored_form(spec: Mapping[str, Any], nodes: Mapping[Node, Iterable[Node]]) -> dict[str, Any]:
    """A traversal as the stack stores it (``current_deps``): its run's spec and its graph."""
    return {"spec": dict(spec), "nodes": to_json(nodes)}


def named(
    nodes: dict[Node, set[Node]], rows: list[ResourceRecord]
) -> dict[Node, set[Node]]:
    """Row nodes as the resource nodes of those rows (suspend works on current resources)."""
    names = {r.id: r.name for r in rows}

    def by_name(node: Node) -> ResourceNode:
        return ResourceNode(names[node.row_id]) if isinstance(node, RowNode) else node

    return {by_name(node): {by_name(r) for r in reqs} for node, reqs in nodes.items()}


def done_before(
    nodes: Iterable[Node],
    rows: Mapping[int, ResourceRecord],
    current: Mapping[str, ResourceRecord],
    traversal_id: str,
    target: str,
) -> set[Node]:
    """Nodes a previous engine finished in this traversal (an action continued)."""
    done: set[Node] = set()
    for node in nodes:
        if isinstance(node, RowNode):
            row = rows.get(node.row_id)
            if row is None or row.state == (states.DELETE, states.COMPLETE):
                done.add(node)
        else:
            record = current.get(node.name)
            if (
                record is not None
                and record.traversal_id == traversal_id
                and record.status == states.COMPLETE
                and record.action in (target, states.CREATE)
            ):
                done.add(node)
    return done


def chain_lengths(nodes: Mapping[Node, Iterable[Node]]) -> dict[Node, int]:
    """For each node, how many nodes the longest chain of those waiting on it holds (0: none
    waits on it): its place on the action's critical path, for ordering requests to a busy
    service. ``nodes`` maps a node to what it waits for; the graph has no cycle."""
    waiting_on: dict[Node, list[Node]] = {node: [] for node in nodes}
    pending = {node: 0 for node in nodes}
    for node, needs in nodes.items():
        for need in needs:
            if need in waiting_on:
                waiting_on[need].append(node)
                pending[need] += 1
    # From the nodes nothing waits on, back towards the first ones.
    ready = [node for node, count in pending.items() if count == 0]
    length: dict[Node, int] = {}
    while ready:
        node = ready.pop()
        length[node] = max((length[w] + 1 for w in waiting_on[node]), default=0)
        for need in nodes[node]:
            if need in pending:
                pending[need] -= 1
                if pending[need] == 0:
                    ready.append(need)
    return length
