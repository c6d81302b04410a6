"""OS::Keystone::Endpoint: a service's URL in Keystone's catalog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import since
from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint


class Endpoint(KeystoneResource):
    """Heat Template Resource for Keystone Service Endpoint.

    Keystone endpoint is just the URL that can be used for accessing a service
    within OpenStack. Endpoint can be accessed by admin, by services or public,
    i.e. everyone can use this endpoint.
    """

    support_status = keystone_v3("5.0.0")
    entity = "endpoint"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone endpoint.", update_allowed=True),
        "region": P(
            P.STRING,
            "Name or Id of keystone region.",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.region")],
        ),
        "service": P(
            P.STRING,
            "Name or Id of keystone service.",
            update_allowed=True,
            required=True,
            constraints=[CustomConstraint("keystone.service")],
        ),
        "interface": P(
            P.STRING,
            "Interface type of keystone service endpoint.",
            update_allowed=True,
            required=True,
            constraints=[AllowedValues(["public", "internal", "admin"])],
        ),
        "url": P(P.STRING, "URL of keystone service endpoint.", update_allowed=True,
                 required=True),
        "enabled": P(
            P.BOOLEAN, "This endpoint is enabled or disabled.", default=True,
            update_allowed=True, support_status=since("6.0.0"),
        ),
    }

    def handle_create(self) -> None:
        props = self.properties
        body: dict[str, Any] = {
            "name": self.name_or_default(props["name"]),
            "service_id": self.find("service", props["service"]),
            "interface": props["interface"],
            "url": props["url"],
            "enabled": props["enabled"],
        }
        if props["region"]:
            body["region_id"] = self.find("region", props["region"])
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        body = {k: v for k, v in prop_diff.items() if k in ("interface", "url", "enabled")}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        if "service" in prop_diff:
            body["service_id"] = self.find("service", prop_diff["service"])
        if "region" in prop_diff:
            body["region_id"] = self.find("region", prop_diff["region"])
        self.update_object(body)

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        state = {k: found.get(k) for k in ("name", "interface", "url", "enabled")}
        state["service"] = found.get("service_id")
        state["region"] = found.get("region_id")
        return state


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Endpoint": Endpoint}
