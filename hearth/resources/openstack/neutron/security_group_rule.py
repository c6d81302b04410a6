"""OS::Neutron::SecurityGroupRule: one rule added to a security group.

The group and the remote group may be given by name (they are sent as ids). Any change
replaces the rule.
"""

from __future__ import annotations

from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint, Range

PROTOCOL_NAMES = [
    "ah", "dccp", "egp", "esp", "gre", "icmp", "icmpv6", "igmp", "ipv6-encap", "ipv6-frag",
    "ipv6-icmp", "ipv6-nonxt", "ipv6-opts", "ipv6-route", "ospf", "pgm", "rsvp", "sctp",
    "tcp", "udp", "udplite", "vrrp",
]
# Names and the protocol numbers 0-255.
PROTOCOLS: list[Any] = [*range(256), *PROTOCOL_NAMES]
PROTOCOL_DESCRIPTION = (
    "The protocol that is matched by the security group rule. Allowed values are "
    + ", ".join(PROTOCOL_NAMES) + " and integer representations [0-255]."
)
ICMP_PROTOCOLS = ("icmp", "icmpv6", "ipv6-icmp")

DIRECTION_DOC = (
    "The direction in which the security group rule is applied. For a compute instance, an "
    "ingress security group rule matches traffic that is incoming (ingress) for that "
    "instance. An egress rule is applied to traffic leaving the instance."
)
PORT_MIN_DOC = (
    "The minimum port number in the range that is matched by the security group rule. If "
    "the protocol is TCP or UDP, this value must be less than or equal to the value of the "
    "port_range_max attribute. If the protocol is ICMP, this value must be an ICMP type."
)
PORT_MAX_DOC = (
    "The maximum port number in the range that is matched by the security group rule. The "
    "port_range_min attribute constrains the port_range_max attribute. If the protocol is "
    "ICMP, this value must be an ICMP {}."
)
REMOTE_PREFIX_DOC = (
    "The remote IP prefix (CIDR) to be associated with this security group rule."
)


def direction() -> P:
    return P(P.STRING, DIRECTION_DOC, default="ingress",
             constraints=[AllowedValues(["ingress", "egress"])])


def ethertype() -> P:
    return P(P.STRING, "Ethertype of the traffic.", default="IPv4",
             constraints=[AllowedValues(["IPv4", "IPv6"])])


def port_bound(doc: str) -> P:
    return P(P.INTEGER, doc, constraints=[Range(0, 65535)])


class SecurityGroupRule(NeutronResource):
    """A resource for managing Neutron security group rules.

    Rules to use in security group resource.
    """

    required_service_extension = "security-group"
    entity = "security_group_rule"
    support_status = SupportStatus(version="7.0.0")

    properties_schema = {
        "security_group": P(P.STRING, "Security group name or ID to add rule.",
                            required=True,
                            constraints=[CustomConstraint("neutron.security_group")]),
        "description": P(P.STRING, "Description of the security group rule."),
        "direction": direction(),
        "ethertype": ethertype(),
        "port_range_min": port_bound(PORT_MIN_DOC),
        "port_range_max": port_bound(PORT_MAX_DOC.format("code")),
        "protocol": P(P.STRING, PROTOCOL_DESCRIPTION, default="tcp",
                      constraints=[AllowedValues(PROTOCOLS)]),
        "remote_group": P(
            P.STRING,
            "The remote group name or ID to be associated with this security group rule.",
            constraints=[CustomConstraint("neutron.security_group")],
        ),
        "remote_ip_prefix": P(P.STRING, REMOTE_PREFIX_DOC,
                              constraints=[CustomConstraint("net_cidr")]),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        if properties["remote_group"] is not None and properties["remote_ip_prefix"] is not None:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: remote_group, "
                "remote_ip_prefix.")
        low, high = properties["port_range_min"], properties["port_range_max"]
        if (low is not None and high is not None
                and properties["protocol"] not in ICMP_PROTOCOLS and high < low):
            raise StackValidationFailed(
                "The minimum port number must be less than or equal to the maximum port "
                "number.")

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props["security_group_id"] = self.find("security_group", props.pop("security_group"))
        remote = props.pop("remote_group", None)
        if remote:
            props["remote_group_id"] = self.find("security_group", remote)
        return props


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::SecurityGroupRule": SecurityGroupRule}
