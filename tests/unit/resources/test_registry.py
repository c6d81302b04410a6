"""Plugin discovery (entry points, plugin directories) and type lookups."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from hearth.common.errors import ResourceTypeNotFound, ResourceTypeUnavailable
from hearth.resources import registry as registry_module
from hearth.resources.builtin import resource_mapping
from hearth.resources.builtin.value import Value
from hearth.resources.openstack import resource_mapping as openstack_mapping
from hearth.resources.registry import ENTRY_POINT_GROUP, PluginRegistry

BUILTIN = sorted(resource_mapping())
OPENSTACK = sorted(openstack_mapping())

PLUGIN = """
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource

from .helpers import DESCRIPTION


class Gadget(Resource):
    type_description = DESCRIPTION
    attributes_schema = {"colour": AttributeSchema("Its colour.")}


def available_resource_mapping():
    return {"Acme::Gadget": Gadget}


def resource_mapping():
    raise AssertionError("available_resource_mapping comes first")
"""


def write_plugins(root: Path) -> None:
    (root / "helpers.py").write_text('DESCRIPTION = "A gadget."\n')
    (root / "gadget.py").write_text(PLUGIN)


def test_builtin_types_come_from_the_entry_point() -> None:
    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    values = {p.value for p in points}
    assert "hearth.resources.builtin:resource_mapping" in values
    assert "hearth.resources.openstack:resource_mapping" in values
    assert PluginRegistry.load().type_names() == tuple(sorted({*BUILTIN, *OPENSTACK}))


def test_entry_points_may_name_a_module_or_a_mapping(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "acme_types.py").write_text(
        "from hearth.resources.base import Resource\n"
        "class Sprocket(Resource):\n    pass\n"
        "def resource_mapping():\n    return {'Acme::Sprocket': Sprocket}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [
        importlib.metadata.EntryPoint("acme", "acme_types", ENTRY_POINT_GROUP),
        importlib.metadata.EntryPoint(
            "builtin", "hearth.resources.builtin:resource_mapping", ENTRY_POINT_GROUP
        ),
    ]
    monkeypatch.setattr(registry_module.importlib.metadata, "entry_points", lambda group: points)
    loaded = PluginRegistry.load()
    assert loaded.type_names() == tuple(sorted([*BUILTIN, "Acme::Sprocket"]))
    sys.modules.pop("acme_types", None)


def test_modules_in_plugin_dirs_add_types(tmp_path: Path) -> None:
    # gadget.py imports helpers.py: plugin modules are loaded into a package of their own.
    write_plugins(tmp_path)
    loaded = PluginRegistry.load([str(tmp_path), str(tmp_path / "missing")])
    gadget = loaded.get_class("Acme::Gadget")
    assert gadget.description() == "A gadget."
    assert loaded.attribute_names("Acme::Gadget") == frozenset({"colour", "show"})
    assert "Acme::Gadget" in loaded.list_types()
    assert loaded.global_environment().get_resource_info("Acme::Gadget") is not None


def test_plugin_dirs_may_replace_a_builtin_type(tmp_path: Path) -> None:
    (tmp_path / "override.py").write_text(
        "from hearth.resources.base import Resource\n"
        "class MyNone(Resource):\n    pass\n"
        "def resource_mapping():\n    return {'OS::Heat::None': MyNone}\n"
    )
    loaded = PluginRegistry.load([str(tmp_path)])
    assert loaded.get_class("OS::Heat::None").__name__ == "MyNone"


def test_a_mapping_of_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def resource_mapping():\n    return {'X::Y': object}\n")
    with pytest.raises(TypeError, match="X::Y is not a Resource subclass"):
        PluginRegistry.load([str(tmp_path)])


def test_unknown_and_unavailable_types() -> None:
    loaded = PluginRegistry(resource_mapping())
    assert loaded.get_class("OS::Heat::Value") is Value
    with pytest.raises(ResourceTypeNotFound) as missing:
        loaded.get_class("My::Nothing")
    assert str(missing.value) == "The Resource Type (My::Nothing) could not be found."
    assert missing.value.heat_type == "StackValidationFailed"
    with pytest.raises(ResourceTypeUnavailable) as unavailable:
        loaded.get_class("OS::Nova::Server")
    assert str(unavailable.value).startswith(
        "HEAT-E99001 Service nova is not available for resource type OS::Nova::Server"
    )
    with pytest.raises(ResourceTypeUnavailable):
        loaded.schema("OS::Nova::Server")
    assert loaded.attribute_names("OS::Nova::Server") is None
    assert loaded.attribute_names("OS::Heat::None") is None
    assert loaded.attribute_names("OS::Heat::Value") == frozenset({"value", "show"})


def test_global_environment_keeps_heats_default_mappings() -> None:
    env = PluginRegistry(resource_mapping()).global_environment()
    entry = env.resolve_type("OS::Ceilometer::Alarm", "alarm")
    assert entry.name == "OS::Aodh::Alarm"
    assert env.resolve_type("OS::Heat::None", "n").kind == "plugin"
