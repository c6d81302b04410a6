"""OS::Keystone::Service: a service in Keystone's catalog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import since
from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P


class Service(KeystoneResource):
    """Heat Template Resource for Keystone Service.

    A resource that allows to create new service and manage it by Keystone.
    """

    support_status = keystone_v3("5.0.0")
    entity = "service"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone service.", update_allowed=True),
        "description": P(P.STRING, "Description of keystone service.", update_allowed=True),
        "type": P(P.STRING, "Type of keystone Service.", update_allowed=True, required=True),
        "enabled": P(
            P.BOOLEAN, "This service is enabled or disabled.", default=True,
            update_allowed=True, support_status=since("6.0.0"),
        ),
    }

    def handle_create(self) -> None:
        props = self.properties
        body: dict[str, Any] = {
            "name": self.name_or_default(props["name"]),
            "type": props["type"],
            "enabled": props["enabled"],
        }
        if props["description"] is not None:
            body["description"] = props["description"]
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        body = {k: v for k, v in prop_diff.items() if k in ("description", "type", "enabled")}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        self.update_object(body)


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Service": Service}
