"""OS::Heat::Stack with a ``context``: a stack made through the orchestration endpoint of
another region of the catalog, as Heat's RemoteStack makes it.

The region's endpoint (``orchestration`` in the catalog) is called with the stack's own
credentials (its trust; at validation, the caller's token): the template is first checked by
the remote ``/validate``, then created, updated, suspended, resumed, checked and deleted
there, and each action completes when the remote stack's status says so. The remote stack is
a top-level stack of the same project over there; its id is the resource's physical id and
its outputs are the ``outputs`` attribute. With Keystone auth only: the embedded mode has no
catalog to find another region in.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.clients.errors import ResourceInError, ResourceUnknownStatus
from hearth.clients.orchestration import RemoteOrchestration, is_not_found
from hearth.common.errors import HearthError, StackValidationFailed
from hearth.template.loader import load_template_text

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud
    from hearth.resources.properties import Properties
    from hearth.template.environment import Environment

CONTEXT, TEMPLATE, TIMEOUT, PARAMETERS = "context", "template", "timeout", "parameters"
# The keys of ``context``.
REGION, CREDENTIAL = "region_name", "credential_secret_id"
CA_CERT, INSECURE = "ca_cert", "insecure"


@dataclass(frozen=True)
class RemoteTarget:
    """Where a ``context`` sends the stack."""

    region: str | None
    credential: str | None
    ca_cert: str | None
    insecure: bool

    @classmethod
    def of(cls, properties: Properties | Mapping[str, Any]) -> RemoteTarget | None:
        """The target of these properties; None for a stack of this region (no region or
        credential in the context), which Hearth makes as a nested stack."""
        ctx = properties.get(CONTEXT) or {}
        region, credential = ctx.get(REGION), ctx.get(CREDENTIAL)
        if not region and not credential:
            return None
        return cls(region or None, credential or None, ctx.get(CA_CERT) or None,
                   bool(ctx.get(INSECURE)))

    @property
    def location(self) -> str:
        """How Heat's messages name it."""
        return "remote cloud" if self.credential else f'region "{self.region}"'

    @contextmanager
    def api(self, cloud: Cloud) -> Iterator[RemoteOrchestration]:
        """The target's orchestration API; a ``ca_cert`` is kept in a file meanwhile."""
        if self.credential:
            raise HearthError(
                "credential_secret_id needs Barbican, which this Hearth does not use: "
                "remote stacks go to the regions of the stack's own catalog"
            )
        if self.insecure or not self.ca_cert:
            yield RemoteOrchestration(cloud, self.region, False if self.insecure else None)
            return
        with tempfile.NamedTemporaryFile("w", suffix=".pem") as ca_file:
            ca_file.write(self.ca_cert)
            ca_file.flush()
            yield RemoteOrchestration(cloud, self.region, ca_file.name)


def stack_body(properties: Properties, environment: Environment,
               files: Mapping[str, str]) -> dict[str, Any]:
    """What Heat sends with the template: parsed, with its files and the child environment
    (the parent's registry and defaults, these parameters)."""
    params = dict(properties.get(PARAMETERS) or {})
    try:
        template = load_template_text(str(properties.get(TEMPLATE)))
    except HearthError as exc:
        raise StackValidationFailed(f"template: {exc}") from None
    return {
        "template": template,
        "files": dict(files),
        "environment": environment.child(params).user_env_as_dict(),
    }


def validate(properties: Properties, cloud: Cloud, environment: Environment,
             files: Mapping[str, str]) -> None:
    """Heat's checks before a create or update: the endpoint is there, and it finds the
    template valid."""
    target = RemoteTarget.of(properties)
    if target is None:
        return
    try:
        with target.api(cloud) as api:
            api.endpoint()
    except Exception as exc:
        raise StackValidationFailed(
            f'Cannot establish connection to Heat endpoint at {target.location} due to '
            f'"{exc}"'
        ) from None
    try:
        body = stack_body(properties, environment, files)
        with target.api(cloud) as api:
            api.validate(body)
    except Exception as exc:
        raise StackValidationFailed(
            f'Failed validating stack template using Heat endpoint at {target.location} '
            f'due to "{exc}"'
        ) from None


class RemoteStackActions:
    """The actions of one remote stack; ``resource`` is the OS::Heat::Stack resource."""

    def __init__(self, resource: Any, target: RemoteTarget) -> None:
        self.resource = resource
        self.target = target

    @contextmanager
    def api(self) -> Iterator[RemoteOrchestration]:
        with self.target.api(self.resource.context.cloud) as api:
            yield api

    def _body(self, properties: Properties) -> dict[str, Any]:
        context = self.resource.context
        body = stack_body(properties, context.stack_environment(), context.stack_files())
        body["parameters"] = dict(properties.get(PARAMETERS) or {})
        body["timeout_mins"] = properties.get(TIMEOUT)
        # The parent stack decides about rollback.
        body["disable_rollback"] = True
        return body

    def create(self) -> str:
        body = self._body(self.resource.properties)
        body["stack_name"] = self.resource.physical_resource_name()
        with self.api() as api:
            stack_id = api.create(body)
        self.resource.resource_id_set(stack_id)
        self.resource.context.physical_id_set(stack_id)
        return "CREATE"

    def update(self) -> str:
        """Send the resource's (new) properties; the action to wait for."""
        if self.resource.resource_id is None:
            # Its create failed before the stack existed: make it now.
            return self.create()
        with self.api() as api:
            api.update(self.resource.resource_id, self._body(self.resource.properties))
        return "UPDATE"

    def delete(self) -> str | None:
        """The action to wait for; None when there is nothing to delete."""
        stack_id = self.resource.resource_id
        if stack_id is None:
            return None
        try:
            with self.api() as api:
                api.delete(stack_id)
        except HearthError as exc:
            if not is_not_found(exc):
                raise
            return None
        return "DELETE"

    def act(self, action: str) -> str:
        if self.resource.resource_id is None:
            raise HearthError(
                f"Cannot {action.lower()} {self.resource.name}, resource not found"
            )
        with self.api() as api:
            api.action(self.resource.resource_id, action.lower())
        return action

    def done(self, action: str | None) -> bool:
        """Whether the remote stack finished ``action``; its reason when it failed."""
        if action is None:
            return True
        try:
            stack = self._fetch()
        except HearthError as exc:
            if action == "DELETE" and is_not_found(exc):
                return True
            raise
        full, reason = str(stack.get("stack_status") or ""), stack.get("stack_status_reason")
        current, _, status = full.partition("_")
        if current != action:
            return False
        if status == "IN_PROGRESS":
            return False
        if status == "COMPLETE":
            return True
        if status == "FAILED":
            raise ResourceInError(f'Went to status {full} due to "{reason}"')
        raise ResourceUnknownStatus(
            f'Resource failed - Unknown status {full} due to "{reason}"')

    def _fetch(self) -> dict[str, Any]:
        """The remote stack now; kept on the resource for the attributes read next."""
        with self.api() as api:
            stack = api.get(self.resource.resource_id)
        self.resource.remote_shown = stack
        return stack

    def stack(self) -> dict[str, Any] | None:
        """The remote stack (as last read by this resource instance)."""
        if self.resource.resource_id is None:
            return None
        shown = getattr(self.resource, "remote_shown", None)
        return shown if shown is not None else self._fetch()

    def attribute(self, name: str) -> Any:
        stack = self.stack()
        if stack is None:
            return None
        if name == "stack_name":
            return stack.get("stack_name") or self.resource.physical_resource_name()
        if name == "outputs":
            return {o["output_key"]: o.get("output_value")
                    for o in stack.get("outputs") or []}
        return None
