"""OS::Keystone::Project: a Keystone project."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.clients.errors import is_not_found
from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.openstack.base import since
from hearth.resources.openstack.keystone.base import KeystoneResource, keystone_v3
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class Project(KeystoneResource):
    """Heat Template Resource for Keystone Project.

    Projects represent the base unit of ownership in OpenStack, in that all
    resources in OpenStack should be owned by a specific project. A project
    itself must be owned by a specific domain, and hence all project names are
    not globally unique, but unique to their domain. If the domain for a
    project is not specified, then it is added to the default domain.
    """

    support_status = keystone_v3("2015.1")
    entity = "project"

    properties_schema = {
        "name": P(P.STRING, "Name of keystone project.", update_allowed=True),
        "domain": P(
            P.STRING,
            "Name or id of keystone domain.",
            default="default",
            update_allowed=True,
            constraints=[CustomConstraint("keystone.domain")],
        ),
        "description": P(
            P.STRING, "Description of keystone project.", default="", update_allowed=True
        ),
        "enabled": P(
            P.BOOLEAN, "This project is enabled or disabled.", default=True,
            update_allowed=True,
        ),
        "parent": P(
            P.STRING,
            "The name or ID of parent of this keystone project in hierarchy.",
            support_status=since("6.0.0"),
            constraints=[CustomConstraint("keystone.project")],
        ),
        "tags": P(
            P.LIST,
            "A list of tags for labeling and sorting projects.",
            support_status=since("10.0.0"),
            default=[],
            update_allowed=True,
        ),
    }

    attributes_schema = {
        "name": A("Project name.", support_status=since("10.0.0"), type=A.STRING),
        "parent_id": A("Parent project id.", support_status=since("10.0.0"), type=A.STRING),
        "domain_id": A("Domain id for project.", support_status=since("10.0.0"),
                       type=A.STRING),
        "enabled": A("Flag of enable project.", support_status=since("10.0.0"),
                     type=A.BOOLEAN),
        "is_domain": A("Indicates whether the project also acts as a domain.",
                       support_status=since("10.0.0"), type=A.BOOLEAN),
    }

    def handle_create(self) -> None:
        props = self.properties
        body: dict[str, Any] = {
            "name": self.name_or_default(props["name"]),
            "domain_id": self.find("domain", props["domain"]),
            "description": props["description"],
            "enabled": props["enabled"],
            "tags": list(props["tags"] or []),
        }
        if props["parent"]:
            body["parent_id"] = self.find("project", props["parent"])
        self.create_object(body)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        body: dict[str, Any] = {}
        if "name" in prop_diff:
            body["name"] = self.name_or_default(prop_diff["name"])
        for key in ("description", "enabled"):
            if key in prop_diff:
                body[key] = prop_diff[key]
        if "tags" in prop_diff:
            body["tags"] = list(prop_diff["tags"] or [])
        if "domain" in prop_diff:
            # Keystone refuses to move a project; it says so if the domain really differs.
            body["domain_id"] = self.find("domain", prop_diff["domain"])
        self.update_object(body)

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        self._delete_default_security_group()
        return super().handle_delete()

    def _delete_default_security_group(self) -> None:
        """Neutron's ``default`` security group of the project, which Neutron made for it
        and which would otherwise outlive it (Heat deletes it too)."""
        from openstack import exceptions as sdk

        if not self.cloud.has_service("network"):
            return
        network = self.conn.network

        def listing() -> list[dict[str, Any]]:
            response = network.get("/security-groups", params={
                "project_id": self.resource_id, "name": "default", "fields": "id",
            })
            sdk.raise_from_response(response)
            return list(response.json().get("security_groups", []))

        for group in self.cloud.call(listing, service="network"):
            def remove(group_id: str = str(group["id"])) -> None:
                sdk.raise_from_response(network.delete(f"/security-groups/{group_id}"))

            try:
                self.cloud.call(remove, service="network")
            except Exception as exc:
                if not is_not_found(exc):
                    raise

    def get_live_state(self) -> dict[str, Any]:
        state = super().get_live_state()
        if self._obj is not None:
            state["domain"] = self._obj.get("domain_id")
        return state


def resource_mapping() -> dict[str, type[KeystoneResource]]:
    return {"OS::Keystone::Project": Project}
