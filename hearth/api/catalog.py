"""Routes that are not about one stack: versions, build info, services, resource types,
template versions and functions, and template validation."""

from __future__ import annotations

import falcon

from hearth.api.console.routes import PREFIX as CONSOLE_PREFIX
from hearth.api.console.routes import wants_console
from hearth.api.faults import BadRequest
from hearth.api.handler import Handler, reply
from hearth.api.request import Query


class Versions:
    """``GET /``: the versions document, with 300 Multiple Choices as Heat answers; a browser
    asking for HTML is sent to the web console instead (API clients ask for JSON)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if req.path == "/" and wants_console(req):
            raise falcon.HTTPFound(f"{req.prefix}{CONSOLE_PREFIX}")
        reply(resp, {"versions": [{
            "id": "v1.0",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": f"{req.prefix}/v1/"}],
        }]}, 300)


class BuildInfo(Handler):
    scope = "build_info"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        self.guard(req, tenant_id, "build_info")
        revision = self.state.revision
        reply(resp, {"api": {"revision": revision}, "engine": {"revision": revision}})


class Services(Handler):
    scope = "service"

    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "index")
        reply(resp, {"services": self.engine.list_services(ctx)})


class ResourceTypes(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "list_resource_types")
        query = Query(req, ("support_status", "name", "version", "with_description"))
        types = self.engine.list_resource_types(
            ctx,
            support_status=query.one("support_status"),
            type_name=query.one("name"),
            heat_version=query.one("version"),
            with_description=query.boolean("with_description"),
        )
        reply(resp, {"resource_types": types})


class ResourceType(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               type_name: str) -> None:
        ctx = self.guard(req, tenant_id, "resource_schema")
        query = Query(req, ("with_description",))
        reply(resp, self.engine.resource_schema(
            ctx, type_name, with_description=query.boolean("with_description")
        ))


class ResourceTypeTemplate(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               type_name: str) -> None:
        ctx = self.guard(req, tenant_id, "generate_template")
        query = Query(req, ("template_type",))
        template_type = (query.one("template_type") or "cfn").lower()
        if template_type not in ("cfn", "hot"):
            raise BadRequest(
                f"Template type is not supported: Invalid template type \"{template_type}\", "
                "valid types are: cfn, hot."
            )
        reply(resp, self.engine.generate_template(ctx, type_name, template_type))


class TemplateVersions(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "list_template_versions")
        Query(req, ())
        reply(resp, {"template_versions": self.engine.list_template_versions(ctx)})


class TemplateFunctions(Handler):
    def on_get(self, req: falcon.Request, resp: falcon.Response, tenant_id: str,
               template_version: str) -> None:
        ctx = self.guard(req, tenant_id, "list_template_functions")
        query = Query(req, ("with_condition_func",))
        reply(resp, {"template_functions": self.engine.list_template_functions(
            ctx, template_version, query.boolean("with_condition_func")
        )})


class Validate(Handler):
    def on_post(self, req: falcon.Request, resp: falcon.Response, tenant_id: str) -> None:
        ctx = self.guard(req, tenant_id, "validate_template")
        query = Query(req, ("show_nested", "ignore_errors"))
        ignore = query.one("ignore_errors")
        body = self.stack_body(req)
        result = self.engine.validate_template(
            ctx,
            body.template(),
            params=body.parameters(),
            files=body.files(),
            environment=body.environment(),
            environment_files=body.environment_files(),
            show_nested=query.boolean("show_nested"),
            ignorable_errors=ignore.split(",") if ignore else None,
        )
        reply(resp, result)
