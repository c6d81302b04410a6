"""The software configs and deployments of one stack's project, for resource plugins
(hearth.resources.software_api over the engine's SoftwareService)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import NotFound
from hearth.engine.services.software import SoftwareService
from hearth.store import batch


class ProjectSoftware:
    """SoftwareConfigs acting in one project, with the engine's rights (no quota: a stack's
    own configs and deployments are bounded by its resources)."""

    def __init__(
        self, service: SoftwareService, tenant: str,
        holding: Callable[[], AbstractContextManager[Sequence[batch.Write]]] = (
            lambda: nullcontext(())),
    ) -> None:
        self._service = service
        # is_admin lifts the per-project limit only; rows are still made in ``tenant``.
        self._ctx = RequestContext(project_id=tenant, username="", roles=("admin",),
                                   is_admin=True)
        # What each write holds: a resource step's fences, as for its other writes
        # (``EngineResourceContext._holding``).
        self._fenced = holding

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
        with self._fenced() as fences:
            return self._service.create_software_config(
                self._ctx, group, name, config, inputs, outputs, options, fences=fences
            )

    def show_config(self, config_id: str) -> dict[str, Any]:
        return self._service.show_software_config(self._ctx, config_id)

    def delete_config(self, config_id: str) -> None:
        with self._fenced() as fences:
            try:
                self._service.delete_software_config(self._ctx, config_id, fences=fences)
            except NotFound:
                pass

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
    ) -> dict[str, Any]:
        with self._fenced() as fences:
            return self._service.create_software_deployment(
                self._ctx, server_id, config_id, input_values, action, status, status_reason,
                stack_user_project_id, deployment_id, fences=fences,
            )

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
    ) -> dict[str, Any]:
        with self._fenced() as fences:
            return self._service.update_software_deployment(
                self._ctx, deployment_id, config_id, input_values, output_values, action,
                status, status_reason, fences=fences,
            )

    def show_deployment(self, deployment_id: str) -> dict[str, Any]:
        return self._service.show_software_deployment(self._ctx, deployment_id)

    def delete_deployment(self, deployment_id: str) -> None:
        with self._fenced() as fences:
            try:
                self._service.delete_software_deployment(self._ctx, deployment_id, fences=fences)
            except NotFound:
                pass

    def signal_deployment(
        self, deployment_id: str, details: Mapping[str, Any] | None
    ) -> str | None:
        with self._fenced() as fences:
            return self._service.signal_software_deployment(
                self._ctx, deployment_id, details, fences=fences)

    def server_deployments(self, server_id: str) -> list[dict[str, Any]]:
        return self._service.metadata_software_deployments(self._ctx, server_id)

    def server_known(self, server_id: str) -> bool:
        return self._service.server_known(self._ctx.project_id, server_id)

    def hook_groups(self) -> frozenset[str]:
        return self._service.hook_groups
