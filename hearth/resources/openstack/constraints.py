"""The custom constraints Heat checks against a live service (``nova.flavor``, ...).

A checker gets the value and the validation context: an object with a ``cloud`` (the
engine's ResourceContext during an action, the request's view of the cloud at validation).
It answers None when the object exists, else Heat's reason (``The Flavor (x) could not be
found.``), which ``CustomConstraint`` words as ``Error validating value 'x': ...``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from hearth.clients.credentials import NoCloudConfigured
from hearth.common.errors import HearthError
from hearth.resources.openstack import finders
from hearth.template.custom_constraints import Checker, register_constraint

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud

Lookup = Callable[["Cloud", str], str]

# name: (catalog service, lookup)
LOOKUPS: dict[str, tuple[str, Lookup]] = {
    "nova.flavor": ("compute", finders.flavor_id),
    "nova.keypair": ("compute", finders.keypair_name),
    "nova.server": ("compute", finders.server_id),
    "nova.host": ("compute", finders.hypervisor_host),
    "glance.image": ("image", finders.image_id),
    "cinder.volume": ("block-storage", finders.volume_id),
    "cinder.snapshot": ("block-storage", finders.volume_snapshot_id),
    "cinder.backup": ("block-storage", finders.volume_backup_id),
    "cinder.vtype": ("block-storage", finders.volume_type_id),
    "cinder.qos_specs": ("block-storage", finders.qos_specs_id),
    "keystone.region": ("identity", finders.region_id),
}


def _neutron(kind: str, cloud: Cloud, value: str) -> str:
    return finders.neutron_find(cloud, kind, value)


for _kind in ("network", "subnet", "port", "router", "security_group", "qos_policy",
              "address_scope", "subnetpool", "segment"):
    LOOKUPS[f"neutron.{_kind}"] = ("network", partial(_neutron, _kind))
for _kind, _finder in finders.KEYSTONE_FINDERS.items():
    LOOKUPS[f"keystone.{_kind}"] = ("identity", _finder)


def cloud_of(context: Any) -> Cloud | None:
    cloud = getattr(context, "cloud", None)
    return cloud if cloud is not None else None


def service_checker(service: str, lookup: Lookup) -> Checker:
    def check(value: Any, context: Any) -> str | None:
        try:
            cloud = cloud_of(context)
        except NoCloudConfigured as exc:
            return str(exc)
        if cloud is None:
            return "no cloud is configured to check it against"
        try:
            if not cloud.has_service(service):
                return f"the {service} service is not in the service catalog"
            lookup(cloud, str(value))
        except NoCloudConfigured as exc:
            return str(exc)
        except HearthError as exc:
            return str(exc)
        return None

    return check


def register() -> None:
    """Put every service constraint in the global registry (idempotent)."""
    for name, (service, lookup) in LOOKUPS.items():
        register_constraint(name, service_checker(service, lookup))
