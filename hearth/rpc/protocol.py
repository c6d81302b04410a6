"""Every engine call the API makes, as one typed protocol.

The API layer depends only on this protocol. The in-process transport is the engine object
itself (``hearth.engine.engine.Engine`` satisfies it structurally); a message-bus transport
would implement the same methods by sending them. Answers are plain JSON-safe data in Heat's
RPC shapes, and failures are ``hearth.common.errors.HearthError`` subclasses.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from typing import Any, Protocol

from hearth.common.context import RequestContext

Identity = Mapping[str, Any]
Filters = Mapping[str, Any]
Doc = Mapping[str, Any] | str | None


class StackCalls(Protocol):
    def create_stack(
        self, ctx: RequestContext, stack_name: str, template: Doc,
        params: Mapping[str, Any] | None = None, files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None, environment: Doc = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, str]: ...

    def update_stack(
        self, ctx: RequestContext, stack_identity: Identity, template: Doc,
        params: Mapping[str, Any] | None = None, files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None, environment: Doc = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, str]: ...

    def preview_stack(
        self, ctx: RequestContext, stack_name: str, template: Doc,
        params: Mapping[str, Any] | None = None, files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None, environment: Doc = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, Any]: ...

    def preview_update_stack(
        self, ctx: RequestContext, stack_identity: Identity, template: Doc,
        params: Mapping[str, Any] | None = None, files: Mapping[str, Any] | None = None,
        args: Mapping[str, Any] | None = None, environment: Doc = None,
        environment_files: Sequence[str] | None = None,
    ) -> dict[str, list[dict[str, Any]]]: ...

    def delete_stack(self, ctx: RequestContext, stack_identity: Identity) -> None: ...
    def abandon_stack(self, ctx: RequestContext, stack_identity: Identity) -> dict[str, Any]: ...
    def export_stack(self, ctx: RequestContext, stack_identity: Identity) -> dict[str, Any]: ...
    def stack_suspend(self, ctx: RequestContext, stack_identity: Identity) -> None: ...
    def stack_resume(self, ctx: RequestContext, stack_identity: Identity) -> None: ...
    def stack_check(self, ctx: RequestContext, stack_identity: Identity) -> None: ...

    def stack_cancel_update(
        self, ctx: RequestContext, stack_identity: Identity, cancel_with_rollback: bool = True
    ) -> None: ...

    def stack_snapshot(
        self, ctx: RequestContext, stack_identity: Identity, name: str | None
    ) -> dict[str, Any]: ...

    def delete_snapshot(
        self, ctx: RequestContext, stack_identity: Identity, snapshot_id: str
    ) -> None: ...

    def stack_restore(
        self, ctx: RequestContext, stack_identity: Identity, snapshot_id: str
    ) -> None: ...

    def resource_signal(
        self, ctx: RequestContext, stack_identity: Identity, resource_name: str, details: Any,
        sync_call: bool = False,
    ) -> Any: ...

    def resource_mark_unhealthy(
        self, ctx: RequestContext, stack_identity: Identity, resource_name: str,
        mark_unhealthy: Any, resource_status_reason: str | None = None,
    ) -> None: ...

    def resource_signal_by_token(
        self, resource_uuid: str, secret: str, details: Any, kind: str = "signal"
    ) -> dict[str, Any]:
        """A signal through a public signal URL (``kind``: ``signal`` or ``waitcondition``);
        the URL's secret is the only credential. Returns ``{"resource", "metadata"}``."""
        ...

    def resource_metadata_by_token(self, resource_uuid: str, secret: str) -> Any:
        """A server resource's metadata through its secret metadata URL (its agent's)."""
        ...


class ReadCalls(Protocol):
    def identify_stack(self, ctx: RequestContext, stack_name: str) -> dict[str, str]: ...

    def show_stack(
        self, ctx: RequestContext, stack_identity: Identity | None, resolve_outputs: bool = True
    ) -> list[dict[str, Any]]: ...

    def list_stacks(
        self, ctx: RequestContext, limit: int | None = None, marker: str | None = None,
        sort_keys: Sequence[str] | None = None, sort_dir: str | None = None,
        filters: Filters | None = None, show_deleted: bool = False, show_nested: bool = False,
        show_hidden: bool = False, tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None, not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None, global_tenant: bool = False,
    ) -> list[dict[str, Any]]: ...

    def count_stacks(
        self, ctx: RequestContext, filters: Filters | None = None, show_deleted: bool = False,
        show_nested: bool = False, show_hidden: bool = False,
        tags: Sequence[str] | None = None, tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None, not_tags_any: Sequence[str] | None = None,
        global_tenant: bool = False,
    ) -> int: ...

    def get_template(self, ctx: RequestContext, stack_identity: Identity) -> dict[str, Any]: ...
    def get_environment(
        self, ctx: RequestContext, stack_identity: Identity
    ) -> dict[str, Any]: ...
    def get_files(self, ctx: RequestContext, stack_identity: Identity) -> dict[str, str]: ...
    def list_outputs(
        self, ctx: RequestContext, stack_identity: Identity
    ) -> list[dict[str, Any]]: ...

    def show_output(
        self, ctx: RequestContext, stack_identity: Identity, output_key: str
    ) -> dict[str, Any]: ...

    def list_stack_resources(
        self, ctx: RequestContext, stack_identity: Identity, nested_depth: int = 0,
        with_detail: bool = False, filters: Filters | None = None,
    ) -> list[dict[str, Any]]: ...

    def describe_stack_resource(
        self, ctx: RequestContext, stack_identity: Identity, resource_name: str,
        with_attr: Sequence[str] | bool | None = None,
    ) -> dict[str, Any]: ...

    def resource_metadata(
        self, ctx: RequestContext, stack_identity: Identity, resource_name: str
    ) -> Any: ...

    def find_physical_resource(
        self, ctx: RequestContext, physical_resource_id: str
    ) -> dict[str, str]: ...

    def list_events(
        self, ctx: RequestContext, stack_identity: Identity | None,
        filters: Filters | None = None, limit: int | None = None, marker: str | None = None,
        sort_keys: Sequence[str] | None = None, sort_dir: str | None = None,
        nested_depth: int | None = None,
    ) -> list[dict[str, Any]]: ...

    def show_event(
        self, ctx: RequestContext, stack_identity: Identity, resource_name: str, event_id: str
    ) -> dict[str, Any]: ...

    def stack_list_snapshots(
        self, ctx: RequestContext, stack_identity: Identity
    ) -> list[dict[str, Any]]: ...

    def show_snapshot(
        self, ctx: RequestContext, stack_identity: Identity, snapshot_id: str
    ) -> dict[str, Any]: ...

    def list_services(self, ctx: RequestContext) -> list[dict[str, Any]]: ...


class CatalogCalls(Protocol):
    def list_resource_types(
        self, ctx: RequestContext, support_status: str | None = None,
        type_name: str | None = None, heat_version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]: ...

    def resource_schema(
        self, ctx: RequestContext, type_name: str, with_description: bool = False
    ) -> dict[str, Any]: ...

    def generate_template(
        self, ctx: RequestContext, type_name: str, template_type: str = "cfn"
    ) -> dict[str, Any]: ...

    def list_template_versions(self, ctx: RequestContext) -> list[dict[str, object]]: ...

    def list_template_functions(
        self, ctx: RequestContext, template_version: str, with_condition: bool = False
    ) -> list[dict[str, str]]: ...

    def validate_template(
        self, ctx: RequestContext, template: Doc, params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None, environment: Doc = None,
        environment_files: Sequence[str] | None = None, show_nested: bool = False,
        ignorable_errors: Collection[str] | None = None,
    ) -> dict[str, Any]: ...


class SoftwareCalls(Protocol):
    def list_software_configs(
        self, ctx: RequestContext, limit: int | None = None, marker: str | None = None,
        tenant_safe: bool = True,
    ) -> list[dict[str, Any]]: ...

    def show_software_config(self, ctx: RequestContext, config_id: str) -> dict[str, Any]: ...

    def create_software_config(
        self, ctx: RequestContext, group: str | None, name: str | None, config: Any,
        inputs: Any, outputs: Any, options: Any,
    ) -> dict[str, Any]: ...

    def delete_software_config(self, ctx: RequestContext, config_id: str) -> None: ...

    def list_software_deployments(
        self, ctx: RequestContext, server_id: str | None = None
    ) -> list[dict[str, Any]]: ...

    def metadata_software_deployments(
        self, ctx: RequestContext, server_id: str
    ) -> list[dict[str, Any]]: ...

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> dict[str, Any]: ...

    def create_software_deployment(
        self, ctx: RequestContext, server_id: str, config_id: str, input_values: Any,
        action: str, status: str, status_reason: str, stack_user_project_id: str | None,
        deployment_id: str | None = None,
    ) -> dict[str, Any]: ...

    def update_software_deployment(
        self, ctx: RequestContext, deployment_id: str, config_id: str | None,
        input_values: Any, output_values: Any, action: str | None, status: str | None,
        status_reason: str | None, updated_at: str | None,
    ) -> dict[str, Any]: ...

    def delete_software_deployment(self, ctx: RequestContext, deployment_id: str) -> None: ...


class ServiceCalls(Protocol):
    """What an API process tells the engines about itself (for the service list)."""

    def report_service(
        self, ctx: RequestContext, service_id: str, binary: str, host: str,
        report_interval: int,
    ) -> None: ...

    def remove_service(self, ctx: RequestContext, service_id: str) -> None: ...


class EngineAPI(StackCalls, ReadCalls, CatalogCalls, SoftwareCalls, ServiceCalls, Protocol):
    """Everything the REST API asks of the engine."""


@cache
def engine_methods() -> frozenset[str]:
    """The names of every call in the engine's protocol."""
    return frozenset(
        name for name, _ in inspect.getmembers(EngineAPI, inspect.isfunction)
        if not name.startswith("_")
    )
