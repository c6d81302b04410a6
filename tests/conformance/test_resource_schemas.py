"""Hearth's answer to GET /resource_types/{type} equals Heat 27's for every OpenStack type
Hearth implements: properties (types, defaults, constraints, update_allowed, immutable),
attributes, support status and description.

``heat27/resource_schemas.json`` is Heat 27's own answer, recorded with Heat's code by
``heat27/dump_resource_schemas.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hearth.resources.registry import PluginRegistry

HEAT27 = json.loads(
    (Path(__file__).parent / "heat27" / "resource_schemas.json").read_text()
)
REGISTRY = PluginRegistry.load()
IMPLEMENTED = sorted(name for name in HEAT27 if name in REGISTRY)


def differences(mine: dict[str, Any], heat: dict[str, Any]) -> list[str]:
    out = []
    for section in ("properties", "attributes"):
        for name in sorted(set(mine[section]) | set(heat[section])):
            if mine[section].get(name) != heat[section].get(name):
                out.append(f"{section}.{name}: hearth {mine[section].get(name)!r} "
                           f"!= heat {heat[section].get(name)!r}")
    for key in ("support_status", "description", "resource_type"):
        if mine[key] != heat[key]:
            out.append(f"{key}: hearth {mine[key]!r} != heat {heat[key]!r}")
    return out


def test_some_openstack_types_are_implemented() -> None:
    assert "OS::Neutron::Net" in IMPLEMENTED


@pytest.mark.parametrize("type_name", IMPLEMENTED)
def test_schema_matches_heat27(type_name: str) -> None:
    heat = HEAT27[type_name]
    if heat["hidden"]:
        pytest.skip("hidden in Heat 27: not served")
    mine = REGISTRY.schema(type_name, with_description=True)
    assert differences(mine, heat) == []
