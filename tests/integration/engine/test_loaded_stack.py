"""A new stack's create starts from what its engine just stored (``loaded_stack.fresh``),
not from reading it back: what the run starts from must be what a read gives, hidden
parameters, files, a child's facade and its resource rows included."""

from __future__ import annotations

import json
from typing import Any

from hearth.engine.engine import Engine
from hearth.engine.running import loaded_stack
from hearth.engine.running.loaded_stack import LoadedStack
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.template.environment import Environment
from hearth.template.parameters import StackIdentity
from tests.integration.engine.conftest import CTX, wait_state

CHILD = {
    "heat_template_version": "2018-08-31",
    "parameters": {"size": {"type": "number", "hidden": True},
                   "label": {"type": "string"}},
    "resources": {
        "inner": {"type": "OS::Heat::Value", "properties": {
            "value": {"list_join": ["-", [{"get_param": "label"},
                                          {"resource_facade": "deletion_policy"}]]}}},
        "second": {"type": "OS::Heat::None", "depends_on": ["inner"]},
    },
    "outputs": {"out": {"value": {"get_attr": ["inner", "value"]}}},
}
ROOT = {
    "heat_template_version": "2018-08-31",
    "parameters": {"password": {"type": "string", "hidden": True}},
    "resources": {
        "child": {"type": "child.yaml", "deletion_policy": "Retain",
                  "metadata": {"k": {"get_param": "password"}},
                  "properties": {"size": 3, "label": "lbl"}},
        "plain": {"type": "OS::Heat::None"},
    },
    "outputs": {"out": {"value": {"get_attr": ["child", "out"]}}},
}


def _comparable(loaded: LoadedStack) -> dict[str, Any]:
    # The rows as created (their states, and the stack's traversal, move on in the create).
    seen = {k: v for k, v in vars(loaded).items()
            if k not in ("rows", "data", "properties", "traversal_id", "traversal_stored",
                         "facade", "graph", "bound")}
    # A read facade is read when first asked: compared by its answers.
    seen["facade"] = loaded.facade and {
        what: loaded.facade(what) for what in ("metadata", "deletion_policy", "update_policy")}
    seen["rows"] = sorted((r.id, r.name, r.resource_type) for r in loaded.rows)
    return seen


def test_a_new_stack_starts_from_what_a_read_gives(engine: Engine) -> None:
    started: dict[str, LoadedStack] = {}
    launch = engine.actions.launch

    def recording(stack_id: str, spec: Any, **kw: Any) -> Any:
        if kw.get("loaded") is not None:
            started[stack_id] = kw["loaded"]
        return launch(stack_id, spec, **kw)

    engine.actions.launch = recording  # type: ignore[method-assign]
    identity = engine.create_stack(
        CTX, "fresh", ROOT, params={"password": "s3cret"},
        files={"child.yaml": json.dumps(CHILD)},
    )
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    root_id = identity["stack_id"]
    assert len(started) == 2 and root_id in started  # the root and its child
    for stack_id, fresh in started.items():
        read = loaded_stack.read(engine.core.db, engine.core.encryptor, stack_id)
        assert _comparable(fresh) == _comparable(read), stack_id
        # The run's traversal was stored with the stack, and is the one its resources ran in.
        assert fresh.traversal_stored and not read.traversal_stored
        assert {r.traversal_id for r in read.rows} == {fresh.traversal_id}, stack_id
        # The definition's graph came with it: the one the stored definition gives.
        stored = BoundStack(
            StackSource(read.template, read.files, read.environment),
            StackIdentity(read.tenant, read.name, stack_id), plugins=engine.core.plugins,
            global_env=engine.core.global_env, facade=read.facade,
        )
        assert fresh.graph == stored.graph and read.graph is None, stack_id
        if fresh.bound is not None:
            # The validated definition handed to the run is the one a read gives.
            assert fresh.bound.env.env_as_dict() == stored.env.env_as_dict(), stack_id
            assert {n: fresh.bound.frozen_definition(n) for n in fresh.bound.resources} == {
                n: stored.frozen_definition(n) for n in stored.resources}, stack_id
            assert fresh.bound.checked_children is None, stack_id
    child = next(v for k, v in started.items() if k != root_id)
    # A child's definition was built and validated by its parent's step: handed on.
    assert child.bound is not None
    assert child.environment["parameters"] == {"size": 3, "label": "lbl"}
    assert child.facade is not None and child.facade("deletion_policy") == "Retain"
    assert started[root_id].environment["parameters"] == {"password": "s3cret"}
    shown = engine.show_stack(CTX, identity)[0]
    assert [o["output_value"] for o in shown["outputs"]] == ["lbl-Retain"]



def _fresh_with(engine: Engine, template: dict[str, Any], environment: dict[str, Any]) -> Any:
    """What ``fresh`` hands the run of a stack whose definition was built from these."""
    source = StackSource(template, {}, environment)
    bound = BoundStack(source, StackIdentity("t", "s", "id-1"), plugins=engine.core.plugins,
                       global_env=engine.core.global_env)
    bound.validate()
    return bound, loaded_stack.fresh(
        engine.core.db, engine.core.encryptor, fields={"id": "id-1", "name": "s",
                                                       "raw_template_id": 1},
        template=template, files={}, files_id=1, environment=environment, rows=[],
        facade=None, graph=bound.graph, bound=bound,
    )


def test_a_definition_is_handed_to_the_run_only_if_storing_leaves_its_source_as_it_was(
    engine: Engine,
) -> None:
    plain = {"heat_template_version": "2018-08-31",
             "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "x"}}}}
    env = Environment({}).env_as_dict()
    bound, loaded = _fresh_with(engine, plain, env)
    assert loaded.bound is bound and bound.checked_children is None
    # Stored, the integer key becomes a string: the run parses the stored form again.
    int_key = {"heat_template_version": "2018-08-31",
               "resources": {"v": {"type": "OS::Heat::Value",
                                   "properties": {"value": {1: "one"}}}}}
    _, loaded = _fresh_with(engine, int_key, env)
    assert loaded.bound is None
    assert loaded.template["resources"]["v"]["properties"]["value"] == {"1": "one"}
    # An environment that storing changes (one without the hidden parameters' names).
    _, loaded = _fresh_with(engine, plain, {"parameters": {}})
    assert loaded.bound is None
