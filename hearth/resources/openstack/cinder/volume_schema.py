"""The properties and attributes of OS::Cinder::Volume, as Heat 27 serves them."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.openstack.base import since
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SUPPORTED, SupportStatus
from hearth.template.constraints import CustomConstraint, Range

PROPERTIES = {
    "availability_zone": P(
        P.STRING, "The availability zone in which the volume will be created."
    ),
    "size": P(
        P.INTEGER,
        "The size of the volume in GB. On update only increase in size is supported. This "
        "property is required unless property backup_id or source_volid or snapshot_id is "
        "specified.",
        update_allowed=True,
        constraints=[Range(min=1)],
    ),
    "snapshot_id": P(
        P.STRING, "If specified, the snapshot to create the volume from.",
        constraints=[CustomConstraint("cinder.snapshot")],
    ),
    "backup_id": P(
        P.STRING, "If specified, the backup to create the volume from.",
        update_allowed=True,
        constraints=[CustomConstraint("cinder.backup")],
    ),
    "name": P(P.STRING, "A name used to distinguish the volume.", update_allowed=True),
    "description": P(P.STRING, "A description of the volume.", update_allowed=True),
    "volume_type": P(
        P.STRING,
        "If specified, the type of volume to use, mapping to a specific backend.",
        constraints=[CustomConstraint("cinder.vtype")],
        update_allowed=True,
    ),
    "metadata": P(
        P.MAP, "Key/value pairs to associate with the volume.", update_allowed=True,
        default={},
    ),
    # Heat moves a value of imageRef to image (a translation rule).
    "imageRef": P(
        P.STRING, "The ID of the image to create the volume from.",
        support_status=SupportStatus(
            status=HIDDEN, message="Use property image.", version="5.0.0",
            previous_status=SupportStatus(status=DEPRECATED, version="2014.1"),
        ),
    ),
    "image": P(
        P.STRING, "If specified, the name or ID of the image to create the volume from.",
        constraints=[CustomConstraint("glance.image")],
    ),
    "source_volid": P(
        P.STRING, "If specified, the volume to use as source.",
        constraints=[CustomConstraint("cinder.volume")],
    ),
    "scheduler_hints": P(
        P.MAP,
        "Arbitrary key-value pairs specified by the client to help the Cinder scheduler "
        "creating a volume.",
        support_status=since("2015.1"),
    ),
    "read_only": P(
        P.BOOLEAN, "Enables or disables read-only access mode of volume.",
        support_status=since("5.0.0"), update_allowed=True,
    ),
    # Hidden since Heat 13 (multiattach comes from the volume type): accepted, not sent.
    "multiattach": P(
        P.BOOLEAN, "Whether allow the volume to be attached more than once.", default=False,
        support_status=SupportStatus(
            status=HIDDEN, version="13.0.0",
            previous_status=SupportStatus(status=SUPPORTED, version="6.0.0"),
        ),
    ),
}

ATTRIBUTES = {
    "availability_zone": A(
        "The availability zone in which the volume is located.", type=A.STRING
    ),
    "size": A("The size of the volume in GB.", type=A.STRING),
    "snapshot_id": A("The snapshot the volume was created from, if any.", type=A.STRING),
    "display_name": A("Name of the volume.", type=A.STRING),
    "display_description": A("Description of the volume.", type=A.STRING),
    "volume_type": A("The type of the volume mapping to a backend, if any.", type=A.STRING),
    "metadata": A("Key/value pairs associated with the volume.", type=A.STRING),
    "source_volid": A("The volume used as source, if any.", type=A.STRING),
    "status": A(
        "The current status of the volume.", type=A.STRING, cache_mode=A.CACHE_NONE
    ),
    "created_at": A("The timestamp indicating volume creation.", type=A.STRING),
    "bootable": A("Boolean indicating if the volume can be booted or not.", type=A.STRING),
    "metadata_values": A(
        "Key/value pairs associated with the volume in raw dict form.", type=A.MAP
    ),
    "encrypted": A("Boolean indicating if the volume is encrypted or not.", type=A.STRING),
    "attachments": A(
        "A string representation of the list of attachments of the volume.",
        type=A.STRING, cache_mode=A.CACHE_NONE,
        support_status=SupportStatus(
            status=DEPRECATED, message="Use property attachments_list.", version="9.0.0",
            previous_status=SupportStatus(status=SUPPORTED, version="2015.1"),
        ),
    ),
    "attachments_list": A(
        "The list of attachments of the volume.", type=A.LIST, cache_mode=A.CACHE_NONE,
        support_status=since("9.0.0"),
    ),
    "multiattach": A(
        "Boolean indicating whether allow the volume to be attached more than once.",
        type=A.BOOLEAN, support_status=since("6.0.0"),
    ),
}
