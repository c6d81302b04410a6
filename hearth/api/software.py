"""Routes of ``/software_configs`` and ``/software_deployments``."""

from __future__ import annotations

from typing import Any

import falcon

from hearth.api.faults import BadRequest
from hearth.api.handler import Handler, no_content, reply
from hearth.api.request import Query

CONFIG_KEYS = ("name", "group", "config", "inputs", "outputs", "options")
DEPLOYMENT_UPDATE_KEYS = (
    "config_id", "input_values", "output_values", "action", "status", "status_reason",
)


def _check_types(body: dict[str, Any], strings: tuple[str, ...], objects: tuple[str, ...],
                 lists: tuple[str, ...] = ()) -> None:
    for key in strings:
        if body.get(key) is not None and not isinstance(body[key], str):
            raise BadRequest(f'"{key}" must be a string.')
    for key in objects:
        if body.get(key) is not None and not isinstance(body[key], dict):
            raise BadRequest(f'"{key}" must be a JSON object.')
    for key in lists:
        if body.get(key) is not None and not isinstance(body[key], list):
            raise BadRequest(f'"{key}" must be a list.')


class SoftwareConfigs(Handler):
    scope = "software_configs"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        query = Query(req, ("limit", "marker", "global_tenant"))
        global_tenant = query.boolean("global_tenant")
        ctx = self.guard(req, tenant_id, "global_index" if global_tenant else "index")
        configs = self.engine.list_software_configs(
            ctx, limit=query.integer("limit"), marker=query.one("marker"),
            tenant_safe=not global_tenant,
        )
        reply(resp, {"software_configs": configs})

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "create")
        body = self.body(req)
        _check_types(body, ("name", "group", "config"), ("options",), ("inputs", "outputs"))
        config = self.engine.create_software_config(ctx, **{k: body.get(k) for k in CONFIG_KEYS})
        reply(resp, {"software_config": config})


class SoftwareConfig(Handler):
    scope = "software_configs"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               config_id: str) -> None:
        ctx = self.guard(req, tenant_id, "show")
        reply(resp, {"software_config": self.engine.show_software_config(ctx, config_id)})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                  config_id: str) -> None:
        ctx = self.guard(req, tenant_id, "delete")
        self.engine.delete_software_config(ctx, config_id)
        no_content(resp)


class SoftwareDeployments(Handler):
    scope = "software_deployments"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "index")
        query = Query(req, ("server_id",))
        found = self.engine.list_software_deployments(ctx, server_id=query.one("server_id"))
        reply(resp, {"software_deployments": found})

    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "create")
        body = self.body(req)
        _check_types(body, ("config_id", "server_id", "action", "status", "status_reason",
                            "stack_user_project_id"), ("input_values",))
        for key in ("config_id", "server_id"):
            if not body.get(key):
                raise BadRequest(f'"{key}" is required.')
        created = self.engine.create_software_deployment(
            ctx,
            server_id=body["server_id"],
            config_id=body["config_id"],
            input_values=body.get("input_values"),
            action=body.get("action") or "INIT",
            status=body.get("status") or "COMPLETE",
            status_reason=body.get("status_reason") or "",
            stack_user_project_id=body.get("stack_user_project_id"),
        )
        reply(resp, {"software_deployment": created})


class SoftwareDeploymentMetadata(Handler):
    scope = "software_deployments"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               server_id: str) -> None:
        ctx = self.guard(req, tenant_id, "metadata")
        reply(resp, {"metadata": self.engine.metadata_software_deployments(ctx, server_id)})


class SoftwareDeployment(Handler):
    scope = "software_deployments"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               deployment_id: str) -> None:
        ctx = self.guard(req, tenant_id, "show")
        reply(resp, {"software_deployment":
                     self.engine.show_software_deployment(ctx, deployment_id)})

    def on_put(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               deployment_id: str) -> None:
        ctx = self.guard(req, tenant_id, "update")
        body = self.body(req)
        _check_types(body, ("config_id", "action", "status", "status_reason"),
                     ("input_values", "output_values"))
        values = {k: body.get(k) for k in DEPLOYMENT_UPDATE_KEYS}
        updated = self.engine.update_software_deployment(
            ctx, deployment_id, updated_at=None, **values
        )
        reply(resp, {"software_deployment": updated})

    def on_delete(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
                  deployment_id: str) -> None:
        ctx = self.guard(req, tenant_id, "delete")
        self.engine.delete_software_deployment(ctx, deployment_id)
        no_content(resp)
