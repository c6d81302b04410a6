"""The nested parts of OS::Nova::Server's schema: block device mappings (v1 and v2) and the
entries of ``networks`` (with the extra properties of the ports Heat creates for them).

Descriptions are API data: they read exactly as Heat 27 serves them.
"""

from __future__ import annotations

from hearth.resources.openstack.base import since
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import AllowedValues, CustomConstraint, Range

# --- block_device_mapping (the legacy form) --------------------------------------------

BDM_V1_ITEM = P(P.MAP, schema={
    "device_name": P(
        P.STRING,
        "A device name where the volume will be attached in the system at "
        "/dev/device_name. This value is typically vda.",
        required=True,
    ),
    "volume_id": P(
        P.STRING,
        "The ID of the volume to boot from. Only one of volume_id or snapshot_id should "
        "be provided.",
        constraints=[CustomConstraint("cinder.volume")],
    ),
    "snapshot_id": P(
        P.STRING,
        "The ID of the snapshot to create a volume from.",
        constraints=[CustomConstraint("cinder.snapshot")],
    ),
    "volume_size": P(
        P.INTEGER,
        "The size of the volume, in GB. It is safe to leave this blank and have the "
        "Compute service infer the size.",
    ),
    "delete_on_termination": P(
        P.BOOLEAN,
        "Indicate whether the volume should be deleted when the server is terminated.",
    ),
})

# --- block_device_mapping_v2 -----------------------------------------------------------

_IMAGE_ID_STATUS = SupportStatus(
    status=HIDDEN, version="9.0.0", message="Use property image.",
    previous_status=SupportStatus(
        status=DEPRECATED, version="7.0.0", previous_status=SupportStatus(version="5.0.0"),
    ),
)

BDM_V2_ITEM = P(P.MAP, schema={
    "device_name": P(
        P.STRING,
        "A device name where the volume will be attached in the system at "
        "/dev/device_name. This value is typically vda.",
    ),
    "volume_id": P(
        P.STRING,
        "The volume_id can be boot or non-boot device to the server.",
        constraints=[CustomConstraint("cinder.volume")],
    ),
    "image_id": P(
        P.STRING,
        "The ID of the image to create a volume from.",
        support_status=_IMAGE_ID_STATUS,
        constraints=[CustomConstraint("glance.image")],
    ),
    "image": P(
        P.STRING,
        "The ID or name of the image to create a volume from.",
        support_status=since("7.0.0"),
        constraints=[CustomConstraint("glance.image")],
    ),
    "snapshot_id": P(
        P.STRING,
        "The ID of the snapshot to create a volume from.",
        constraints=[CustomConstraint("cinder.snapshot")],
    ),
    "swap_size": P(P.INTEGER, "The size of the swap, in MB."),
    "ephemeral_size": P(
        P.INTEGER,
        "The size of the local ephemeral block device, in GB.",
        support_status=since("8.0.0"),
        constraints=[Range(min=1)],
    ),
    "ephemeral_format": P(
        P.STRING,
        "The format of the local ephemeral block device. If no format is specified, uses "
        "default value, defined in nova configuration file.",
        constraints=[AllowedValues(["ext2", "ext3", "ext4", "xfs", "ntfs"])],
        support_status=since("8.0.0"),
    ),
    "device_type": P(
        P.STRING,
        "Device type: at the moment we can make distinction only between disk and cdrom.",
        constraints=[AllowedValues(["cdrom", "disk"])],
    ),
    "disk_bus": P(
        P.STRING,
        "Bus of the device: hypervisor driver chooses a suitable default if omitted.",
        constraints=[AllowedValues(["ide", "lame_bus", "sata", "scsi", "usb", "virtio"])],
    ),
    "boot_index": P(
        P.INTEGER,
        'Integer used for ordering the boot disks. If it is not specified, value "0" will '
        'be set for bootable sources (volume, snapshot, image); value "-1" will be set for '
        "non-bootable sources.",
    ),
    "volume_size": P(
        P.INTEGER,
        "Size of the block device in GB. If it is omitted, hypervisor driver calculates "
        "size.",
    ),
    "delete_on_termination": P(
        P.BOOLEAN,
        'Indicate whether the volume should be deleted when the server is terminated. '
        'Defaults to "False" in case of a volume, snapshot or image and to "True" in case '
        "of swap or ephemeral.",
    ),
    "volume_type": P(
        P.STRING,
        "The type of volume to use when creating a volume from image, snapshot, or blank "
        "source. Maps to a specific Cinder backend. Requires Nova API microversion 2.67 or "
        "later.",
        constraints=[CustomConstraint("cinder.vtype")],
        support_status=since("26.0.0"),
    ),
})

# --- networks --------------------------------------------------------------------------

# OS::Neutron::Port's extra properties: what a port Heat creates for a network entry may set.
PORT_EXTRA_PROPERTIES = {
    "value_specs": P(
        P.MAP, "Extra parameters to include in the request.", default={}, update_allowed=True,
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
        P.LIST,
        "Additional MAC/IP address pairs allowed to pass through the port.",
        schema=P(P.MAP, schema={
            "mac_address": P(
                P.STRING, "MAC address to allow through this port.",
                constraints=[CustomConstraint("mac_addr")],
            ),
            "ip_address": P(
                P.STRING, "IP address to allow through this port.", required=True,
                constraints=[CustomConstraint("ip_or_cidr")],
            ),
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
        default="normal",
        constraints=[AllowedValues([
            "normal", "direct", "macvtap", "direct-physical", "baremetal",
            "virtio-forwarder", "smart-nic",
        ])],
        update_allowed=True,
    ),
    "port_security_enabled": P(
        P.BOOLEAN,
        "Flag to enable/disable port security on the port. When disable this feature(set "
        "it to False), there will be no packages filtering, like security-group and "
        "address-pairs.",
        update_allowed=True,
    ),
    "qos_policy": P(
        P.STRING,
        "The name or ID of QoS policy to attach to this port.",
        constraints=[CustomConstraint("neutron.qos_policy")],
        update_allowed=True,
    ),
    "propagate_uplink_status": P(
        P.BOOLEAN,
        "Flag to enable/disable propagate uplink status on the port.",
        update_allowed=True,
    ),
    "no_fixed_ips": P(
        P.BOOLEAN, "Flag to disable all fixed ips on the port.", default=False,
        update_allowed=True,
    ),
}

_UUID_STATUS = SupportStatus(
    status=HIDDEN, version="5.0.0",
    previous_status=SupportStatus(
        status=DEPRECATED, message="Use property network.", version="2014.1",
    ),
)

NETWORK_ITEM = P(P.MAP, schema={
    "uuid": P(
        P.STRING,
        "ID of network to create a port on.",
        support_status=_UUID_STATUS,
        constraints=[CustomConstraint("neutron.network")],
    ),
    "network": P(
        P.STRING,
        "Name or ID of network to create a port on.",
        constraints=[CustomConstraint("neutron.network")],
    ),
    "allocate_network": P(
        P.STRING,
        "The special string values of network, auto: means either a network that is "
        "already available to the project will be used, or if one does not exist, will be "
        "automatically created for the project; none: means no networking will be "
        'allocated for the created server. Supported by Nova API since version "2.37". '
        "This property can not be used with other network keys.",
        support_status=since("9.0.0"),
        constraints=[AllowedValues(["none", "auto"])],
        update_allowed=True,
    ),
    "fixed_ip": P(
        P.STRING,
        "Fixed IP address to specify for the port created on the requested network.",
        constraints=[CustomConstraint("ip_addr")],
    ),
    "port": P(
        P.STRING,
        "ID of an existing port to associate with this server.",
        constraints=[CustomConstraint("neutron.port")],
    ),
    "port_extra_properties": P(
        P.MAP,
        "Dict, which has expand properties for port. Used only if port property is not "
        "specified for creating port.",
        schema=PORT_EXTRA_PROPERTIES,
        support_status=since("6.0.0"),
        update_allowed=True,
    ),
    "subnet": P(
        P.STRING,
        "Subnet in which to allocate the IP address for port. Used for creating port, "
        "based on derived properties. If subnet is specified, network property becomes "
        "optional.",
        support_status=since("5.0.0"),
    ),
    "floating_ip": P(
        P.STRING, "ID of the floating IP to associate.", support_status=since("6.0.0"),
    ),
    "tag": P(
        P.STRING,
        "Port tag. Heat ignores any update on this property as nova does not support it.",
        support_status=since("9.0.0"),
    ),
})
