"""Routes of ``/v1/{tenant_id}/stacks``: list, create, preview, lookup, show, update, delete."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import falcon

from hearth.api import views
from hearth.api.faults import BadRequest
from hearth.api.handler import Handler, accepted, empty, no_content, reply, template_args
from hearth.api.request import Query
from hearth.common.identifier import Identity

# Stack list filters: Heat's own names plus the stack keys it accepts as filters.
LIST_FILTERS = (
    "id", "status", "name", "action", "tenant", "username", "owner_id", "stack_name",
    "stack_status", "stack_status_reason", "stack_action", "stack_owner", "parent",
    "disable_rollback", "timeout_mins", "stack_user_project_id",
)
LIST_OPTIONS = (
    "limit", "marker", "sort_dir", "sort_keys", "show_deleted", "show_nested", "show_hidden",
    "tags", "tags_any", "not_tags", "not_tags_any", "with_count", "global_tenant",
)
# Sub-paths a name-only or id-only stack URL may carry into its redirect.
LOOKUP_PATHS = (
    "resources", "events", "template", "actions", "environment", "files", "outputs",
    "snapshots", "export", "abandon", "preview",
)


class StackCollection(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        query = Query(req, LIST_FILTERS + LIST_OPTIONS)
        global_tenant = query.boolean("global_tenant")
        ctx = self.guard(req, tenant_id, "global_index" if global_tenant else "index")
        filters: dict[str, Any] = {}
        for key in LIST_FILTERS:
            value = query.mixed(key)
            if value is not None:
                filters[key] = value
        options: dict[str, Any] = {
            "show_deleted": query.boolean("show_deleted"),
            "show_nested": query.boolean("show_nested"),
            "show_hidden": query.boolean("show_hidden"),
            "tags": query.tags("tags"),
            "tags_any": query.tags("tags_any"),
            "not_tags": query.tags("not_tags"),
            "not_tags_any": query.tags("not_tags_any"),
            "global_tenant": global_tenant,
        }
        stacks = self.engine.list_stacks(
            ctx,
            limit=query.integer("limit"),
            marker=query.one("marker"),
            sort_keys=query.all("sort_keys") or None,
            sort_dir=query.one("sort_dir"),
            filters=filters or None,
            **options,
        )
        items = [
            views.format_stack(req, s, views.STACK_SUMMARY_KEYS, include_project=ctx.is_admin)
            for s in stacks
        ]
        body: dict[str, Any] = {"stacks": items}
        links = views.next_link(req, items)
        if links:
            body["links"] = links
        if query.boolean("with_count"):
            body["count"] = self.engine.count_stacks(ctx, filters=filters or None, **options)
        reply(resp, body)

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "create")
        body = self.stack_body(req)
        identity = self.engine.create_stack(
            ctx, body.stack_name(), **template_args(body, update=False)
        )
        url = views.url_for(req, identity)
        resp.location = url
        reply(resp, {"stack": {"id": identity["stack_id"],
                               "links": [{"href": url, "rel": "self"}]}}, 201)


class StackDetail(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "detail")
        Query(req, ())
        stacks = self.engine.show_stack(ctx, None, resolve_outputs=True)
        reply(resp, {"stacks": [views.format_stack(req, s) for s in stacks]})


class StackPreview(Handler):
    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "preview")
        body = self.stack_body(req)
        result = self.engine.preview_stack(
            ctx, body.stack_name(), **template_args(body, update=False)
        )
        reply(resp, {"stack": views.format_stack(req, result)})


class StackLookup(Handler):
    """``/stacks/{name or id}[/sub-path]``: 302 to the stack's canonical URL."""

    def _redirect(
        self, req: falcon.Request, resp: falcon.Response, tenant_id: str, stack_name: str,
        path: str = "",
    ) -> None:
        ctx = self.guard(req, tenant_id, "lookup")
        try:
            identity: dict[str, str] = Identity.from_arn(stack_name).as_dict()
        except ValueError:
            identity = self.engine.identify_stack(ctx, stack_name)
        location = views.url_for(req, identity)
        if path:
            location = f"{location}/{path}"
        if req.query_string:
            location += "?" + urlencode(req.params, doseq=True)
        # No body and not labelled JSON: heatclient decodes any JSON-typed reply it is given.
        resp.location = location
        empty(resp, 302)

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str) -> None:
        self._redirect(req, resp, tenant_id, stack_name)

    on_put = on_post = on_patch = on_delete = on_get


class StackLookupPath(StackLookup):
    def __init__(self, state: Any, path: str) -> None:
        super().__init__(state)
        self.path = path

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str) -> None:
        self._redirect(req, resp, tenant_id, stack_name, self.path)

    on_put = on_post = on_patch = on_delete = on_get


class StackArnLookup(StackLookup):
    """``/stacks/arn:...:stacks/<name>/<id>[/sub-path]`` (what get_resource gives for a
    provider resource, whose slashes heatclient leaves in the path): 302 to the canonical URL
    plus the sub-path, as Heat's catch-all ARN route does. A sink: the routes come first."""

    PREFIX = (r"/v1/(?P<tenant_id>[^/]+)/stacks/(?P<arn>arn:[^/]*:stacks/[^/]+/[^/]+)"
              r"(?:/(?P<path>.*))?$")

    def __call__(self, req: falcon.Request, resp: falcon.Response, **fields: Any) -> None:
        self._redirect(req, resp, str(fields["tenant_id"]), str(fields["arn"]),
                       str(fields.get("path") or ""))


class StackItem(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "show")
        query = Query(req, ("resolve_outputs",))
        found = self.engine.show_stack(
            ctx, self.identity(ctx, stack_name, stack_id),
            resolve_outputs=query.boolean("resolve_outputs", True),
        )
        reply(resp, {"stack": views.format_stack(req, found[0])})

    def on_put(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "update")
        body = self.stack_body(req)
        self.engine.update_stack(
            ctx, self.identity(ctx, stack_name, stack_id), **template_args(body, update=True)
        )
        accepted(resp)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                 stack_name: str, stack_id: str) -> None:
        body = self.stack_body(req, patch=True)
        ctx = self.guard(req, tenant_id, "update_no_change" if body.no_change()
                         else "update_patch")
        self.engine.update_stack(
            ctx, self.identity(ctx, stack_name, stack_id), **template_args(body, update=True)
        )
        accepted(resp)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                  stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "delete")
        self.engine.delete_stack(ctx, self.identity(ctx, stack_name, stack_id))
        no_content(resp)


class StackUpdatePreview(Handler):
    def _preview(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                 stack_name: str, stack_id: str, patch: bool) -> None:
        ctx = self.guard(req, tenant_id, "preview_update_patch" if patch else "preview_update")
        query = Query(req, ("show_nested",))
        body = self.stack_body(req, patch=patch)
        kwargs = dict(template_args(body, update=True))
        if "show_nested" in query:
            kwargs["args"] = {**kwargs["args"], "show_nested": query.boolean("show_nested")}
        changes = self.engine.preview_update_stack(
            ctx, self.identity(ctx, stack_name, stack_id), **kwargs
        )
        reply(resp, {"resource_changes": changes})

    def on_put(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        self._preview(req, resp, tenant_id, stack_name, stack_id, patch=False)

    def on_patch(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                 stack_name: str, stack_id: str) -> None:
        self._preview(req, resp, tenant_id, stack_name, stack_id, patch=True)


class StackAbandon(Handler):
    def on_delete(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                  stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "abandon")
        reply(resp, self.engine.abandon_stack(ctx, self.identity(ctx, stack_name, stack_id)))


class StackExport(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "export")
        reply(resp, self.engine.export_stack(ctx, self.identity(ctx, stack_name, stack_id)))


class StackTemplate(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "template")
        reply(resp, self.engine.get_template(ctx, self.identity(ctx, stack_name, stack_id)))


class StackEnvironment(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "environment")
        reply(resp, self.engine.get_environment(ctx, self.identity(ctx, stack_name, stack_id)))


class StackFiles(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "files")
        reply(resp, self.engine.get_files(ctx, self.identity(ctx, stack_name, stack_id)))


class StackOutputs(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "list_outputs")
        outputs = self.engine.list_outputs(ctx, self.identity(ctx, stack_name, stack_id))
        reply(resp, {"outputs": outputs})


class StackOutput(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, output_key: str) -> None:
        ctx = self.guard(req, tenant_id, "show_output")
        output = self.engine.show_output(
            ctx, self.identity(ctx, stack_name, stack_id), output_key
        )
        reply(resp, {"output": output})


class StackSnapshots(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "list_snapshots")
        snaps = self.engine.stack_list_snapshots(ctx, self.identity(ctx, stack_name, stack_id))
        reply(resp, {"snapshots": snaps})

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                stack_name: str, stack_id: str) -> None:
        ctx = self.guard(req, tenant_id, "snapshot")
        name = self.body(req, required=False).get("name")
        if name is not None and not isinstance(name, str):
            raise BadRequest('"name" must be a string.')
        snap = self.engine.stack_snapshot(ctx, self.identity(ctx, stack_name, stack_id), name)
        reply(resp, snap)


class StackSnapshot(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               stack_name: str, stack_id: str, snapshot_id: str) -> None:
        ctx = self.guard(req, tenant_id, "show_snapshot")
        snap = self.engine.show_snapshot(
            ctx, self.identity(ctx, stack_name, stack_id), snapshot_id
        )
        reply(resp, {"snapshot": snap})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                  stack_name: str, stack_id: str, snapshot_id: str) -> None:
        ctx = self.guard(req, tenant_id, "delete_snapshot")
        self.engine.delete_snapshot(ctx, self.identity(ctx, stack_name, stack_id), snapshot_id)
        no_content(resp)


class StackSnapshotRestore(Handler):
    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                stack_name: str, stack_id: str, snapshot_id: str) -> None:
        ctx = self.guard(req, tenant_id, "restore_snapshot")
        self.engine.stack_restore(ctx, self.identity(ctx, stack_name, stack_id), snapshot_id)
        accepted(resp)


ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")


class StackActions(Handler):
    scope = "actions"

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                stack_name: str, stack_id: str) -> None:
        body = self.body(req, required=False)
        if not body:
            raise BadRequest("No action specified")
        if len(body) > 1:
            raise BadRequest("Multiple actions specified")
        action = next(iter(body))
        if action not in ACTIONS:
            raise BadRequest(f"Invalid action {action} specified")
        ctx = self.guard(req, tenant_id, action)
        identity = self.identity(ctx, stack_name, stack_id)
        if action == "suspend":
            self.engine.stack_suspend(ctx, identity)
        elif action == "resume":
            self.engine.stack_resume(ctx, identity)
        elif action == "check":
            self.engine.stack_check(ctx, identity)
        else:
            self.engine.stack_cancel_update(
                ctx, identity, cancel_with_rollback=action == "cancel_update"
            )
        empty(resp)
