"""AWS::EC2::Volume (a Cinder volume; SnapshotId names a backup to restore) and
AWS::EC2::VolumeAttachment (attached through Nova), built on the OS::Cinder types: the same
waits, delete (with a backup for the Snapshot deletion policy) and detach.

Every property is immutable, so neither type updates in place; neither has a ``show``, and
the attachment has no CHECK (as in Heat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import ResourceInError
from hearth.resources.attributes import BASE_ATTRIBUTES
from hearth.resources.base import Resource
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.aws.common import tags_as_metadata, tags_schema
from hearth.resources.openstack.cinder import attach
from hearth.resources.openstack.cinder import volume as cinder_volume
from hearth.resources.openstack.cinder import volume_attachment as cinder_attachment
from hearth.resources.openstack.cinder.base import CinderResource, Step, unknown_status
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedPattern, CustomConstraint, Range

CREATING = ("creating", "restoring-backup")


class Volume(cinder_volume.Volume):
    # Heat's AWS volume is not its Cinder volume type: replaced after any failure.
    replace_failed_statuses = None
    properties_schema = {
        "AvailabilityZone": P(
            P.STRING, "The availability zone in which the volume will be created.",
            required=True, immutable=True,
        ),
        "Size": P(
            P.INTEGER, "The size of the volume in GB.", immutable=True,
            constraints=[Range(min=1)],
        ),
        "SnapshotId": P(
            P.STRING, "If specified, the backup used as the source to create the volume.",
            immutable=True, constraints=[CustomConstraint("cinder.backup")],
        ),
        "Tags": tags_schema(
            description="The list of tags to associate with the volume.", immutable=True
        ),
    }
    attributes_schema = dict(BASE_ATTRIBUTES)

    # Heat's CHECK of a volume, but no stack snapshot of an AWS one.
    handle_snapshot = None  # type: ignore[assignment]

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        return None

    def handle_create(self) -> str:
        props = self.properties
        name = self.physical_resource_name()
        names = {"name": name, "description": name}
        if props["SnapshotId"]:
            restored = self.api("POST", f"/backups/{props['SnapshotId']}/restore",
                                {"restore": {"volume_id": None}})
            self.resource_id_set(str(restored["restore"]["volume_id"]))
            self.api("PUT", f"/volumes/{self.resource_id}", {"volume": names})
            return str(self.resource_id)
        volume = {
            "size": props["Size"],
            "availability_zone": props["AvailabilityZone"] or None,
            "metadata": tags_as_metadata(props["Tags"] or None),
            **names,
        }
        created = self.api("POST", "/volumes", {"volume": volume})["volume"]
        self.resource_id_set(str(created["id"]))
        return str(self.resource_id)

    def check_create_complete(self, cookie: Any) -> bool:
        status = self.refresh()["status"]
        if status in CREATING:
            return self.poll_later()
        if status == "error":
            raise ResourceInError('Went to status error due to "Unknown"')
        if status != "available":
            raise unknown_status(status, "Volume create failed")
        return True

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        return None

    def _show_resource(self) -> Any:
        return None

    def get_live_state(self) -> dict[str, Any]:
        # Nothing Cinder shows maps onto the CFN properties.
        return {}

    def get_reference_id(self) -> str | None:
        return Resource.get_reference_id(self)


class VolumeAttachment(cinder_attachment.VolumeAttachment):
    properties_schema = {
        "InstanceId": P(
            P.STRING, "The ID of the instance to which the volume attaches.",
            immutable=True, required=True, constraints=[CustomConstraint("nova.server")],
        ),
        "VolumeId": P(
            P.STRING, "The ID of the volume to be attached.", immutable=True, required=True,
            constraints=[CustomConstraint("cinder.volume")],
        ),
        "Device": P(
            P.STRING,
            "The device where the volume is exposed on the instance. This assignment may "
            "not be honored and it is advised that the path /dev/disk/by-id/virtio-<VolumeId> "
            "be used instead.",
            immutable=True, required=True,
            constraints=[AllowedPattern("/dev/vd[b-z]")],
        ),
    }

    def _steps(self, props: Mapping[str, Any]) -> list[Step]:
        return attach.attach_steps(props["InstanceId"], props["VolumeId"],
                                   props["Device"] or None)

    def _detach_steps(self) -> list[Step]:
        return attach.detach_steps(self.properties["InstanceId"],
                                   self.properties["VolumeId"], str(self.resource_id))

    def fetch(self) -> Any:
        server = self.properties["InstanceId"]
        found = attach.nova(self, "GET",
                            f"/servers/{server}/os-volume_attachments/{self.resource_id}")
        return found["volumeAttachment"]

    def get_reference_id(self) -> str | None:
        return Resource.get_reference_id(self)


def resource_mapping() -> dict[str, type[CinderResource]]:
    return {"AWS::EC2::Volume": Volume, "AWS::EC2::VolumeAttachment": VolumeAttachment}
