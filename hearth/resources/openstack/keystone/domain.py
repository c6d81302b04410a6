"""OS::Keystone::Domain: a Keystone domain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P


class Domain(KeystoneResource):
    """Heat Template Resource for Keystone Domain.

    This plug-in helps to create, update and delete a keystone domain. Also
    it can be used for enable or disable a given keystone domain.
    """

    support_status = keystone_v3("8.0.0")
    entity = "domain"

    properties_schema = {
        "name": P(P.STRING, "The name of the domain.", update_allowed=True),
        "description": P(P.STRING, "Description of keystone domain.", update_allowed=True),
        "enabled": P(
            P.BOOLEAN, "This domain is enabled or disabled.", default=True,
            update_allowed=True,
        ),
    }

    def handle_create(self) -> None:
        props = self.properties
        body: dict[str, Any] = {
            "name": self.name_or_default(props["name"]),
            "enabled": props["enabled"],
        }
        if props["description"] is not None:
            body["description"] = props["description"]
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        body = {k: v for k, v in prop_diff.items() if k in ("description", "enabled")}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        self.update_object(body)

    def delete_object(self) -> None:
        # Keystone deletes only a disabled domain (403 otherwise): disable it first.
        # (A 404 here means the domain is gone; the caller treats that as deleted.)
        self.update_object({"enabled": False})
        super().delete_object()

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        if found is None:
            return {}
        return {key: found.get(key) for key in ("name", "description", "enabled")}


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Domain": Domain}
