"""python-heatclient (the library) drives every stack action against a running noauth server."""

from __future__ import annotations

import copy
import json
import logging
import uuid
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from heatclient import exc

from hearth.cli.serve import RunningServer
from tests.integration.api.util import (
    TEMPLATE,
    base,
    create_stack,
    unique,
    wait_for_status,
    wait_until,
)


def _create(heat: Any, name: str | None = None, template: Any = None,
            **fields: Any) -> tuple[str, str]:
    name = name or unique()
    body = heat.stacks.create(stack_name=name, template=template or TEMPLATE, **fields)
    stack_id = body["stack"]["id"]
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    return name, stack_id


@pytest.fixture()
def stack(heat: Any) -> tuple[str, str]:
    """A CREATE_COMPLETE stack of TEMPLATE with value=one."""
    return _create(heat, parameters={"value": "one"})


# --- create, show, list ------------------------------------------------------------------


def test_create_answers_201_with_location_and_self_link(noauth_server: RunningServer) -> None:
    name = unique()
    resp = requests.post(f"{base(noauth_server.url)}/stacks",
                         json={"stack_name": name, "template": TEMPLATE}, timeout=10)
    assert resp.status_code == 201
    stack_id = resp.json()["stack"]["id"]
    expected = f"{base(noauth_server.url)}/stacks/{name}/{stack_id}"
    assert resp.headers["Location"] == expected
    assert resp.json() == {"stack": {"id": stack_id,
                                     "links": [{"href": expected, "rel": "self"}]}}


def test_create_of_an_existing_name_is_a_conflict(heat: Any, stack: tuple[str, str]) -> None:
    with pytest.raises(exc.HTTPConflict) as err:
        heat.stacks.create(stack_name=stack[0], template=TEMPLATE)
    assert f"The Stack ({stack[0]}) already exists." in str(err.value)


def test_show_resolves_outputs_unless_asked_not_to(heat: Any, stack: tuple[str, str]) -> None:
    name, stack_id = stack
    shown = heat.stacks.get(stack_id)
    assert shown.stack_name == name
    assert shown.id == stack_id
    assert shown.stack_status == "CREATE_COMPLETE"
    assert shown.description == "An API test stack"
    assert shown.parameters["value"] == "one"
    assert shown.parameters["secret"] == "******"
    assert shown.parameters["OS::stack_name"] == name
    assert shown.outputs == [{"output_key": "stored", "description": "What the store holds",
                              "output_value": "one"}]
    # by name too (a 302 that heatclient follows)
    assert heat.stacks.get(name).id == stack_id
    unresolved = heat.stacks.get(stack_id, resolve_outputs=False)
    assert "outputs" not in unresolved.to_dict()


def test_heatclient_decodes_every_answer_without_complaint(
    heat: Any, stack: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Redirects and empty answers are not labelled JSON, so heatclient logs no error."""
    name, stack_id = stack
    caplog.set_level(logging.DEBUG, logger="heatclient")
    heat.stacks.get(name)
    heat.stacks.output_list(name)
    heat.resources.list(name)
    heat.events.list(name)
    heat.actions.check(name)
    wait_for_status(heat, stack_id, "CHECK_COMPLETE")
    heat.resources.mark_unhealthy(stack_id, "nothing", False, "")
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


def test_list_filters_sort_and_pages(heat: Any, noauth_server: RunningServer) -> None:
    tag = unique("tag")
    names = [unique("list") for _ in range(3)]
    for i, name in enumerate(names):
        heat.stacks.create(stack_name=name, template=TEMPLATE,
                           tags=f"{tag},n{i}" + (",odd" if i % 2 else ""))
    for name in names:
        wait_for_status(heat, name, "CREATE_COMPLETE")

    tagged = list(heat.stacks.list(tags=tag, sort_keys="stack_name", sort_dir="asc"))
    assert [s.stack_name for s in tagged] == sorted(names)
    assert all(s.stack_status == "CREATE_COMPLETE" for s in tagged)
    desc = list(heat.stacks.list(tags=tag, sort_keys="stack_name", sort_dir="desc"))
    assert [s.stack_name for s in desc] == sorted(names, reverse=True)

    assert [s.stack_name for s in heat.stacks.list(filters={"name": names[1]})] == [names[1]]
    assert {s.stack_name for s in heat.stacks.list(tags=f"{tag},odd")} == {names[1]}
    assert {s.stack_name for s in heat.stacks.list(tags=tag, not_tags="odd")} == {
        names[0], names[2]}
    assert {s.stack_name for s in heat.stacks.list(tags_any="n0,n2")} >= {names[0], names[2]}

    # a full page has a next link that keeps the query and moves the marker
    url = f"{base(noauth_server.url)}/stacks"
    params = {"tags": tag, "sort_keys": "stack_name", "sort_dir": "asc", "limit": "2",
              "with_count": "true"}
    page = requests.get(url, params=params, timeout=10).json()
    assert [s["stack_name"] for s in page["stacks"]] == sorted(names)[:2]
    assert page["count"] == 3
    (nxt,) = page["links"]
    assert nxt["rel"] == "next"
    query = parse_qs(urlparse(nxt["href"]).query)
    assert query["marker"] == [page["stacks"][-1]["id"]]
    assert query["limit"] == ["2"] and query["tags"] == [tag]
    second = requests.get(nxt["href"], timeout=10).json()
    assert [s["stack_name"] for s in second["stacks"]] == sorted(names)[2:]
    assert "links" not in second  # not a full page
    # heatclient follows limit/marker itself
    assert len(list(heat.stacks.list(tags=tag, limit=2))) == 2


def test_list_hides_hidden_stacks_unless_asked(heat: Any) -> None:
    tag = unique("tag")
    hidden, _ = _create(heat, tags=f"{tag},hidden")
    shown, _ = _create(heat, tags=tag)
    assert {s.stack_name for s in heat.stacks.list(tags=tag)} == {shown}
    assert {s.stack_name for s in heat.stacks.list(tags=tag, show_hidden=True)} == {
        shown, hidden}


# --- update, patch, preview --------------------------------------------------------------


def test_update_and_patch_update(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    template = copy.deepcopy(TEMPLATE)
    template["parameters"]["other"] = {"type": "string", "default": "o"}
    heat.stacks.update(stack_id, template=template, parameters={"value": "two", "other": "x"})
    updated = wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert updated.parameters["value"] == "two"
    assert updated.outputs[0]["output_value"] == "two"
    assert updated.updated_time is not None
    assert heat.stacks.template(stack_id)["parameters"]["other"] == {
        "type": "string", "default": "o"}

    # PATCH: the stored template and the other parameter are kept, one parameter changes
    heat.stacks.update(stack_id, existing=True, parameters={"value": "three"})
    patched = wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert patched.parameters["value"] == "three"
    assert patched.parameters["other"] == "x"
    assert patched.outputs[0]["output_value"] == "three"
    assert heat.stacks.template(stack_id) == template

    # PATCH with clear_parameters: back to the template's default
    heat.stacks.update(stack_id, existing=True, clear_parameters=["value"])
    cleared = wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert cleared.parameters["value"] == "first"
    assert cleared.parameters["other"] == "x"
    assert cleared.outputs[0]["output_value"] == "first"


def test_patch_update_without_changes_keeps_everything(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    heat.stacks.update(stack_id, existing=True)
    patched = wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    assert patched.parameters["value"] == "one"


def test_preview_create(heat: Any) -> None:
    name = unique()
    preview = heat.stacks.preview(stack_name=name, template=TEMPLATE,
                                  parameters={"value": "p"})
    assert preview.stack_name == name
    resources = {r["resource_name"]: r for r in preview.resources}
    assert set(resources) == {"store", "nothing"}
    assert resources["store"]["resource_type"] == "OS::Heat::TestResource"
    assert resources["store"]["properties"]["value"] == "p"
    # nothing was created
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get(name)


def test_preview_update_put_and_patch(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["extra"] = {"type": "OS::Heat::None"}
    del template["resources"]["nothing"]
    changes = heat.stacks.preview_update(stack_id, template=template,
                                         parameters={"value": "changed"})["resource_changes"]
    assert set(changes) == {"unchanged", "updated", "replaced", "added", "deleted"}
    assert [r["resource_name"] for r in changes["updated"]] == ["store"]
    assert [r["resource_name"] for r in changes["added"]] == ["extra"]
    assert [r["resource_name"] for r in changes["deleted"]] == ["nothing"]

    patch = heat.stacks.preview_update(stack_id, existing=True,
                                       parameters={"value": "changed"})["resource_changes"]
    assert [r["resource_name"] for r in patch["updated"]] == ["store"]
    assert [r["resource_name"] for r in patch["unchanged"]] == ["nothing"]
    assert patch["added"] == patch["deleted"] == patch["replaced"] == []

    same = heat.stacks.preview_update(stack_id, existing=True)["resource_changes"]
    assert sorted(r["resource_name"] for r in same["unchanged"]) == ["nothing", "store"]
    # previews change nothing
    assert heat.stacks.get(stack_id).parameters["value"] == "one"


# --- outputs, resources, events ----------------------------------------------------------


def test_outputs(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    assert heat.stacks.output_list(stack_id) == {
        "outputs": [{"output_key": "stored", "description": "What the store holds"}]}
    assert heat.stacks.output_show(stack_id, "stored") == {
        "output": {"output_key": "stored", "description": "What the store holds",
                   "output_value": "one"}}
    with pytest.raises(exc.HTTPNotFound) as err:
        heat.stacks.output_show(stack_id, "missing")
    assert "Specified output key missing not found." in str(err.value)


def test_resources_list_and_show(heat: Any, stack: tuple[str, str]) -> None:
    name, stack_id = stack
    listed = {r.resource_name: r for r in heat.resources.list(stack_id)}
    assert set(listed) == {"store", "nothing"}
    store = listed["store"]
    assert store.logical_resource_id == "store"
    assert store.resource_type == "OS::Heat::TestResource"
    assert store.resource_status == "CREATE_COMPLETE"
    assert store.physical_resource_id
    assert store.required_by == ["nothing"]
    rels = [link["rel"] for link in store.links]
    assert rels == ["self", "stack"]
    assert store.links[0]["href"].endswith(f"/stacks/{name}/{stack_id}/resources/store")
    assert "attributes" not in store.to_dict()

    detailed = {r.resource_name: r for r in heat.resources.list(stack_id, with_detail=True)}
    assert detailed["store"].attributes["output"] == "one"
    assert "description" in detailed["store"].to_dict()

    nested = heat.resources.list(stack_id, nested_depth=2)
    assert {r.resource_name for r in nested} == {"store", "nothing"}

    by_type = heat.resources.list(stack_id, filters={"type": "OS::Heat::None"})
    assert [r.resource_name for r in by_type] == ["nothing"]
    by_status = heat.resources.list(stack_id, filters={"status": "COMPLETE"})
    assert {r.resource_name for r in by_status} == {"store", "nothing"}
    assert heat.resources.list(stack_id, filters={"name": "nope"}) == []
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.resources.list(stack_id, filters={"colour": "red"})
    assert "colour" in str(err.value)

    shown = heat.resources.get(stack_id, "store")
    assert shown.resource_name == "store"
    assert shown.attributes == {"output": "one"}
    with_attr = heat.resources.get(stack_id, "store", with_attr=["show"])
    assert "show" in with_attr.attributes
    with pytest.raises(exc.HTTPNotFound) as err:
        heat.resources.get(stack_id, "ghost")
    assert "ghost" in str(err.value)

    assert heat.resources.metadata(stack_id, "store") == {}


def test_resource_signal_clears_a_hook(heat: Any) -> None:
    env = {"resource_registry": {"resources": {"store": {"hooks": "pre-create"}}}}
    body = heat.stacks.create(stack_name=unique(), template=TEMPLATE, environment=env)
    stack_id = body["stack"]["id"]

    def paused() -> bool:
        return any(e.resource_name == "store"
                   and "paused until Hook pre-create is cleared" in e.resource_status_reason
                   for e in heat.events.list(stack_id))

    wait_until(paused, what="the pre-create hook")
    assert heat.stacks.get(stack_id).stack_status == "CREATE_IN_PROGRESS"
    heat.resources.signal(stack_id, "store", data={"unset_hook": "pre-create"})
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    reasons = [e.resource_status_reason for e in heat.events.list(stack_id, "store")]
    assert any("Hook pre-create is cleared" in r for r in reasons), reasons


def test_resource_signal_to_a_type_without_signals_is_refused(
    heat: Any, stack: tuple[str, str]
) -> None:
    _, stack_id = stack
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.resources.signal(stack_id, "nothing", data={"x": 1})
    assert "signal" in str(err.value).lower()


def test_mark_unhealthy_and_back(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    heat.resources.mark_unhealthy(stack_id, "store", True, "broken by a test")
    store = heat.resources.get(stack_id, "store")
    assert store.resource_status == "CHECK_FAILED"
    assert store.resource_status_reason == "broken by a test"
    heat.resources.mark_unhealthy(stack_id, "store", False, "fixed")
    assert heat.resources.get(stack_id, "store").resource_status == "CHECK_COMPLETE"


def test_events_list_and_show(heat: Any, stack: tuple[str, str]) -> None:
    name, stack_id = stack
    events = heat.events.list(stack_id)
    assert {e.resource_name for e in events} == {name, "store", "nothing"}
    statuses = [(e.resource_name, e.resource_status) for e in events]
    assert (name, "CREATE_COMPLETE") in statuses
    assert ("store", "CREATE_IN_PROGRESS") in statuses
    for event in events:
        assert [link["rel"] for link in event.links] == ["self", "resource", "stack"]
        assert event.logical_resource_id == event.resource_name

    store_events = heat.events.list(stack_id, resource_name="store")
    assert {e.resource_name for e in store_events} == {"store"}
    # newest first, as Heat lists them by default
    assert [e.resource_status for e in store_events] == [
        "CREATE_COMPLETE", "CREATE_IN_PROGRESS"]
    ascending = heat.events.list(stack_id, resource_name="store", sort_dir="asc")
    assert [e.id for e in ascending] == [e.id for e in reversed(store_events)]

    limited = heat.events.list(stack_id, limit=1)
    assert len(limited) == 1
    filtered = heat.events.list(stack_id, filters={"resource_status": "COMPLETE"})
    assert filtered and all(e.resource_status.endswith("COMPLETE") for e in filtered)

    with pytest.raises(exc.HTTPNotFound) as err:
        heat.events.list(stack_id, resource_name="ghost")
    assert "No events found for resource ghost" in str(err.value)

    event_id = store_events[0].id
    shown = heat.events.get(stack_id, "store", event_id)
    assert shown.id == event_id
    assert shown.resource_status == "CREATE_COMPLETE"
    assert shown.resource_type == "OS::Heat::TestResource"
    assert shown.resource_properties["value"] == "one"
    with pytest.raises(exc.HTTPNotFound):
        heat.events.get(stack_id, "store", str(uuid.uuid4()))


# --- actions -----------------------------------------------------------------------------


def test_suspend_resume_check(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    heat.actions.suspend(stack_id)
    wait_for_status(heat, stack_id, "SUSPEND_COMPLETE")
    assert {r.resource_status for r in heat.resources.list(stack_id)} == {"SUSPEND_COMPLETE"}
    # an update of a suspended stack is refused
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.stacks.update(stack_id, existing=True, parameters={"value": "x"})
    assert "Updating a stack when it is suspended is not supported." in str(err.value)
    heat.actions.resume(stack_id)
    wait_for_status(heat, stack_id, "RESUME_COMPLETE")
    heat.actions.check(stack_id)
    checked = wait_for_status(heat, stack_id, "CHECK_COMPLETE")
    assert checked.stack_status_reason


def test_cancel_update_rolls_back(heat: Any) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["store"]["properties"]["action_wait_secs"] = {"update": 60}
    _, stack_id = _create(heat, template=template, disable_rollback=False)
    heat.stacks.update(stack_id, existing=True, parameters={"value": "slow"})
    wait_until(lambda: heat.stacks.get(stack_id).stack_status == "UPDATE_IN_PROGRESS"
               and heat.resources.get(stack_id, "store").resource_status
               == "UPDATE_IN_PROGRESS", what="the update to start")
    heat.actions.cancel_update(stack_id)
    rolled = wait_for_status(heat, stack_id, "ROLLBACK_COMPLETE")
    assert rolled.parameters["value"] == "first"
    assert rolled.outputs[0]["output_value"] == "first"


def test_cancel_without_rollback_leaves_the_update_failed(heat: Any) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["store"]["properties"]["action_wait_secs"] = {"update": 60}
    _, stack_id = _create(heat, template=template, disable_rollback=False)
    heat.stacks.update(stack_id, existing=True, parameters={"value": "slow"})
    wait_until(lambda: heat.resources.get(stack_id, "store").resource_status
               == "UPDATE_IN_PROGRESS", what="the update to start")
    heat.actions.cancel_without_rollback(stack_id)
    failed = wait_for_status(heat, stack_id, "UPDATE_FAILED")
    assert "cancelled" in failed.stack_status_reason.lower()


def test_cancel_update_of_an_idle_stack_is_refused(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.actions.cancel_update(stack_id)
    assert "Cancelling update when stack is" in str(err.value)


# --- snapshots, abandon/adopt, export, stored data -----------------------------------------


def test_snapshot_list_show_restore_delete(heat: Any, stack: tuple[str, str]) -> None:
    _, stack_id = stack
    snap = heat.stacks.snapshot(stack_id, "snap-1")
    assert snap["name"] == "snap-1"
    snap_id = snap["id"]
    shown = wait_until(
        lambda: (s := heat.stacks.snapshot_show(stack_id, snap_id)["snapshot"])["status"]
        == "COMPLETE" and s, what="the snapshot")
    assert shown["action"] == "CREATE"
    # The stack has a hidden parameter: its resources' data is shown sealed with the
    # deployment's key, never in clear.
    assert set(shown["data"]["resources"]["store"]["resource_data"]["value"]) == {
        "$sealed", "token"}
    listed = heat.stacks.snapshot_list(stack_id)["snapshots"]
    assert [s["id"] for s in listed] == [snap_id]

    heat.stacks.update(stack_id, existing=True, parameters={"value": "later"})
    wait_for_status(heat, stack_id, "UPDATE_COMPLETE")
    heat.stacks.restore(stack_id, snap_id)
    restored = wait_for_status(heat, stack_id, "RESTORE_COMPLETE")
    assert restored.parameters["value"] == "one"
    assert restored.outputs[0]["output_value"] == "one"

    heat.stacks.snapshot_delete(stack_id, snap_id)
    assert heat.stacks.snapshot_list(stack_id)["snapshots"] == []
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.snapshot_show(stack_id, snap_id)


def test_abandon_then_adopt(heat: Any, stack: tuple[str, str]) -> None:
    name, stack_id = stack
    exported = heat.stacks.export(stack_id)
    assert exported["name"] == name and exported["id"] == stack_id
    assert heat.stacks.get(stack_id).stack_status == "CREATE_COMPLETE"  # export keeps it

    data = heat.stacks.abandon(stack_id)
    assert data["name"] == name
    assert data["template"] == TEMPLATE
    assert set(data["resources"]) == {"store", "nothing"}
    physical = data["resources"]["store"]["resource_id"]
    wait_for_status(heat, stack_id, "DELETE_COMPLETE")
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get(name)

    body = heat.stacks.create(stack_name=unique("adopted"), template=None,
                              adopt_stack_data=json.dumps(data))
    adopted_id = body["stack"]["id"]
    adopted = wait_for_status(heat, adopted_id, "ADOPT_COMPLETE")
    assert adopted.outputs[0]["output_value"] == "one"
    assert heat.resources.get(adopted_id, "store").physical_resource_id == physical


def test_template_environment_files(heat: Any) -> None:
    env = {"parameters": {"value": "from-env"},
           "parameter_defaults": {"secret": "s3cret"}}
    _, stack_id = _create(heat, environment=env, files={"extra.txt": "some text"})
    assert heat.stacks.template(stack_id) == TEMPLATE
    environment = heat.stacks.environment(stack_id)
    assert environment["parameters"] == {"value": "from-env"}
    assert environment["parameter_defaults"] == {"secret": "******"}
    assert set(environment) >= {"parameters", "parameter_defaults", "resource_registry",
                                "event_sinks", "encrypted_param_names"}
    assert heat.stacks.files(stack_id) == {"extra.txt": "some text"}
    assert heat.stacks.get(stack_id).parameters["value"] == "from-env"


def test_delete_then_delete_again(heat: Any, noauth_server: RunningServer) -> None:
    name, stack_id = create_stack(noauth_server.url)
    wait_for_status(heat, stack_id, "CREATE_COMPLETE")
    url = f"{base(noauth_server.url)}/stacks/{name}/{stack_id}"
    resp = requests.delete(url, timeout=10)
    assert resp.status_code == 204
    assert resp.content == b""
    # nothing to type: WSGI's validator refused the text/plain a 204 once carried
    assert "Content-Type" not in resp.headers

    # by id a deleted stack still shows (as in Heat); by name it is gone
    wait_for_status(heat, stack_id, "DELETE_COMPLETE")
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get(name)
    assert name not in [s.stack_name for s in heat.stacks.list()]
    deleted = [s for s in heat.stacks.list(show_deleted=True) if s.id == stack_id]
    assert [s.stack_status for s in deleted] == ["DELETE_COMPLETE"]
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.delete(stack_id)
    again = requests.delete(url, timeout=10)
    assert again.status_code == 404
    assert again.json()["error"]["type"] == "EntityNotFound"


# --- catalog -----------------------------------------------------------------------------


def test_build_info(heat: Any) -> None:
    assert heat.build_info.build_info() == {"api": {"revision": "unknown"},
                                            "engine": {"revision": "unknown"}}


def test_template_versions_and_functions(heat: Any) -> None:
    versions = {v.version: v for v in heat.template_versions.list()}
    assert versions["heat_template_version.2018-08-31"].type == "hot"
    assert versions["heat_template_version.2018-08-31"].aliases == [
        "heat_template_version.rocky"]
    assert versions["AWSTemplateFormatVersion.2010-09-09"].type == "cfn"

    functions = {f.functions for f in heat.template_versions.get(
        "heat_template_version.2018-08-31")}
    assert {"get_param", "get_attr", "str_replace", "list_concat"} <= functions
    assert "equals" not in functions
    with_conditions = {f.functions for f in heat.template_versions.get(
        "heat_template_version.2018-08-31", with_condition_func=True)}
    assert "equals" in with_conditions
    with pytest.raises(exc.HTTPNotFound):
        heat.template_versions.get("heat_template_version.1999-01-01")


def test_resource_types(heat: Any) -> None:
    names = {t.resource_type for t in heat.resource_types.list()}
    assert {"OS::Heat::TestResource", "OS::Heat::None", "OS::Heat::RandomString"} <= names
    matching = {t.resource_type for t in heat.resource_types.list(
        filters={"name": "OS::Heat::Random"})}
    assert matching == {"OS::Heat::RandomString"}

    schema = heat.resource_types.get("OS::Heat::RandomString")
    assert schema["resource_type"] == "OS::Heat::RandomString"
    assert "length" in schema["properties"]
    assert "value" in schema["attributes"]
    assert schema["support_status"]["status"] == "SUPPORTED"
    with pytest.raises(exc.HTTPNotFound):
        heat.resource_types.get("OS::Nope::Nothing")

    hot = heat.resource_types.generate_template("OS::Heat::RandomString", template_type="hot")
    assert hot["heat_template_version"] == "2016-10-14"
    assert set(hot["resources"]) == {"RandomString"}
    cfn = heat.resource_types.generate_template("OS::Heat::RandomString")
    assert cfn["HeatTemplateFormatVersion"] == "2012-12-12"
    assert set(cfn["Resources"]) == {"RandomString"}


def test_validate(heat: Any) -> None:
    result = heat.stacks.validate(template=TEMPLATE)
    assert result["Description"] == "An API test stack"
    assert result["Parameters"]["value"]["Default"] == "first"
    assert result["Parameters"]["secret"]["NoEcho"] == "true"
    broken = {"heat_template_version": "2018-08-31",
              "resources": {"r": {"type": "OS::Heat::None", "depends_on": "ghost"}}}
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.stacks.validate(template=broken)
    assert "ghost" in str(err.value)


# --- software configs and deployments ----------------------------------------------------


def test_software_configs_and_deployments(heat: Any) -> None:
    config = heat.software_configs.create(
        name="cfg-a", group="script", config="#!/bin/sh\necho $foo",
        inputs=[{"name": "foo"}], outputs=[{"name": "result"}], options={"o": 1})
    assert config.name == "cfg-a" and config.group == "script"
    shown = heat.software_configs.get(config.id)
    assert shown.config == "#!/bin/sh\necho $foo"
    assert shown.options == {"o": 1}
    assert config.id in [c.id for c in heat.software_configs.list()]

    server_id = str(uuid.uuid4())
    deployment = heat.software_deployments.create(
        config_id=config.id, server_id=server_id, input_values={"foo": "bar"},
        action="CREATE", status="IN_PROGRESS", status_reason="Deploy data available")
    assert deployment.server_id == server_id
    assert deployment.status == "IN_PROGRESS"
    assert heat.software_deployments.get(deployment.id).input_values == {"foo": "bar"}
    listed = heat.software_deployments.list(server_id=server_id)
    assert [d.id for d in listed] == [deployment.id]

    metadata = heat.software_deployments.metadata(server_id=server_id)
    (derived,) = metadata
    assert derived["name"] == "cfg-a"
    assert derived["group"] == "script"
    assert derived["id"] == config.id
    assert derived["inputs"] == [{"name": "foo", "type": "String"}]

    updated = heat.software_deployments.update(
        deployment.id, status="COMPLETE", output_values={"result": "ok"})
    assert updated.status == "COMPLETE"
    assert updated.output_values == {"result": "ok"}

    heat.software_deployments.delete(deployment.id)
    with pytest.raises(exc.HTTPNotFound):
        heat.software_deployments.get(deployment.id)
    assert heat.software_deployments.metadata(server_id=server_id) == []
    heat.software_configs.delete(config.id)
    with pytest.raises(exc.HTTPNotFound):
        heat.software_configs.get(config.id)

