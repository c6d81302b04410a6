"""traversal.chain_lengths: each node's place on the action's critical path (how long the
longest chain of nodes waiting on it is), which orders requests to a busy service."""

from __future__ import annotations

from hearth.engine.running.traversal import ResourceNode, RowNode, chain_lengths, forward


def test_the_longest_chain_after_each_resource() -> None:
    nodes = forward({
        "net": [], "subnet": ["net"], "server_port": ["subnet"], "server": ["server_port"],
        "attachment": ["server", "volume"], "volume": [], "port": ["subnet"],
        "router": [], "interface": ["router", "subnet"], "fip": ["interface", "port"],
    })
    lengths = {node.name: n for node, n in chain_lengths(nodes).items()
               if isinstance(node, ResourceNode)}
    assert lengths == {
        "net": 4, "subnet": 3, "server_port": 2, "server": 1, "attachment": 0, "volume": 1,
        "port": 1, "router": 2, "interface": 1, "fip": 0,
    }


def test_requirements_outside_the_graph_are_ignored() -> None:
    # An update's graph may name rows that are not nodes of this action.
    a, b = ResourceNode("a"), ResourceNode("b")
    assert chain_lengths({a: {RowNode(7)}, b: {a}}) == {a: 1, b: 0}
