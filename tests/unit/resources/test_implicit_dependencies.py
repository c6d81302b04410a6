"""Implicit dependencies (Heat's add_dependencies): what plugins add to the graph."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hearth.engine.stack_builder import BoundStack, add_implicit_dependencies
from hearth.engine.stack_source import StackSource
from hearth.resources.base import Resource
from hearth.resources.dependencies import ResourceShape
from hearth.resources.registry import PluginRegistry
from hearth.resources.schema import PropertySchema
from hearth.template.parameters import StackIdentity


class Leaf(Resource):
    properties_schema = {"network": PropertySchema(PropertySchema.STRING)}


class Waiter(Resource):
    """Waits for every Leaf naming the same network."""

    properties_schema = {"network": PropertySchema(PropertySchema.STRING)}

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        mine = shapes[name].properties.get("network")
        return [other for other, shape in shapes.items()
                if shape.type == "Test::Leaf" and shape.properties.get("network") == mine]


def bound(resources: dict[str, object]) -> BoundStack:
    plugins = PluginRegistry({"Test::Leaf": Leaf, "Test::Waiter": Waiter}, catalog={})
    tmpl = {"heat_template_version": "2018-08-31", "resources": resources}
    return BoundStack(StackSource(tmpl), StackIdentity("t", "s", "id"), plugins=plugins,
                      global_env=plugins.global_environment())


def test_a_reference_and_a_literal_each_match_their_like() -> None:
    stack = bound({
        "net": {"type": "Test::Leaf"},
        "a": {"type": "Test::Leaf", "properties": {"network": {"get_resource": "net"}}},
        "b": {"type": "Test::Leaf", "properties": {"network": "public"}},
        "w1": {"type": "Test::Waiter", "properties": {"network": {"get_resource": "net"}}},
        "w2": {"type": "Test::Waiter", "properties": {"network": "public"}},
    })
    assert stack.graph["w1"] == {"net", "a"}
    assert stack.graph["w2"] == {"b"}


def test_an_edge_that_closes_a_cycle_is_left_out() -> None:
    graph = {"a": {"b"}, "b": set(), "c": set()}
    add_implicit_dependencies(graph, {"b": {"a", "c"}})
    assert graph == {"a": {"b"}, "b": {"c"}, "c": set()}
