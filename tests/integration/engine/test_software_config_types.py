"""The software config types end to end through the engine, on SQLite and PostgreSQL: what a
stack stores through the software-config API, what get_attr reads back, replacement on
update, removal on delete, and the validation errors users see."""

from __future__ import annotations

import email
import re
from email.message import Message
from typing import Any

import pytest
import yaml

from hearth.common.errors import NotFound, StackValidationFailed
from hearth.engine.engine import Engine
from hearth.resources.builtin.software.structured_config import substitute_inputs
from tests.integration.engine.conftest import CTX, resources, stack_row, wait_state

HOT = "2018-08-31"
COMPLETE = ("CREATE", "COMPLETE", "Stack CREATE completed successfully")


def template(resources_: dict[str, Any], outputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": HOT,
        "resources": resources_,
        "outputs": {key: {"value": value} for key, value in outputs.items()},
    }


def one(type_name: str, properties: dict[str, Any]) -> dict[str, Any]:
    """A stack of one config resource ``cfg`` whose id and config are its outputs."""
    return template(
        {"cfg": {"type": type_name, "properties": properties}},
        {"id": {"get_resource": "cfg"}, "config": {"get_attr": ["cfg", "config"]}},
    )


def outputs(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack_row(engine, identity).outputs}


def create(engine: Engine, tmpl: dict[str, Any], name: str = "s") -> dict[str, str]:
    identity = engine.create_stack(CTX, name, tmpl)
    assert wait_state(engine, identity) == COMPLETE
    return identity


def gone(engine: Engine, config_id: str) -> bool:
    try:
        engine.show_software_config(CTX, config_id)
    except NotFound:
        return True
    return False


def created_config(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    """The config stored for ``cfg``, checked to be its physical id and named after it."""
    row = resources(engine, identity)["cfg"]
    stored = engine.show_software_config(CTX, row.physical_resource_id)
    assert outputs(engine, identity)["id"] == stored["id"] == row.physical_resource_id
    assert re.fullmatch(r"s-cfg-[a-z0-9]{12}", stored["name"])
    return stored


# --- each type ---------------------------------------------------------------------------------


def test_software_config_stores_script_and_normalised_declarations(engine: Engine) -> None:
    identity = create(engine, one("OS::Heat::SoftwareConfig", {
        "group": "script",
        "config": "#!/bin/sh\necho $foo",
        "inputs": [
            {"name": "foo"},
            {"name": "port", "type": "Number", "default": "80", "replace_on_change": True},
        ],
        "outputs": [{"name": "result"}, {"name": "failed", "error_output": True}],
        "options": {"verbose": True},
    }))
    stored = created_config(engine, identity)
    assert stored["group"] == "script"
    assert stored["config"] == "#!/bin/sh\necho $foo"
    assert stored["inputs"] == [
        {"name": "foo", "description": "", "type": "String", "default": ""},
        {"name": "port", "description": "", "type": "Number", "default": 80,
         "replace_on_change": True},
    ]
    assert stored["outputs"] == [
        {"name": "result", "description": "", "type": "String", "error_output": False},
        {"name": "failed", "description": "", "type": "String", "error_output": True},
    ]
    assert stored["options"] == {"verbose": True}
    assert outputs(engine, identity)["config"] == "#!/bin/sh\necho $foo"


def test_software_config_defaults(engine: Engine) -> None:
    identity = create(engine, one("OS::Heat::SoftwareConfig", {}))
    stored = created_config(engine, identity)
    assert (stored["group"], stored["config"]) == ("Heat::Ungrouped", None)
    assert (stored["inputs"], stored["outputs"], stored["options"]) == ([], [], {})
    assert outputs(engine, identity)["config"] is None


def test_structured_config_keeps_its_map(engine: Engine) -> None:
    body = {"files": {"/etc/app": {"content": {"get_input": "content"}}}, "list": [1, "two"]}
    identity = create(engine, one("OS::Heat::StructuredConfig", {
        "group": "cfn-init", "config": body, "inputs": [{"name": "content"}],
    }))
    stored = created_config(engine, identity)
    assert (stored["group"], stored["config"]) == ("cfn-init", body)
    assert [i["name"] for i in stored["inputs"]] == ["content"]
    assert outputs(engine, identity)["config"] == body


def test_cloud_config_is_yaml_under_the_header(engine: Engine) -> None:
    cloud = {"runcmd": ["echo one", "echo two"], "write_files": [
        {"path": "/tmp/x", "content": "a\nb\n", "permissions": "0644"}]}
    identity = create(engine, one("OS::Heat::CloudConfig", {"cloud_config": cloud}))
    stored = created_config(engine, identity)
    assert stored["group"] == "Heat::Ungrouped"
    text = stored["config"]
    assert text.startswith("#cloud-config\nruncmd:\n- echo one\n- echo two\n")
    assert yaml.safe_load(text) == cloud
    assert (stored["inputs"], stored["outputs"], stored["options"]) == ([], [], {})
    assert outputs(engine, identity)["config"] == text


def test_software_component_stores_its_configs(engine: Engine) -> None:
    identity = create(engine, one("OS::Heat::SoftwareComponent", {
        "configs": [
            {"tool": "script", "config": "install"},
            {"tool": "script", "config": "remove", "actions": ["DELETE"]},
            {"tool": "puppet", "actions": ["SUSPEND", "RESUME"]},
        ],
        "inputs": [{"name": "version"}],
        "options": {"o": 1},
    }))
    stored = created_config(engine, identity)
    assert stored["group"] == "component"
    assert stored["config"] == {"configs": [
        {"actions": ["CREATE", "UPDATE"], "config": "install", "tool": "script"},
        {"actions": ["DELETE"], "config": "remove", "tool": "script"},
        {"actions": ["SUSPEND", "RESUME"], "config": None, "tool": "puppet"},
    ]}
    assert [i["name"] for i in stored["inputs"]] == ["version"]
    assert stored["options"] == {"o": 1}
    # As in Heat: the type's only attribute, ``config``, reads as nothing.
    assert outputs(engine, identity)["config"] is None


def payloads(message: Message) -> list[tuple[str, str | None, str]]:
    return [
        (part.get_content_type(), part.get_filename(), part.get_payload(decode=True).decode())
        for part in message.get_payload()
    ]


def test_multipart_mime_joins_stored_configs_and_inline_text(engine: Engine) -> None:
    missing = "5d0c4e38-4a4e-4f0a-9a4b-8a3c3f0e2b11"
    tmpl = template(
        {
            "script": {"type": "OS::Heat::SoftwareConfig",
                       "properties": {"config": "#!/bin/sh\necho hi\n"}},
            "cloud": {"type": "OS::Heat::CloudConfig",
                      "properties": {"cloud_config": {"packages": ["vim"]}}},
            "inner": {"type": "OS::Heat::MultipartMime", "properties": {"parts": [
                {"config": "first inner"},
                {"config": "second inner", "filename": "two.sh", "subtype": "x-shellscript"},
            ]}},
            "cfg": {"type": "OS::Heat::MultipartMime", "properties": {"group": "mime", "parts": [
                {"config": {"get_resource": "script"}, "subtype": "x-shellscript"},
                {"config": {"get_resource": "cloud"}, "filename": "cloud-config"},
                {"config": "inline text ☃"},
                {"config": missing},
                {"config": {"get_resource": "inner"}, "type": "multipart"},
            ]}},
        },
        {"id": {"get_resource": "cfg"}, "config": {"get_attr": ["cfg", "config"]}},
    )
    identity = create(engine, tmpl)
    stored = created_config(engine, identity)
    assert stored["group"] == "mime"
    assert (stored["inputs"], stored["outputs"], stored["options"]) == ([], [], {})
    message = email.message_from_string(stored["config"])
    assert message.get_content_type() == "multipart/mixed"
    assert payloads(message) == [
        ("text/x-shellscript", None, "#!/bin/sh\necho hi\n"),
        # With no subtype, the filename's stem is the subtype.
        ("text/cloud-config", "cloud-config", "#cloud-config\npackages:\n- vim\n"),
        ("text/plain", None, "inline text ☃"),
        # An id that names no config is attached as the text it is.
        ("text/plain", None, missing),
        # A multipart part brings the parts of the message it names.
        ("text/plain", None, "first inner"),
        ("text/x-shellscript", "two.sh", "second inner"),
    ]
    assert [p.get_content_charset() for p in message.get_payload()][2:4] == [
        "utf-8", "us-ascii"]
    assert outputs(engine, identity)["config"] == stored["config"]


# --- replacement and delete ---------------------------------------------------------------------

CHANGES = {
    "OS::Heat::SoftwareConfig": ({"config": "one"}, {"config": "two"}),
    "OS::Heat::StructuredConfig": ({"config": {"a": 1}}, {"config": {"a": 1}, "group": "g"}),
    "OS::Heat::CloudConfig": ({"cloud_config": {"a": 1}}, {"cloud_config": {"a": 2}}),
    "OS::Heat::MultipartMime": ({"parts": [{"config": "x"}]}, {"parts": [{"config": "y"}]}),
    "OS::Heat::SoftwareComponent": (
        {"configs": [{"tool": "script"}]},
        {"configs": [{"tool": "script"}], "options": {"new": True}},
    ),
}


@pytest.mark.parametrize("type_name", sorted(CHANGES))
def test_update_replaces_the_config_and_delete_removes_it(
    engine: Engine, type_name: str
) -> None:
    before, after = CHANGES[type_name]
    identity = create(engine, one(type_name, before))
    old = created_config(engine, identity)

    engine.update_stack(CTX, identity, one(type_name, after))
    assert wait_state(engine, identity) == (
        "UPDATE", "COMPLETE", "Stack UPDATE completed successfully"
    )
    new = created_config(engine, identity)
    assert new["id"] != old["id"]
    assert gone(engine, old["id"])
    assert [c["id"] for c in engine.list_software_configs(CTX)] == [new["id"]]

    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")
    assert gone(engine, new["id"])
    assert engine.list_software_configs(CTX) == []


def test_delete_when_the_config_is_already_gone(engine: Engine) -> None:
    identity = create(engine, one("OS::Heat::SoftwareConfig", {"config": "x"}))
    config_id = created_config(engine, identity)["id"]
    engine.delete_software_config(CTX, config_id)
    engine.delete_stack(CTX, identity)
    assert wait_state(engine, identity)[:2] == ("DELETE", "COMPLETE")


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_name", "properties", "message"),
    [
        (
            "OS::Heat::SoftwareComponent",
            {"configs": [{"tool": "a", "actions": ["CREATE", "DELETE"]},
                         {"tool": "b", "actions": ["DELETE"]}]},
            'Defining more than one configuration for the same action in SoftwareComponent '
            '"cfg" is not allowed.',
        ),
        (
            "OS::Heat::SoftwareComponent",
            {"configs": [{"tool": "a"}, {"tool": "b"}]},
            'Defining more than one configuration for the same action in SoftwareComponent '
            '"cfg" is not allowed.',
        ),
        (
            "OS::Heat::SoftwareComponent",
            {"configs": []},
            "Property error: resources.cfg.properties.configs: length (0) is out of range "
            "(min: 1, max: None)",
        ),
        (
            "OS::Heat::SoftwareConfig",
            {"inputs": [{"name": "x", "type": "Bogus"}]},
            'Property error: resources.cfg.properties.inputs[0].type: "Bogus" is not an '
            'allowed value ["String", "Number", "CommaDelimitedList", "Json", "Boolean"]',
        ),
        (
            "OS::Heat::SoftwareConfig",
            {"outputs": [{"type": "String"}]},
            "Property error: resources.cfg.properties.outputs[0]: Property name not assigned",
        ),
        (
            "OS::Heat::MultipartMime",
            {"parts": [{"config": "x", "type": "html"}]},
            'Property error: resources.cfg.properties.parts[0].type: "html" is not an '
            'allowed value ["text", "multipart"]',
        ),
    ],
)
def test_bad_definitions_are_refused_and_nothing_is_created(
    engine: Engine, type_name: str, properties: dict[str, Any], message: str
) -> None:
    with pytest.raises(StackValidationFailed) as info:
        engine.create_stack(CTX, "s", one(type_name, properties))
    assert str(info.value) == message
    assert engine.list_stacks(CTX) == []
    assert engine.list_software_configs(CTX) == []


# --- input substitution (for structured deployments) --------------------------------------------


def test_substitute_inputs_replaces_references_at_any_depth() -> None:
    config = {
        "a": {"get_input": "x"},
        "list": [{"get_input": "y"}, "plain", [{"get_input": "x"}]],
        "two_keys": {"get_input": "x", "other": 1},
        "not_a_name": {"get_input": ["x"]},
        "missing": {"get_input": "nope"},
        "text": "get_input",
    }
    assert substitute_inputs(config, {"x": 1, "y": {"deep": True}}) == {
        "a": 1,
        "list": [{"deep": True}, "plain", [1]],
        "two_keys": {"get_input": "x", "other": 1},
        "not_a_name": {"get_input": ["x"]},
        "missing": None,
        "text": "get_input",
    }


def test_substitute_inputs_options() -> None:
    config = {"a": {"my_input": "x"}, "b": {"get_input": "x"}, "c": {"my_input": "nope"}}
    assert substitute_inputs(config, {"x": 1}, "my_input", ignore_missing=True) == {
        "a": 1, "b": {"get_input": "x"}, "c": {"my_input": "nope"},
    }
    assert substitute_inputs({"get_input": "x"}, {"x": None}) is None
    with pytest.raises(Exception, match=r"The Parameter \(nope\) was not provided."):
        substitute_inputs(config, {"x": 1}, "my_input", strict=True)
