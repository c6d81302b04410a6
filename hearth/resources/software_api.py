"""What resource plugins may do with software configs and deployments (the SDK's side).

The engine keeps configs and deployments as the software-config API does (Heat's RPC shapes:
``id``, ``name``, ``group``, ``config``, ``inputs``, ``outputs``, ``options`` for a config;
``id``, ``server_id``, ``config_id``, ``input_values``, ``output_values``, ``action``,
``status``, ``status_reason`` for a deployment), in the resource's stack's project. Creating,
updating (with another config) or deleting a deployment republishes the ``deployments`` list
in the metadata of the server resource whose physical id is the deployment's server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class SoftwareConfigs(Protocol):
    def create_config(
        self,
        *,
        name: str | None,
        group: str | None,
        config: Any,
        inputs: Sequence[Mapping[str, Any]] | None = None,
        outputs: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A new (immutable) config; the answer holds its ``id``."""
        ...

    def show_config(self, config_id: str) -> dict[str, Any]:
        """The config; NotFound when there is none."""
        ...

    def delete_config(self, config_id: str) -> None:
        """Remove the config; nothing happens when it is already gone."""
        ...

    def create_deployment(
        self,
        *,
        deployment_id: str,
        server_id: str,
        config_id: str,
        input_values: Mapping[str, Any] | None,
        action: str,
        status: str,
        status_reason: str,
        stack_user_project_id: str | None = None,
    ) -> dict[str, Any]: ...

    def update_deployment(
        self,
        deployment_id: str,
        *,
        config_id: str | None = None,
        input_values: Mapping[str, Any] | None = None,
        output_values: Mapping[str, Any] | None = None,
        action: str | None = None,
        status: str | None = None,
        status_reason: str | None = None,
    ) -> dict[str, Any]: ...

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        """The deployment; NotFound when there is none."""
        ...

    def delete_deployment(self, deployment_id: str) -> None:
        """Remove the deployment; nothing happens when it is already gone."""
        ...

    def signal_deployment(
        self, deployment_id: str, details: Mapping[str, Any] | None
    ) -> str | None:
        """Record the agent's outputs for an IN_PROGRESS deployment; the event's sentence
        (None: the deployment was not waiting, the signal is ignored)."""
        ...

    def server_deployments(self, server_id: str) -> list[dict[str, Any]]:
        """The configs of a server's deployments, as its agent reads them."""
        ...

    def server_known(self, server_id: str) -> bool:
        """Whether a live resource of the project is that server (its agent may still act)."""
        ...

    def hook_groups(self) -> frozenset[str]:
        """The config groups the servers' agents have a hook for (the server's
        ``software_config_hooks``): an agent skips, and never signals, any other."""
        ...
