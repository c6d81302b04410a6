"""Routes of a stack's resources and events."""

from __future__ import annotations

from typing import Any

import falcon

from hearth.api import views
from hearth.api.faults import BadRequest, NotFoundHere
from hearth.api.handler import Handler, empty, reply
from hearth.api.request import Query, parse_bool

RESOURCE_FILTERS = ("type", "status", "name", "action", "id", "physical_resource_id")
EVENT_FILTERS = ("resource_status", "resource_action", "resource_name", "resource_type")
EVENT_OPTIONS = ("limit", "marker", "sort_dir", "sort_keys", "nested_depth")


class Resources(Handler):
    scope = "resource"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "index")
        unknown = set(req.params) - {*RESOURCE_FILTERS, "nested_depth", "with_detail"}
        if unknown:
            raise BadRequest(f"Invalid filter parameters {sorted(unknown)}")
        query = Query(req)
        filters = {k: v for k in RESOURCE_FILTERS if (v := query.mixed(k)) is not None}
        found = self.engine.list_stack_resources(
            ctx,
            self.identity(ctx, stack_name, stack_id),
            nested_depth=query.integer("nested_depth", 0) or 0,
            with_detail=query.boolean("with_detail"),
            filters=filters or None,
        )
        reply(resp, {"resources": [views.format_resource(req, r) for r in found]})


class Resource(Handler):
    scope = "resource"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, resource_name: str) -> None:
        ctx = self.guard(req, tenant_id, "show")
        query = Query(req, ("with_attr",))
        found = self.engine.describe_stack_resource(
            ctx, self.identity(ctx, stack_name, stack_id), resource_name,
            with_attr=query.all("with_attr") or None,
        )
        reply(resp, {"resource": views.format_resource(req, found)})

    def on_patch(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                 stack_name: str, stack_id: str, resource_name: str) -> None:
        ctx = self.guard(req, tenant_id, "mark_unhealthy")
        body = self.body(req)
        invalid = set(body) - {"mark_unhealthy", "resource_status_reason"}
        if invalid:
            raise BadRequest(f"Invalid keys in resource mark unhealthy {sorted(invalid)}")
        if "mark_unhealthy" not in body:
            raise BadRequest("Missing mandatory (mark_unhealthy) key from mark unhealthy request")
        mark = parse_bool("mark_unhealthy", body["mark_unhealthy"])
        reason = body.get("resource_status_reason", "")
        if not isinstance(reason, str):
            raise BadRequest('"resource_status_reason" must be a string.')
        self.engine.resource_mark_unhealthy(
            ctx, self.identity(ctx, stack_name, stack_id), resource_name, mark, reason
        )
        empty(resp)


class ResourceMetadata(Handler):
    scope = "resource"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, resource_name: str) -> None:
        ctx = self.guard(req, tenant_id, "metadata")
        metadata = self.engine.resource_metadata(
            ctx, self.identity(ctx, stack_name, stack_id), resource_name
        )
        reply(resp, {"metadata": metadata})


class ResourceSignal(Handler):
    scope = "resource"

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                stack_name: str, stack_id: str, resource_name: str) -> None:
        ctx = self.guard(req, tenant_id, "signal")
        details = self.any_body(req)
        self.engine.resource_signal(
            ctx, self.identity(ctx, stack_name, stack_id), resource_name, details
        )
        empty(resp)


def _event_query(req: falcon.Request) -> tuple[Query, dict[str, Any]]:
    query = Query(req, EVENT_FILTERS + EVENT_OPTIONS)
    filters = {k: v for k in EVENT_FILTERS if (v := query.mixed(k)) is not None}
    return query, filters


class Events(Handler):
    scope = "events"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, resource_name: str | None = None) -> None:
        ctx = self.guard(req, tenant_id, "index")
        query, filters = _event_query(req)
        if resource_name is not None:
            filters["resource_name"] = resource_name
        events = self.engine.list_events(
            ctx,
            self.identity(ctx, stack_name, stack_id),
            filters=filters or None,
            limit=query.integer("limit"),
            marker=query.one("marker"),
            sort_keys=query.all("sort_keys") or None,
            sort_dir=query.one("sort_dir"),
            nested_depth=query.integer("nested_depth"),
        )
        if not events and resource_name is not None:
            raise NotFoundHere(f"No events found for resource {resource_name}")
        reply(resp, {"events": [views.format_event(req, e, views.EVENT_SUMMARY_KEYS)
                                for e in events]})


class Event(Handler):
    scope = "events"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, resource_name: str, event_id: str) -> None:
        ctx = self.guard(req, tenant_id, "show")
        Query(req, ())
        event = self.engine.show_event(
            ctx, self.identity(ctx, stack_name, stack_id), resource_name, event_id
        )
        reply(resp, {"event": views.format_event(req, event)})
