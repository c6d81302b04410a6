"""OS::Glance::WebImage: a Glance image whose data Glance downloads itself (web-download).

Create makes the image record (with its extra properties, one call), adds members, asks
Glance to import from ``location``, then polls until the image is active (or deactivated
when ``active`` is false). A failed import leaves the image queued with the stores it could
not fill in ``os_glance_failed_import``: that fails the create with the import task's own
message. Tags, members, activation and metadata change in place; delete waits until the
image is gone. Images are read and written as Glance's own JSON (``show`` is what Glance
answers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import ResourceInError, is_not_found
from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedPattern, AllowedValues, Range

GLANCE_ID_PATTERN = (
    "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
)
JSON_PATCH = "application/openstack-images-v2.1-json-patch"

# Properties that are image fields in Glance (set in the body, changed by JSON patch).
FIELDS = ("name", "id", "min_disk", "min_ram", "protected", "disk_format", "container_format",
          "architecture", "kernel_id", "os_distro", "os_version", "owner", "visibility",
          "ramdisk_id")
# Of those, the ones Heat changes in place.
PATCHABLE = ("protected", "architecture", "kernel_id", "os_distro", "os_version", "owner",
             "visibility", "ramdisk_id")
# Of those, the ones that are Glance's own fields rather than extra properties.
BASE_FIELDS = frozenset({"protected", "owner", "visibility"})
AMI_FORMATS = ("ami", "ari", "aki")


class GlanceWebImage(CloudResource):
    """A resource managing images in Glance using web-download import.

    This provides image support for recent Glance installation.
    """

    support_status = since("12.0.0")
    service_type = "image"
    default_client_name = "glance"
    entity = "images"
    delete_is_async = True
    error_statuses = frozenset({"KILLED"})

    properties_schema = {
        "name": P(
            P.STRING,
            "Name for the image. The name of an image is not unique to a Image Service node.",
        ),
        "id": P(P.STRING, "The image ID. Glance will generate a UUID if not specified."),
        "min_disk": P(
            P.INTEGER,
            "Amount of disk space (in GB) required to boot image. Default value is 0 if not "
            "specified and means no limit on the disk size.",
            constraints=[Range(min=0)],
            default=0,
        ),
        "min_ram": P(
            P.INTEGER,
            "Amount of ram (in MB) required to boot image. Default value is 0 if not "
            "specified and means no limit on the ram size.",
            constraints=[Range(min=0)],
            default=0,
        ),
        "protected": P(
            P.BOOLEAN,
            "Whether the image can be deleted. If the value is True, the image is protected "
            "and cannot be deleted.",
            update_allowed=True,
            default=False,
        ),
        "disk_format": P(
            P.STRING,
            "Disk format of image.",
            required=True,
            constraints=[AllowedValues(["ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw",
                                        "qcow2", "vdi", "iso", "ploop"])],
        ),
        "container_format": P(
            P.STRING,
            "Container format of image.",
            required=True,
            constraints=[AllowedValues(["ami", "ari", "aki", "bare", "ovf", "ova",
                                        "docker"])],
        ),
        "location": P(
            P.STRING,
            "URL where the data for this image already resides. For example, if the image "
            'data is stored in swift, you could specify "swift://example.com/container/obj".',
            required=True,
        ),
        "tags": P(P.LIST, "List of image tags.", update_allowed=True),
        "architecture": P(P.STRING, "Operating system architecture.", update_allowed=True),
        "kernel_id": P(
            P.STRING,
            "ID of image stored in Glance that should be used as the kernel when booting an "
            "AMI-style image.",
            update_allowed=True,
            constraints=[AllowedPattern(GLANCE_ID_PATTERN)],
        ),
        "os_distro": P(
            P.STRING,
            "The common name of the operating system distribution in lowercase.",
            update_allowed=True,
        ),
        "os_version": P(
            P.STRING,
            "Operating system version as specified by the distributor.",
            update_allowed=True,
        ),
        "owner": P(P.STRING, "Owner of the image.", update_allowed=True),
        "extra_properties": P(
            P.MAP,
            "Arbitrary properties to associate with the image.",
            update_allowed=True,
            default={},
            support_status=since("17.0.0"),
        ),
        "visibility": P(
            P.STRING,
            "Scope of image accessibility.",
            update_allowed=True,
            default="private",
            constraints=[AllowedValues(["public", "private", "community", "shared"])],
        ),
        "ramdisk_id": P(
            P.STRING,
            "ID of image stored in Glance that should be used as the ramdisk when booting an "
            "AMI-style image.",
            update_allowed=True,
            constraints=[AllowedPattern(GLANCE_ID_PATTERN)],
        ),
        "active": P(
            P.BOOLEAN,
            "Activate or deactivate the image. Requires Admin Access.",
            default=True,
            update_allowed=True,
            support_status=since("16.0.0"),
        ),
        "members": P(
            P.LIST,
            "List of additional members that are permitted to read the image. This may be a "
            "Keystone Project IDs or User IDs, depending on the Glance configuration in use.",
            schema=P(
                P.STRING,
                "A member ID. This may be a Keystone Project ID or User ID, depending on the "
                "Glance configuration in use.",
            ),
            update_allowed=True,
            support_status=since("16.0.0"),
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        container = properties["container_format"]
        if container in AMI_FORMATS and properties["disk_format"] != container:
            raise StackValidationFailed(
                "Invalid mix of disk and container formats. When setting a disk or container "
                "format to one of 'aki', 'ari', or 'ami', the container and disk formats must "
                "match."
            )
        if properties["members"] and properties["visibility"] != "shared":
            raise StackValidationFailed(
                "members property should only be specified for visibility with value shared."
            )

    # --- Glance's REST -------------------------------------------------------------------

    def api(self, method: str, path: str, body: Any = None,
            content_type: str | None = None) -> Any:
        """One call to Glance v2; its JSON answer (None when empty). Errors as CloudErrors."""
        from openstack import exceptions as sdk

        def go() -> Any:
            kwargs: dict[str, Any] = {}
            if body is not None:
                kwargs["json"] = body
            if content_type:
                kwargs["headers"] = {"Content-Type": content_type}
            response = self.conn.image.request(path, method, **kwargs)
            sdk.raise_from_response(response)
            return response.json() if response.content else None

        return self.call(go)

    def _path(self, *parts: str) -> str:
        return "/".join(("/images", str(self.resource_id), *parts))

    def fetch(self) -> dict[str, Any]:
        return dict(self.api("GET", self._path()))

    def delete_object(self) -> None:
        self.api("DELETE", self._path())

    # --- create --------------------------------------------------------------------------

    def handle_create(self) -> dict[str, bool]:
        props = self.properties
        body: dict[str, Any] = {k: props[k] for k in FIELDS if props[k] is not None}
        if props["tags"]:
            body["tags"] = list(props["tags"])
        # Extra properties go with the record (Heat sets them by a second call).
        body.update({k: _text(v) for k, v in (props["extra_properties"] or {}).items()})
        image = self.api("POST", "/images", body)
        self.resource_id_set(str(image["id"]))
        for member in props["members"] or []:
            self.api("POST", self._path("members"), {"member": member})
        self.api("POST", self._path("import"),
                 {"method": {"name": "web-download", "uri": props["location"]}})
        return {"active": bool(props["active"])}

    def check_create_complete(self, cookie: Mapping[str, Any]) -> bool:
        image = self.refresh()
        status = image.get("status")
        if status == "killed":
            raise ResourceInError('Went to status killed due to "Unknown"')
        if status == "queued" and image.get("os_glance_failed_import"):
            raise ResourceInError(f"Image import from {self.properties['location']} failed: "
                                  f"{self._import_failure()}")
        if status == "active":
            if not cookie.get("active", True):
                self.api("POST", self._path("actions", "deactivate"))
            return True
        if status == "deactivated":
            return True
        return self.poll_later()

    def _import_failure(self) -> str:
        """What the last import task of the image said (Glance keeps it for a while)."""
        try:
            tasks = (self.api("GET", self._path("tasks")) or {}).get("tasks") or []
        except Exception:  # the reason is a courtesy: the failure stands without it
            return "unknown reason"
        messages = [t.get("message") for t in tasks if t.get("message")]
        return str(messages[-1]) if messages else "unknown reason"

    # --- update --------------------------------------------------------------------------

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        diff = dict(prop_diff)
        active = diff.pop("active", None)
        if active is False:
            self.api("POST", self._path("actions", "deactivate"))
        if "tags" in diff:
            self._update_set("tags", self.properties["tags"], diff.pop("tags"))
        members_changed = "members" in diff
        members = diff.pop("members", None)
        patch = self._patch(diff)
        if patch:
            self.api("PATCH", self._path(), patch, content_type=JSON_PATCH)
        # After the patch: Glance takes members only once the image is shared.
        if members_changed:
            self._update_set("members", self.properties["members"], members)
        if active is True:
            self.api("POST", self._path("actions", "reactivate"))
        # Attributes are read again after the update, not from the image as it was.
        self._obj = None

    def _update_set(self, kind: str, old: list[str] | None, new: list[str] | None) -> None:
        before, after = set(old or []), set(new or [])
        for item in sorted(after - before):
            if kind == "tags":
                self.api("PUT", self._path("tags", item))
            else:
                self.api("POST", self._path("members"), {"member": item})
        for item in sorted(before - after):
            try:
                self.api("DELETE", self._path(kind, item))
            except Exception as exc:
                if not is_not_found(exc):
                    raise

    def _patch(self, diff: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The JSON patch that brings the image to ``diff`` (fields and extra properties)."""
        wanted: dict[str, Any] = {k: diff[k] for k in PATCHABLE if k in diff}
        removed: set[str] = set()
        if "extra_properties" in diff:
            old_extra = self.properties["extra_properties"] or {}
            new_extra = diff["extra_properties"] or {}
            wanted.update({k: _text(v) for k, v in new_extra.items()})
            removed = set(old_extra) - set(new_extra)
        if not wanted and not removed:
            return []
        current = self.obj
        ops: list[dict[str, Any]] = []
        for key, value in wanted.items():
            if value is None:
                # Extra properties can go; Glance's own fields (owner...) cannot.
                if key not in BASE_FIELDS:
                    removed.add(key)
            elif current.get(key) != value:
                op = "replace" if current.get(key) is not None else "add"
                ops.append({"op": op, "path": f"/{key}", "value": value})
        ops.extend({"op": "remove", "path": f"/{key}"}
                   for key in sorted(removed) if current.get(key) is not None)
        return ops


def _text(value: Any) -> str:
    """Glance keeps extra properties as strings."""
    return value if isinstance(value, str) else str(value)


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Glance::WebImage": GlanceWebImage}
