"""OS::Keystone::Region: a Keystone region."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib import parse

from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class Region(KeystoneResource):
    """Heat Template Resource for Keystone Region.

    This plug-in helps to create, update and delete a keystone region. Also
    it can be used for enable or disable a given keystone region.
    """

    support_status = keystone_v3("6.0.0")
    entity = "region"

    properties_schema = {
        # Not updatable: another id means another region (replacement).
        "id": P(
            P.STRING,
            "The user-defined region ID and should unique to the OpenStack deployment. "
            "While creating the region, heat will url encode this ID.",
        ),
        "parent_region": P(
            P.STRING,
            "If the region is hierarchically a child of another region, set this "
            "parameter to the ID of the parent region.",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.region")],
        ),
        "description": P(P.STRING, "Description of keystone region.", update_allowed=True),
        "enabled": P(
            P.BOOLEAN, "This region is enabled or disabled.", default=True,
            update_allowed=True,
        ),
    }

    def handle_create(self) -> None:
        props = self.properties
        body: dict[str, Any] = {"enabled": props["enabled"]}
        if props["id"]:
            # As Heat: the id is URL-encoded (Keystone keeps it so, and so does the stack).
            body["id"] = parse.quote(props["id"])
        if props["description"] is not None:
            body["description"] = props["description"]
        if props["parent_region"]:
            body["parent_region_id"] = self.find("region", props["parent_region"])
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        body = {k: v for k, v in prop_diff.items() if k in ("description", "enabled")}
        if "parent_region" in prop_diff:
            body["parent_region_id"] = self.find("region", prop_diff["parent_region"])
        self.update_object(body)

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        return {
            "description": found.get("description"),
            "enabled": found.get("enabled"),
            "parent_region": found.get("parent_region_id"),
        }


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Region": Region}
