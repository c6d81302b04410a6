"""OS::Cinder::QoSSpecs: a set of Cinder QoS specs (admin only by Cinder's default policy)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import since
from hearth.resources.openstack.cinder.base import UncheckedCinderResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P


class QoSSpecs(UncheckedCinderResource):
    """A resource for creating cinder QoS specs.

    Users can ask for a specific volume type. Part of that volume type is a
    string that defines the QoS of the volume IO (fast, normal, or slow).
    Backends that can handle all of the demands of the volume type become
    candidates for scheduling. Usage of this resource restricted to admins
    only by default policy.
    """

    support_status = since("7.0.0")
    required_service_extension = "qos-specs"
    collection = "/qos-specs"
    body_key = "qos_specs"

    properties_schema = {
        "name": P(P.STRING, "Name of the QoS."),
        "specs": P(
            P.MAP, "The specs key and value pairs of the QoS.", required=True,
            update_allowed=True,
        ),
    }

    def handle_create(self) -> None:
        name = self.properties["name"] or self.physical_resource_name()
        body = {"name": name, **dict(self.properties["specs"])}
        created = self.api("POST", "/qos-specs", {"qos_specs": body})["qos_specs"]
        self.resource_id_set(str(created["id"]))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if "specs" not in prop_diff or self.resource_id is None:
            return
        new = dict(prop_diff["specs"] or {})
        old = dict(self.properties["specs"] or {})
        added = {k: v for k, v in new.items() if old.get(k, _MISSING) != v}
        removed = sorted(set(old) - set(new))
        if added:
            self.api("PUT", f"/qos-specs/{self.resource_id}", {"qos_specs": added})
        if removed:
            self.api("PUT", f"/qos-specs/{self.resource_id}/delete_keys", {"keys": removed})

    def delete_object(self) -> None:
        # Cinder refuses to delete specs still associated with a volume type.
        self.api("GET", f"/qos-specs/{self.resource_id}/disassociate_all")
        self.api("DELETE", f"/qos-specs/{self.resource_id}")


_MISSING = object()


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::QoSSpecs": QoSSpecs}
