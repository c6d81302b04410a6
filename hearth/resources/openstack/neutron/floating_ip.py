"""OS::Neutron::FloatingIP: an address of an external network, optionally on a port.

The floating network and subnet may be given by name (they are sent as ids). Neutron only
associates a floating IP with a port whose subnet a router connects to the floating
network, so the floating IP waits for what the same stack builds of that path (Heat's
``FloatingIP.add_dependencies``): routers with their gateway on its network, and router
interfaces on the subnet of the port it is given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.definition import ValidationScope
from hearth.resources.dependencies import ResourceShape
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron import implicit
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.renamed import renamed
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import CustomConstraint

NETWORK = "floating_network"


class FloatingIP(NeutronResource):
    """A resource for managing Neutron floating ips.

    Floating IP addresses can change their association between routers by
    action of the user. One of the most common use cases for floating IPs is
    to provide public IP addresses to a private cloud, where there are a
    limited number of IP addresses available. Another is for a public cloud
    user to have a "static" IP address that can be reassigned when an instance
    is upgraded or moved.
    """

    entity = "floatingip"

    properties_schema = {
        "floating_network_id": P(
            P.STRING, constraints=[CustomConstraint("neutron.network")],
            support_status=SupportStatus(
                status=HIDDEN, version="5.0.0", message="Use property floating_network.",
                previous_status=SupportStatus(status=DEPRECATED, version="2014.2"),
            ),
        ),
        NETWORK: P(
            P.STRING, "Network to allocate floating IP from.",
            support_status=since("2014.2"), required=True,
            constraints=[CustomConstraint("neutron.network")],
        ),
        "floating_subnet": P(
            P.STRING, "Subnet to allocate floating IP from.", support_status=since("9.0.0"),
            constraints=[CustomConstraint("neutron.subnet")],
        ),
        "value_specs": P(
            P.MAP,
            'Extra parameters to include in the "floatingip" object in the creation request. '
            "Parameters are often specific to installed hardware or extensions.",
            default={},
        ),
        "port_id": P(
            P.STRING,
            "ID of an existing port with at least one IP address to associate with this "
            "floating IP.",
            update_allowed=True, constraints=[CustomConstraint("neutron.port")],
        ),
        "fixed_ip_address": P(
            P.STRING, "IP address to use if the port has multiple addresses.",
            update_allowed=True, constraints=[CustomConstraint("ip_addr")],
        ),
        "floating_ip_address": P(
            P.STRING,
            "IP address of the floating IP. NOTE: The default policy setting in Neutron "
            "restricts usage of this property to administrative users only.",
            constraints=[CustomConstraint("ip_addr")], support_status=since("5.0.0"),
        ),
        "dns_name": P(
            P.STRING, "DNS name associated with floating ip.", update_allowed=True,
            constraints=[CustomConstraint("rel_dns_name")], support_status=since("7.0.0"),
        ),
        "dns_domain": P(
            P.STRING, "DNS domain associated with floating ip.", update_allowed=True,
            constraints=[CustomConstraint("dns_domain")], support_status=since("7.0.0"),
        ),
    }

    attributes_schema = {
        "router_id": A("ID of the router used as gateway, set when associated with a port.",
                       type=A.STRING),
        "tenant_id": A("The tenant owning this floating IP.", type=A.STRING),
        "floating_network_id": A("ID of the network in which this IP is allocated.",
                                 type=A.STRING),
        "fixed_ip_address": A("IP address of the associated port, if specified.",
                              type=A.STRING, cache_mode=A.CACHE_NONE),
        "floating_ip_address": A("The allocated address of this IP.", type=A.STRING),
        "port_id": A("ID of the port associated with this IP.", type=A.STRING,
                     cache_mode=A.CACHE_NONE),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data, unresolved = renamed(data, unresolved, {"floating_network_id": NETWORK})
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        if properties["port_id"] is None and properties["fixed_ip_address"] is not None:
            raise StackValidationFailed("fixed_ip_address cannot be specified without port_id.")

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        network = implicit.key_of(shapes[name], NETWORK, "floating_network_id")
        routers = [other for other, shape in shapes.items()
                   if shape.type == implicit.ROUTER and network is not None
                   and network in implicit.gateway_networks(shape)]
        return routers + implicit.interfaces_for_ports(shapes, name)

    # --- create and update ---------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop("floating_network_id", None)
        props["floating_network_id"] = self.find("network", props.pop(NETWORK))
        subnet = props.pop("floating_subnet", None)
        if subnet:
            props["subnet_id"] = self.find("subnet", subnet)
        return props

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        # Heat changes only the association here (the DNS properties stay as created).
        if prop_diff:
            self.update_object({
                "port_id": new_properties["port_id"],
                "fixed_ip_address": new_properties["fixed_ip_address"],
            })
        return None


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::FloatingIP": FloatingIP}
