"""OS::Cinder::VolumeType: a volume type with extra specs and, when private, the projects
that may use it (admin only by Cinder's default policy)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since
from hearth.resources.openstack.cinder.base import UncheckedCinderResource
from hearth.resources.openstack.finders import KEYSTONE_FINDERS
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class VolumeType(UncheckedCinderResource):
    """A resource for creating cinder volume types.

    Volume type resource allows to define, whether volume, which will be use
    this type, will public and which projects are allowed to work with it.
    Also, there can be some user-defined metadata.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only.
    """

    support_status = since("2015.1")
    required_service_extension = "os-types-manage"
    collection = "/types"
    body_key = "volume_type"

    properties_schema = {
        "name": P(P.STRING, "Name of the volume type.", required=True, update_allowed=True),
        "metadata": P(
            P.MAP, "The extra specs key and value pairs of the volume type.",
            update_allowed=True,
        ),
        "is_public": P(
            P.BOOLEAN, "Whether the volume type is accessible to the public.", default=True,
            support_status=since("5.0.0"), update_allowed=True,
        ),
        "description": P(
            P.STRING, "Description of the volume type.", update_allowed=True,
            support_status=since("5.0.0"),
        ),
        "projects": P(
            P.LIST,
            "Projects to add volume type access to. NOTE: This property is only supported "
            "since Cinder API V2.",
            support_status=since("5.0.0"), update_allowed=True,
            schema=P(P.STRING, constraints=[CustomConstraint("keystone.project")]),
            default=[],
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if properties["projects"] and properties["is_public"]:
            raise StackValidationFailed(
                'Can not specify property "projects" if the volume type is public.'
            )

    def _path(self, tail: str = "") -> str:
        return f"/types/{self.resource_id}{tail}"

    def _grant(self, projects: Iterable[str]) -> None:
        for project in projects:
            project_id = KEYSTONE_FINDERS["project"](self.cloud, project)
            self.api("POST", self._path("/action"), {"addProjectAccess": {"project": project_id}})

    def handle_create(self) -> None:
        props = self.properties
        created = self.api("POST", "/types", {"volume_type": {
            "name": props["name"],
            "os-volume-type-access:is_public": props["is_public"],
            "description": props["description"],
        }})["volume_type"]
        self.resource_id_set(str(created["id"]))
        if props["metadata"]:
            self.api("POST", self._path("/extra_specs"),
                     {"extra_specs": dict(props["metadata"])})
        self._grant(props["projects"] or [])

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        changes: dict[str, Any] = {}
        is_public = self.properties["is_public"]
        for key in ("description", "name"):
            if key in prop_diff:
                changes[key] = prop_diff[key]
        if "is_public" in prop_diff:
            is_public = prop_diff["is_public"]
            changes["is_public"] = is_public
        if changes:
            self.api("PUT", self._path(), {"volume_type": changes})
        if "metadata" in prop_diff:
            old = self.api("GET", self._path("/extra_specs"))["extra_specs"]
            for key in old:
                self.api("DELETE", self._path(f"/extra_specs/{key}"))
            if prop_diff["metadata"]:
                self.api("POST", self._path("/extra_specs"),
                         {"extra_specs": dict(prop_diff["metadata"])})
        if "projects" in prop_diff and not is_public:
            access = self.api("GET", self._path("/os-volume-type-access"))
            granted = {a["project_id"] for a in access["volume_type_access"]}
            wanted = set(prop_diff["projects"] or [])
            for project_id in granted - wanted:
                self.api("POST", self._path("/action"),
                         {"removeProjectAccess": {"project": project_id}})
            self._grant(wanted - granted)


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::VolumeType": VolumeType}
