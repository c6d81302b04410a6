"""OS::Neutron::Subnet: an IP address block on a Neutron network.

The network, subnet pool and segment may be given by name (they are sent as ids).
``gateway_ip`` set to null, ``~`` or ``""`` makes a subnet without a gateway, ``auto`` (or
leaving it out) lets Neutron pick one; removing it on update detaches the gateway.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.definition import ValidationScope
from hearth.resources.exceptions import ResourceActionNotSupported
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.renamed import renamed
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint, Range

IPV6_MODES = ["dhcpv6-stateful", "dhcpv6-stateless", "slaac"]
GATEWAY = "gateway_ip"


def _pair(first: str, first_doc: str, first_check: str,
          second: str, second_doc: str, second_check: str) -> P:
    """A list of maps with two required string keys (allocation pools, host routes)."""
    return P(P.MAP, schema={
        first: P(P.STRING, first_doc, required=True,
                 constraints=[CustomConstraint(first_check)]),
        second: P(P.STRING, second_doc, required=True,
                  constraints=[CustomConstraint(second_check)]),
    })


class Subnet(NeutronResource):
    """A resource for managing Neutron subnets.

    A subnet represents an IP address block that can be used for assigning IP
    addresses to virtual instances. Each subnet must have a CIDR and must be
    associated with a network. IPs can be either selected from the whole subnet
    CIDR, or from "allocation pools" that can be specified by the user.
    """

    entity = "subnet"

    properties_schema = {
        "network_id": P(
            P.STRING,
            constraints=[CustomConstraint("neutron.network")],
            support_status=SupportStatus(
                status=HIDDEN, version="5.0.0", message="Use property network.",
                previous_status=SupportStatus(status=DEPRECATED, version="2014.2"),
            ),
        ),
        "network": P(
            P.STRING, "The ID of the attached network.", required=True,
            constraints=[CustomConstraint("neutron.network")],
            support_status=since("2014.2"),
        ),
        "subnetpool": P(
            P.STRING, "The name or ID of the subnet pool.",
            constraints=[CustomConstraint("neutron.subnetpool")],
            support_status=since("6.0.0"),
        ),
        "prefixlen": P(
            P.INTEGER, "Prefix length for subnet allocation from subnet pool.",
            constraints=[Range(min=0)], support_status=since("6.0.0"),
        ),
        "cidr": P(P.STRING, "The CIDR.", constraints=[CustomConstraint("net_cidr")]),
        "value_specs": P(
            P.MAP, "Extra parameters to include in the request.", default={},
            update_allowed=True,
        ),
        "name": P(P.STRING, "The name of the subnet.", update_allowed=True),
        "ip_version": P(
            P.INTEGER, "The IP version, which is 4 or 6.", default=4,
            constraints=[AllowedValues([4, 6])],
        ),
        "dns_nameservers": P(
            P.LIST, "A specified set of DNS name servers to be used.", default=[],
            update_allowed=True,
        ),
        GATEWAY: P(
            P.STRING,
            'The gateway IP address. Set to any of [ null | ~ | "" ] to create/update a '
            "subnet without a gateway. If omitted when creation, neutron will assign the "
            "first free IP address within the subnet to the gateway automatically. If "
            "remove this from template when update, the old gateway IP address will be "
            "detached.",
            update_allowed=True,
        ),
        "enable_dhcp": P(
            P.BOOLEAN, "Set to true if DHCP is enabled and false if DHCP is disabled.",
            default=True, update_allowed=True,
        ),
        "allocation_pools": P(
            P.LIST, "The start and end addresses for the allocation pools.",
            schema=_pair("start", "Start address for the allocation pool.", "ip_addr",
                         "end", "End address for the allocation pool.", "ip_addr"),
            update_allowed=True,
        ),
        "tenant_id": P(
            P.STRING,
            "The ID of the tenant who owns the network. Only administrative users can "
            "specify a tenant ID other than their own.",
        ),
        "host_routes": P(
            P.LIST, "A list of host route dictionaries for the subnet.",
            schema=_pair("destination", "The destination for static route.", "net_cidr",
                         "nexthop", "The next hop for the destination.", "ip_addr"),
            update_allowed=True,
        ),
        "ipv6_ra_mode": P(
            P.STRING, "IPv6 RA (Router Advertisement) mode.",
            constraints=[AllowedValues(IPV6_MODES)], support_status=since("2015.1"),
        ),
        "ipv6_address_mode": P(
            P.STRING, "IPv6 address mode.",
            constraints=[AllowedValues(IPV6_MODES)], support_status=since("2015.1"),
        ),
        "segment": P(
            P.STRING, "The name/ID of the segment to associate.",
            constraints=[CustomConstraint("neutron.segment")], update_allowed=True,
            support_status=SupportStatus(
                version="11.0.0", message="Update allowed since version 11.0.0.",
                previous_status=since("9.0.0"),
            ),
        ),
        "tags": P(
            P.LIST, "The tags to be added to the subnet.", schema=P(P.STRING),
            update_allowed=True, support_status=since("9.0.0"),
        ),
    }

    attributes_schema = {
        "name": A("Friendly name of the subnet.", type=A.STRING),
        "network_id": A("Parent network of the subnet.", type=A.STRING),
        "tenant_id": A("Tenant owning the subnet.", type=A.STRING),
        "allocation_pools": A("Ip allocation pools and their ranges.", type=A.LIST),
        "gateway_ip": A("Ip of the subnet's gateway.", type=A.STRING),
        "host_routes": A("Additional routes for this subnet.", type=A.LIST),
        "ip_version": A("Ip version for the subnet.", type=A.STRING),
        "cidr": A("CIDR block notation for this subnet.", type=A.STRING),
        "dns_nameservers": A("List of dns nameservers.", type=A.LIST),
        "enable_dhcp": A("'true' if DHCP is enabled for this subnet; 'false' otherwise.",
                         type=A.STRING),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data, unresolved = renamed(data, unresolved, {"network_id": "network"})
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        pool, cidr = properties["subnetpool"], properties["cidr"]
        if pool is not None and cidr:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: subnetpool, cidr.")
        if pool is None and not cidr:
            raise StackValidationFailed(
                "At least one of the following properties must be specified: subnetpool, "
                "cidr.")
        if properties["prefixlen"] and cidr:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: prefixlen, cidr.")
        ra_mode, address_mode = properties["ipv6_ra_mode"], properties["ipv6_address_mode"]
        if properties["ip_version"] == 4 and (ra_mode or address_mode):
            raise StackValidationFailed(
                "ipv6_ra_mode and ipv6_address_mode are not supported for ipv4.")
        if ra_mode and address_mode and ra_mode != address_mode:
            raise StackValidationFailed(
                "When both ipv6_ra_mode and ipv6_address_mode are set, they must be equal.")
        gateway = properties[GATEWAY]
        if gateway and gateway not in ("~", "auto") and not _is_ip(gateway):
            raise StackValidationFailed(f'Gateway IP address "{gateway}" is in invalid format.')

    # --- create and update ---------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop("network_id", None)
        props["network_id"] = self.find("network", props.pop("network"))
        segment = props.pop("segment", None)
        if segment:
            props["segment_id"] = self.find("segment", segment)
        pool = props.pop("subnetpool", None)
        if pool:
            props["subnetpool_id"] = self.find("subnetpool", pool)
        return _gateway_for_neutron(props)

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        if "allocation_pools" in diff and diff["allocation_pools"] is None:
            diff["allocation_pools"] = []
        if "segment" in diff:
            segment = diff.pop("segment")
            if self.properties["segment"] is not None:
                raise ResourceActionNotSupported(
                    "Updating the subnet segment assciation only allowed when the current "
                    "segment_id is None. The subnet is currently associated with segment. "
                    "In this state update")
            diff["segment_id"] = self.find("segment", segment) if segment else None
        if diff.get(GATEWAY) == "auto":
            raise ResourceActionNotSupported(
                'The value "auto" for gateway_ip cannot be used to update an existing '
                "subnet. It is only supported during subnet creation.")
        return _gateway_for_neutron(diff)


def _gateway_for_neutron(body: dict[str, Any]) -> dict[str, Any]:
    """Neutron's meaning of the gateway: null for none, absent for "pick one"."""
    if GATEWAY in body:
        if body[GATEWAY] in ("", "~"):
            body[GATEWAY] = None
        elif body[GATEWAY] == "auto":
            del body[GATEWAY]
    return body


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Subnet": Subnet}
