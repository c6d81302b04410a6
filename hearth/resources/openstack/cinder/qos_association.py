"""OS::Cinder::QoSAssociation: QoS specs associated with volume types (admin only by
Cinder's default policy). The physical id is a random uuid, as in Heat."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.common.errors import EntityNotFound
from hearth.resources.openstack.base import since
from hearth.resources.openstack.cinder.base import UncheckedCinderResource
from hearth.resources.openstack.finders import qos_specs_id, volume_type_id
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class QoSAssociation(UncheckedCinderResource):
    """A resource to associate cinder QoS specs with volume types.

    Usage of this resource restricted to admins only by default policy.
    """

    support_status = since("8.0.0")
    required_service_extension = "qos-specs"

    properties_schema = {
        "qos_specs": P(
            P.STRING, "ID or Name of the QoS specs.", required=True,
            constraints=[CustomConstraint("cinder.qos_specs")],
        ),
        "volume_types": P(
            P.LIST, "List of volume type IDs or Names to be attached to QoS specs.",
            schema=P(P.STRING, "A volume type to attach specs.",
                     constraints=[CustomConstraint("cinder.vtype")]),
            update_allowed=True, required=True,
        ),
    }

    def _specs_id(self) -> str:
        return qos_specs_id(self.cloud, self.properties["qos_specs"])

    def _type_ids(self, types: Iterable[str] | None) -> set[str]:
        return {volume_type_id(self.cloud, t) for t in types or []}

    def _associate(self, specs: str, type_ids: Iterable[str], how: str) -> None:
        for type_id in sorted(type_ids):
            self.api("GET", f"/qos-specs/{specs}/{how}", params={"vol_type_id": type_id})

    def handle_create(self) -> None:
        self._associate(self._specs_id(), self._type_ids(self.properties["volume_types"]),
                        "associate")
        self.resource_id_set(str(uuid.uuid4()))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if "volume_types" not in prop_diff:
            return
        specs = self._specs_id()
        old = self._type_ids(self.properties["volume_types"])
        new = self._type_ids(prop_diff["volume_types"])
        self._associate(specs, new - old, "associate")
        self._associate(specs, old - new, "disassociate")

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            specs = self._specs_id()
        except EntityNotFound:
            return  # the specs are gone, and their associations with them
        for name in self.properties["volume_types"] or []:
            try:
                type_id = volume_type_id(self.cloud, name)
            except EntityNotFound:
                continue
            try:
                self._associate(specs, [type_id], "disassociate")
            except Exception as exc:
                if not is_not_found(exc):
                    raise

    def _show_resource(self) -> Any:
        return None  # Heat's association has no ``show`` of its own


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::QoSAssociation": QoSAssociation}
