"""Stacks, resources, events, snapshots and services as heat-engine hands them to heat-api.

These are Heat's RPC-level dicts (key names from ``heat.rpc.api``), not the REST views: the
state stays split into action and status, identities are dicts, times are ISO 8601 strings
(``None`` stays ``None``). The API layer turns them into REST views the way Heat's
``api/openstack/v1/views`` do.

The functions are pure: rows (or anything with the same attributes) in, dicts out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from hearth.common.identifier import Identity
from hearth.engine import states

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# How oslo.messaging's JSON serializer writes the raw datetimes of a service record.
SERVICE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
NO_OUTPUT_DESCRIPTION = "No description given"


def isotime(at: datetime | None) -> str | None:
    """Heat's ``isotime``: naive UTC to ``2014-06-03T20:59:46Z`` (seconds, no fraction)."""
    return None if at is None else at.strftime(ISO_FORMAT)


# --- what the formatters read --------------------------------------------------------------


class StackRecord(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def tenant(self) -> str | None: ...
    @property
    def action(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...
    @property
    def status_reason(self) -> str | None: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def updated_at(self) -> datetime | None: ...
    @property
    def deleted_at(self) -> datetime | None: ...
    @property
    def disable_rollback(self) -> bool: ...
    @property
    def timeout(self) -> int | None: ...
    @property
    def username(self) -> str | None: ...
    @property
    def owner_id(self) -> str | None: ...
    @property
    def stack_user_project_id(self) -> str | None: ...


class TagRecord(Protocol):
    @property
    def tag(self) -> str: ...


class TaggedStackRecord(StackRecord, Protocol):
    @property
    def tags(self) -> Sequence[TagRecord]: ...


class ResourceRecord(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def physical_resource_id(self) -> str | None: ...
    @property
    def action(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...
    @property
    def status_reason(self) -> str | None: ...
    @property
    def resource_type(self) -> str | None: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def updated_at(self) -> datetime | None: ...
    @property
    def rsrc_metadata(self) -> Any: ...
    @property
    def attr_data(self) -> Any: ...
    @property
    def definition(self) -> dict[str, Any] | None: ...


class EventRecord(Protocol):
    @property
    def uuid(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def resource_name(self) -> str | None: ...
    @property
    def physical_resource_id(self) -> str | None: ...
    @property
    def resource_action(self) -> str | None: ...
    @property
    def resource_status(self) -> str | None: ...
    @property
    def resource_status_reason(self) -> str | None: ...
    @property
    def resource_type(self) -> str | None: ...


class SnapshotRecord(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def action(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...
    @property
    def status_reason(self) -> str | None: ...
    @property
    def data(self) -> dict[str, Any] | None: ...
    @property
    def created_at(self) -> datetime | None: ...


class ServiceRecord(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def engine_id(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def hostname(self) -> str: ...
    @property
    def binary(self) -> str: ...
    @property
    def topic(self) -> str: ...
    @property
    def report_interval(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime | None: ...
    @property
    def deleted_at(self) -> datetime | None: ...


# --- stacks --------------------------------------------------------------------------------


def stack_identity(row: StackRecord) -> Identity:
    return Identity(row.tenant or "", row.name, row.id)


def format_stack_output(output: Mapping[str, Any], resolve_value: bool = True) -> dict[str, Any]:
    """One output: key and description, plus value (and error, if any) when resolved."""
    description = output.get("description")
    result: dict[str, Any] = {
        "output_key": output.get("output_key", ""),
        "description": NO_OUTPUT_DESCRIPTION if description is None else str(description),
    }
    if resolve_value:
        result["output_value"] = output.get("output_value")
        if output.get("output_error") is not None:
            result["output_error"] = output["output_error"]
    return result


def format_stack_outputs(
    outputs: Iterable[Mapping[str, Any]], resolve_value: bool = False
) -> list[dict[str, Any]]:
    return [format_stack_output(o, resolve_value) for o in outputs]


def format_stack(
    row: StackRecord,
    *,
    parameters: Mapping[str, str],
    description: str,
    outputs: Iterable[Mapping[str, Any]] | None,
    tags: Sequence[str] = (),
    resolve_outputs: bool = True,
    preview: bool = False,
    now: datetime | None = None,
) -> dict[str, Any]:
    """A stack in full (Heat's ``format_stack``): stack show, stack detail lists, preview.

    ``outputs`` are the resolved output dicts; they are left out when ``resolve_outputs`` is
    false and for a DELETE_COMPLETE stack. A preview has no state keys. ``now`` stands in for
    the creation time of a stack not stored yet.
    """
    created = row.created_at or now
    info: dict[str, Any] = {
        "stack_name": row.name,
        "stack_identity": stack_identity(row).as_dict(),
        "creation_time": isotime(created),
        "updated_time": isotime(row.updated_at),
        "deletion_time": isotime(row.deleted_at),
        "notification_topics": [],
        "parameters": dict(parameters),
        "description": description,
        "template_description": description,
        "capabilities": [],
        "disable_rollback": row.disable_rollback,
        "timeout_mins": row.timeout,
        "stack_owner": row.username,
        "parent": row.owner_id,
        "stack_user_project_id": row.stack_user_project_id,
        "tags": list(tags),
    }
    if not preview:
        info["stack_action"] = row.action or ""
        info["stack_status"] = row.status or ""
        info["stack_status_reason"] = row.status_reason
    deleted = row.action == states.DELETE and row.status == states.COMPLETE
    if resolve_outputs and not deleted:
        info["outputs"] = format_stack_outputs(outputs or [], resolve_value=True)
    return info


def format_stack_summary(row: TaggedStackRecord) -> dict[str, Any]:
    """A stack list entry (Heat's ``format_stack_db_object``): no parameters, no outputs."""
    tags = [t.tag for t in row.tags] or None
    return {
        "stack_identity": stack_identity(row).as_dict(),
        "stack_name": row.name,
        "description": "",
        "stack_action": row.action,
        "stack_status": row.status,
        "stack_status_reason": row.status_reason,
        "creation_time": isotime(row.created_at),
        "updated_time": isotime(row.updated_at),
        "deletion_time": isotime(row.deleted_at),
        "stack_owner": row.username,
        "parent": row.owner_id,
        "stack_user_project_id": row.stack_user_project_id,
        "tags": tags,
    }


# --- resources -----------------------------------------------------------------------------


def resource_attributes(attr_data: Any, with_attr: Sequence[str] | None = None) -> dict[str, Any]:
    """The attributes a resource detail shows, from what was stored when it last changed.

    A stored ``show`` mapping is the whole picture (extra ``with_attr`` names are added to
    it); otherwise every stored attribute but ``show``. Names asked for that were never
    stored come out as None, as an attribute that fails to resolve does in Heat.
    """
    data = attr_data if isinstance(attr_data, Mapping) else {}
    stored = data.get("attrs")
    attrs: Mapping[str, Any] = stored if isinstance(stored, Mapping) else {}
    show = attrs.get("show")
    if isinstance(show, Mapping):
        result = dict(show)
    else:
        result = {k: v for k, v in attrs.items() if k != "show"}
    for name in with_attr or ():
        if name not in result:
            result[name] = attrs.get(name)
    return result


def resource_metadata(row: ResourceRecord) -> Any:
    """Stored metadata; for a resource not acted on yet, its definition's (Heat: template's)."""
    if (row.action or states.INIT) == states.INIT:
        defn = row.definition or {}
        return defn.get("metadata") or {}
    return row.rsrc_metadata if row.rsrc_metadata is not None else {}


def format_resource(
    row: ResourceRecord,
    stack: Identity,
    *,
    required_by: Sequence[str],
    detail: bool = True,
    description: str = "",
    type_name: str | None = None,
    with_attr: Sequence[str] | bool | None = None,
    with_props: bool = False,
    properties: Mapping[str, Any] | None = None,
    nested: Identity | None = None,
    parent_resource: str | None = None,
) -> dict[str, Any]:
    """A resource (Heat's ``format_stack_resource``).

    ``stack`` is the identity of the resource's own stack. Detail adds ``description``,
    ``metadata`` and, unless ``with_attr`` is False, ``attributes`` (``with_attr`` names extra
    attributes to include). ``with_props`` adds ``properties`` (previews).
    """
    created = row.created_at
    res: dict[str, Any] = {
        "updated_time": isotime(row.updated_at or created),
        "creation_time": isotime(created),
        "resource_name": row.name,
        "physical_resource_id": row.physical_resource_id or "",
        "resource_action": row.action or states.INIT,
        "resource_status": row.status or states.COMPLETE,
        "resource_status_reason": row.status_reason or "",
        "resource_type": type_name or row.resource_type or "",
        "resource_identity": stack.resource(row.name).as_dict(),
        "stack_identity": stack.as_dict(),
        "stack_name": stack.stack_name,
        "required_by": list(required_by),
    }
    if nested is not None:
        res["nested_stack_id"] = nested.as_dict()
    if parent_resource:
        res["parent_resource"] = parent_resource
    if detail:
        res["description"] = description
        res["metadata"] = resource_metadata(row)
        if with_attr is not False:
            names = with_attr if isinstance(with_attr, Sequence) else None
            res["attributes"] = resource_attributes(row.attr_data, names)
    if with_props:
        res["properties"] = dict(properties or {})
    return res


# --- events --------------------------------------------------------------------------------


def format_event(
    row: EventRecord,
    stack: Identity,
    *,
    root: Identity | None = None,
    properties: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An event (Heat's ``format_event``). ``root`` is set when events of nested stacks are
    listed with their root's; ``properties`` (event show only) adds ``resource_properties``."""
    name = row.resource_name or ""
    result: dict[str, Any] = {
        "event_identity": stack.event(name, row.uuid).as_dict(),
        "stack_identity": stack.as_dict(),
        "stack_name": stack.stack_name,
        "event_time": isotime(row.created_at),
        "resource_name": row.resource_name,
        "physical_resource_id": row.physical_resource_id,
        "resource_action": row.resource_action,
        "resource_status": row.resource_status,
        "resource_status_reason": row.resource_status_reason,
        "resource_type": row.resource_type,
    }
    if root is not None:
        result["root_stack_id"] = root.as_dict()
    if properties is not None:
        result["resource_properties"] = dict(properties)
    return result


# --- snapshots and services ----------------------------------------------------------------


def format_snapshot(
    row: SnapshotRecord, data: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A snapshot (Heat's ``format_snapshot``); ``data`` overrides the stored data."""
    return {
        "id": row.id,
        "name": row.name,
        "action": row.action,
        "status": row.status,
        "status_reason": row.status_reason,
        "data": dict(data) if data is not None else row.data,
        "creation_time": isotime(row.created_at),
    }


def _service_time(at: datetime | None) -> str | None:
    return None if at is None else at.strftime(SERVICE_TIME_FORMAT)


def format_service(row: ServiceRecord, now: datetime) -> dict[str, Any]:
    """An engine's service record; ``up`` while it reported within two report intervals."""
    last_seen = row.updated_at or row.created_at
    up = (now - last_seen).total_seconds() <= 2 * row.report_interval
    return {
        "id": row.id,
        "binary": row.binary,
        "engine_id": row.engine_id,
        "host": row.host,
        "hostname": row.hostname,
        "topic": row.topic,
        "report_interval": row.report_interval,
        "created_at": _service_time(row.created_at),
        "updated_at": _service_time(row.updated_at),
        "deleted_at": _service_time(row.deleted_at),
        "status": "up" if up else "down",
    }
