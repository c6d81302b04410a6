"""OS::Cinder::Quota: a project's Cinder quotas (admin only by Cinder's default policy);
delete puts the project back on the defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since
from hearth.resources.openstack.cinder.base import UncheckedCinderResource
from hearth.resources.openstack.finders import KEYSTONE_FINDERS
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import SupportStatus
from hearth.template.constraints import CustomConstraint, Range

# In Heat's order of checks against the project's usage.
QUOTAS = ("gigabytes", "volumes", "backups", "backup_gigabytes", "snapshots")


def _limit(description: str, version: str | None = None) -> P:
    return P(
        P.INTEGER, f"{description} Setting the value to -1 removes the limit.",
        constraints=[Range(min=-1)], update_allowed=True,
        support_status=SupportStatus(version=version),
    )


class Quota(UncheckedCinderResource):
    """A resource for creating cinder quotas.

    Cinder Quota is used to manage operational limits for projects. Currently,
    this resource can manage Cinder's gigabytes, snapshots, and volumes
    quotas.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Cinder Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    support_status = since("7.0.0")
    required_service_extension = "os-quota-sets"

    properties_schema = {
        "project": P(
            P.STRING, "OpenStack Keystone Project.", required=True,
            constraints=[CustomConstraint("keystone.project")],
        ),
        "gigabytes": _limit("Quota for the amount of disk space (in Gigabytes)."),
        "volumes": _limit("Quota for the number of volumes."),
        "backups": _limit("Quota for the number of backups.", "16.0.0"),
        "backup_gigabytes": _limit(
            "Quota for the amount of backups disk space (in Gigabytes).", "16.0.0"
        ),
        "snapshots": _limit("Quota for the number of snapshots."),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        given = [k for k in QUOTAS if k in properties.unresolved or properties[k] is not None]
        if not given:
            raise StackValidationFailed(
                "At least one of the following properties must be specified: gigabytes, "
                "snapshots, volumes, backups, backup_gigabytes."
            )

    def _project_id(self, props: Mapping[str, Any]) -> str:
        return KEYSTONE_FINDERS["project"](self.cloud, props["project"])

    def _set(self, props: Mapping[str, Any]) -> None:
        project = self._project_id(props)
        limits = {k: props[k] for k in QUOTAS if props[k] is not None}
        self._check_usage(project, limits)
        self.api("PUT", f"/os-quota-sets/{project}", {"quota_set": limits})

    def _check_usage(self, project: str, limits: Mapping[str, int]) -> None:
        """A limit under what the project already uses is refused, as Heat does (one read
        of the usage instead of listing volumes, snapshots and backups)."""
        bounded = {k: v for k, v in limits.items() if v != -1}
        if not bounded:
            return
        usage = self.api("GET", f"/os-quota-sets/{project}", params={"usage": "True"})
        used = usage["quota_set"]
        for key in QUOTAS:
            if key not in bounded:
                continue
            in_use = int((used.get(key) or {}).get("in_use", 0))
            if bounded[key] < in_use:
                raise ValueError(
                    f"Invalid quota {key} value(s): {bounded[key]}. Can not be less than the "
                    f"current usage value(s): {in_use}."
                )

    def handle_create(self) -> None:
        self._set(self.properties)
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        self._set(new_properties)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        self.api("DELETE", f"/os-quota-sets/{self._project_id(self.properties)}")

    def fetch(self) -> Any:
        return self.api("GET", f"/os-quota-sets/{self._project_id(self.properties)}")[
            "quota_set"]


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::Quota": Quota}
