"""The properties and attributes of OS::Neutron::Port, as Heat 27 serves them."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.openstack.base import since
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint

VNIC_TYPES = ["normal", "direct", "macvtap", "direct-physical", "baremetal",
              "virtio-forwarder", "smart-nic"]


def _hidden(version: str, message: str | None, deprecated: str) -> SupportStatus:
    return SupportStatus(
        status=HIDDEN, version=version, message=message,
        previous_status=SupportStatus(status=DEPRECATED, version=deprecated),
    )


PROPERTIES: dict[str, P] = {
    "name": P(P.STRING, "A symbolic name for this port.", update_allowed=True),
    "network_id": P(
        P.STRING, constraints=[CustomConstraint("neutron.network")],
        support_status=_hidden("5.0.0", "Use property network.", "2014.2"),
    ),
    "network": P(
        P.STRING,
        "Network this port belongs to. If you plan to use current port to assign Floating "
        "IP, you should specify fixed_ips with subnet. Note if this changes to a different "
        "network update, the port will be replaced.",
        support_status=since("2014.2"), required=True,
        constraints=[CustomConstraint("neutron.network")],
    ),
    "device_id": P(P.STRING, "Device ID of this port.", update_allowed=True, default=""),
    "device_owner": P(
        P.STRING,
        "Name of the network owning the port. The value is typically network:floatingip or "
        "network:router_interface or network:dhcp.",
        update_allowed=True, default="",
    ),
    "fixed_ips": P(
        P.LIST, "Desired IPs for this port.",
        schema=P(P.MAP, schema={
            "subnet_id": P(
                P.STRING, constraints=[CustomConstraint("neutron.subnet")],
                support_status=_hidden("5.0.0", "Use property subnet.", "2014.2 "),
            ),
            "subnet": P(
                P.STRING, "Subnet in which to allocate the IP address for this port.",
                support_status=since("2014.2"),
                constraints=[CustomConstraint("neutron.subnet")],
            ),
            "ip_address": P(
                P.STRING, "IP address desired in the subnet for this port.",
                constraints=[CustomConstraint("ip_addr")],
            ),
        }),
        update_allowed=True,
    ),
    "security_groups": P(
        P.LIST, "Security group IDs to associate with this port.", update_allowed=True,
    ),
    "replacement_policy": P(
        P.STRING,
        "Policy on how to respond to a stack-update for this resource. REPLACE_ALWAYS will "
        "replace the port regardless of any property changes. AUTO will update the "
        "existing port for any changed update-allowed property.",
        default="AUTO", constraints=[AllowedValues(["REPLACE_ALWAYS", "AUTO"])],
        update_allowed=True,
        support_status=SupportStatus(
            status=HIDDEN, version="9.0.0",
            previous_status=SupportStatus(
                status=DEPRECATED, version="6.0.0",
                message="Replacement policy used to work around flawed nova/neutron port "
                        "interaction which has been fixed since Liberty.",
                previous_status=since("2014.2"),
            ),
        ),
    ),
    "dns_name": P(
        P.STRING, "DNS name associated with the port.", update_allowed=True,
        constraints=[CustomConstraint("dns_name")], support_status=since("7.0.0"),
    ),
    "tags": P(
        P.LIST, "The tags to be added to the port.", schema=P(P.STRING),
        update_allowed=True, support_status=since("9.0.0"),
    ),
    "value_specs": P(
        P.MAP, "Extra parameters to include in the request.", default={},
        update_allowed=True,
    ),
    "admin_state_up": P(
        P.BOOLEAN, "The administrative state of this port.", default=True,
        update_allowed=True,
    ),
    "mac_address": P(
        P.STRING,
        "MAC address to give to this port. The default update policy of this property in "
        "neutron is that allow admin role only.",
        constraints=[CustomConstraint("mac_addr")],
    ),
    "allowed_address_pairs": P(
        P.LIST, "Additional MAC/IP address pairs allowed to pass through the port.",
        schema=P(P.MAP, schema={
            "mac_address": P(P.STRING, "MAC address to allow through this port.",
                             constraints=[CustomConstraint("mac_addr")]),
            "ip_address": P(P.STRING, "IP address to allow through this port.",
                            required=True, constraints=[CustomConstraint("ip_or_cidr")]),
        }),
        update_allowed=True,
    ),
    "binding:vnic_type": P(
        P.STRING,
        "The vnic type to be bound on the neutron port. To support SR-IOV PCI passthrough "
        "networking, you can request that the neutron port to be realized as normal "
        "(virtual nic), direct (pci passthrough), or macvtap (virtual interface with a "
        "tap-like software interface). Note that this only works for Neutron deployments "
        "that support the bindings extension.",
        constraints=[AllowedValues(VNIC_TYPES)], support_status=since("2015.1"),
        update_allowed=True, default="normal",
    ),
    "port_security_enabled": P(
        P.BOOLEAN,
        "Flag to enable/disable port security on the port. When disable this feature(set "
        "it to False), there will be no packages filtering, like security-group and "
        "address-pairs.",
        update_allowed=True, support_status=since("5.0.0"),
    ),
    "qos_policy": P(
        P.STRING, "The name or ID of QoS policy to attach to this port.",
        constraints=[CustomConstraint("neutron.qos_policy")], update_allowed=True,
        support_status=since("6.0.0"),
    ),
    "propagate_uplink_status": P(
        P.BOOLEAN, "Flag to enable/disable propagate uplink status on the port.",
        update_allowed=True, support_status=since("15.0.0"),
    ),
    "no_fixed_ips": P(
        P.BOOLEAN, "Flag to disable all fixed ips on the port.", update_allowed=True,
        support_status=since("16.0.0"), default=False,
    ),
}

ATTRIBUTES: dict[str, A] = {
    "admin_state_up": A("The administrative state of this port.", type=A.STRING),
    "device_id": A("Unique identifier for the device.", type=A.STRING),
    "device_owner": A("Name of the network owning the port.", type=A.STRING),
    "fixed_ips": A("Fixed IP addresses.", type=A.LIST),
    "mac_address": A("MAC address of the port.", type=A.STRING),
    "name": A("Friendly name of the port.", type=A.STRING),
    "network_id": A("Unique identifier for the network owning the port.", type=A.STRING),
    "security_groups": A("A list of security groups for the port.", type=A.LIST),
    "status": A("The status of the port.", type=A.STRING),
    "tenant_id": A("Tenant owning the port.", type=A.STRING),
    "allowed_address_pairs": A(
        "Additional MAC/IP address pairs allowed to pass through a port.", type=A.LIST),
    "subnets": A("A list of all subnet attributes for the port.", type=A.LIST),
    "port_security_enabled": A("Port security enabled of the port.",
                               support_status=since("5.0.0"), type=A.BOOLEAN),
    "qos_policy_id": A("The QoS policy ID attached to this port.", type=A.STRING,
                       support_status=since("6.0.0")),
    "dns_assignment": A("The DNS assigned to this port.", type=A.MAP,
                        support_status=since("7.0.0")),
    "network": A(
        "The attributes of the network owning the port. (The full list of response "
        "parameters can be found in the `Openstack Networking service API reference "
        "<https://docs.openstack.org/api-ref/network/>`_.) The following examples "
        "demonstrate some (not all) possible expressions. (Obtains the network, the MTU "
        "(Maximum transmission unit), the network tags and the l2_adjacency property): "
        "``{get_attr: [<port>, network]}``, ``{get_attr: [<port>, network, mtu]}``, "
        "``{get_attr: [<port>, network, tags]}?``, "
        "``{get_attr: [<port>, network, l2_adjacency]}``.",
        type=A.MAP, support_status=since("11.0.0"),
    ),
    "propagate_uplink_status": A("Enable/Disable propagate uplink status for the port.",
                                 support_status=since("15.0.0"), type=A.BOOLEAN),
}
