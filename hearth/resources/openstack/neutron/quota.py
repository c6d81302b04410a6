"""OS::Neutron::Quota: a project's Neutron quotas (admin only).

As in Heat, the physical id is the resource's physical name (a quota has no id of its own),
create and every update PUT all the limits the template gives (an update does not reset a
limit the template stops giving), and the project may be given by name or id.

Delete resets the project's quotas to Neutron's defaults (DELETE /quotas/<project>), as
Heat's Nova and Cinder quotas do. Heat 27's Neutron quota passes its physical name there
instead of the project, which Neutron answers with "not found" and Heat ignores, so the
project keeps the stack's limits after the stack is gone; Hearth does not repeat that. (A
quota replaced by one for the same project, e.g. named by id instead of name, leaves the
project to its successor rather than resetting it.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint, Range

PROJECT = "project"
# Resource data: the project's id, as resolved when the limits were last set.
PROJECT_ID = "project_id"
# The limits, each "Quota for the number of <what>. Setting -1 means unlimited." in Heat.
LIMITS = {
    "subnet": ("subnets", None),
    "network": ("networks", None),
    "floatingip": ("floating IPs", None),
    "security_group_rule": ("security group rules", None),
    "security_group": ("security groups", None),
    "router": ("routers", None),
    "port": ("ports", None),
    "subnetpool": ("subnet pools", "12.0.0"),
    "rbac_policy": ("rbac policies", "12.0.0"),
}


def _limit(what: str, version: str | None) -> P:
    extra: dict[str, Any] = {"support_status": since(version)} if version else {}
    return P(
        P.INTEGER,
        f"Quota for the number of {what}. Setting -1 means unlimited.",
        constraints=[Range(min=-1)],
        update_allowed=True,
        **extra,
    )


class NeutronQuota(NeutronResource):
    """A resource for managing neutron quotas.

    Neutron Quota is used to manage operational limits for projects. Currently,
    this resource can manage Neutron's quotas for:

        - subnet
        - network
        - floatingip
        - security_group_rule
        - security_group
        - router
        - port
        - subnetpool
        - rbac_policy

    Note that default neutron security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Neutron Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    required_service_extension = "quotas"
    support_status = since("8.0.0")

    properties_schema = {
        PROJECT: P(
            P.STRING,
            "Name or id of the project to set the quota for.",
            required=True,
            constraints=[CustomConstraint("keystone.project")],
        ),
        **{name: _limit(what, version) for name, (what, version) in LIMITS.items()},
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        given = [name for name in LIMITS
                 if properties[name] is not None or name in properties.unresolved]
        if not given:
            raise StackValidationFailed(
                "At least one of the following properties must be specified: "
                f"{', '.join(sorted(LIMITS))}."
            )

    # --- the project's quota -------------------------------------------------------------

    def project_id(self) -> str:
        """The project's id: kept from the last create or update, else looked up."""
        return self.data().get(PROJECT_ID) or self._lookup(self.properties)

    def _lookup(self, properties: Mapping[str, Any]) -> str:
        from hearth.resources.openstack.finders import KEYSTONE_FINDERS

        return KEYSTONE_FINDERS["project"](self.cloud, str(properties[PROJECT]))

    def _path(self, project_id: str) -> str:
        return f"/quotas/{project_id}"

    def set_quota(self, properties: Mapping[str, Any]) -> None:
        project_id = self._lookup(properties)
        self.data_set(PROJECT_ID, project_id)
        limits = {name: properties[name] for name in LIMITS if properties[name] is not None}
        found = self.api("PUT", self._path(project_id), {"quota": limits})
        self._obj = (found or {}).get("quota")

    def fetch(self) -> dict[str, Any]:
        return dict(self.api("GET", self._path(self.project_id()))["quota"])

    def delete_object(self) -> None:
        project_id = self.project_id()
        if self._replaced_on(project_id):
            return
        self.api("DELETE", self._path(project_id))

    def _replaced_on(self, project_id: str) -> bool:
        """Whether this quota was replaced (during a stack update) by one that set the same
        project's limits: resetting the project now would undo them. That happens when only
        the spelling of the project changed (name for id), which Heat, resolving the name
        before comparing, does not even see as a change."""
        if self.context.action != "UPDATE":
            return False
        successor = self.context.peer(self.name)
        if successor is None or successor.resource_id in (None, self.resource_id):
            return False
        return successor.data().get(PROJECT_ID) == project_id

    # --- lifecycle -----------------------------------------------------------------------

    def handle_create(self) -> Any:
        # The id first: a delete then resets whatever part of the PUT took effect.
        self.resource_id_set(self.physical_resource_name())
        self.set_quota(self.properties)
        return None

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        # Every limit the new template gives, as Heat does (not only the changed ones).
        self.set_quota(new_properties)
        return None


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Quota": NeutronQuota}
