"""OS::Cinder::Volume: a Cinder volume (created empty, from an image, a snapshot, another
volume or a backup), updated in place (rename, metadata, retype, extend, read-only flag,
restore from a backup), checked, backed up on stack snapshot, deleted."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, ClassVar

from hearth.clients.errors import ResourceInError, is_not_found, status_of
from hearth.common.errors import NotSupported, StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack import finders
from hearth.resources.openstack.cinder import attach, volume_update
from hearth.resources.openstack.cinder.base import (
    CinderResource,
    Error,
    Step,
    as_id,
    unknown_status,
)
from hearth.resources.openstack.cinder.volume_schema import ATTRIBUTES, PROPERTIES
from hearth.resources.properties import Properties

CREATING = ("creating", "restoring-backup", "downloading")


def _given(props: Properties, key: str) -> bool:
    """Set in the template (a value from another resource counts before it is known)."""
    return key in props.unresolved or bool(props[key])


class Volume(CinderResource):
    """A resource that implements Cinder volumes.

    Cinder volume is a storage in the form of block devices. It can be used,
    for example, for providing storage to instance. Volume supports creation
    from snapshot, backup or image. Also volume can be created only by size.
    """

    collection = "/volumes"
    body_key = "volume"
    replace_failed_statuses: ClassVar[frozenset[str] | None] = frozenset({"ERROR", "DELETING"})
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The backup a delete with the Snapshot policy made.
        self._backup_id: str | None = None

    # --- validation ----------------------------------------------------------------------

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if _given(properties, "image") and _given(properties, "imageRef"):
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: image, imageRef."
            )
        if _given(properties, "backup_id"):
            return
        sources = [k for k in ("snapshot_id", "source_volid", "image", "imageRef")
                   if _given(properties, k)]
        sized_by_source = [k for k in sources if k in ("snapshot_id", "source_volid")]
        has_size = "size" in properties.unresolved or properties["size"] is not None
        if not has_size and (len(sized_by_source) != 1 or len(sources) != 1):
            raise StackValidationFailed(
                'If neither "backup_id" nor "size" is provided, one and only one of '
                '"source_volid", "snapshot_id" must be specified, but currently specified '
                f"options: {sources}."
            )
        if has_size and len(sources) > 1:
            raise StackValidationFailed(
                'If "size" is provided, only one of "image", "imageRef", "source_volid", '
                '"snapshot_id" can be specified, but currently specified options: '
                f"{sources}."
            )

    # --- create --------------------------------------------------------------------------

    def _name(self, name: str | None = None) -> str:
        return name or self.properties["name"] or self.physical_resource_name()

    def _backup(self, value: str) -> str:
        return as_id(value, partial(finders.volume_backup_id, self.cloud, value))

    def handle_create(self) -> str:
        props = self.properties
        names = {"name": self._name(), "description": props["description"]}
        if props["backup_id"]:
            restored = self.api("POST", f"/backups/{self._backup(props['backup_id'])}/restore",
                                {"restore": {"volume_id": None}})
            self.resource_id_set(str(restored["restore"]["volume_id"]))
            self.api("PUT", f"/volumes/{self.resource_id}", {"volume": names})
            return str(self.resource_id)
        volume: dict[str, Any] = {
            "size": props["size"],
            "availability_zone": props["availability_zone"] or None,
            **names,
        }
        image = props["image"] or props["imageRef"]
        if image:
            volume["imageRef"] = finders.image_id(self.cloud, image)
        for key in ("volume_type", "metadata"):
            if props[key] is not None:
                volume[key] = props[key]
        if props["snapshot_id"]:
            volume["snapshot_id"] = as_id(props["snapshot_id"], partial(
                finders.volume_snapshot_id, self.cloud, props["snapshot_id"]))
        if props["source_volid"]:
            volume["source_volid"] = as_id(props["source_volid"], partial(
                finders.volume_id, self.cloud, props["source_volid"]))
        body: dict[str, Any] = {"volume": volume}
        if props["scheduler_hints"]:
            body["OS-SCH-HNT:scheduler_hints"] = dict(props["scheduler_hints"])
        created = self.api("POST", "/volumes", body)["volume"]
        self.resource_id_set(str(created["id"]))
        return str(self.resource_id)

    def check_create_complete(self, cookie: Any) -> bool:
        vol = self.refresh()
        status = vol["status"]
        if status in CREATING:
            return self.poll_later()
        if status == "error":
            raise ResourceInError('Went to status error due to "Unknown"')
        if status != "available":
            raise unknown_status(status, "Volume create failed")
        # The type Cinder chose when none was given (for drift detection, as Heat keeps it).
        if vol.get("volume_type") is not None:
            self.data_set("volume_type", str(vol["volume_type"]))
        # Cinder changes the flag only once the volume is available.
        if self.properties["read_only"] is not None:
            volume_update.set_read_only(self, bool(self.properties["read_only"]))
        return True

    # --- update --------------------------------------------------------------------------

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> list[Step] | None:
        if not prop_diff:
            return None
        old = self.properties
        path = f"/volumes/{self.resource_id}"
        steps: list[Step] = []
        reattach = False
        if "name" in prop_diff or "description" in prop_diff:
            # A removed name or description keeps the old one, as in Heat.
            names = {"name": self._name(prop_diff.get("name")),
                     "description": prop_diff.get("description") or old["description"]}
            self.api("PUT", path, {"volume": names})
        if "metadata" in prop_diff:
            self.api("PUT", f"{path}/metadata", {"metadata": dict(prop_diff["metadata"] or {})})
        # Cinder cannot take a type away: a removed volume_type keeps the current one.
        if prop_diff.get("volume_type"):
            self.api("POST", f"{path}/action", {"os-retype": {
                "new_type": prop_diff["volume_type"], "migration_policy": "never"}})
            steps.append({"op": "retyped"})
        if prop_diff.get("backup_id"):
            backup = self._backup(prop_diff["backup_id"])
            steps += [{"op": "restore", "backup": backup}, {"op": "restored"}]
            reattach = True
        if "size" in prop_diff and prop_diff["size"] is not None:
            size = int(prop_diff["size"])
            current = int(self.obj["size"])
            if size < current:
                raise NotSupported("Shrinking volume")
            if size > current:
                steps += [{"op": "ready_to_extend"}, {"op": "extend", "size": size},
                          {"op": "extended"}]
        if "read_only" in prop_diff:
            steps.append({"op": "read_only", "flag": prop_diff["read_only"]})
            reattach = True
        if reattach:
            steps = self._around_detach(steps)
        return steps

    def _around_detach(self, steps: list[Step]) -> list[Step]:
        """``steps`` with a detach before and a reattach after when the volume is attached
        (Cinder changes the read-only flag or restores only on a detached volume)."""
        attachments = self.obj.get("attachments") or []
        if not attachments:
            return steps
        first = attachments[0]
        server, device, attachment = first["server_id"], first.get("device"), first["id"]
        volume = str(self.resource_id)
        return (attach.detach_steps(server, volume, attachment) + steps
                + attach.attach_steps(server, volume, device))

    def check_update_complete(self, cookie: list[Step] | None) -> bool:
        if not cookie:
            return True
        return self.run_steps(cookie, self._ops())

    def _ops(self) -> dict[str, Callable[[Step], bool]]:
        ops: dict[str, Callable[[Step], bool]] = {
            name: partial(op, self) for name, op in {**attach.OPS, **volume_update.OPS}.items()
        }
        ops.update({
            "backup": self._back_up, "backed_up": self._backed_up,
            "delete": self._delete, "deleted": self._deleted,
        })
        return ops

    # --- check, snapshot -----------------------------------------------------------------

    def handle_check(self) -> None:
        status = self.refresh()["status"]
        expected = ["available", "in-use"]
        if status not in expected:
            raise Error(f"'status': expected '{expected}', got '{status}'")

    def handle_snapshot(self) -> str:
        backup = self.api("POST", "/backups",
                          {"backup": {"volume_id": self.resource_id, "force": True}})["backup"]
        self.data_set("backup_id", str(backup["id"]))
        return str(backup["id"])

    def check_snapshot_complete(self, backup_id: str) -> bool:
        backup = self.api("GET", f"/backups/{backup_id}")["backup"]
        if backup["status"] == "creating":
            return self.poll_later()
        if backup["status"] == "available":
            return True
        raise Error(str(backup.get("fail_reason")))

    # --- delete --------------------------------------------------------------------------

    def handle_delete(self) -> list[Step] | None:
        if self.resource_id is None:
            return None
        return [{"op": "delete"}, {"op": "deleted"}]

    def check_delete_complete(self, cookie: Any) -> bool:
        if not cookie:
            return True
        return self.run_steps(cookie, self._ops())

    def handle_snapshot_delete(self, state: tuple[str, str]) -> list[Step] | None:
        """Deletion policy Snapshot: a backup first (not of a volume that failed to create
        or update), then the delete; ``check_delete_complete`` works through the steps."""
        if self.resource_id is None:
            return None
        steps: list[Step] = [{"op": "delete"}, {"op": "deleted"}]
        if tuple(state) not in (("CREATE", "FAILED"), ("UPDATE", "FAILED")):
            steps = [{"op": "backup"}, {"op": "backed_up"}, *steps]
        return steps

    def _back_up(self, step: Step) -> bool:
        try:
            backup = self.api("POST", "/backups", {"backup": {"volume_id": self.resource_id}})
        except Exception as exc:
            if not is_not_found(exc):
                raise
            self._backup_id = None  # the volume is gone: nothing to back up
        else:
            self._backup_id = str(backup["backup"]["id"])
        return True

    def _backed_up(self, step: Step) -> bool:
        if not self._backup_id:
            return True
        status = self.api("GET", f"/backups/{self._backup_id}")["backup"]["status"]
        if status == "creating":
            return False
        if status != "available":
            raise unknown_status(status, "Volume backup failed")
        return True

    def _delete(self, step: Step) -> bool:
        try:
            self.api("DELETE", f"/volumes/{self.resource_id}")
        except Exception as exc:
            if is_not_found(exc):
                return True
            if status_of(exc) != 400:
                raise
            # Cinder refuses: say why as Heat does, or wait for a delete already running.
            found = attach.volume_status(self, str(self.resource_id))
            if found is None or found["status"] == "deleting":
                return True
            if found["status"] == "in-use":
                raise Error("Volume in use") from None
            raise
        return True

    def _deleted(self, step: Step) -> bool:
        found = attach.volume_status(self, str(self.resource_id))
        if found is None:
            return True
        if found["status"].lower() == "error_deleting":
            raise ResourceInError(f'Went to status {found["status"]} due to "delete"')
        return False

    def get_live_state(self) -> dict[str, Any]:
        """What Heat compares for drift: Cinder's read-only flag lives in the metadata."""
        vol = self.fetch_or_none()
        if vol is None:
            return {}
        metadata = dict(vol.get("metadata") or {})
        state: dict[str, Any] = {key: vol.get(key) for key in ("size", "name", "description")}
        read_only = metadata.pop("readonly", None)
        if read_only is not None:
            state["read_only"] = str(read_only).lower() == "true"
        state["metadata"] = metadata
        if vol.get("volume_type") != self.data().get("volume_type"):
            state["volume_type"] = vol.get("volume_type")
        return state

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        vol = self.obj
        if name == "metadata":
            return json.dumps(vol.get("metadata"))
        if name == "metadata_values":
            return vol.get("metadata")
        if name == "display_name":
            return vol.get("name")
        if name == "display_description":
            return vol.get("description")
        if name == "attachments_list":
            return vol.get("attachments")
        # Heat answers the rest as Python's str() of the value ("None", "False", "1").
        return str(vol.get(name))


def resource_mapping() -> dict[str, type[CinderResource]]:
    return {"OS::Cinder::Volume": Volume}
