"""Software configuration: configs (what to run), deployments (run it on a server, wait for
the agent's signal) and servers Hearth did not create (OS::Heat::DeployedServer)."""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin.software import configs, deployments


def resource_mapping() -> dict[str, type[Resource]]:
    return {**configs.resource_mapping(), **deployments.resource_mapping()}
