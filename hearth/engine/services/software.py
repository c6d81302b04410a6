"""Software configs and deployments: heat-engine's RPC calls for them, in Heat's RPC shapes.

A software config is an immutable script (or structured document) with declared inputs,
outputs and options; a deployment applies one config to one server with input values, and
records the action, status and outputs the in-instance agent reports back.

After a deployment is created, deleted or given another config, the server's deployment
list (``metadata_software_deployments``) is written into the metadata of the server's
resource (hearth.engine.services.software_publish), where its agent reads it.

What Heat does beyond that and is not done here:

- Heat also pushes that list on to a Swift ``metadata_put_url`` or Zaqar queue (Hearth serves
  the metadata itself; Swift and Zaqar transports are refused at validation);
- showing an ``IN_PROGRESS`` deployment whose config carries a ``TEMP_URL_SIGNAL`` or
  ``ZAQAR_SIGNAL`` transport first polls Swift or Zaqar for the agent's signal;
- ``check_software_deployment`` (a blocking wait, unused by Heat's own API) is not offered.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import (
    HearthError,
    Invalid,
    InvalidRestrictedAction,
    InvalidSchemaError,
    NotFound,
    RequestLimitExceeded,
    StackValidationFailed,
)
from hearth.engine.reading.formatting import isotime
from hearth.engine.services.software_publish import publish, server_resource_ids
from hearth.resources import schema as types
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.store import batch
from hearth.store import software as store
from hearth.store.db import Database, Session
from hearth.store.models import SoftwareConfig, SoftwareDeployment
from hearth.store.types import utcnow
from hearth.template.constraints import AllowedValues

DEFAULT_MAX_PER_TENANT = 4096

IN_PROGRESS, FAILED, COMPLETE = "IN_PROGRESS", "FAILED", "COMPLETE"
STATUS_CODE, STDOUT, STDERR = "deploy_status_code", "deploy_stdout", "deploy_stderr"
STANDARD_OUTPUTS = (STDOUT, STDERR, STATUS_CODE)


class PlainValueError(HearthError):
    """Where Heat's engine raises a bare ``ValueError`` (or ``TypeError``) on bad input.

    Heat's API reports the builtin's name as the error type; it answers 400 for ValueError and
    (unmapped) 500 for TypeError. A bad request is a 400 here either way.
    """

    def __init__(self, message: str, heat_type: str = "ValueError") -> None:
        super().__init__(message)
        self._heat_type = heat_type

    @property
    def heat_type(self) -> str:
        return self._heat_type


# --- input and output declarations -----------------------------------------------------------

IO_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")

# The property type a declared input type reads its default as (Heat's parameter facade).
_DEFAULT_TYPES = {
    "String": types.STRING,
    "Number": types.NUMBER,
    "CommaDelimitedList": types.LIST,
    "Json": types.MAP,
    "Boolean": types.BOOLEAN,
}


def _io_schema(extra: Mapping[str, PropertySchema]) -> dict[str, PropertySchema]:
    return {
        "name": PropertySchema(types.STRING, "Name.", required=True),
        "description": PropertySchema(types.STRING, "Description."),
        "type": PropertySchema(
            types.STRING, "Type of the value.", default="String",
            constraints=[AllowedValues(IO_TYPES)],
        ),
        **extra,
    }


INPUT_SCHEMA = _io_schema({
    "default": PropertySchema(types.ANY, "Default value."),
    "replace_on_change": PropertySchema(types.BOOLEAN, "Replace on change.", default=False),
})
OUTPUT_SCHEMA = _io_schema({
    "error_output": PropertySchema(types.BOOLEAN, "Error output.", default=False),
})


def _check_io_list(declarations: Any) -> list[Mapping[str, Any]]:
    if declarations is None:
        return []  # Heat's RPC client sends [] for a missing list
    if isinstance(declarations, str | Mapping) or not isinstance(declarations, Sequence):
        raise PlainValueError("Software Config I/O Schema must be in a list", "TypeError")
    if not all(isinstance(item, Mapping) for item in declarations):
        raise PlainValueError("Software Config I/O Schema must be a dict", "TypeError")
    return list(declarations)


def _declaration(
    schema: Mapping[str, PropertySchema], data: Mapping[str, Any]
) -> dict[str, Any]:
    props = Properties(schema, data)
    try:
        props.validate()
    except StackValidationFailed as exc:
        raise PlainValueError(str(exc)) from None
    return {key: value for key, value in props.items() if value is not None}


def input_declaration(data: Mapping[str, Any]) -> dict[str, Any]:
    """One declared input, checked and with its defaults filled in, as Heat stores it.

    A ``value`` (what a derived config carries) is kept as given; a ``default`` is read as the
    declared type (except the legacy empty string of a non-String input).
    """
    fields = dict(data)
    has_value = "value" in fields
    value = fields.pop("value", None)
    schema = INPUT_SCHEMA
    if "type" in fields and "default" in fields:
        io_type = fields["type"]
        if not (fields["default"] == "" and io_type != "String"):
            if io_type not in _DEFAULT_TYPES:
                raise InvalidSchemaError(f"Invalid type ({io_type})")
            kind = _DEFAULT_TYPES[io_type]
            default = PropertySchema(
                kind, required=True, allow_conversion=kind in (types.LIST, types.MAP)
            )
            schema = {**INPUT_SCHEMA, "default": default}
    result = _declaration(schema, fields)
    if not result.get("replace_on_change"):
        result.pop("replace_on_change", None)
    if has_value:
        result["value"] = value
    return result


def output_declaration(data: Mapping[str, Any]) -> dict[str, Any]:
    """One declared output, checked and with its defaults filled in, as Heat stores it."""
    return _declaration(OUTPUT_SCHEMA, data)


# --- Heat's RPC shapes -----------------------------------------------------------------------


def format_software_config(
    row: SoftwareConfig, *, detail: bool = True, include_project: bool = False
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": row.id,
        "name": row.name,
        "group": row.group,
        "creation_time": isotime(row.created_at),
    }
    if detail:
        body = row.config or {}
        for key in ("config", "inputs", "outputs", "options"):
            result[key] = body.get(key)
    if include_project:
        result["project"] = row.tenant
    return result


def format_software_deployment(row: SoftwareDeployment) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": row.id,
        "server_id": row.server_id,
        "input_values": row.input_values,
        "output_values": row.output_values,
        "action": row.action,
        "status": row.status,
        "status_reason": row.status_reason,
        "config_id": row.config_id,
        "creation_time": isotime(row.created_at),
    }
    if row.updated_at is not None:
        result["updated_time"] = isotime(row.updated_at)
    return result


def _parse_time(value: str) -> datetime:
    """An ISO 8601 time as naive UTC (what the timestamp columns store)."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise PlainValueError(f"Unable to parse date string '{value}'") from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def _config_not_found(config_id: str) -> NotFound:
    return NotFound(f"Software config with id {config_id} not found")


def _deployment_not_found(deployment_id: str) -> NotFound:
    return NotFound(f"Deployment with id {deployment_id} not found")


# --- the service -----------------------------------------------------------------------------


class SoftwareService:
    """heat-engine's software config and deployment calls over Hearth's database."""

    def __init__(
        self,
        db: Database,
        *,
        max_configs_per_tenant: int = DEFAULT_MAX_PER_TENANT,
        max_deployments_per_tenant: int = DEFAULT_MAX_PER_TENANT,
        hook_groups: Sequence[str] = (),
    ) -> None:
        self._db = db
        # The config groups the agents have a hook for (``software_config_hooks``).
        self.hook_groups = frozenset(hook_groups)
        self._max_configs = max_configs_per_tenant
        self._max_deployments = max_deployments_per_tenant

    @contextmanager
    def _writing(self, fences: Sequence[batch.Write]) -> Iterator[Session]:
        """A write transaction, refused whole (``LockLost``, ``ClaimLost``) unless
        ``fences`` hold: those of the resource step whose handler writes (none for the
        API's own calls)."""
        with self._db.session() as session:
            if fences:
                batch.apply(session.connection(), fences)
            yield session

    # --- configs -------------------------------------------------------------------------

    def list_software_configs(
        self,
        ctx: RequestContext,
        limit: int | None = None,
        marker: str | None = None,
        tenant_safe: bool = True,
    ) -> list[dict[str, Any]]:
        """Summaries, newest first. Admins (and ``tenant_safe=False``) list every project's,
        each with its ``project``."""
        every_project = ctx.is_admin or not tenant_safe
        with self._db.session(readonly=True) as session:
            rows = store.list_configs(
                session,
                None if every_project else ctx.project_id,
                limit=None if limit is None else int(limit),
                marker=marker,
            )
            return [
                format_software_config(row, detail=False, include_project=every_project)
                for row in rows
            ]

    def show_software_config(self, ctx: RequestContext, config_id: str) -> dict[str, Any]:
        with self._db.session(readonly=True) as session:
            row = store.scoped_config(
                session, config_id, project=ctx.project_id, is_admin=ctx.is_admin
            )
            if row is None:
                raise _config_not_found(config_id)
            return format_software_config(row)

    def create_software_config(
        self,
        ctx: RequestContext,
        group: str | None,
        name: str | None,
        config: Any,
        inputs: Sequence[Mapping[str, Any]] | None = None,
        outputs: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        fences: Sequence[batch.Write] = (),
    ) -> dict[str, Any]:
        body = {
            "inputs": [input_declaration(i) for i in _check_io_list(inputs)],
            "outputs": [output_declaration(o) for o in _check_io_list(outputs)],
            "options": dict(options) if options is not None else {},
            "config": config,
        }
        with self._writing(fences) as session:
            if not ctx.is_admin and 0 <= self._max_configs <= store.count_configs(
                session, ctx.project_id
            ):
                raise RequestLimitExceeded(
                    "You have reached the maximum software configs per tenant, "
                    f"{self._max_configs}. Please delete some configs."
                )
            row = store.create_config(
                session, tenant=ctx.project_id, name=name, group=group, config=body
            )
            return format_software_config(row)

    def delete_software_config(
        self, ctx: RequestContext, config_id: str, *, fences: Sequence[batch.Write] = ()
    ) -> None:
        with self._writing(fences) as session:
            row = store.scoped_config(
                session, config_id, project=ctx.project_id, is_admin=ctx.is_admin
            )
            if row is None:
                raise _config_not_found(config_id)
            if store.config_in_use(session, config_id):
                raise InvalidRestrictedAction(
                    f"Software config with id {config_id} can not be deleted as it is "
                    "referenced."
                )
            store.delete_config(session, config_id)

    # --- deployments ---------------------------------------------------------------------

    def list_software_deployments(
        self, ctx: RequestContext, server_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The deployments the caller may see (of one server if given), oldest first."""
        with self._db.session(readonly=True) as session:
            pairs = store.list_deployments(
                session, None if ctx.is_admin else ctx.project_id, server_id=server_id
            )
            return [format_software_deployment(deployment) for deployment, _ in pairs]

    def metadata_software_deployments(
        self, ctx: RequestContext, server_id: str
    ) -> list[dict[str, Any]]:
        """The configs a server's deployments apply, sorted by config name (the list the
        in-instance agent reads; ties keep the deployments' creation order)."""
        if not server_id:
            raise PlainValueError("server_id must be specified")
        with self._db.session(readonly=True) as session:
            pairs = store.list_deployments(
                session, None if ctx.is_admin else ctx.project_id, server_id=server_id
            )
            configs = sorted((config for _, config in pairs), key=lambda c: c.name or "")
            return [format_software_config(config) for config in configs]

    def show_software_deployment(
        self, ctx: RequestContext, deployment_id: str
    ) -> dict[str, Any]:
        with self._db.session(readonly=True) as session:
            row = store.scoped_deployment(
                session, deployment_id, project=ctx.project_id, is_admin=ctx.is_admin
            )
            if row is None:
                raise _deployment_not_found(deployment_id)
            return format_software_deployment(row)

    def create_software_deployment(
        self,
        ctx: RequestContext,
        server_id: str,
        config_id: str | None,
        input_values: Mapping[str, Any] | None = None,
        action: str | None = "INIT",
        status: str | None = COMPLETE,
        status_reason: Any = "",
        stack_user_project_id: str | None = None,
        deployment_id: str | None = None,
        *,
        fences: Sequence[batch.Write] = (),
    ) -> dict[str, Any]:
        if stack_user_project_id is not None and len(stack_user_project_id) > 64:
            raise Invalid('"stack_user_project_id" should be no more than 64 characters')
        if not server_id:
            raise PlainValueError("server_id must be specified")
        if len(server_id) > 36:
            raise Invalid('"server_id" should be no more than 36 characters')
        with self._writing(fences) as session:
            if not ctx.is_admin and 0 <= self._max_deployments <= store.count_deployments(
                session, ctx.project_id
            ):
                raise RequestLimitExceeded(
                    "You have reached the maximum software deployments per tenant, "
                    f"{self._max_deployments}. Please delete some deployments."
                )
            self._require_config(session, ctx, config_id)
            fields: dict[str, Any] = {
                "config_id": config_id,
                "server_id": server_id,
                "input_values": dict(input_values) if input_values is not None else {},
                "tenant": ctx.project_id,
                "stack_user_project_id": stack_user_project_id,
                "action": action,
                "status": status,
                "status_reason": str(status_reason),
            }
            if deployment_id is not None:
                fields["id"] = deployment_id
            row = store.create_deployment(session, **fields)
            self._publish(session, ctx.project_id, server_id)
            return format_software_deployment(row)

    def update_software_deployment(
        self,
        ctx: RequestContext,
        deployment_id: str,
        config_id: str | None = None,
        input_values: Mapping[str, Any] | None = None,
        output_values: Mapping[str, Any] | None = None,
        action: str | None = None,
        status: str | None = None,
        status_reason: Any = None,
        updated_at: str | None = None,
        *,
        fences: Sequence[batch.Write] = (),
    ) -> dict[str, Any]:
        """Set the fields given (empty values leave a field as it is) and ``updated_time``:
        ``updated_at`` (ISO 8601) if given, else now."""
        stamp = _parse_time(updated_at) if updated_at else utcnow()
        with self._writing(fences) as session:
            row = store.scoped_deployment(
                session, deployment_id, project=ctx.project_id, is_admin=ctx.is_admin,
                for_update=True,
            )
            if row is None:
                raise _deployment_not_found(deployment_id)
            if config_id:
                self._require_config(session, ctx, config_id)
                row.config_id = config_id
            if input_values:
                row.input_values = dict(input_values)
            if output_values:
                row.output_values = dict(output_values)
            if action:
                row.action = action
            if status:
                row.status = status
            if status_reason:
                row.status_reason = str(status_reason)
            row.updated_at = stamp
            session.flush()
            if config_id:
                # The agent's list holds configs: only a new config changes it.
                self._publish(session, row.tenant, row.server_id)
            return format_software_deployment(row)

    def signal_software_deployment(
        self,
        ctx: RequestContext,
        deployment_id: str,
        details: Mapping[str, Any] | None,
        updated_at: str | None = None,
        *,
        fences: Sequence[batch.Write] = (),
    ) -> str | None:
        """Record what the in-instance agent reports for an ``IN_PROGRESS`` deployment.

        Values of the config's declared outputs and the standard ``deploy_stdout``,
        ``deploy_stderr`` and ``deploy_status_code`` become the output values. The deployment
        FAILS when the status code is non-zero or an ``error_output`` has a value (the reason
        lists each), else it is COMPLETE ("Outputs received"). Returns a sentence for the
        event (None when the deployment was not in progress: the signal is ignored).
        """
        if not deployment_id:
            raise PlainValueError("deployment_id must be specified")
        stamp = _parse_time(updated_at) if updated_at else utcnow()
        details = details or {}
        with self._writing(fences) as session:
            row = store.scoped_deployment(
                session, deployment_id, project=ctx.project_id, is_admin=ctx.is_admin,
                for_update=True,
            )
            if row is None:
                raise _deployment_not_found(deployment_id)
            if row.status != IN_PROGRESS:
                return None
            config = store.configs_by_id(session, [row.config_id]).get(row.config_id)
            declared = ((config.config or {}).get("outputs") if config is not None else None)
            outputs = dict(row.output_values or {})
            failed = False
            reasons: dict[str, Any] = {}
            status_code = details.get(STATUS_CODE)
            if status_code and str(status_code) != "0":
                failed = True
                reasons[STATUS_CODE] = (
                    f"Deployment exited with non-zero status code: {status_code}"
                )
                event = f"deployment {deployment_id} failed ({status_code})"
            else:
                event = f"deployment {deployment_id} succeeded"
            for output in declared or []:
                key = output["name"]
                if key in details:
                    outputs[key] = details[key]
                    if output.get("error_output", False):
                        failed = True
                        reasons[key] = details[key]
                        event = f"deployment {deployment_id} failed"
            for key in STANDARD_OUTPUTS:
                outputs[key] = details.get(key)
            row.output_values = outputs
            if failed:
                row.status = FAILED
                row.status_reason = ", ".join(f"{k} : {v}" for k, v in reasons.items())
            else:
                row.status = COMPLETE
                row.status_reason = "Outputs received"
            row.updated_at = stamp
            return event

    def delete_software_deployment(
        self, ctx: RequestContext, deployment_id: str, *, fences: Sequence[batch.Write] = ()
    ) -> None:
        with self._writing(fences) as session:
            row = store.scoped_deployment(
                session, deployment_id, project=ctx.project_id, is_admin=ctx.is_admin
            )
            if row is None:
                raise _deployment_not_found(deployment_id)
            tenant, server_id = row.tenant, row.server_id
            store.delete_deployment(session, deployment_id)
            session.flush()
            self._publish(session, tenant, server_id)

    def server_known(self, tenant: str, server_id: str) -> bool:
        """Whether a live resource of ``tenant`` has the server's id as its physical id."""
        if not server_id:
            return False
        with self._db.session(readonly=True) as session:
            return bool(server_resource_ids(session, tenant, server_id))

    # --- helpers -------------------------------------------------------------------------

    @staticmethod
    def _publish(session: Any, tenant: str, server_id: str) -> None:
        pairs = store.list_deployments(session, tenant, server_id=server_id)
        configs = sorted((config for _, config in pairs), key=lambda c: c.name or "")
        publish(session, tenant, server_id, [format_software_config(c) for c in configs])

    @staticmethod
    def _require_config(session: Any, ctx: RequestContext, config_id: str | None) -> None:
        """A deployment may only use a config its project can see (Heat: any existing one)."""
        if config_id is None or store.scoped_config(
            session, config_id, project=ctx.project_id, is_admin=ctx.is_admin
        ) is None:
            raise Invalid(f"Config with id {config_id} not found")
