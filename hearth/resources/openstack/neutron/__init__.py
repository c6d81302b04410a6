"""Neutron resource types (OS::Neutron::*)."""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.openstack.neutron.net import Net


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Neutron::Net": Net,
    }
