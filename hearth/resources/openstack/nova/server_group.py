"""OS::Nova::ServerGroup: a Nova server group (affinity policy for servers).

Heat 27 talks to Nova at a microversion of 2.64 or later, where a group has one ``policy``
(the first of ``policies``) and optional ``rules``; openstacksdk uses 2.64 for server groups,
so the request is the one Heat sends. Nothing updates in place: any change replaces the group.
"""

from __future__ import annotations

from typing import Any

from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues


class ServerGroup(CloudResource):
    """A resource for managing a Nova server group.

    Server groups allow you to make sure instances (VM/VPS) are on the same
    hypervisor host or on a different one.
    """

    support_status = since("2014.2")
    service_type = "compute"
    default_client_name = "nova"
    entity = "server_groups"
    # Kept after a failure while it exists (it has no status).
    replace_failed_statuses = frozenset()

    properties_schema = {
        "name": P(P.STRING, "Server Group name."),
        "policies": P(
            P.LIST,
            "A list of exactly one policy to apply. Defaults to anti-affinity.",
            default=["anti-affinity"],
            constraints=[
                AllowedValues(["anti-affinity", "affinity", "soft-anti-affinity",
                               "soft-affinity"])
            ],
            schema=P(P.STRING),
        ),
        "rules": P(
            P.MAP,
            "Rules for a policy.",
            schema={
                "max_server_per_host": P(
                    P.NUMBER,
                    "Maximum servers in a group on a given host. Rule for anti-affinity "
                    "policy.",
                )
            },
            support_status=since("17.0.0"),
        ),
    }

    def fetch(self) -> Any:
        return self.conn.compute.get_server_group(str(self.resource_id))

    def delete_object(self) -> None:
        self.conn.compute.delete_server_group(str(self.resource_id), ignore_missing=False)

    def object_status(self, obj: Any) -> str | None:
        return None

    def physical_resource_name(self) -> str:
        return str(self.properties["name"] or super().physical_resource_name())

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {
            "name": self.physical_resource_name(),
            "policy": self.properties["policies"][0],
        }
        rules = {k: _whole(v) for k, v in (self.properties["rules"] or {}).items()
                 if v is not None}
        if rules:
            attrs["rules"] = rules
        group = self.call(self.conn.compute.create_server_group, **attrs)
        self._obj = group
        self.resource_id_set(str(group.id))


def _whole(value: Any) -> Any:
    """Nova wants integers in rules; a NUMBER property may hold 2.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Nova::ServerGroup": ServerGroup}
