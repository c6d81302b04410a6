"""OS::Neutron::FloatingIPAssociation: a floating IP put on a port.

Made and removed by updating the floating IP (its ``port_id``); it has no Neutron object
of its own. Like the floating IP, it waits for the router interfaces of the same stack that
connect the port's subnet (Heat's ``FloatingIPAssociation.add_dependencies``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.clients.errors import NotFound, is_not_found
from hearth.resources.dependencies import ResourceShape
from hearth.resources.openstack.neutron import implicit
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class FloatingIPAssociation(NeutronResource):
    """A resource for associating floating ips and ports.

    This resource allows associating a floating IP to a port with at least one
    IP address to associate with this floating IP.
    """

    properties_schema = {
        "floatingip_id": P(P.STRING, "ID of the floating IP to associate.", required=True,
                           update_allowed=True),
        "port_id": P(
            P.STRING,
            "ID of an existing port with at least one IP address to associate with this "
            "floating IP.",
            required=True, update_allowed=True, constraints=[CustomConstraint("neutron.port")],
        ),
        "fixed_ip_address": P(
            P.STRING, "IP address to use if the port has multiple addresses.",
            update_allowed=True, constraints=[CustomConstraint("ip_addr")],
        ),
    }

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        return implicit.interfaces_for_ports(shapes, name)

    def _associate(self, floatingip: str, port: str | None, fixed_ip: str | None) -> None:
        body: dict[str, Any] = {"port_id": port}
        if port is not None:
            body["fixed_ip_address"] = fixed_ip
        self.api("PUT", f"/floatingips/{floatingip}", {"floatingip": body})

    def handle_create(self) -> None:
        props = self.properties
        self._associate(props["floatingip_id"], props["port_id"], props["fixed_ip_address"])
        # Heat's physical id is the resource's own id: there is no Neutron object.
        self.resource_id_set(self.context.resource_uuid)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if not prop_diff:
            return None
        if "floatingip_id" in prop_diff:
            # The old floating IP lets go of the port first.
            self._disassociate(self.properties["floatingip_id"])
        self._associate(new_properties["floatingip_id"], new_properties["port_id"],
                        new_properties["fixed_ip_address"])
        return None

    def _disassociate(self, floatingip: str) -> None:
        try:
            self._associate(floatingip, None, None)
        except Exception as exc:
            if not is_not_found(exc):
                raise

    def delete_object(self) -> None:
        self._associate(self.properties["floatingip_id"], None, None)

    def fetch(self) -> dict[str, Any]:
        """The floating IP, as long as it is still on the port (NotFound otherwise)."""
        found = dict(self.api("GET", f"/floatingips/{self.properties['floatingip_id']}")
                     ["floatingip"])
        if found.get("port_id") != self.properties["port_id"]:
            raise NotFound(f"Floating IP {found.get('id')} is not associated with port "
                           f"{self.properties['port_id']}", 404, "network")
        return found

    def _show_resource(self) -> Any:
        # No Neutron object of its own: ``show`` is empty, as in Heat.
        return None

    def get_live_state(self) -> dict[str, Any]:
        return {}


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::FloatingIPAssociation": FloatingIPAssociation}
