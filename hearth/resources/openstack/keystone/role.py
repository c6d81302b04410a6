"""OS::Keystone::Role: a Keystone role, global or specific to a domain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import since
from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class Role(KeystoneResource):
    """Heat Template Resource for Keystone Role.

    Roles dictate the level of authorization the end user can obtain. Roles can
    be granted at either the domain or project level. Role can be assigned to
    the individual user or at the group level. Role name is unique within the
    owning domain.
    """

    support_status = keystone_v3("2015.1")
    entity = "role"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone role.", update_allowed=True),
        # Not updatable: another domain means another role (replacement).
        "domain": P(
            P.STRING,
            "Name or id of keystone domain.",
            constraints=[CustomConstraint("keystone.domain")],
            support_status=since("16.0.0"),
        ),
    }

    def handle_create(self) -> None:
        body: dict[str, Any] = {"name": self.name_or_default(self.properties["name"])}
        if self.properties["domain"]:
            body["domain_id"] = self.find("domain", self.properties["domain"])
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if "name" in prop_diff:
            self.update_object({"name": self.name_or_default(prop_diff["name"])})


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Role": Role}
