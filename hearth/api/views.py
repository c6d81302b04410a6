"""Heat's REST views of the engine's answers.

The engine answers in Heat's RPC shapes (``stack_identity``, ``resource_action`` and
``resource_status`` apart, ...). The REST API shows the identity as ``id`` plus ``links``, joins
action and status as ``ACTION_STATUS``, and adds ``logical_resource_id``; the functions here do
exactly that, keeping the engine's key order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import falcon

from hearth.common.identifier import Identity

STACK_SUMMARY_KEYS = (
    "stack_identity", "stack_name", "description", "stack_status", "stack_status_reason",
    "creation_time", "deletion_time", "updated_time", "stack_owner", "parent",
    "stack_user_project_id", "tags",
)
EVENT_SUMMARY_KEYS = (
    "event_identity", "event_time", "resource_name", "resource_status",
    "resource_status_reason", "physical_resource_id",
)


def identity_of(data: Mapping[str, Any]) -> Identity:
    return Identity(
        str(data.get("tenant", "")),
        str(data.get("stack_name", "")),
        str(data.get("stack_id", "")),
        str(data.get("path", "") or ""),
    )


def url_for(req: falcon.Request, identity: Identity | Mapping[str, Any]) -> str:
    ident = identity if isinstance(identity, Identity) else identity_of(identity)
    return f"{req.prefix}/v1/{ident.url_path()}"


def link(req: falcon.Request, identity: Identity | Mapping[str, Any], rel: str = "self") -> dict[
    str, str
]:
    return {"href": url_for(req, identity), "rel": rel}


def _joined(data: Mapping[str, Any], action_key: str, value: Any) -> Any:
    action = data.get(action_key)
    return f"{action}_{value}" if action is not None else value


def format_stack(
    req: falcon.Request,
    stack: Mapping[str, Any],
    keys: Sequence[str] | None = None,
    include_project: bool = False,
) -> dict[str, Any]:
    def fields() -> Iterator[tuple[str, Any]]:
        for key, value in stack.items():
            if keys and key not in keys:
                continue
            if key == "stack_identity":
                yield "id", value["stack_id"]
                yield "links", [link(req, value)]
                if include_project:
                    yield "project", value["tenant"]
            elif key == "stack_action":
                continue
            elif key == "stack_status":
                yield key, _joined(stack, "stack_action", value)
            else:
                yield key, value

    return dict(fields())


def format_resource(req: falcon.Request, res: Mapping[str, Any]) -> dict[str, Any]:
    def fields() -> Iterator[tuple[str, Any]]:
        for key, value in res.items():
            if key == "resource_identity":
                ident = identity_of(value)
                links = [link(req, ident), link(req, ident.stack(), "stack")]
                nested = res.get("nested_stack_id")
                if nested:
                    links.append(link(req, nested, "nested"))
                yield "links", links
            elif key in ("stack_name", "stack_identity", "resource_action", "nested_stack_id",
                         "metadata"):
                continue
            elif key == "resource_status":
                yield key, _joined(res, "resource_action", value)
            elif key == "resource_name":
                yield "logical_resource_id", value
                yield key, value
            else:
                yield key, value

    return dict(fields())


def format_event(
    req: falcon.Request, event: Mapping[str, Any], keys: Sequence[str] | None = None
) -> dict[str, Any]:
    def fields() -> Iterator[tuple[str, Any]]:
        for key, value in event.items():
            if keys and key not in keys:
                continue
            if key == "event_identity":
                ident = identity_of(value)
                resource_path = ident.path.split("/events/")[0]
                yield "id", ident.path.rsplit("/", 1)[-1]
                yield "links", [
                    link(req, ident),
                    link(req, Identity(ident.tenant, ident.stack_name, ident.stack_id,
                                       resource_path), "resource"),
                    link(req, ident.stack(), "stack"),
                ]
            elif key in ("stack_identity", "stack_name", "resource_action"):
                continue
            elif key == "resource_status":
                yield key, _joined(event, "resource_action", value)
            elif key == "resource_name":
                yield "logical_resource_id", value
                yield key, value
            else:
                yield key, value

    out = dict(fields())
    root = event.get("root_stack_id")
    if root and "links" in out:
        out["links"].append(link(req, root, "root_stack"))
    return out


def next_link(req: falcon.Request, items: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Heat's ``next`` link: only when a full page (``limit`` items) came back."""
    try:
        limit = int(req.get_param("limit") or 0)
    except ValueError:
        limit = 0
    if limit <= 0 or len(items) != limit:
        return []
    params = {k: v for k, v in req.params.items() if k != "marker"}
    params["marker"] = str(items[-1]["id"])
    return [{"rel": "next", "href": f"{req.prefix}{req.path}?{urlencode(params, doseq=True)}"}]
