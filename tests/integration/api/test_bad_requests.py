"""Requests the API must refuse: each answers 4xx with Heat's error body, naming what is wrong,
and changes nothing."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf
from tests.integration.api.util import (
    TEMPLATE,
    assert_heat_error,
    base,
    create_stack,
    wait_created,
)

JSON = {"Content-Type": "application/json"}
T = TEMPLATE
UUID0 = "00000000-0000-0000-0000-000000000000"


class Stack:
    def __init__(self, url: str, name: str, stack_id: str) -> None:
        self.url, self.name, self.id = url, name, stack_id

    @property
    def path(self) -> str:
        return f"/stacks/{self.name}/{self.id}"


@pytest.fixture(scope="module")
def stack(noauth_server: RunningServer) -> Stack:
    """One CREATE_COMPLETE stack the refused requests aim at."""
    name, stack_id = create_stack(noauth_server.url)
    wait_created(noauth_server.url, name, stack_id)
    return Stack(noauth_server.url, name, stack_id)


def world(url: str) -> Any:
    """Everything a refused request could have changed."""
    b = base(url)
    stacks = requests.get(f"{b}/stacks", params={"show_deleted": "true", "show_hidden": "true",
                                                  "show_nested": "true"}, timeout=10).json()
    configs = requests.get(f"{b}/software_configs", timeout=10).json()
    deployments = requests.get(f"{b}/software_deployments", timeout=10).json()
    return (
        sorted((s["id"], s["stack_status"], s["updated_time"]) for s in stacks["stacks"]),
        sorted(c["id"] for c in configs["software_configs"]),
        sorted(d["id"] for d in deployments["software_deployments"]),
    )


def send(url: str, method: str, path: str, body: Any = None, **kwargs: Any) -> requests.Response:
    if isinstance(body, bytes):
        kwargs.update(data=body, headers={**JSON, **kwargs.get("headers", {})})
    elif body is not None:
        kwargs["json"] = body
    return requests.request(method, base(url) + path, allow_redirects=False, timeout=10,
                            **kwargs)


def _props(salt: Any) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {
        "r": {"type": "OS::Heat::RandomString", "properties": {"salt": salt}}}}


def _group(count: int) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {"g": {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": count, "resource_def": {"type": "OS::Heat::None"}}}}}


def _deep_if(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"if": [True, value, "y"]}
    return value


_names = itertools.count(1)


def name() -> str:
    """A fresh stack name, the same in every xdist worker (the ids of the cases hold it)."""
    return f"bad{next(_names)}"


# (method, path, body, status, fragments of the message); {S} is the stack's path.
CASES: list[tuple[str, str, Any, int, tuple[str, ...]]] = [
    # the body itself
    ("POST", "/stacks", b"{not json", 400, ("The request body is not valid JSON",)),
    ("POST", "/stacks", b"\xff\xfe{}", 400, ("The request body is not valid JSON",)),
    ("POST", "/stacks", b"[" * 20000 + b"]" * 20000, 400, ("nested too deeply",)),
    ("POST", "/stacks", b'{"a": ' * 20000 + b"1" + b"}" * 20000, 400, ("nested too deeply",)),
    ("POST", "/stacks", b"[1, 2]", 400, ("The request body must be a JSON object.",)),
    ("POST", "/stacks", b'"text"', 400, ("The request body must be a JSON object.",)),
    ("POST", "/stacks", b"", 400, ("The request body must be a JSON object.",)),
    # create: each key with a wrong type or value
    ("POST", "/stacks", {"template": T}, 400, ("No stack name specified",)),
    ("POST", "/stacks", {"stack_name": 5, "template": T}, 400,
     ('"stack_name" must be a string.',)),
    ("POST", "/stacks", {"stack_name": "1 bad", "template": T}, 400,
     ("Invalid stack name 1 bad",)),
    ("POST", "/stacks", {"stack_name": "x" * 300, "template": T}, 400, ("Invalid stack name",)),
    ("POST", "/stacks", {"stack_name": name()}, 400, ("No template specified",)),
    ("POST", "/stacks", {"stack_name": name(), "template": 5}, 400, ('"template" must be',)),
    ("POST", "/stacks", {"stack_name": name(), "template": "{{{"}, 400,
     ("Error parsing template",)),
    ("POST", "/stacks", {"stack_name": name(), "template": "[1, 2]"}, 400,
     ("The template is not a JSON object or YAML mapping.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": {}}, 400,
     ("Template version was not provided",)),
    ("POST", "/stacks", {"stack_name": name(), "template_url": 5}, 400,
     ('"template_url" must be a string.',)),
    ("POST", "/stacks", {"stack_name": name(), "template_url": "file:///etc/passwd"}, 400,
     ("Invalid URL scheme file",)),
    # found by hostile probing: each was a 500
    ("POST", "/stacks", {"stack_name": name(), "template": {
        "heat_template_version": "2018-08-31", "resources": "x"}}, 400,
     ("Resources must contain Resource",)),
    ("POST", "/stacks", {"stack_name": name(), "template": _props({"list_join": [5, 6]})}, 400,
     ("Property error: resources.r.properties.salt", "list_join")),
    ("POST", "/stacks", {"stack_name": name(), "template": _props({"get_param": [{"a": 1}]})},
     400, ("Property error: resources.r.properties.salt",)),
    ("POST", "/stacks", {"stack_name": name(), "template": _props({"get_file": [1, 2]})}, 400,
     ("Property error: resources.r.properties.salt", "get_file")),
    ("POST", "/stacks", {"stack_name": name(), "template": {
        "AWSTemplateFormatVersion": "2010-09-09", "Resources": {"r": {
            "Type": "OS::Heat::RandomString",
            "Properties": {"salt": {"Fn::Select": [{"a": 1}, 5]}}}}}}, 400,
     ("Property error: Resources.r.Properties.salt",)),
    ("POST", "/stacks", {"stack_name": name(), "template": {
        "heat_template_version": "2018-08-31", "resources": {"r": {
            "type": "OS::Heat::Stack", "properties": {"template": {"get_file": "none.yaml"}}}}}},
     400, ('No content found in the "files" section for get_file path: none.yaml',)),
    ("POST", "/stacks", {"stack_name": name(), "template": _props(_deep_if(300))}, 400,
     ("nested more than 64 levels deep",)),
    ("POST", "/validate", {"template": _props(_deep_if(300))}, 400,
     ("nested more than 64 levels deep",)),
    # YAML reads the key 1.5 as a number (found by the fuzz harness: a 500 TypeError).
    ("POST", "/validate", {"template": "heat_template_version: 2018-08-31\n"
                           "resources: {1.5: {type: OS::Heat::None}}\n"}, 400,
     ("Resource name 1.5 must be a string",)),
    ("POST", "/stacks", {"stack_name": name(), "template": "heat_template_version: 2018-08-31\n"
                         "resources: {1.5: {type: OS::Heat::None}}\n"}, 400,
     ("Resource name 1.5 must be a string",)),
    # group sizes are checked before anything is built (each held a thread for minutes)
    ("POST", "/stacks", {"stack_name": name(), "template": _group(10**9)}, 400,
     ("Request limit exceeded", "more than Hearth builds (100000)")),
    ("POST", "/stacks/preview", {"stack_name": name(), "template": _group(2**70)}, 400,
     ("Request limit exceeded", "more than Hearth builds (100000)")),
    ("POST", "/stacks", {"stack_name": name(), "template": {
        "heat_template_version": "2018-08-31", "resources": {"g": {
            "type": "OS::Heat::AutoScalingGroup", "properties": {
                "min_size": 10**8, "max_size": 10**8,
                "resource": {"type": "OS::Heat::None"}}}}}}, 400,
     ("Request limit exceeded", "more than Hearth builds (100000)")),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "parameters": [1]}, 400,
     ('"parameters" must be a JSON object',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "parameters": {"zz": 1}}, 400,
     ("The Parameter (zz) was not defined in template.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "files": {"a.yaml": 1}}, 400,
     ('"files" entry a.yaml must be a string.',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "files": ["a"]}, 400,
     ('"files" must be a JSON object',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "environment": 5}, 400,
     ('"environment" must be a JSON object or a YAML string.',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "environment": "{{{"}, 400,
     ("expected the node content",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "environment": {"bogus": 1}},
     400, ('environment has wrong section "bogus"',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "environment_files": "e.yaml"},
     400, ('"environment_files" must be a list of strings.',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T,
                         "environment_files": ["missing.yaml"]}, 400,
     ('Environment file "missing.yaml" is not in the files map',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "timeout_mins": "abc"}, 400,
     ("Only integer is acceptable by 'timeout_mins'.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "timeout_mins": 1.5}, 400,
     ("Only integer is acceptable by 'timeout_mins'.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "timeout_mins": -1}, 400,
     ("Only non-negative integer is acceptable by 'timeout_mins'.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "timeout_mins": 10**30}, 400,
     ("'timeout_mins' must be at most",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "tags": {"a": 1}}, 400,
     ('"tags" must be a comma-separated string or a list of strings.',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "tags": [1, 2]}, 400,
     ('"tags" must be a comma-separated string or a list of strings.',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "tags": "x" * 81}, 400,
     ("is too long",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "disable_rollback": "maybe"},
     400, ('Unrecognized value "maybe" for "disable_rollback"',)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "converge": True}, 400,
     ("converge flag only supported in stack update (or update preview) request.",)),
    ("POST", "/stacks", {"stack_name": name(), "template": T, "clear_parameters": 5}, 400,
     ('"clear_parameters" must be a list of parameter names.',)),
    ("POST", "/stacks", {"stack_name": name(), "adopt_stack_data": "nope"}, 400,
     ("Invalid adopt data",)),
    ("POST", "/stacks", {"stack_name": name(), "adopt_stack_data": '{"template": 5}'}, 400,
     ("Invalid adopt data",)),
    ("POST", "/stacks/preview", {"template": T}, 400, ("No stack name specified",)),
    ("POST", "/stacks/preview", {"stack_name": name(), "template": T, "parameters": 5}, 400,
     ('"parameters" must be a JSON object',)),
    # update, patch-update and their previews
    ("PUT", "{S}", b"[1]", 400, ("The request body must be a JSON object.",)),
    ("PUT", "{S}", {}, 400, ("No template specified",)),
    ("PUT", "{S}", {"template": T, "timeout_mins": "abc"}, 400,
     ("Only integer is acceptable by 'timeout_mins'.",)),
    ("PUT", "{S}", {"template": T, "parameters": {"zz": 1}}, 400,
     ("The Parameter (zz) was not defined in template.",)),
    ("PATCH", "{S}", b"", 400, ("The request body must be a JSON object.",)),
    ("PATCH", "{S}", {"clear_parameters": 5}, 400, ('"clear_parameters" must be a list',)),
    ("PATCH", "{S}", {"clear_parameters": [1]}, 400, ('"clear_parameters" must be a list',)),
    ("PATCH", "{S}", {"tags": 5}, 400, ('"tags" must be',)),
    ("PATCH", "{S}", {"template": 5}, 400, ('"template" must be',)),
    ("PATCH", "{S}", {"disable_rollback": "maybe"}, 400,
     ('Unrecognized value "maybe" for "disable_rollback"',)),
    ("PUT", "{S}/preview", b"[]", 400, ("The request body must be a JSON object.",)),
    # found by the fuzz run: a resources section that has no length was a 500 on update
    ("PUT", "{S}", {"template": {"heat_template_version": "2013-05-23", "resources": False}},
     400, ("Resources must contain Resource",)),
    ("PUT", "{S}/preview", {"template": {"heat_template_version": "2013-05-23",
                                         "resources": 5}}, 400,
     ("Resources must contain Resource",)),
    ("POST", "/stacks", {"stack_name": name(), "template": {
        "heat_template_version": "2013-05-23", "resources": False}}, 400,
     ("Resources must contain Resource",)),
    ("PUT", "{S}/preview?show_nested=maybe", {"template": T}, 400,
     ('Unrecognized value "maybe" for "show_nested"',)),
    ("PATCH", "{S}/preview", {"clear_parameters": 5}, 400,
     ('"clear_parameters" must be a list',)),
    # resources
    ("PATCH", "{S}/resources/store", {"mark_unhealthy": "maybe"}, 400,
     ('Unrecognized value "maybe" for "mark_unhealthy", acceptable values are: true, false',)),
    ("PATCH", "{S}/resources/store", {"mark_unhealthy": 1}, 400,
     ('Unrecognized value "1" for "mark_unhealthy"',)),
    ("PATCH", "{S}/resources/store", {"mark_unhealthy": True, "colour": "red"}, 400,
     ("Invalid keys in resource mark unhealthy ['colour']",)),
    ("PATCH", "{S}/resources/store", {}, 400,
     ("Missing mandatory (mark_unhealthy) key from mark unhealthy request",)),
    ("PATCH", "{S}/resources/store", b"[true]", 400,
     ("The request body must be a JSON object.",)),
    ("PATCH", "{S}/resources/store", {"mark_unhealthy": True, "resource_status_reason": 5},
     400, ('"resource_status_reason" must be a string.',)),
    ("PATCH", "{S}/resources/ghost", {"mark_unhealthy": True}, 404,
     ("The Resource (ghost) could not be found in Stack",)),
    ("POST", "{S}/resources/store/signal", b"{bad", 400,
     ("The request body is not valid JSON",)),
    ("POST", "{S}/resources/nothing/signal", {"x": 1}, 400, ("signal is not supported",)),
    # actions
    ("POST", "{S}/actions", {}, 400, ("No action specified",)),
    ("POST", "{S}/actions", b"", 400, ("No action specified",)),
    ("POST", "{S}/actions", {"suspend": None, "resume": None}, 400,
     ("Multiple actions specified",)),
    ("POST", "{S}/actions", {"explode": None}, 400, ("Invalid action explode specified",)),
    ("POST", "{S}/actions", b'["suspend"]', 400, ("The request body must be a JSON object.",)),
    ("POST", "{S}/actions", {"cancel_update": None}, 400,
     ("Cancelling update when stack is",)),
    # snapshots and outputs
    ("POST", "{S}/snapshots", {"name": 5}, 400, ('"name" must be a string.',)),
    ("POST", "{S}/snapshots", b"[1]", 400, ("The request body must be a JSON object.",)),
    ("POST", f"{{S}}/snapshots/{UUID0}/restore", None, 404, (UUID0,)),
    ("DELETE", f"{{S}}/snapshots/{UUID0}", None, 404, (UUID0,)),
    ("GET", "{S}/outputs/missing", None, 404, ("Specified output key missing not found.",)),
    # query strings
    ("GET", "/stacks?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "/stacks?limit=-1", None, 400,
     ("Only non-negative integer is acceptable by 'limit'.",)),
    ("GET", "/stacks?limit=abc", None, 400, ("Only integer is acceptable by 'limit'.",)),
    ("GET", "/stacks?limit=99999999999999999999999", None, 400, ("'limit' must be at most",)),
    ("GET", "/stacks?show_deleted=maybe", None, 400,
     ('Unrecognized value "maybe" for "show_deleted", acceptable values are: true, false',)),
    ("GET", "/stacks?show_hidden=yes", None, 400, ('Unrecognized value "yes" for "show_hidden"',)),
    ("GET", "/stacks?with_count=2", None, 400, ('Unrecognized value "2" for "with_count"',)),
    ("GET", "/stacks?sort_dir=sideways", None, 400, ("Unknown sort direction",)),
    ("GET", "/stacks?timeout_mins=abc", None, 400, ("abc", "timeout_mins")),
    ("GET", "/stacks/detail?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "{S}?resolve_outputs=maybe", None, 400,
     ('Unrecognized value "maybe" for "resolve_outputs"',)),
    ("GET", "{S}?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "{S}/resources?colour=red", None, 400, ("Invalid filter parameters ['colour']",)),
    ("GET", "{S}/resources?nested_depth=-1", None, 400,
     ("Only non-negative integer is acceptable by 'nested_depth'.",)),
    ("GET", "{S}/resources?with_detail=maybe", None, 400,
     ('Unrecognized value "maybe" for "with_detail"',)),
    ("GET", "{S}/resources/store?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "{S}/events?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "{S}/events?limit=-2", None, 400,
     ("Only non-negative integer is acceptable by 'limit'.",)),
    ("GET", "{S}/events?limit=99999999999999999999999", None, 400, ("'limit' must be at most",)),
    ("GET", "{S}/events?sort_dir=up", None, 400, ("Unknown sort direction",)),
    ("GET", "{S}/resources/store/events?nested_depth=x", None, 400,
     ("Only integer is acceptable by 'nested_depth'.",)),
    ("GET", "/software_configs?limit=-1", None, 400,
     ("Only non-negative integer is acceptable by 'limit'.",)),
    ("GET", "/software_configs?limit=99999999999999999999999", None, 400,
     ("'limit' must be at most",)),
    ("GET", "/software_configs?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "/software_deployments?colour=red", None, 400,
     ("Invalid query parameter(s): colour",)),
    ("GET", "/resource_types?with_description=maybe", None, 400,
     ('Unrecognized value "maybe" for "with_description"',)),
    ("GET", "/resource_types?support_status=WHAT", None, 400, ("Invalid support status",)),
    ("GET", "/resource_types?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "/resource_types/OS::Heat::None?with_description=maybe", None, 400,
     ('Unrecognized value "maybe" for "with_description"',)),
    ("GET", "/resource_types/OS::Heat::None/template?template_type=xml", None, 400,
     ('Invalid template type "xml"',)),
    ("GET", "/template_versions?colour=red", None, 400, ("Invalid query parameter(s): colour",)),
    ("GET", "/template_versions/heat_template_version.2018-08-31/functions"
     "?with_condition_func=maybe", None, 400,
     ('Unrecognized value "maybe" for "with_condition_func"',)),
    # validate
    ("POST", "/validate", b"{bad", 400, ("The request body is not valid JSON",)),
    ("POST", "/validate", {}, 400, ("No template specified",)),
    ("POST", "/validate", {"template": T, "parameters": []}, 400,
     ('"parameters" must be a JSON object',)),
    ("POST", "/validate?ignore_errors=abc", {"template": T}, 400,
     ("Invalid codes in ignore_errors",)),
    ("POST", "/validate?show_nested=maybe", {"template": T}, 400,
     ('Unrecognized value "maybe" for "show_nested"',)),
    ("POST", "/validate", {"template": {"heat_template_version": "1999-01-01"}}, 400,
     ("The template version is invalid",)),
    # software configs and deployments
    ("POST", "/software_configs", b"[]", 400, ("The request body must be a JSON object.",)),
    ("POST", "/software_configs", {"name": 5}, 400, ('"name" must be a string.',)),
    ("POST", "/software_configs", {"config": {"a": 1}}, 400, ('"config" must be a string.',)),
    ("POST", "/software_configs", {"inputs": "x"}, 400, ('"inputs" must be a list.',)),
    ("POST", "/software_configs", {"options": [1]}, 400, ('"options" must be a JSON object.',)),
    ("POST", "/software_configs", {"inputs": [5]}, 400,
     ("Software Config I/O Schema must be a dict",)),
    ("POST", "/software_configs", {"inputs": [{"name": "a", "type": "Bogus"}]}, 400,
     ('"Bogus" is not an allowed value',)),
    ("POST", "/software_deployments", {"server_id": "x"}, 400, ('"config_id" is required.',)),
    ("POST", "/software_deployments", {"server_id": 5, "config_id": "x"}, 400,
     ('"server_id" must be a string.',)),
    ("POST", "/software_deployments", {"server_id": "x", "config_id": "x",
                                       "input_values": [1]}, 400,
     ('"input_values" must be a JSON object.',)),
    ("POST", "/software_deployments", {"server_id": "x", "config_id": UUID0}, 400,
     (f"Config with id {UUID0} not found",)),
    ("PUT", f"/software_deployments/{UUID0}", {"status": "X"}, 404,
     (f"Deployment with id {UUID0} not found",)),
    ("GET", f"/software_configs/{UUID0}", None, 404,
     (f"Software config with id {UUID0} not found",)),
    ("DELETE", f"/software_configs/{UUID0}", None, 404,
     (f"Software config with id {UUID0} not found",)),
    # stacks, resources, events, types and versions that do not exist
    ("GET", f"/stacks/nope/{UUID0}", None, 404, ("The Stack (nope) could not be found.",)),
    ("GET", "/stacks/nope", None, 404, ("The Stack (nope) could not be found.",)),
    ("GET", "/stacks/nope/resources", None, 404, ("The Stack (nope) could not be found.",)),
    ("GET", f"/stacks/nope/{UUID0}/resources", None, 404,
     ("The Stack (nope) could not be found.",)),
    ("GET", "{S}/resources/ghost", None, 404,
     ("The Resource (ghost) could not be found in Stack",)),
    ("GET", "{S}/resources/ghost/events", None, 404, ("No events found for resource ghost",)),
    ("GET", f"{{S}}/resources/store/events/{UUID0}", None, 404, (UUID0,)),
    ("GET", f"{{S}}/snapshots/{UUID0}", None, 404, (UUID0,)),
    ("GET", "/resource_types/OS::Nope::Nothing", None, 404,
     ("The Resource Type (OS::Nope::Nothing) could not be found.",)),
    ("GET", "/template_versions/nope/functions", None, 404,
     ("The Template version (nope) could not be found.",)),
]


def _case_id(case: tuple[str, str, Any, int, tuple[str, ...]]) -> str:
    method, path, body, _, _ = case
    shown = body[:30] if isinstance(body, bytes) else (str(body)[:40] if body else "")
    return f"{method} {path} {shown}"


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_refused_with_heat_error_and_nothing_changes(
    noauth_server: RunningServer, stack: Stack,
    case: tuple[str, str, Any, int, tuple[str, ...]],
) -> None:
    method, path, body, status, fragments = case
    before = world(noauth_server.url)
    resp = send(noauth_server.url, method, path.replace("{S}", stack.path), body)
    assert_heat_error(resp, status, *fragments)
    assert world(noauth_server.url) == before


def test_mismatched_name_and_id(noauth_server: RunningServer, stack: Stack) -> None:
    url = noauth_server.url
    assert send(url, "GET", stack.path).status_code == 200
    assert_heat_error(send(url, "GET", f"/stacks/other/{stack.id}"), 404,
                      "The Stack (other) could not be found.", type_name="EntityNotFound")
    assert_heat_error(send(url, "GET", f"/stacks/{stack.name}/{UUID0}"), 404,
                      f"The Stack ({stack.name}) could not be found.")
    before = world(url)
    assert_heat_error(send(url, "DELETE", f"/stacks/other/{stack.id}"), 404, "other")
    assert_heat_error(send(url, "PATCH", f"/stacks/other/{stack.id}", {}), 404, "other")
    assert_heat_error(send(url, "POST", f"/stacks/other/{stack.id}/actions",
                           {"suspend": None}), 404, "other")
    assert world(url) == before


def test_name_lookup_redirects_keeping_sub_path_and_query(
    noauth_server: RunningServer, stack: Stack
) -> None:
    url = noauth_server.url
    canonical = f"{base(url)}{stack.path}"
    for ref in (stack.name, stack.id):
        resp = send(url, "GET", f"/stacks/{ref}")
        assert resp.status_code == 302
        assert resp.headers["Location"] == canonical
        assert resp.content == b""
        sub = send(url, "GET", f"/stacks/{ref}/resources?with_detail=true&nested_depth=1")
        assert sub.status_code == 302
        assert sub.headers["Location"] == (
            f"{canonical}/resources?with_detail=true&nested_depth=1")
        post = send(url, "POST", f"/stacks/{ref}/actions", {"check": None})
        assert post.status_code == 302
        assert post.headers["Location"] == f"{canonical}/actions"
    # followed, the redirect reaches the stack
    followed = requests.get(f"{base(url)}/stacks/{stack.name}/outputs", timeout=10)
    assert followed.status_code == 200 and followed.json() == {"outputs": [
        {"output_key": "stored", "description": "What the store holds"}]}


def test_unknown_url_wrong_method_options_versions(noauth_server: RunningServer) -> None:
    url = noauth_server.url
    for path in ("/nope", "/v1/demo/nope", "/v1/demo/stacks/a/b/c/d/e/f", "/v2/demo/stacks"):
        assert_heat_error(requests.get(url + path, timeout=10), 404,
                          "The resource could not be found.", type_name="HTTPNotFound")

    wrong = requests.delete(f"{base(url)}/stacks", timeout=10)
    assert_heat_error(wrong, 405, type_name="HTTPMethodNotAllowed")
    assert {m.strip() for m in wrong.headers["Allow"].split(",")} >= {"GET", "POST"}
    wrong_put = requests.put(f"{base(url)}/build_info", json={}, timeout=10)
    assert_heat_error(wrong_put, 405)
    assert "GET" in wrong_put.headers["Allow"] and "PUT" not in wrong_put.headers["Allow"]

    options = requests.options(f"{base(url)}/stacks", timeout=10)
    assert options.status_code == 204
    assert {m.strip() for m in options.headers["Allow"].split(",")} >= {"GET", "POST"}
    assert options.content == b""

    for path in ("/", "/versions"):
        versions = requests.get(url + path, timeout=10)
        assert versions.status_code == 300
        assert versions.json() == {"versions": [{
            "id": "v1.0", "status": "CURRENT",
            "links": [{"rel": "self", "href": f"{url}/v1/"}]}]}


# --- bodies over max_json_body_size ------------------------------------------------------

LIMIT = 2048


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = server_conf(Path(tmp_path_factory.mktemp("small")), max_json_body_size=LIMIT)
    with serving(conf) as running:
        yield running


def test_oversized_bodies_are_refused(small_server: RunningServer) -> None:
    url = small_server.url
    _, stack_id = create_stack(url, "fits")
    wait_created(url, "fits", stack_id)
    before = world(url)
    big = {"stack_name": "toolarge", "template": T, "parameters": {"value": "x" * LIMIT}}
    resp = send(url, "POST", "/stacks", big)
    body = assert_heat_error(resp, 400, "exceeds maximum allowed size", f"({LIMIT} bytes)",
                             type_name="RequestLimitExceeded")
    assert "JSON body size" in body["error"]["message"]

    # without a Content-Length (chunked), the limit still holds
    def chunks() -> Iterator[bytes]:
        yield b'{"stack_name": "chunked", "template": {}, "x": "'
        for _ in range(LIMIT // 512 + 1):
            yield b"y" * 512
        yield b'"}'

    chunked = requests.post(f"{base(url)}/stacks", data=chunks(), headers=JSON, timeout=10)
    assert_heat_error(chunked, 400, "exceeds maximum allowed size",
                      type_name="RequestLimitExceeded")
    update = send(url, "PUT", f"/stacks/fits/{stack_id}", {"template": T, "pad": "x" * LIMIT})
    assert_heat_error(update, 400, "exceeds maximum allowed size")
    validate = send(url, "POST", "/validate", {"template": T, "pad": "x" * LIMIT})
    assert_heat_error(validate, 400, "exceeds maximum allowed size")
    assert world(url) == before
    # just under the limit is fine
    small = send(url, "POST", "/validate", {"template": T})
    assert small.status_code == 200



def test_listing_by_many_tags_answers(noauth_server: RunningServer, stack: Stack) -> None:
    """A thousand tags in one filter (a condition per tag once nested past SQLite's limit)."""
    url = noauth_server.url
    many = ",".join(f"t{i}" for i in range(998))
    for key in ("tags", "not_tags", "tags_any", "not_tags_any"):
        resp = send(url, "GET", "/stacks", params={key: many})
        assert resp.status_code == 200, (key, resp.text[:200])
        names = {s["stack_name"] for s in resp.json()["stacks"]}
        assert (stack.name in names) == key.startswith("not_"), key


# A JSON "\ud800" (a surrogate with no pair) decodes to a str no UTF-8 encoder takes: stored
# in a snapshot name, a template or a parameter, it answered 500 UnicodeEncodeError.
SURROGATE_BODIES = [
    ("POST", "/stacks", b'{"stack_name": "s", "template": {"heat_template_version": '
     b'"2018-08-31", "description": "\\ud800"}}', "description"),
    ("POST", "/validate", b'{"template": {"heat_template_version": "2018-08-31"}, '
     b'"parameters": {"\\udfff": 1}}', "parameters.\\udfff"),
    ("POST", "/stacks/preview", b'{"stack_name": "s", "template": "heat_template_version: '
     b'2018-08-31\\noutputs: {o: {value: \\"a\\\\ud800\\"}}\\n"}', "outputs.o.value"),
]


@pytest.mark.parametrize(("method", "path", "raw", "where"), SURROGATE_BODIES)
def test_unpaired_surrogates_are_refused(noauth_server: RunningServer, method: str, path: str,
                                         raw: bytes, where: str) -> None:
    url = noauth_server.url
    before = world(url)
    resp = send(url, method, path, raw)
    assert_heat_error(resp, 400, where, "UTF-16 surrogate")
    assert world(url) == before


def test_unpaired_surrogate_in_a_snapshot_name_is_refused(
    noauth_server: RunningServer, stack: Stack
) -> None:
    resp = send(noauth_server.url, "POST", stack.path + "/snapshots", b'{"name": "\\ud800"}')
    assert_heat_error(resp, 400, "name", "UTF-16 surrogate")
    listed = send(noauth_server.url, "GET", stack.path + "/snapshots")
    assert listed.json()["snapshots"] == []


@pytest.mark.parametrize("names", [b"Infinity", b"3", b"true", b'"abc"'])
def test_encrypted_param_names_of_the_wrong_kind(noauth_server: RunningServer,
                                                 names: bytes) -> None:
    """Not a list: preview answered 500 (TypeError: 'float' object is not iterable)."""
    url = noauth_server.url
    before = world(url)
    body = (b'{"stack_name": "s", "template": {"heat_template_version": "2018-08-31"}, '
            b'"environment": {"encrypted_param_names": ' + names + b"}}")
    for path in ("/stacks/preview", "/stacks", "/validate"):
        resp = send(url, "POST", path, body)
        assert_heat_error(resp, 400, "encrypted_param_names must be a list")
    assert world(url) == before


def test_preview_of_an_external_chain_without_its_resources(
    noauth_server: RunningServer,
) -> None:
    """external_id skips validation, but preview builds the chain's child from its properties:
    a missing required one answered 500 ValueError."""
    template = {"heat_template_version": "2016-10-14", "resources": {"c": {
        "type": "OS::Heat::ResourceChain", "properties": {"concurrent": False},
        "external_id": "x"}}}
    resp = send(noauth_server.url, "POST", "/stacks/preview",
                {"stack_name": "s", "template": template})
    assert_heat_error(resp, 400, "resources.c.properties", "Property resources not assigned")
