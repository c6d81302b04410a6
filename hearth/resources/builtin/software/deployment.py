"""OS::Heat::SoftwareDeployment: apply a config to a server and wait for its agent's signal.

Each triggered action (``actions``) stores a *derived* config (the source config with the input
values and the ``deploy_*`` inputs), points the deployment at it (which republishes the
server's ``deployments`` metadata, where the agent finds it) and, unless NO_SIGNAL, waits
until the agent's signal completes or fails the deployment. The agent signals to a secret URL
of Hearth's (CFN_SIGNAL: POST, TEMP_URL_SIGNAL: PUT) or, with HEAT_SIGNAL, through the
resource-signal API as a stack user.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.common.errors import InvalidTemplateAttribute, NotFound, StackValidationFailed
from hearth.resources import definition
from hearth.resources.attributes import select_from_attribute
from hearth.resources.base import Resource
from hearth.resources.builtin.software import agent_credentials as agent
from hearth.resources.builtin.software import deployment_schema as s
from hearth.resources.builtin.software.deployment_inputs import declared_inputs, deploy_inputs
from hearth.resources.context import SIGNAL
from hearth.resources.exceptions import UpdateReplace
from hearth.resources.properties import Properties
from hearth.resources.support import SupportStatus

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"
UNGROUPED = "Heat::Ungrouped"
COMPONENT = "component"
# How much of a failed script's stderr the resource's status reason quotes (its end).
STDERR_IN_REASON = 1000


class Error(Exception):
    """Heat's generic ``Error`` (its name is the failure reason's prefix)."""


def check_transport(transport: str | None) -> None:
    if transport == s.ZAQAR_SIGNAL:
        raise StackValidationFailed(
            "signal_transport ZAQAR_SIGNAL needs the Zaqar messaging service, which Hearth "
            "does not support: use TEMP_URL_SIGNAL, CFN_SIGNAL, HEAT_SIGNAL or NO_SIGNAL",
            [definition.PROPERTIES, s.SIGNAL_TRANSPORT],
        )


class SoftwareDeployment(Resource):
    type_description = s.DESCRIPTION
    support_status = SupportStatus(version="2014.1")
    properties_schema = s.PROPERTIES
    attributes_schema = s.ATTRIBUTES
    default_client_name = "heat"
    # The agent may signal whatever the deployment resource is doing.
    no_signal_actions: ClassVar[tuple[str, ...]] = ()
    signal_needs_metadata_updates = False

    @classmethod
    def validate(cls, properties: Properties, scope: definition.ValidationScope) -> None:
        check_transport(properties.get(s.SIGNAL_TRANSPORT))

    # --- the derived config ----------------------------------------------------------------

    def _transport(self) -> str:
        return str(self.properties.get(s.SIGNAL_TRANSPORT) or s.DEFAULT_SIGNAL_TRANSPORT)

    def _source_config(self, config_id: str | None = None) -> dict[str, Any]:
        config_id = config_id or self.properties.get(s.CONFIG)
        found = dict(self.context.software.show_config(config_id)) if config_id else {}
        found["inputs"] = list(found.get("inputs") or [])
        found["outputs"] = list(found.get("outputs") or [])
        return found

    def empty_config(self) -> Any:
        return ""

    def build_config(self, source: Mapping[str, Any], inputs: list[dict[str, Any]]) -> Any:
        """Plugin hook: the derived config's ``config`` (StructuredDeployment substitutes)."""
        return source.get("config")

    def derived_inputs(self, action: str, source: Mapping[str, Any]) -> list[dict[str, Any]]:
        transport = self._transport()
        signal_url = user = None
        if transport == s.CFN_SIGNAL and agent.signs_for_cfn(self):
            signal_url = agent.cfn_signal_url(self)
        if transport in (s.CFN_SIGNAL, s.TEMP_URL_SIGNAL) and signal_url is None:
            signal_url = agent.secret_url(self, SIGNAL)
        elif transport == s.HEAT_SIGNAL:
            user = agent.stack_user(self)
        return [
            *declared_inputs(source["inputs"], self.properties.get(s.INPUT_VALUES) or {}),
            *deploy_inputs(
                server_id=str(self.properties.get(s.SERVER)), action=action,
                stack_path=f"{self.context.stack_name}/{self.context.stack_id}",
                resource_name=self.name, transport=transport, signal_url=signal_url,
                user=user,
            ),
        ]

    def _create_derived_config(self, action: str, source: Mapping[str, Any]) -> str:
        inputs = self.derived_inputs(action, source)
        derived = self.context.software.create_config(
            name=(self.properties.get(s.NAME) or source.get("name")
                  or self.physical_resource_name()),
            group=source.get("group") or UNGROUPED,
            config=self.build_config(source, inputs) or self.empty_config(),
            inputs=inputs,
            outputs=source["outputs"],
            options=source.get("options"),
        )
        return str(derived["id"])

    def _triggers(self, action: str, source: Mapping[str, Any]) -> bool:
        if source.get("group") == COMPONENT:
            configs = (source.get("config") or {}).get("configs") or []
            return any(action in (c.get("actions") or []) for c in configs)
        return action in (self.properties.get(s.ACTIONS) or [])

    # --- actions ---------------------------------------------------------------------------

    def _act(self, action: str, source: dict[str, Any] | None = None,
             previous: str | None = None) -> Any:
        source = self._source_config() if source is None else source
        if not self._triggers(action, source):
            return None
        waits = self._transport() != s.NO_SIGNAL
        if waits:
            self._require_hook(str(source.get("group") or UNGROUPED))
        config_id = self._create_derived_config(action, source)
        fields: dict[str, Any] = {
            "config_id": config_id, "action": action,
            "input_values": self.properties.get(s.INPUT_VALUES),
            "status": IN_PROGRESS if waits else COMPLETE,
            "status_reason": "Deploy data available" if waits
            else "Not waiting for outputs signal",
        }
        software = self.context.software
        if self.resource_id is None:
            deployment_id = str(uuid.uuid4())
            self.resource_id_set(deployment_id)
            self.context.physical_id_set(deployment_id)
            software.create_deployment(deployment_id=deployment_id,
                                       server_id=str(self.properties.get(s.SERVER)),
                                       **fields)
        else:
            if previous is None:
                previous = self._current_config_id()
            software.update_deployment(self.resource_id, **fields)
            if previous:
                software.delete_config(previous)
        return {"deployment": self.resource_id} if waits else None

    def _require_hook(self, group: str) -> None:
        known = self.context.software.hook_groups()
        if group not in known:
            raise Error(
                f"The config's group '{group}' has no hook on the servers' agents, which "
                "would skip it and never signal: use one of "
                f"{', '.join(sorted(known))}, signal_transport NO_SIGNAL, or add the group "
                "to the server's software_config_hooks"
            )

    def _current_config_id(self) -> str | None:
        if self.resource_id is None:
            return None
        try:
            found = self.context.software.show_deployment(self.resource_id)
        except NotFound:
            return None
        return found.get("config_id")

    def _complete(self) -> bool:
        assert self.resource_id is not None
        found = self.context.software.show_deployment(self.resource_id)
        if found["status"] == COMPLETE:
            return True
        if found["status"] == FAILED:
            message = f"Deployment to server failed: {found['status_reason']}"
            stderr = str((found.get("output_values") or {}).get(s.STDERR) or "").strip()
            if stderr:
                # Heat's reason stops at the status code; what the script said is the clue.
                message += f"; {s.STDERR}: {stderr[-STDERR_IN_REASON:]}"
            raise Error(message)
        return False

    def handle_create(self) -> Any:
        # Any server id is taken, as Heat takes it (a server outside Hearth's resources, or
        # none: upstream's tests signal deployments to dummy servers through the API).
        return self._act(s.CREATE)

    def check_create_complete(self, cookie: Any) -> bool:
        return not cookie or self._complete()

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        previous = self._current_config_id()
        old_inputs: dict[str, Any] = {}
        if previous:
            try:
                old = self.context.software.show_config(previous)
                old_inputs = {i["name"]: i for i in old.get("inputs") or []}
            except NotFound:
                pass
        self.properties = new_properties
        source = self._source_config()
        for item in declared_inputs(source["inputs"],
                                    self.properties.get(s.INPUT_VALUES) or {}):
            before = old_inputs.get(item["name"])
            if (item.get("replace_on_change") and before is not None
                    and before.get("value") != item.get("value")):
                raise UpdateReplace(self.name)
        return self._act(s.UPDATE, source, previous)

    def check_update_complete(self, cookie: Any) -> bool:
        return not cookie or self._complete()

    def handle_suspend(self) -> Any:
        return self._act(s.SUSPEND)

    def check_suspend_complete(self, cookie: Any) -> bool:
        return not cookie or self._complete()

    def handle_resume(self) -> Any:
        return self._act(s.RESUME)

    def check_resume_complete(self, cookie: Any) -> bool:
        return not cookie or self._complete()

    def handle_delete(self) -> Any:
        try:
            return self._act(s.DELETE)
        except NotFound:
            return None

    def check_delete_complete(self, cookie: Any) -> bool:
        server = str(self.properties.get(s.SERVER) or "")
        if cookie and self.context.software.server_known(server) and not self._complete():
            return False
        self._remove()
        return True

    def _remove(self) -> None:
        config_id = self._current_config_id()
        if self.resource_id is not None:
            self.context.software.delete_deployment(self.resource_id)
        if config_id:
            self.context.software.delete_config(config_id)
        agent.drop_secret_urls(self)
        agent.drop_stack_user(self)

    def _cancel(self) -> None:
        if self.resource_id is None:
            return
        try:
            found = self.context.software.show_deployment(self.resource_id)
        except NotFound:
            return
        if found["status"] == IN_PROGRESS:
            self.context.software.update_deployment(
                self.resource_id, status=FAILED, status_reason="Deployment cancelled.")

    def handle_create_cancel(self, cookie: Any) -> None:
        self._cancel()

    handle_update_cancel = handle_create_cancel
    handle_delete_cancel = handle_create_cancel
    handle_suspend_cancel = handle_create_cancel
    handle_resume_cancel = handle_create_cancel

    # --- signals and attributes ------------------------------------------------------------

    def handle_signal(self, details: Any = None) -> str | None:
        if self.resource_id is None:
            return None
        body = details if isinstance(details, Mapping) else {}
        return self.context.software.signal_deployment(self.resource_id, body)

    def dynamic_attribute_names(self) -> list[str]:
        if self.resource_id is None:
            return []
        try:
            found = self.context.software.show_deployment(self.resource_id)
        except NotFound:
            return []
        return list(found.get("output_values") or {})

    def get_attribute(self, name: str, *path: Any) -> Any:
        """The deployment's output values (declared outputs and deploy_*), by name."""
        if self.resource_id is not None:
            try:
                outputs = self.context.software.show_deployment(self.resource_id).get(
                    "output_values") or {}
            except NotFound:
                outputs = {}
            if name in outputs:
                return select_from_attribute(outputs[name], path)
        if name in type(self).attributes_schema:
            return super().get_attribute(name, *path) if name == "show" else None
        config_id = self.properties.get(s.CONFIG)
        declared = set()
        if config_id:
            try:
                found = self.context.software.show_config(config_id)
                declared = {o["name"] for o in found.get("outputs") or []}
            except NotFound:
                pass
        if name not in declared:
            raise InvalidTemplateAttribute(self.name, name)
        return None
