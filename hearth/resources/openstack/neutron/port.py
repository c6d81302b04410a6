"""OS::Neutron::Port: a port on a Neutron network.

Network, subnets, security groups and QoS policy may be given by name (they are sent as
ids). A port waits for the subnets of its network made by the same stack, since Neutron
gives it an address only on subnets that exist (Heat's ``Port.add_dependencies``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from hearth.common.errors import EntityNotFound, StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.dependencies import ResourceShape
from hearth.resources.openstack.finders import PhysicalResourceNameAmbiguity
from hearth.resources.openstack.neutron import implicit
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.port_schema import ATTRIBUTES, PROPERTIES
from hearth.resources.openstack.neutron.renamed import renamed, renamed_in_items
from hearth.resources.properties import Properties

FIXED_IPS = "fixed_ips"
NO_FIXED_IPS = "no_fixed_ips"
SECURITY_GROUPS = "security_groups"
ADDRESS_PAIRS = "allowed_address_pairs"


class Port(NeutronResource):
    """A resource for managing Neutron ports.

    A port represents a virtual switch port on a logical network switch.
    Virtual instances attach their interfaces into ports. The logical port also
    defines the MAC address and the IP address(es) to be assigned to the
    interfaces plugged into them. When IP addresses are associated to a port,
    this also implies the port is associated with a subnet, as the IP address
    was taken from the allocation pool for a specific subnet.
    """

    entity = "port"
    creates_in_bulk = True
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES
    # Each costs calls of its own (the subnets, the network): read only when asked.
    uncached_attributes = frozenset({"subnets", "network"})

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data, unresolved = renamed(data, unresolved, {"network_id": "network"})
        if FIXED_IPS in data:
            data[FIXED_IPS] = renamed_in_items(data[FIXED_IPS], "subnet_id", "subnet")
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        if properties[FIXED_IPS] and properties[NO_FIXED_IPS]:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: fixed_ips, "
                "no_fixed_ips.")

    @classmethod
    def needs_replace(cls, after: Properties) -> bool:
        return bool(after["replacement_policy"] == "REPLACE_ALWAYS")

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        # Neutron picks the port's addresses among the subnets of its network.
        return implicit.subnets_on(shapes, implicit.key_of(shapes[name], "network", "network_id"))

    # --- create and update ---------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop("network_id", None)
        props["network_id"] = self.find("network", props.pop("network"))
        return self._port_body(props, updating=False)

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        return self._port_body(diff, updating=True)

    def _port_body(self, body: dict[str, Any], updating: bool) -> dict[str, Any]:
        body.pop("replacement_policy", None)
        if "qos_policy" in body:
            qos = body.pop("qos_policy")
            body["qos_policy_id"] = self.find("qos_policy", qos) if qos else None
        if body.pop(NO_FIXED_IPS, False):
            body[FIXED_IPS] = []
        elif FIXED_IPS in body:
            if body[FIXED_IPS]:
                body[FIXED_IPS] = [self._fixed_ip(ip) for ip in body[FIXED_IPS]]
            else:
                # Heat: no fixed IPs means "let Neutron choose" on create and "keep what
                # the port has" on update, never "no addresses" (no_fixed_ips says that).
                del body[FIXED_IPS]
        if ADDRESS_PAIRS in body:
            body[ADDRESS_PAIRS] = [
                {k: v for k, v in pair.items() if v is not None}
                for pair in body[ADDRESS_PAIRS] or []
            ]
        if SECURITY_GROUPS in body:
            groups = body[SECURITY_GROUPS]
            if groups is not None:
                body[SECURITY_GROUPS] = self.security_group_ids(groups)
            elif updating:
                # Removing the property goes back to Neutron's default group.
                body[SECURITY_GROUPS] = self.security_group_ids(["default"])
        return body

    def _fixed_ip(self, fixed_ip: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in fixed_ip.items() if v is not None and k != "subnet_id"}
        subnet = out.pop("subnet", None) or fixed_ip.get("subnet_id")
        if subnet:
            out["subnet_id"] = self.find("subnet", subnet)
        return out

    def security_group_ids(self, groups: list[str]) -> list[str]:
        """Ids of the groups named (or identified) in ``groups``, names looked up among the
        project's own groups (Heat's ``get_secgroup_uuids``)."""
        ids: list[str] = []
        mine: list[dict[str, Any]] | None = None
        for group in groups:
            if is_uuid_like(group):
                ids.append(group)
                continue
            if mine is None:
                found = self.api("GET", "/security-groups",
                                 params={"project_id": self.conn.current_project_id,
                                         "fields": ["id", "name"]})
                mine = list((found or {}).get("security_groups", []))
            named = [g["id"] for g in mine if g.get("name") == group]
            if not named:
                raise EntityNotFound("Resource", group)
            if len(named) > 1:
                raise PhysicalResourceNameAmbiguity(group)
            ids.append(str(named[0]))
        return ids

    # --- replacement ---------------------------------------------------------------------

    def prepare_for_replace(self) -> None:
        """Give up the fixed IPs (kept in resource data) so the replacement can take them."""
        if self.resource_id is None:
            return
        found = self.fetch_or_none()
        if found is None:
            return
        self.data_set("port_fip", json.dumps(found.get(FIXED_IPS) or []))
        self.update_object({FIXED_IPS: []})

    def restore_prev_rsrc(self, replacement_id: str | None) -> None:
        """A rollback keeps this port: its replacement (if it got made) lets the fixed IPs go
        and this port takes back those it gave up."""
        if replacement_id:
            self.api("PUT", f"{self.path()}/{replacement_id}", {"port": {FIXED_IPS: []}})
        saved = self.data().get("port_fip")
        if saved and self.resource_id is not None:
            self.update_object({FIXED_IPS: json.loads(saved)})

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "subnets":
            subnets = [ip.get("subnet_id") for ip in self.obj.get(FIXED_IPS) or []]
            return [self.api("GET", f"/subnets/{s}")["subnet"] for s in subnets if s]
        if name == "network":
            return self.api("GET", f"/networks/{self.obj['network_id']}")["network"]
        return self.obj.get(name)

    def get_live_state(self) -> dict[str, Any]:
        state = super().get_live_state()
        if self._obj is not None:
            state["qos_policy"] = self._obj.get("qos_policy_id")
            state[FIXED_IPS] = [
                {"subnet": ip.get("subnet_id"), "ip_address": ip.get("ip_address")}
                for ip in self._obj.get(FIXED_IPS) or []
            ]
        return state


def is_uuid_like(value: str) -> bool:
    try:
        return str(uuid.UUID(value)).replace("-", "") == value.replace("-", "").lower()
    except (TypeError, ValueError, AttributeError):
        return False


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Port": Port}
