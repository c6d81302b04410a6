"""What a create and a delete leave on disk, whichever way the steps ran (on the loop for types
that never block, in workers for others) and however their writes were grouped."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from hearth.engine.engine import Engine
from hearth.store import resources as resource_store
from hearth.store.models import ResourcePropertiesData
from tests.integration.engine.conftest import CTX, events, resources, stack_row, wait_state

N = 60


def _template() -> dict[str, Any]:
    body: dict[str, Any] = {f"none{i}": {"type": "OS::Heat::None"} for i in range(N)}
    body["word"] = {"type": "OS::Heat::RandomString", "properties": {"length": 12}}
    # TestResource blocks (its steps run in a worker); it depends on the loop-run ones.
    body["last"] = {"type": "OS::Heat::TestResource",
                    "properties": {"value": {"get_attr": ["word", "value"]}},
                    "depends_on": [f"none{i}" for i in range(N)]}
    return {"heat_template_version": "2021-04-16", "resources": body,
            "outputs": {"word": {"value": {"get_attr": ["word", "value"]}}}}


def test_every_state_change_event_and_data_row_is_written(engine: Engine) -> None:
    identity = engine.create_stack(CTX, "s", _template())
    assert wait_state(engine, identity)[:2] == ("CREATE", "COMPLETE")
    rows = resources(engine, identity)
    assert {(r.action, r.status) for r in rows.values()} == {("CREATE", "COMPLETE")}
    # Every resource: IN_PROGRESS then COMPLETE, in that order, and nothing else.
    seen: dict[str, list[str]] = {}
    for name, action, status, _ in events(engine, identity):
        if name != "s":
            seen.setdefault(name, []).append(f"{action}_{status}")
    assert seen == {name: ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"] for name in rows}
    with engine.core.db.session() as session:
        data = {
            name: resource_store.data_all(session, row.id, engine.core.encryptor)
            for name, row in rows.items()
        }
        stored_props = {
            row.rsrc_prop_data_id: session.get(ResourcePropertiesData, row.rsrc_prop_data_id)
            for row in rows.values() if row.rsrc_prop_data_id is not None
        }
        all_props = list(session.scalars(select(ResourcePropertiesData)))
    assert all(data[f"none{i}"] == {"is_placeholder": "True"} for i in range(N))
    word = data["word"]["value"]
    assert len(word) == 12
    # The value dependants read is the one stored (the blocking type got it from the loop-run).
    assert data["last"]["value"] == word
    assert rows[f"none{0}"].physical_resource_id
    # Properties rows only for non-empty properties, as Heat stores them.
    assert rows["none0"].rsrc_prop_data_id is None
    assert rows["word"].rsrc_prop_data_id in stored_props
    assert len(all_props) == 2
    assert [o["output_value"] for o in stack_row(engine, identity).outputs] == [word]

    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")
    deleted: dict[str, list[str]] = {}
    for name, action, status, _ in events(engine, identity):
        if name != "s" and action == "DELETE":
            deleted.setdefault(name, []).append(status)
    assert deleted == {name: ["IN_PROGRESS", "COMPLETE"] for name in rows}
