"""The engine's read calls against stored rows: Heat's RPC shapes, scoping, lists and paging."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest

from hearth.common.config import EngineLimits
from hearth.common.context import RequestContext
from hearth.common.errors import (
    EntityNotFound,
    HearthError,
    Invalid,
    InvalidTenant,
    NotFound,
    PhysicalResourceIDAmbiguity,
    ResourceNotFound,
    SnapshotNotFound,
)
from hearth.engine.reading.formatting import isotime
from hearth.engine.reading.reader import StackReader
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database
from hearth.store.migrate import upgrade
from hearth.store.models import Event, ResourceSnapshot, Service, Snapshot, Stack
from hearth.store.types import utcnow

T0 = datetime(2014, 6, 3, 20, 59, 46, 123456)
KEY = "k" * 32

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "A test stack",
    "parameters": {
        "flavor": {"type": "string", "default": "m1.small"},
        "count": {"type": "number"},
        "secret": {"type": "string", "hidden": True},
        "names": {"type": "comma_delimited_list", "default": "a,b"},
        "cfg": {"type": "json", "default": {"k": 1}},
    },
    "resources": {
        "server": {
            "type": "OS::Heat::None",
            "description": "the server",
            "metadata": {"m": 1},
        },
        "port": {"type": "OS::Heat::None"},
    },
    "outputs": {
        "out1": {"value": {"get_attr": ["server", "name"]}, "description": "Output one"},
        "broken": {"value": {"get_attr": ["port", "x"]}},
    },
}
ENV: dict[str, Any] = {
    "parameters": {"count": 3, "secret": "s3cret"},
    "parameter_defaults": {"flavor": "m1.large"},
    "resource_registry": {},
    "event_sinks": [],
    "encrypted_param_names": [],
}
STORED_OUTPUTS = [
    {"output_key": "out1", "output_value": "srv", "description": "Output one"},
    {
        "output_key": "broken",
        "output_value": None,
        "description": "No description given",
        "output_error": "The Referenced Attribute (port x) is incorrect.",
    },
]
SIMPLE = {"heat_template_version": "2018-08-31", "resources": {}}

A = RequestContext(project_id="project-a", user_id="u-a", username="alice")
B = RequestContext(project_id="project-b", user_id="u-b", username="bob")
ADMIN = RequestContext.admin("admin-project")

STACK_SHOW_KEYS = {
    "stack_name", "stack_identity", "creation_time", "updated_time", "deletion_time",
    "notification_topics", "parameters", "description", "template_description",
    "capabilities", "disable_rollback", "timeout_mins", "stack_owner", "parent",
    "stack_user_project_id", "tags", "stack_action", "stack_status", "stack_status_reason",
    "outputs",
}
STACK_SUMMARY_KEYS = {
    "stack_identity", "stack_name", "description", "stack_action", "stack_status",
    "stack_status_reason", "creation_time", "updated_time", "deletion_time", "stack_owner",
    "parent", "stack_user_project_id", "tags",
}
RESOURCE_KEYS = {
    "updated_time", "creation_time", "resource_name", "physical_resource_id",
    "resource_action", "resource_status", "resource_status_reason", "resource_type",
    "resource_identity", "stack_identity", "stack_name", "required_by",
}
EVENT_KEYS = {
    "event_identity", "stack_identity", "stack_name", "event_time", "resource_name",
    "physical_resource_id", "resource_action", "resource_status", "resource_status_reason",
    "resource_type",
}


# --- fixtures and builders -----------------------------------------------------------------


def _database(url: str) -> Iterator[Database]:
    upgrade(url)
    db = Database(url)
    yield db
    db.dispose()


@pytest.fixture
def db(any_db_url: str) -> Iterator[Database]:
    """SQLite, where the backend does not matter."""
    yield from _database(any_db_url)


@pytest.fixture
def every_db(db_url: str) -> Iterator[Database]:
    """Each backend in turn, for what leans on SQL (ordering, paging, joins)."""
    yield from _database(db_url)


def reader_for(db: Database, **limits: Any) -> StackReader:
    return StackReader(db, lambda: Encryptor.from_key(KEY), EngineLimits(**limits))


@pytest.fixture
def reader(db: Database) -> StackReader:
    return reader_for(db)


def add_stack(
    db: Database,
    name: str,
    *,
    ctx: RequestContext = A,
    template: dict[str, Any] | None = None,
    env: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
    tags: Sequence[str] = (),
    hidden: Sequence[str] = (),
    encrypt: bool = False,
    **fields: Any,
) -> Stack:
    with db.session() as session:
        template_id = stack_store.store_template(
            session,
            template if template is not None else SIMPLE,
            files or {},
            env if env is not None else {"parameters": {}},
            hidden_params=hidden,
            encryptor=Encryptor.from_key(KEY) if encrypt else None,
        )
        fields.setdefault("disable_rollback", True)
        fields.setdefault("action", "CREATE")
        fields.setdefault("status", "COMPLETE")
        fields.setdefault("status_reason", "Stack CREATE completed successfully")
        fields.setdefault("username", ctx.username)
        stack_id = stack_store.create_stack(
            session, tags, name=name, tenant=ctx.project_id, raw_template_id=template_id,
            **fields,
        )
        stack = session.get(Stack, stack_id)
        assert stack is not None
        return stack


def add_resource(db: Database, stack: Stack, name: str, **fields: Any) -> int:
    fields.setdefault("action", "CREATE")
    fields.setdefault("status", "COMPLETE")
    fields.setdefault("status_reason", "state changed")
    fields.setdefault("resource_type", "OS::Heat::None")
    fields.setdefault("created_at", T0)
    with db.session() as session:
        return resource_store.add(session, stack_id=stack.id, name=name, **fields).id


def add_event(
    db: Database, stack: Stack, resource: str, at: datetime, **fields: Any
) -> str:
    fields.setdefault("resource_action", "CREATE")
    fields.setdefault("resource_status", "COMPLETE")
    fields.setdefault("resource_status_reason", "state changed")
    fields.setdefault("resource_type", "OS::Heat::None")
    fields.setdefault("physical_resource_id", "")
    with db.session() as session:
        row = Event(stack_id=stack.id, resource_name=resource, created_at=at, **fields)
        session.add(row)
        session.flush()
        return row.uuid


def ident(stack: Stack, **changes: str) -> dict[str, str]:
    out = {"tenant": stack.tenant or "", "stack_name": stack.name, "stack_id": stack.id,
           "path": ""}
    out.update(changes)
    return out


def full_stack(db: Database, name: str = "web", **fields: Any) -> Stack:
    fields.setdefault("outputs", STORED_OUTPUTS)
    fields.setdefault("created_at", T0)
    return add_stack(db, name, template=TEMPLATE, env=ENV, tags=["t1", "t2"], **fields)


# --- formatting ----------------------------------------------------------------------------


def test_isotime_is_heats_format_and_keeps_none() -> None:
    assert isotime(T0) == "2014-06-03T20:59:46Z"
    assert isotime(None) is None


# --- identify / tenant isolation -----------------------------------------------------------


def test_identify_stack_by_name_and_by_id(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web")
    expected = ident(stack)
    assert reader.identify_stack(A, "web") == expected
    assert reader.identify_stack(A, stack.id) == expected


def test_identify_finds_deleted_stacks_by_id_only(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "gone", action="DELETE", deleted_at=utcnow())
    assert reader.identify_stack(A, stack.id)["stack_id"] == stack.id
    with pytest.raises(EntityNotFound, match=r"^The Stack \(gone\) could not be found\.$"):
        reader.identify_stack(A, "gone")


def test_another_project_sees_nothing_by_id_or_name(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web", template=TEMPLATE, env=ENV)
    add_resource(db, stack, "server", physical_resource_id="phys-1")
    for name_or_id in ("web", stack.id):
        with pytest.raises(EntityNotFound, match=rf"The Stack \({name_or_id}\) could not"):
            reader.identify_stack(B, name_or_id)
    calls = [
        lambda i: reader.show_stack(B, i),
        lambda i: reader.get_template(B, i),
        lambda i: reader.get_environment(B, i),
        lambda i: reader.get_files(B, i),
        lambda i: reader.list_outputs(B, i),
        lambda i: reader.show_output(B, i, "out1"),
        lambda i: reader.list_stack_resources(B, i),
        lambda i: reader.describe_stack_resource(B, i, "server"),
        lambda i: reader.resource_metadata(B, i, "server"),
        lambda i: reader.list_events(B, i),
        lambda i: reader.list_snapshots(B, i),
        lambda i: reader.show_snapshot(B, i, "x"),
    ]
    for call in calls:
        with pytest.raises(EntityNotFound, match=r"The Stack \(web\) could not be found"):
            call(ident(stack))
    assert reader.list_stacks(B) == []
    assert reader.count_stacks(B) == 0
    with pytest.raises(EntityNotFound):
        reader.find_physical_resource(B, "phys-1")


def test_mismatched_identity_is_not_found(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web")
    with pytest.raises(EntityNotFound, match=r"The Stack \(other\) could not be found"):
        reader.show_stack(A, ident(stack, stack_name="other"))
    with pytest.raises(EntityNotFound):
        reader.show_stack(A, ident(stack, path="/resources/x"))
    with pytest.raises(EntityNotFound):
        reader.show_stack(A, ident(stack, stack_id="no-such-id"))


def test_own_stack_under_another_tenant_name_is_forbidden(
    db: Database, reader: StackReader
) -> None:
    stack = add_stack(db, "web")
    with pytest.raises(InvalidTenant) as caught:
        reader.show_stack(A, ident(stack, tenant="project-b"))
    assert caught.value.http_status == 403


def test_admin_and_stack_user_project_reach_a_stack(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web", stack_user_project_id="project-b")
    assert reader.show_stack(ADMIN, ident(stack))[0]["stack_name"] == "web"
    assert reader.show_stack(B, ident(stack, tenant="project-b"))[0]["stack_name"] == "web"
    assert reader.identify_stack(B, "web") == ident(stack)


# --- stack show ------------------------------------------------------------------------------


def test_show_stack_has_heats_shape_and_values(db: Database, reader: StackReader) -> None:
    stack = full_stack(db, timeout=60, stack_user_project_id="sup")
    [shown] = reader.show_stack(A, ident(stack))
    assert set(shown) == STACK_SHOW_KEYS
    assert shown["stack_identity"] == ident(stack)
    assert shown["stack_name"] == "web"
    assert shown["creation_time"] == "2014-06-03T20:59:46Z"
    assert shown["updated_time"] is None
    assert shown["deletion_time"] is None
    assert (shown["stack_action"], shown["stack_status"]) == ("CREATE", "COMPLETE")
    assert shown["stack_status_reason"] == "Stack CREATE completed successfully"
    assert shown["description"] == shown["template_description"] == "A test stack"
    assert shown["parameters"] == {
        "flavor": "m1.large",
        "count": "3",
        "secret": "******",
        "names": "a,b",
        "cfg": '{"k": 1}',
        "OS::stack_id": stack.id,
        "OS::stack_name": "web",
        "OS::project_id": "project-a",
    }
    assert shown["outputs"] == STORED_OUTPUTS
    assert shown["tags"] == ["t1", "t2"]
    assert shown["capabilities"] == [] and shown["notification_topics"] == []
    assert shown["disable_rollback"] is True
    assert shown["timeout_mins"] == 60
    assert shown["stack_owner"] == "alice"
    assert shown["parent"] is None
    assert shown["stack_user_project_id"] == "sup"


def test_show_stack_without_outputs_when_asked_or_deleted(
    db: Database, reader: StackReader
) -> None:
    stack = full_stack(db)
    [shown] = reader.show_stack(A, ident(stack), resolve_outputs=False)
    assert "outputs" not in shown
    gone = full_stack(db, "gone", action="DELETE", deleted_at=T0 + timedelta(hours=1))
    [shown] = reader.show_stack(A, ident(gone))
    assert "outputs" not in shown
    assert shown["deletion_time"] == "2014-06-03T21:59:46Z"
    assert shown["stack_status"] == "COMPLETE"


def test_show_stack_before_outputs_are_stored(db: Database, reader: StackReader) -> None:
    stack = full_stack(db, outputs=None, action="CREATE", status="IN_PROGRESS")
    [shown] = reader.show_stack(A, ident(stack))
    assert shown["outputs"] == [
        {"output_key": "out1", "description": "Output one", "output_value": None},
        {"output_key": "broken", "description": "No description given", "output_value": None},
    ]


def test_show_stack_hides_encrypted_values_without_decrypting(db: Database) -> None:
    stack = full_stack(db, hidden=["secret"], encrypt=True)
    no_key = StackReader(db, lambda: None, EngineLimits())
    [shown] = no_key.show_stack(A, ident(stack))
    assert shown["parameters"]["secret"] == "******"
    env = no_key.get_environment(A, ident(stack))
    assert env["parameters"] == {"count": 3, "secret": "******"}


def test_show_all_stacks_of_the_project(db: Database, reader: StackReader) -> None:
    full_stack(db, "one")
    full_stack(db, "two", created_at=T0 + timedelta(seconds=1))
    add_stack(db, "theirs", ctx=B)
    assert [s["stack_name"] for s in reader.show_stack(A, None)] == ["two", "one"]


def test_template_files_and_masked_environment(db: Database, reader: StackReader) -> None:
    nested = (
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  key: {type: string, hidden: true}\n  open: {type: string}\n"
    )
    files = {"nested.yaml": nested, "script.sh": "#!/bin/sh\necho hi\n"}
    env = {**ENV, "parameter_defaults": {"flavor": "m1.large", "key": "k", "open": "o"}}
    stack = add_stack(db, "web", template=TEMPLATE, env=env, files=files)
    assert reader.get_template(A, ident(stack)) == TEMPLATE
    assert reader.get_files(A, ident(stack)) == files
    shown = reader.get_environment(A, ident(stack))
    assert shown["parameters"] == {"count": 3, "secret": "******"}
    assert shown["parameter_defaults"] == {"flavor": "m1.large", "key": "******", "open": "o"}
    assert shown["encrypted_param_names"] == []
    assert shown["resource_registry"] == {}


# --- outputs ---------------------------------------------------------------------------------


def test_list_and_show_outputs(db: Database, reader: StackReader) -> None:
    stack = full_stack(db)
    assert reader.list_outputs(A, ident(stack)) == [
        {"output_key": "out1", "description": "Output one"},
        {"output_key": "broken", "description": "No description given"},
    ]
    assert reader.show_output(A, ident(stack), "out1") == {
        "output_key": "out1", "description": "Output one", "output_value": "srv",
    }
    shown = reader.show_output(A, ident(stack), "broken")
    assert shown["output_value"] is None
    assert shown["output_error"] == "The Referenced Attribute (port x) is incorrect."
    with pytest.raises(NotFound, match=r"^Specified output key nope not found\.$") as caught:
        reader.show_output(A, ident(stack), "nope")
    assert caught.value.http_status == 404


# --- stack lists -----------------------------------------------------------------------------


def _names(entries: list[dict[str, Any]]) -> list[str]:
    return [e["stack_name"] for e in entries]


def test_list_entries_have_heats_summary_shape(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web", created_at=T0, updated_at=T0 + timedelta(minutes=1))
    [entry] = reader.list_stacks(A)
    assert set(entry) == STACK_SUMMARY_KEYS
    assert entry["stack_identity"] == ident(stack)
    assert entry["description"] == ""
    assert entry["tags"] is None
    assert entry["creation_time"] == "2014-06-03T20:59:46Z"
    assert entry["updated_time"] == "2014-06-03T21:00:46Z"
    assert (entry["stack_action"], entry["stack_status"]) == ("CREATE", "COMPLETE")


def test_list_sorting_and_paging(every_db: Database) -> None:
    reader = reader_for(every_db)
    for i, name in enumerate(["b", "a", "d", "c"]):
        add_stack(every_db, name, created_at=T0 + timedelta(seconds=i))
    assert _names(reader.list_stacks(A)) == ["c", "d", "a", "b"]
    assert _names(reader.list_stacks(A, sort_keys=["stack_name"])) == ["a", "b", "c", "d"]
    assert _names(reader.list_stacks(A, sort_keys=["stack_name"], sort_dir="desc")) == [
        "d", "c", "b", "a",
    ]
    assert _names(reader.list_stacks(A, sort_dir="asc")) == ["b", "a", "d", "c"]
    # An unknown key is ignored, as Heat ignores it: the default order stays.
    assert _names(reader.list_stacks(A, sort_keys=["bogus"])) == ["c", "d", "a", "b"]
    first = reader.list_stacks(A, limit=2)
    rest = reader.list_stacks(A, limit=2, marker=first[-1]["stack_identity"]["stack_id"])
    assert _names(first) + _names(rest) == ["c", "d", "a", "b"]
    page = reader.list_stacks(A, limit=3, sort_keys=["stack_name"])
    marker = page[-1]["stack_identity"]["stack_id"]
    assert _names(reader.list_stacks(A, sort_keys=["stack_name"], marker=marker)) == ["d"]
    with pytest.raises(Invalid):
        reader.list_stacks(A, sort_dir="sideways")


def test_list_filters(every_db: Database) -> None:
    reader = reader_for(every_db)
    add_stack(every_db, "ok", created_at=T0)
    add_stack(every_db, "bad", status="FAILED", created_at=T0 + timedelta(seconds=1))
    add_stack(every_db, "upd", action="UPDATE", status="FAILED",
              created_at=T0 + timedelta(seconds=2))
    assert _names(reader.list_stacks(A, filters={"status": "CREATE_FAILED"})) == ["bad"]
    assert _names(reader.list_stacks(A, filters={"stack_status": ["FAILED"]})) == ["upd", "bad"]
    assert _names(reader.list_stacks(A, filters={"name": ["ok", "upd"]})) == ["upd", "ok"]
    assert _names(reader.list_stacks(A, filters={"stack_name": "ok"})) == ["ok"]
    assert _names(reader.list_stacks(A, filters={"action": "UPDATE"})) == ["upd"]
    assert reader.list_stacks(A, filters={"status": "NONSENSE"}) == []
    assert _names(reader.list_stacks(A, filters={"disable_rollback": "True"})) == [
        "upd", "bad", "ok",
    ]
    assert reader.count_stacks(A, filters={"status": "FAILED"}) == 2
    with pytest.raises(Invalid):
        reader.list_stacks(A, filters={"raw_template_id": 1})


def test_list_tags_and_hidden_stacks(every_db: Database) -> None:
    reader = reader_for(every_db, hidden_stack_tags=("hidden",))
    add_stack(every_db, "ab", tags=["a", "b"], created_at=T0)
    add_stack(every_db, "a", tags=["a"], created_at=T0 + timedelta(seconds=1))
    add_stack(every_db, "c", tags=["c"], created_at=T0 + timedelta(seconds=2))
    add_stack(every_db, "h", tags=["hidden"], created_at=T0 + timedelta(seconds=3))
    assert _names(reader.list_stacks(A)) == ["c", "a", "ab"]
    assert _names(reader.list_stacks(A, show_hidden=True)) == ["h", "c", "a", "ab"]
    assert _names(reader.list_stacks(A, tags=["a", "b"])) == ["ab"]
    assert _names(reader.list_stacks(A, tags_any=["b", "c"])) == ["c", "ab"]
    assert _names(reader.list_stacks(A, not_tags=["a", "b"])) == ["c", "a"]
    assert _names(reader.list_stacks(A, not_tags_any=["b", "c"])) == ["a"]
    assert reader.list_stacks(A, tags=["a"])[0]["tags"] == ["a"]
    assert reader.count_stacks(A) == 3
    assert reader.count_stacks(A, show_hidden=True) == 4


def test_list_nested_deleted_and_global(every_db: Database) -> None:
    reader = reader_for(every_db)
    parent = add_stack(every_db, "parent", created_at=T0)
    add_stack(every_db, "parent-child", owner_id=parent.id, created_at=T0 + timedelta(1))
    add_stack(every_db, "old", deleted_at=T0, created_at=T0 + timedelta(2))
    add_stack(every_db, "theirs", ctx=B, created_at=T0 + timedelta(3))
    assert _names(reader.list_stacks(A)) == ["parent"]
    assert _names(reader.list_stacks(A, show_nested=True)) == ["parent-child", "parent"]
    assert _names(reader.list_stacks(A, show_deleted=True)) == ["old", "parent"]
    # Only an admin spans projects, and only when asking to.
    assert _names(reader.list_stacks(A, global_tenant=True)) == ["parent"]
    assert reader.list_stacks(ADMIN) == []
    assert _names(reader.list_stacks(ADMIN, global_tenant=True)) == ["theirs", "parent"]
    assert reader.count_stacks(ADMIN, global_tenant=True) == 2
    filtered = reader.list_stacks(ADMIN, global_tenant=True, filters={"tenant": "project-b"})
    assert _names(filtered) == ["theirs"]


# --- resources -------------------------------------------------------------------------------


def _resource_stack(db: Database) -> tuple[Stack, dict[str, int]]:
    stack = full_stack(db)
    ids: dict[str, int] = {}
    ids["port"] = add_resource(db, stack, "port", physical_resource_id="p-1",
                               attr_data={"ref": "p-1", "attrs": {"x": 5}})
    ids["server"] = add_resource(
        db, stack, "server", physical_resource_id="s-1", requires=[ids["port"]],
        rsrc_metadata={"m": 1}, updated_at=T0 + timedelta(minutes=2),
        attr_data={"ref": "s-1", "attrs": {"name": "srv", "show": None}},
    )
    # An old row being replaced is not shown.
    ids["old"] = add_resource(db, stack, "port", physical_resource_id="p-0",
                              replaced_by=ids["port"])
    ids["idle"] = add_resource(db, stack, "idle", action="INIT", created_at=T0,
                               resource_type="OS::Heat::RandomString",
                               definition={"type": "x", "metadata": {"init": True}})
    return stack, ids


def test_list_resources_has_heats_shape(db: Database, reader: StackReader) -> None:
    stack, _ids = _resource_stack(db)
    listed = reader.list_stack_resources(A, ident(stack))
    assert [r["resource_name"] for r in listed] == ["port", "server", "idle"]
    port, server, idle = listed
    assert set(port) == RESOURCE_KEYS
    assert port["resource_identity"] == ident(stack, path="/resources/port")
    assert port["stack_identity"] == ident(stack)
    assert port["stack_name"] == "web"
    assert port["physical_resource_id"] == "p-1"
    assert port["required_by"] == ["server"]
    assert server["required_by"] == []
    assert port["creation_time"] == port["updated_time"] == "2014-06-03T20:59:46Z"
    assert server["updated_time"] == "2014-06-03T21:01:46Z"
    assert (server["resource_action"], server["resource_status"]) == ("CREATE", "COMPLETE")
    assert idle["physical_resource_id"] == ""
    assert idle["resource_action"] == "INIT"


def test_list_resources_with_detail(db: Database, reader: StackReader) -> None:
    stack, _ids = _resource_stack(db)
    port, server, idle = reader.list_stack_resources(A, ident(stack), with_detail=True)
    assert set(server) == RESOURCE_KEYS | {"description", "metadata", "attributes"}
    assert server["description"] == "the server"
    assert port["description"] == ""
    assert server["metadata"] == {"m": 1}
    assert port["metadata"] == {}
    assert idle["metadata"] == {"init": True}
    assert server["attributes"] == {"name": "srv"}
    assert port["attributes"] == {"x": 5}


def test_list_resources_filters(db: Database, reader: StackReader) -> None:
    stack, ids = _resource_stack(db)

    def names(**filters: Any) -> list[str]:
        return [r["resource_name"]
                for r in reader.list_stack_resources(A, ident(stack), filters=filters)]

    assert names(status="CREATE_COMPLETE") == ["port", "server"]
    assert names(status="COMPLETE", action="INIT") == ["idle"]
    assert names(name=["server", "idle"]) == ["server", "idle"]
    assert names(type="Random") == ["idle"]
    assert names(physical_resource_id="s-1") == ["server"]
    assert names(id=str(ids["port"])) == ["port"]
    with pytest.raises(Invalid):
        names(colour="red")


def test_list_resources_of_nested_stacks(db: Database) -> None:
    reader = reader_for(db, max_nested_stack_depth=1)
    stack = add_stack(db, "top")
    child = add_stack(db, "top-inner-abc", owner_id=stack.id, parent_resource_name="inner")
    grandchild = add_stack(db, "deep", owner_id=child.id, parent_resource_name="deeper")
    add_resource(db, stack, "inner", physical_resource_id=child.id,
                 resource_type="OS::Heat::Stack")
    add_resource(db, child, "leaf", physical_resource_id="leaf-1")
    add_resource(db, child, "deeper", physical_resource_id=grandchild.id)
    add_resource(db, grandchild, "bottom")

    [inner] = reader.list_stack_resources(A, ident(stack))
    assert inner["nested_stack_id"] == ident(child)
    assert "parent_resource" not in inner

    listed = reader.list_stack_resources(A, ident(stack), nested_depth=5)
    assert [r["resource_name"] for r in listed] == ["inner", "leaf", "deeper"]
    leaf = listed[1]
    assert leaf["parent_resource"] == "inner"
    assert leaf["stack_identity"] == ident(child)
    assert leaf["resource_identity"] == ident(child, path="/resources/leaf")


def test_describe_resource_and_metadata(db: Database, reader: StackReader) -> None:
    stack, _ids = _resource_stack(db)
    server = reader.describe_stack_resource(A, ident(stack), "server")
    assert server["attributes"] == {"name": "srv"}
    assert server["description"] == "the server"
    extra = reader.describe_stack_resource(A, ident(stack), "server", with_attr=["first"])
    assert extra["attributes"] == {"name": "srv", "first": None}
    bare = reader.describe_stack_resource(A, ident(stack), "server", with_attr=False)
    assert "attributes" not in bare and bare["metadata"] == {"m": 1}
    assert reader.resource_metadata(A, ident(stack), "server") == {"m": 1}
    with pytest.raises(
        ResourceNotFound, match=r"^The Resource \(nope\) could not be found in Stack web\.$"
    ):
        reader.describe_stack_resource(A, ident(stack), "nope")
    described = reader.describe_stack_resources(A, ident(stack))
    assert [r["resource_name"] for r in described] == ["port", "server", "idle"]
    assert all("attributes" in r for r in described)


def test_describe_uses_a_stored_show_mapping(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web")
    add_resource(db, stack, "r", attr_data={"ref": None,
                                            "attrs": {"show": {"a": 1}, "b": 2}})
    shown = reader.describe_stack_resource(A, ident(stack), "r", with_attr=["b", "c"])
    assert shown["attributes"] == {"a": 1, "b": 2, "c": None}


def test_find_physical_resource(every_db: Database) -> None:
    reader = reader_for(every_db)
    one = add_stack(every_db, "one")
    two = add_stack(every_db, "two")
    theirs = add_stack(every_db, "theirs", ctx=B)
    add_resource(every_db, one, "r", physical_resource_id="unique")
    add_resource(every_db, one, "a", physical_resource_id="twice-in-one")
    add_resource(every_db, one, "b", physical_resource_id="twice-in-one")
    add_resource(every_db, one, "x", physical_resource_id="shared")
    add_resource(every_db, two, "y", physical_resource_id="shared")
    add_resource(every_db, theirs, "z", physical_resource_id="unique")
    assert reader.find_physical_resource(A, "unique") == ident(one, path="/resources/r")
    assert reader.find_physical_resource(A, "twice-in-one")["stack_id"] == one.id
    with pytest.raises(PhysicalResourceIDAmbiguity, match=r"physical ID \(shared\)"):
        reader.find_physical_resource(A, "shared")
    with pytest.raises(EntityNotFound, match=r"^The Resource \(nothing\) could not be found"):
        reader.find_physical_resource(A, "nothing")
    with pytest.raises(PhysicalResourceIDAmbiguity):
        reader.find_physical_resource(ADMIN, "unique")


# --- events ----------------------------------------------------------------------------------


def _event_stack(db: Database) -> tuple[Stack, list[str]]:
    stack = add_stack(db, "web")
    uuids = [
        add_event(db, stack, "web", T0, resource_type="OS::Heat::Stack",
                  resource_status="IN_PROGRESS", resource_status_reason="Stack CREATE started"),
        add_event(db, stack, "server", T0 + timedelta(seconds=1), resource_status="IN_PROGRESS"),
        add_event(db, stack, "server", T0 + timedelta(seconds=2), physical_resource_id="s-1"),
        add_event(db, stack, "web", T0 + timedelta(seconds=3), resource_type="OS::Heat::Stack",
                  resource_status_reason="Stack CREATE completed successfully"),
    ]
    return stack, uuids


def _uuids(events: list[dict[str, Any]]) -> list[str]:
    return [e["event_identity"]["path"].rsplit("/", 1)[-1] for e in events]


def test_event_shape(db: Database, reader: StackReader) -> None:
    stack, uuids = _event_stack(db)
    event = reader.list_events(A, ident(stack))[1]
    assert set(event) == EVENT_KEYS
    assert event["event_identity"] == ident(
        stack, path=f"/resources/server/events/{uuids[2]}"
    )
    assert event["stack_identity"] == ident(stack)
    assert event["stack_name"] == "web"
    assert event["event_time"] == "2014-06-03T20:59:48Z"
    assert event["resource_name"] == "server"
    assert event["physical_resource_id"] == "s-1"
    assert (event["resource_action"], event["resource_status"]) == ("CREATE", "COMPLETE")
    assert event["resource_type"] == "OS::Heat::None"


def test_event_order_paging_and_filters(every_db: Database) -> None:
    reader = reader_for(every_db)
    stack, uuids = _event_stack(every_db)
    i = ident(stack)
    assert _uuids(reader.list_events(A, i)) == uuids[::-1]
    assert _uuids(reader.list_events(A, i, sort_dir="asc")) == uuids
    assert _uuids(reader.list_events(A, i, sort_keys=["event_time"])) == uuids
    by_type = reader.list_events(A, i, sort_keys=["resource_type", "event_time"])
    assert _uuids(by_type) == [uuids[1], uuids[2], uuids[0], uuids[3]]
    page = reader.list_events(A, i, limit=2, sort_dir="asc")
    rest = reader.list_events(A, i, marker=_uuids(page)[-1], sort_dir="asc")
    assert _uuids(page) + _uuids(rest) == uuids
    newest = reader.list_events(A, i, limit=1)
    assert _uuids(reader.list_events(A, i, marker=_uuids(newest)[0])) == uuids[2::-1]
    assert _uuids(reader.list_events(A, i, filters={"resource_name": "server"})) == [
        uuids[2], uuids[1],
    ]
    assert _uuids(reader.list_events(
        A, i, filters={"resource_status": ["IN_PROGRESS"], "resource_type": "OS::Heat::Stack"}
    )) == [uuids[0]]
    with pytest.raises(Invalid):
        reader.list_events(A, i, filters={"stack_id": stack.id})


def test_events_of_nested_stacks_carry_the_root(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "top")
    child = add_stack(db, "top-inner", owner_id=stack.id, parent_resource_name="inner")
    add_event(db, stack, "inner", T0)
    child_event = add_event(db, child, "leaf", T0 + timedelta(seconds=1))
    assert len(reader.list_events(A, ident(stack))) == 1
    events = reader.list_events(A, ident(stack), nested_depth=1)
    assert _uuids(events)[0] == child_event
    assert events[0]["stack_identity"] == ident(child)
    assert all(e["root_stack_id"] == ident(stack) for e in events)
    everything = reader.list_events(A, None)
    assert {e["stack_name"] for e in everything} == {"top", "top-inner"}
    assert "root_stack_id" not in everything[0]
    assert reader.list_events(B, None) == []


def test_show_event_includes_properties(db: Database, reader: StackReader) -> None:
    stack, uuids = _event_stack(db)
    row = resource_store.properties_row({"size": 3}, Encryptor.from_key(KEY))
    assert row is not None
    with db.engine.begin() as conn:
        batch.apply(conn, [row])
    prop_id = row.id
    event_id = add_event(db, stack, "server", T0 + timedelta(seconds=9),
                         rsrc_prop_data_id=prop_id)
    shown = reader.show_event(A, ident(stack), "server", event_id)
    assert set(shown) == EVENT_KEYS | {"resource_properties"}
    assert shown["resource_properties"] == {"size": 3}
    plain = reader.show_event(A, ident(stack), "server", uuids[1])
    assert plain["resource_properties"] == {}
    assert "resource_properties" not in reader.list_events(A, ident(stack))[0]
    with pytest.raises(NotFound, match=f"No event {uuids[0]} found"):
        reader.show_event(A, ident(stack), "server", uuids[0])


# --- snapshots and services ------------------------------------------------------------------


def _snapshot(db: Database, stack: Stack, name: str, tenant: str = "project-a") -> str:
    with db.session() as session:
        row = Snapshot(stack_id=stack.id, name=name, tenant=tenant, action="SNAPSHOT",
                       status="COMPLETE", status_reason="done", data={"name": "web"},
                       created_at=T0)
        session.add(row)
        session.flush()
        return row.id


def test_snapshots(db: Database, reader: StackReader) -> None:
    stack = add_stack(db, "web")
    other = add_stack(db, "other")
    first = _snapshot(db, stack, "first")
    foreign = _snapshot(db, other, "elsewhere")
    with db.session() as session:
        session.add(ResourceSnapshot(snapshot_id=first, resource_name="r", data={"v": 1}))
    [listed] = reader.list_snapshots(A, ident(stack))
    assert listed == {
        "id": first, "name": "first", "action": "SNAPSHOT", "status": "COMPLETE",
        "status_reason": "done", "creation_time": "2014-06-03T20:59:46Z",
        "data": {"name": "web", "resources": {"r": {"v": 1}}},
    }
    assert reader.show_snapshot(A, ident(stack), first) == listed
    with pytest.raises(SnapshotNotFound, match=rf"Snapshot \({foreign}\) for Stack \(web\)"):
        reader.show_snapshot(A, ident(stack), foreign)
    with pytest.raises(NotFound, match=r"^Snapshot with id nope not found$"):
        reader.show_snapshot(A, ident(stack), "nope")


def test_services_up_and_down(db: Database, reader: StackReader) -> None:
    now = utcnow()
    with db.session() as session:
        session.add(Service(engine_id="e1", host="h", hostname="hn", binary="hearth-engine",
                            topic="engine", report_interval=10, created_at=now - timedelta(1),
                            updated_at=now - timedelta(seconds=5)))
        session.add(Service(engine_id="e2", host="h", hostname="hn", binary="hearth-engine",
                            topic="engine", report_interval=10, created_at=now,
                            updated_at=now - timedelta(seconds=25)))
    listed = {s["engine_id"]: s for s in reader.list_services(ADMIN)}
    assert listed["e1"]["status"] == "up"
    assert listed["e2"]["status"] == "down"
    assert set(listed["e1"]) == {
        "id", "host", "hostname", "binary", "topic", "engine_id", "report_interval",
        "created_at", "updated_at", "deleted_at", "status",
    }
    assert listed["e1"]["deleted_at"] is None


def test_errors_are_user_facing(db: Database, reader: StackReader) -> None:
    # Every failure above is a HearthError, so the API maps it to Heat's error body.
    with pytest.raises(HearthError) as caught:
        reader.identify_stack(A, "missing")
    assert caught.value.http_status == 404
