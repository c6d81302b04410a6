"""OS::Cinder::VolumeAttachment: a volume attached to a server through Nova; an update
detaches it and attaches again (another volume, server or device)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from hearth.resources.openstack.cinder import attach
from hearth.resources.openstack.cinder.base import Step, UncheckedCinderResource, as_id
from hearth.resources.openstack.finders import volume_id
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class VolumeAttachment(UncheckedCinderResource):
    """Resource for associating volume to instance.

    Resource for associating existing volume to instance. Also, the location
    where the volume is exposed on the instance can be specified.
    """

    properties_schema = {
        "instance_uuid": P(
            P.STRING, "The ID of the server to which the volume attaches.", required=True,
            update_allowed=True,
        ),
        "volume_id": P(
            P.STRING, "The ID of the volume to be attached.", required=True,
            update_allowed=True, constraints=[CustomConstraint("cinder.volume")],
        ),
        "mountpoint": P(
            P.STRING,
            "The location where the volume is exposed on the instance. This assignment may "
            "not be honored and it is advised that the path /dev/disk/by-id/virtio-<VolumeId> "
            "be used instead.",
            update_allowed=True,
        ),
    }

    def _ops(self) -> dict[str, Callable[[Step], bool]]:
        ops: dict[str, Callable[[Step], bool]] = {
            name: partial(op, self) for name, op in attach.OPS.items()
        }
        ops["attach"] = self._attach
        return ops

    def _attach(self, step: Step) -> bool:
        attach.attach(self, step)
        # Nova's attachment id is the physical id (stored now: a delete finds it).
        self.resource_id_set(step["attachment"])
        return True

    def _volume(self, props: Mapping[str, Any]) -> str:
        return as_id(props["volume_id"], partial(volume_id, self.cloud, props["volume_id"]))

    def _steps(self, props: Mapping[str, Any]) -> list[Step]:
        return attach.attach_steps(
            props["instance_uuid"], self._volume(props), props["mountpoint"] or None
        )

    def handle_create(self) -> list[Step]:
        steps = self._steps(self.properties)
        self._attach(steps.pop(0))
        return steps

    def check_create_complete(self, cookie: list[Step]) -> bool:
        return self.run_steps(cookie, self._ops())

    def _detach_steps(self) -> list[Step]:
        return attach.detach_steps(
            self.properties["instance_uuid"], self._volume(self.properties),
            str(self.resource_id),
        )

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> list[Step] | None:
        if not prop_diff:
            return None
        # Detach first, then attach what the new properties say: the physical id changes
        # only once the new attachment exists.
        return self._detach_steps() + self._steps(new_properties)

    def check_update_complete(self, cookie: list[Step] | None) -> bool:
        if not cookie:
            return True
        return self.run_steps(cookie, self._ops())

    def handle_delete(self) -> list[Step] | None:
        if not self.resource_id:
            return None
        return self._detach_steps()

    def check_delete_complete(self, cookie: list[Step] | None) -> bool:
        if not cookie:
            return True
        return self.run_steps(cookie, self._ops())

    def _show_resource(self) -> Any:
        return None  # Heat's attachment has no ``show`` of its own

    def fetch(self) -> Any:
        server = self.properties["instance_uuid"]
        found = attach.nova(self, "GET",
                            f"/servers/{server}/os-volume_attachments/{self.resource_id}")
        return found["volumeAttachment"]


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::VolumeAttachment": VolumeAttachment}
