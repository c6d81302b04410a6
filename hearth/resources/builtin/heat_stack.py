"""OS::Heat::Stack: a stack given inline, made as a nested stack of this one, or in another
region of the catalog when its ``context`` names one (``remote_stack``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.builtin import remote_stack
from hearth.resources.builtin.remote_stack import RemoteStackActions, RemoteTarget
from hearth.resources.builtin.stack_types import parse_child_template
from hearth.resources.definition import ValidationScope
from hearth.resources.nested import ChildDefinition
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.stack_resource import StackResource
from hearth.template.environment import Environment


class RemoteStack(StackResource):
    # Without a region (or credential) in ``context``, Hearth makes the stack in this region
    # as a nested stack of this one. With one, as Heat does, through the orchestration
    # endpoint of that region of the catalog (``remote_stack``; Keystone auth only): every
    # handler below then acts on that remote stack. The API shows Heat's description.
    type_description = (
        "A Resource representing a stack.\n\n"
        "A resource that allowing for the creating stack, where should be defined\n"
        "stack template in HOT format, parameters (if template has any parameters\n"
        "with no default value), and timeout of creating. After creating current\n"
        "stack will have remote stack."
    )

    properties_schema = {
        "context": PropertySchema(
            PropertySchema.MAP,
            "Context for this stack.",
            update_allowed=True,
            schema={
                "region_name": PropertySchema(
                    PropertySchema.STRING, "Region name in which this stack will be created."
                ),
                "credential_secret_id": PropertySchema(
                    PropertySchema.STRING,
                    "A Barbican secret ID. The Barbican secret should contain an OpenStack "
                    "credential that can be used to access a remote cloud.",
                    update_allowed=True,
                ),
                "ca_cert": PropertySchema(
                    PropertySchema.STRING, "CA Cert for SSL.", update_allowed=True
                ),
                "insecure": PropertySchema(
                    PropertySchema.BOOLEAN,
                    "If set, then the server's certificate will not be verified.",
                    default=False,
                    update_allowed=True,
                ),
            },
        ),
        "template": PropertySchema(
            PropertySchema.STRING,
            "Template that specifies the stack to be created as a resource.",
            required=True,
            update_allowed=True,
        ),
        "timeout": PropertySchema(
            PropertySchema.INTEGER,
            "Number of minutes to wait for this stack creation.",
            update_allowed=True,
        ),
        "parameters": PropertySchema(
            PropertySchema.MAP,
            "Set of parameters passed to this stack.",
            default={},
            update_allowed=True,
        ),
    }
    attributes_schema = {
        "stack_name": AttributeSchema("Name of the stack.", type=AttributeSchema.STRING),
        "outputs": AttributeSchema(
            "A dict of key-value pairs output from the stack.", type=AttributeSchema.MAP
        ),
    }

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        if RemoteTarget.of(properties) is not None:
            return None  # not a child: made through another endpoint
        template = parse_child_template(properties.get("template"), "template")
        env = environment.standalone(properties.get("parameters") or {})
        return ChildDefinition(template, env, files)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        target = RemoteTarget.of(properties)
        if target is None:
            return
        validation = properties.context
        cloud = getattr(validation, "cloud", None)
        if cloud is None or not cloud.settings.keystone_auth:
            where = f"region {target.region}" if target.region else "a remote cloud"
            raise StackValidationFailed(
                f"Cannot create a stack in {where}: remote stacks are not supported by this "
                "Hearth (no Keystone catalog configured)", ["resources", scope.name],
            )
        # Its actions call the endpoint with the stack's credentials: the stack needs a trust.
        validation.used = True
        remote_stack.validate(properties, cloud, scope.environment or Environment(),
                              scope.files or {})

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], after: Properties, before: Properties
    ) -> bool:
        # ``context`` may change in place, but not its region.
        if "context" not in changed:
            return False
        return bool((after.get("context") or {}).get("region_name")
                    != (before.get("context") or {}).get("region_name"))

    def child_timeout(self) -> int | None:
        timeout = self.properties.get("timeout")
        return int(timeout) if timeout else self.context.stack_timeout_mins

    def get_reference_id(self) -> str | None:
        return self.resource_id if self.resource_id is not None else self.name

    # --- a remote stack: each handler acts on it, else on the nested stack ----------------

    def remote(self, properties: Properties | None = None) -> RemoteStackActions | None:
        target = RemoteTarget.of(properties if properties is not None else self.properties)
        return None if target is None else RemoteStackActions(self, target)

    def stores_child_first(self) -> bool:
        # A stack in another cloud is made through that cloud's API.
        return RemoteTarget.of(self.properties) is None

    def handle_create(self) -> Any:
        remote = self.remote()
        return remote.create() if remote else super().handle_create()

    def check_create_complete(self, cookie: Any) -> bool:
        remote = self.remote()
        return remote.done(cookie) if remote else super().check_create_complete(cookie)

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        remote = self.remote(new_properties)
        if remote is None:
            return super().handle_update(new_properties, prop_diff, tmpl_diff)
        # Always sent: the remote stack's resources decide what changes (as in Heat).
        self.properties = new_properties
        return remote.update()

    def check_update_complete(self, cookie: Any) -> bool:
        if isinstance(cookie, str):
            return self._remote_done(cookie)
        return super().check_update_complete(cookie)

    def handle_delete(self) -> Any:
        remote = self.remote()
        return remote.delete() if remote else super().handle_delete()

    def check_delete_complete(self, cookie: Any) -> bool:
        remote = self.remote()
        return remote.done(cookie) if remote else super().check_delete_complete(cookie)

    def handle_suspend(self) -> Any:
        remote = self.remote()
        return remote.act("SUSPEND") if remote else super().handle_suspend()

    def check_suspend_complete(self, cookie: Any) -> bool:
        return self._remote_done(cookie) if cookie else super().check_suspend_complete(cookie)

    def handle_resume(self) -> Any:
        remote = self.remote()
        return remote.act("RESUME") if remote else super().handle_resume()

    def check_resume_complete(self, cookie: Any) -> bool:
        return self._remote_done(cookie) if cookie else super().check_resume_complete(cookie)

    def handle_check(self) -> Any:
        remote = self.remote()
        return remote.act("CHECK") if remote else super().handle_check()

    def check_check_complete(self, cookie: Any) -> bool:
        return self._remote_done(cookie) if cookie else super().check_check_complete(cookie)

    def _cancel_child(self, cookie: Any) -> None:
        if self.remote() is None:  # a remote stack goes on (as in Heat)
            super()._cancel_child(cookie)

    handle_create_cancel = _cancel_child
    handle_update_cancel = _cancel_child

    def handle_abandon(self) -> Any:
        # A remote stack stays as it is, in its region.
        return None if self.remote() else super().handle_abandon()

    def handle_adopt(self, resource_data: Mapping[str, Any] | None) -> Any:
        if self.remote() is None:
            return super().handle_adopt(resource_data)
        return Resource.handle_adopt(self, resource_data)

    def check_adopt_complete(self, cookie: Any) -> bool:
        return True if self.remote() else super().check_adopt_complete(cookie)

    def _remote_done(self, action: str) -> bool:
        remote = self.remote()
        return remote.done(action) if remote else True

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        remote = self.remote()
        if remote is not None:
            return remote.attribute(name)
        if name == "stack_name":
            return self.context.physical_resource_name()
        if name == "outputs":
            return self.child_outputs()
        return None

    def _show_resource(self) -> Any:
        remote = self.remote()
        return remote.stack() if remote else None
