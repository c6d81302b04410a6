"""POST /validate's look at one resource: its plugin exists and its definition fits it.

As Heat's template validation (``strict_validate`` off), property *names* are checked but not
their values (those usually need parameters and other resources); the update policy is checked
in full where it holds plain values, and the deletion policy against the plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common.errors import ResourceTypeUnavailable
from hearth.template.definitions import ResourceDefinition
from hearth.template.environment import RegistryEntry
from hearth.template.functions import base

if TYPE_CHECKING:
    from hearth.resources.registry import PluginRegistry


def _is_cfn(defn: ResourceDefinition) -> bool:
    # Every resource has its type key, spelled ``Type`` only in CloudFormation templates.
    return isinstance(defn.raw, Mapping) and "Type" in defn.raw


def _has_function(value: Any) -> bool:
    return next(base.walk(value), None) is not None


def check_definition(
    registry: PluginRegistry, defn: ResourceDefinition, entry: RegistryEntry,
    *, offline: bool = True,
) -> None:
    """A ``TypeChecker`` for ``hearth.template.validate.validate_template``.

    ``offline``: no cloud to look at, so the types of other services are unavailable, as
    Heat reports them when their service is not in the catalog (the engine checks the
    caller's catalog first and passes False)."""
    if entry.kind != "plugin":
        return
    type_name = str(entry.name)
    cls = registry.get_class(type_name)
    service = getattr(cls, "service_type", None)
    if offline and service:
        raise ResourceTypeUnavailable(
            type_name, "No cloud to look for the service in (validated offline).",
            service=str(cls.default_client_name or service),
        )
    props = defn.properties if isinstance(defn.properties, Mapping) else {}
    policy = defn.update_policy if isinstance(defn.update_policy, Mapping) else {}
    cls.validate_definition(
        defn.name,
        props,
        # Values are not looked at; marking them unresolved keeps value-dependent schemas
        # (OS::Heat::Value's ``type``) from reading functions as data.
        unresolved=frozenset(props),
        update_policy=policy,
        update_policy_unresolved=frozenset(k for k, v in policy.items() if _has_function(v)),
        deletion_policy=defn.deletion_policy,
        type_name=type_name,
        strict=False,
        cfn=_is_cfn(defn),
    )
