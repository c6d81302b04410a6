"""The deployment and server types of software configuration."""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin.software.deployed_server import DeployedServer
from hearth.resources.builtin.software.deployment import SoftwareDeployment
from hearth.resources.builtin.software.deployment_group import (
    SoftwareDeploymentGroup,
    SoftwareDeployments,
    StructuredDeploymentGroup,
    StructuredDeployments,
)
from hearth.resources.builtin.software.structured_deployment import StructuredDeployment


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::SoftwareDeployment": SoftwareDeployment,
        "OS::Heat::StructuredDeployment": StructuredDeployment,
        "OS::Heat::SoftwareDeploymentGroup": SoftwareDeploymentGroup,
        "OS::Heat::StructuredDeploymentGroup": StructuredDeploymentGroup,
        "OS::Heat::SoftwareDeployments": SoftwareDeployments,
        "OS::Heat::StructuredDeployments": StructuredDeployments,
        "OS::Heat::DeployedServer": DeployedServer,
    }
