"""Software configs and deployments through the engine calls, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

from hearth.common.context import RequestContext
from hearth.common.errors import (
    Invalid,
    InvalidRestrictedAction,
    InvalidSchemaError,
    NotFound,
    RequestLimitExceeded,
)
from hearth.engine.services.software import PlainValueError, SoftwareService
from hearth.store.db import Database
from hearth.store.migrate import ensure_schema
from hearth.store.models import SoftwareConfig

A = RequestContext(project_id="project-a", user_id="u-a", username="alice")
B = RequestContext(project_id="project-b", user_id="u-b", username="bob")
ADMIN = RequestContext.admin("admin-project")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
SERVER = "5d0c4e38-4a4e-4f0a-9a4b-8a3c3f0e2b11"
OTHER_SERVER = "7f6e1c2a-2b3c-4d5e-8f90-a1b2c3d4e5f6"


@pytest.fixture
def db(engine_url: str) -> Iterator[Database]:
    ensure_schema(engine_url)
    database = Database(engine_url)
    yield database
    database.dispose()


@pytest.fixture
def sw(db: Database) -> SoftwareService:
    return SoftwareService(db)


def make_config(
    sw: SoftwareService, ctx: RequestContext = A, name: str = "cfg", **kwargs: Any
) -> dict[str, Any]:
    args: dict[str, Any] = {
        "group": "script",
        "config": "#!/bin/sh\necho hi",
        "inputs": [],
        "outputs": [],
        "options": {},
    }
    args.update(kwargs)
    return sw.create_software_config(ctx, name=name, **args)


def make_deployment(
    sw: SoftwareService,
    config_id: str,
    ctx: RequestContext = A,
    server_id: str = SERVER,
    **kwargs: Any,
) -> dict[str, Any]:
    args: dict[str, Any] = {
        "input_values": {},
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "status_reason": "Deploy data available",
        "stack_user_project_id": None,
    }
    args.update(kwargs)
    return sw.create_software_deployment(ctx, server_id, config_id, **args)


# --- configs ---------------------------------------------------------------------------------


def test_config_is_stored_with_declarations_normalised_and_shown_as_created(
    sw: SoftwareService,
) -> None:
    created = make_config(
        sw,
        name="config_heat",
        group="Heat::Chef",
        config={"foo": "bar"},
        inputs=[{"name": "mode"}, {"name": "port", "type": "Number", "default": "80"}],
        outputs=[{"name": "endpoint"}, {"name": "err", "error_output": True}],
        options={"opt": 1},
    )
    assert set(created) == {
        "id", "name", "group", "config", "inputs", "outputs", "options", "creation_time",
    }
    assert ISO.match(created["creation_time"])
    assert created["name"] == "config_heat"
    assert created["group"] == "Heat::Chef"
    assert created["config"] == {"foo": "bar"}
    assert created["inputs"] == [
        {"name": "mode", "type": "String"},
        {"name": "port", "type": "Number", "default": 80},
    ]
    assert created["outputs"] == [
        {"name": "endpoint", "type": "String", "error_output": False},
        {"name": "err", "type": "String", "error_output": True},
    ]
    assert created["options"] == {"opt": 1}
    assert sw.show_software_config(A, created["id"]) == created

    other = make_config(sw, name="config_heat")
    assert other["id"] != created["id"]


def test_missing_lists_default_to_empty_and_group_is_kept_as_given(sw: SoftwareService) -> None:
    created = sw.create_software_config(A, None, "bare", "echo", None, None, None)
    assert created["group"] is None
    assert (created["inputs"], created["outputs"], created["options"]) == ([], [], {})


@pytest.mark.parametrize(
    ("inputs", "outputs", "heat_type", "message"),
    [
        ([{"type": "String"}], [], "ValueError", "Property name not assigned"),
        ([{"name": "x", "bogus": 1}], [], "ValueError", "Unknown Property bogus"),
        ([{"name": "x", "type": "Bogus"}], [], "ValueError", '"Bogus" is not an allowed value'),
        ([], [{"name": "x", "value": 1}], "ValueError", "Unknown Property value"),
        ("x", [], "TypeError", "must be in a list"),
        ([], ["x"], "TypeError", "must be a dict"),
    ],
)
def test_bad_declarations_are_refused_and_nothing_is_stored(
    sw: SoftwareService, inputs: Any, outputs: Any, heat_type: str, message: str
) -> None:
    with pytest.raises(PlainValueError) as info:
        make_config(sw, inputs=inputs, outputs=outputs)
    assert info.value.heat_type == heat_type
    assert info.value.http_status == 400
    assert message in str(info.value)
    assert sw.list_software_configs(A) == []


def test_default_of_an_unknown_type_is_a_schema_error(sw: SoftwareService) -> None:
    with pytest.raises(InvalidSchemaError, match=r"Invalid type \(Bogus\)"):
        make_config(sw, inputs=[{"name": "x", "type": "Bogus", "default": 1}])


def test_unknown_config_is_not_found(sw: SoftwareService) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    with pytest.raises(NotFound) as info:
        sw.show_software_config(A, missing)
    assert str(info.value) == f"Software config with id {missing} not found"
    assert info.value.http_status == 404
    with pytest.raises(NotFound):
        sw.delete_software_config(A, missing)


def test_deleted_config_is_gone(sw: SoftwareService) -> None:
    config = make_config(sw)
    sw.delete_software_config(A, config["id"])
    with pytest.raises(NotFound):
        sw.show_software_config(A, config["id"])
    assert sw.list_software_configs(A) == []


def _age(db: Database, ids: list[str]) -> None:
    """Give the configs distinct creation times, in list order."""
    start = datetime(2020, 1, 1, 12, 0, 0)
    with db.session() as session:
        for i, config_id in enumerate(ids):
            session.execute(
                update(SoftwareConfig)
                .where(SoftwareConfig.id == config_id)
                .values(created_at=start + timedelta(minutes=i))
            )


def test_list_is_newest_first_summaries_paged_by_marker(
    sw: SoftwareService, db: Database
) -> None:
    ids = [make_config(sw, name=f"c{i}")["id"] for i in range(5)]
    _age(db, ids)

    listed = sw.list_software_configs(A)
    assert [c["id"] for c in listed] == ids[::-1]
    assert listed[0] == {
        "id": ids[4], "name": "c4", "group": "script", "creation_time": "2020-01-01T12:04:00Z",
    }

    first = sw.list_software_configs(A, limit=2)
    assert [c["id"] for c in first] == [ids[4], ids[3]]
    second = sw.list_software_configs(A, limit=2, marker=first[-1]["id"])
    assert [c["id"] for c in second] == [ids[2], ids[1]]
    last = sw.list_software_configs(A, limit=2, marker=second[-1]["id"])
    assert [c["id"] for c in last] == [ids[0]]
    assert sw.list_software_configs(A, marker=ids[0]) == []
    # A marker that names nothing starts at the beginning, as in Heat.
    assert len(sw.list_software_configs(A, limit=3, marker="no-such-config")) == 3


def test_admin_lists_every_project_with_its_project(sw: SoftwareService) -> None:
    mine = make_config(sw, A, name="a")
    theirs = make_config(sw, B, name="b")

    assert [c["id"] for c in sw.list_software_configs(A)] == [mine["id"]]
    assert "project" not in sw.list_software_configs(A)[0]

    listed = {c["id"]: c["project"] for c in sw.list_software_configs(ADMIN)}
    assert listed == {mine["id"]: "project-a", theirs["id"]: "project-b"}
    everyone = sw.list_software_configs(B, tenant_safe=False)
    assert {c["id"]: c["project"] for c in everyone} == listed
    # An admin reaches any project's config by id.
    assert sw.show_software_config(ADMIN, theirs["id"])["name"] == "b"


def test_config_limit_per_project(db: Database) -> None:
    sw = SoftwareService(db, max_configs_per_tenant=1)
    make_config(sw)
    with pytest.raises(RequestLimitExceeded, match="maximum software configs per tenant, 1"):
        make_config(sw)
    make_config(sw, B)  # another project has its own allowance
    make_config(sw, ADMIN)
    make_config(sw, ADMIN)  # admins are exempt
    assert len(sw.list_software_configs(A)) == 1


# --- tenant isolation ------------------------------------------------------------------------


def test_other_projects_configs_and_deployments_are_invisible(sw: SoftwareService) -> None:
    config = make_config(sw, A)
    deployment = make_deployment(sw, config["id"], A)

    with pytest.raises(NotFound, match=f"Software config with id {config['id']} not found"):
        sw.show_software_config(B, config["id"])
    with pytest.raises(NotFound):
        sw.delete_software_config(B, config["id"])
    with pytest.raises(NotFound, match=f"Deployment with id {deployment['id']} not found"):
        sw.show_software_deployment(B, deployment["id"])
    with pytest.raises(NotFound):
        sw.update_software_deployment(B, deployment["id"], status="COMPLETE")
    with pytest.raises(NotFound):
        sw.delete_software_deployment(B, deployment["id"])
    with pytest.raises(Invalid, match=f"Config with id {config['id']} not found"):
        make_deployment(sw, config["id"], B)

    assert sw.list_software_configs(B) == []
    assert sw.list_software_deployments(B) == []
    assert sw.list_software_deployments(B, server_id=SERVER) == []
    assert sw.metadata_software_deployments(B, SERVER) == []

    # Nothing of A's changed.
    assert sw.show_software_deployment(A, deployment["id"]) == deployment
    assert sw.show_software_config(A, config["id"]) == config


def test_stack_user_project_sees_its_deployments_but_not_the_configs(
    sw: SoftwareService,
) -> None:
    config = make_config(sw, A, name="first")
    deployment = make_deployment(sw, config["id"], A, stack_user_project_id="project-b")

    assert sw.show_software_deployment(B, deployment["id"]) == deployment
    assert [d["id"] for d in sw.list_software_deployments(B)] == [deployment["id"]]
    assert [c["name"] for c in sw.metadata_software_deployments(B, SERVER)] == ["first"]
    with pytest.raises(NotFound):
        sw.show_software_config(B, config["id"])


# --- deployments -----------------------------------------------------------------------------


def test_config_in_use_cannot_be_deleted(sw: SoftwareService) -> None:
    config = make_config(sw)
    deployment = make_deployment(sw, config["id"])

    with pytest.raises(InvalidRestrictedAction) as info:
        sw.delete_software_config(A, config["id"])
    assert str(info.value) == (
        f"Software config with id {config['id']} can not be deleted as it is referenced."
    )
    assert sw.show_software_config(A, config["id"]) == config

    sw.delete_software_deployment(A, deployment["id"])
    sw.delete_software_config(A, config["id"])
    with pytest.raises(NotFound):
        sw.show_software_config(A, config["id"])


def test_deployment_create_show_update_list_delete(sw: SoftwareService) -> None:
    config = make_config(sw, inputs=[{"name": "mode"}])
    other_config = make_config(sw, name="other")
    created = make_deployment(
        sw, config["id"], input_values={"mode": "standalone"}, stack_user_project_id="sup",
    )
    assert created == {
        "id": created["id"],
        "server_id": SERVER,
        "input_values": {"mode": "standalone"},
        "output_values": None,
        "action": "CREATE",
        "status": "IN_PROGRESS",
        "status_reason": "Deploy data available",
        "config_id": config["id"],
        "creation_time": created["creation_time"],
    }
    assert ISO.match(created["creation_time"])
    assert sw.show_software_deployment(A, created["id"]) == created

    elsewhere = make_deployment(sw, other_config["id"], server_id=OTHER_SERVER)
    assert [d["id"] for d in sw.list_software_deployments(A)] == [created["id"], elsewhere["id"]]
    assert sw.list_software_deployments(A, server_id=SERVER) == [created]
    assert sw.list_software_deployments(A, server_id=OTHER_SERVER) == [elsewhere]
    assert sw.list_software_deployments(A, server_id="no-such-server") == []

    updated = sw.update_software_deployment(
        A, created["id"], config_id=other_config["id"], input_values=None,
        output_values={"result": "ok"}, action="UPDATE", status="COMPLETE",
        status_reason="Done!", updated_at="2024-05-01T10:20:30+02:00",
    )
    assert updated["config_id"] == other_config["id"]
    assert updated["input_values"] == {"mode": "standalone"}  # empty values change nothing
    assert updated["output_values"] == {"result": "ok"}
    assert (updated["action"], updated["status"]) == ("UPDATE", "COMPLETE")
    assert updated["status_reason"] == "Done!"
    assert updated["updated_time"] == "2024-05-01T08:20:30Z"
    assert sw.show_software_deployment(A, created["id"]) == updated

    # Without updated_at, the update time is now.
    again = sw.update_software_deployment(A, created["id"], status="FAILED", status_reason="")
    assert again["status"] == "FAILED"
    assert again["status_reason"] == "Done!"
    assert ISO.match(again["updated_time"]) and again["updated_time"] > "2024-05-01T08:20:30Z"

    with pytest.raises(Invalid, match="Config with id nope not found"):
        sw.update_software_deployment(A, created["id"], config_id="nope")

    sw.delete_software_deployment(A, created["id"])
    with pytest.raises(NotFound, match=f"Deployment with id {created['id']} not found"):
        sw.show_software_deployment(A, created["id"])
    with pytest.raises(NotFound):
        sw.delete_software_deployment(A, created["id"])
    assert sw.list_software_deployments(A) == [elsewhere]
    # The config outlives its deployments.
    assert sw.show_software_config(A, config["id"])["id"] == config["id"]


def test_deployment_with_given_id_and_bad_arguments(sw: SoftwareService) -> None:
    config = make_config(sw)
    given = "11111111-2222-3333-4444-555555555555"
    assert make_deployment(sw, config["id"], deployment_id=given)["id"] == given

    with pytest.raises(Invalid, match="Config with id missing not found"):
        make_deployment(sw, "missing")
    with pytest.raises(Invalid, match="should be no more than 64 characters"):
        make_deployment(sw, config["id"], stack_user_project_id="a" * 65)
    with pytest.raises(PlainValueError, match="server_id must be specified"):
        make_deployment(sw, config["id"], server_id="")
    assert [d["id"] for d in sw.list_software_deployments(A)] == [given]


def test_deployment_limit_per_project(db: Database) -> None:
    sw = SoftwareService(db, max_deployments_per_tenant=1)
    config = make_config(sw)
    make_deployment(sw, config["id"])
    with pytest.raises(RequestLimitExceeded, match="maximum software deployments per tenant"):
        make_deployment(sw, config["id"])


def test_metadata_lists_the_servers_configs_by_config_name(sw: SoftwareService) -> None:
    second = make_config(sw, name="02_second", group="mygroup")
    first = make_config(sw, name="01_first", group="myothergroup", inputs=[{"name": "a"}])
    unrelated = make_config(sw, name="00_other_server")
    make_deployment(sw, second["id"])
    make_deployment(sw, first["id"])
    make_deployment(sw, unrelated["id"], server_id=OTHER_SERVER)

    metadata = sw.metadata_software_deployments(A, SERVER)
    assert metadata == [first, second]
    assert [m["group"] for m in metadata] == ["myothergroup", "mygroup"]

    assert sw.metadata_software_deployments(A, "no-such-server") == []
    with pytest.raises(PlainValueError, match="server_id must be specified"):
        sw.metadata_software_deployments(A, "")


# --- signals from the agent ------------------------------------------------------------------


def test_signal_records_outputs_and_completes(sw: SoftwareService) -> None:
    config = make_config(sw, outputs=[{"name": "foo"}])
    deployment = make_deployment(sw, config["id"])

    event = sw.signal_software_deployment(
        A, deployment["id"], {"foo": "bar", "deploy_status_code": 0, "ignored": 1}, None
    )
    assert event == f"deployment {deployment['id']} succeeded"
    shown = sw.show_software_deployment(A, deployment["id"])
    assert (shown["status"], shown["status_reason"]) == ("COMPLETE", "Outputs received")
    assert shown["output_values"] == {
        "foo": "bar", "deploy_status_code": 0, "deploy_stdout": None, "deploy_stderr": None,
    }
    assert ISO.match(shown["updated_time"])

    # Only an IN_PROGRESS deployment takes a signal.
    assert sw.signal_software_deployment(A, deployment["id"], {"foo": "baz"}) is None
    assert sw.show_software_deployment(A, deployment["id"]) == shown


def test_signal_with_non_zero_status_code_fails(sw: SoftwareService) -> None:
    config = make_config(sw, outputs=[{"name": "foo"}])
    deployment = make_deployment(sw, config["id"])
    event = sw.signal_software_deployment(
        A, deployment["id"],
        {"foo": "bar", "deploy_status_code": -1, "deploy_stderr": "Its gone Pete Tong"},
    )
    assert event == f"deployment {deployment['id']} failed (-1)"
    shown = sw.show_software_deployment(A, deployment["id"])
    assert shown["status"] == "FAILED"
    assert shown["status_reason"] == (
        "deploy_status_code : Deployment exited with non-zero status code: -1"
    )
    assert shown["output_values"]["deploy_stderr"] == "Its gone Pete Tong"


def test_signal_with_an_error_output_fails(sw: SoftwareService) -> None:
    config = make_config(sw, outputs=[{"name": "foo", "error_output": True}])
    deployment = make_deployment(sw, config["id"])
    event = sw.signal_software_deployment(
        A, deployment["id"], {"foo": "bar", "deploy_status_code": -1}
    )
    assert event == f"deployment {deployment['id']} failed"
    shown = sw.show_software_deployment(A, deployment["id"])
    assert shown["status"] == "FAILED"
    assert set(shown["status_reason"].split(", ")) == {
        "foo : bar",
        "deploy_status_code : Deployment exited with non-zero status code: -1",
    }


def test_signal_for_unknown_or_foreign_deployment(sw: SoftwareService) -> None:
    config = make_config(sw)
    deployment = make_deployment(sw, config["id"])
    with pytest.raises(NotFound):
        sw.signal_software_deployment(B, deployment["id"], {})
    with pytest.raises(PlainValueError, match="deployment_id must be specified"):
        sw.signal_software_deployment(A, "", {})
    assert sw.show_software_deployment(A, deployment["id"])["status"] == "IN_PROGRESS"
