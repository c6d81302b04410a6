"""OS::Nova::Flavor: a Nova flavor (admin only by Nova's default policy).

Only ``extra_specs`` and ``tenants`` change in place, as in Heat; any other change replaces
the flavor. A private flavor is shared with ``tenants``, or with the stack's own project
when none is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.openstack.finders import KEYSTONE_FINDERS
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class NovaFlavor(CloudResource):
    """A resource for creating OpenStack virtual hardware templates.

    Due to default nova security policy usage of this resource is limited to
    being used by administrators only. The rights may also be delegated to
    other users by redefining the access controls on the nova-api server.

    Note that the current implementation of the Nova Flavor resource does not
    allow specifying the name and flavorid properties for the resource.
    This is done to avoid potential naming collision upon flavor creation as
    all flavor have a global scope.
    """

    support_status = since("2014.2")
    service_type = "compute"
    default_client_name = "nova"
    entity = "flavors"

    properties_schema = {
        "tenants": P(
            P.LIST,
            "List of tenants.",
            update_allowed=True,
            default=[],
            schema=P(P.STRING, constraints=[CustomConstraint("keystone.project")]),
            support_status=since("8.0.0"),
        ),
        "flavorid": P(
            P.STRING,
            "Unique ID of the flavor. If not specified, an UUID will be auto generated and "
            "used.",
            support_status=since("7.0.0"),
        ),
        "name": P(P.STRING, "Name of the flavor.", support_status=since("7.0.0")),
        "ram": P(P.INTEGER, "Memory in MB for the flavor.", required=True),
        "vcpus": P(P.INTEGER, "Number of VCPUs for the flavor.", required=True),
        "disk": P(
            P.INTEGER,
            'Size of local disk in GB. The "0" size is a special case that uses the native '
            "base image size as the size of the ephemeral root volume.",
            default=0,
        ),
        "swap": P(P.INTEGER, "Swap space in MB.", default=0),
        "ephemeral": P(P.INTEGER, "Size of a secondary ephemeral data disk in GB.", default=0),
        "rxtx_factor": P(P.NUMBER, "RX/TX factor.", default=1.0),
        "extra_specs": P(
            P.MAP,
            "Key/Value pairs to extend the capabilities of the flavor.",
            update_allowed=True,
        ),
        "is_public": P(
            P.BOOLEAN,
            "Scope of flavor accessibility. Public or private. Default value is True, means "
            "public, shared across all projects.",
            default=True,
            support_status=since("6.0.0"),
        ),
    }

    attributes_schema = {
        "is_public": AttributeSchema(
            "Whether the flavor is shared across all projects.",
            support_status=since("6.0.0"),
            type=AttributeSchema.BOOLEAN,
        ),
        "extra_specs": AttributeSchema(
            "Extra specs of the flavor in key-value pairs.",
            support_status=since("7.0.0"),
            type=AttributeSchema.MAP,
        ),
    }

    # --- the service ---------------------------------------------------------------------

    def fetch(self) -> Any:
        # Microversion 2.61 (openstacksdk's): the flavor carries its extra specs.
        return self.conn.compute.get_flavor(str(self.resource_id))

    def delete_object(self) -> None:
        self.conn.compute.delete_flavor(str(self.resource_id), ignore_missing=False)

    def object_status(self, obj: Any) -> str | None:
        return None

    def _project_ids(self, values: list[str] | None) -> set[str]:
        find = KEYSTONE_FINDERS["project"]
        return {find(self.cloud, value) for value in values or []}

    # --- lifecycle -----------------------------------------------------------------------

    def handle_create(self) -> None:
        props = self.properties
        attrs: dict[str, Any] = {
            "name": props["name"] or self.physical_resource_name(),
            "ram": props["ram"],
            "vcpus": props["vcpus"],
            "disk": props["disk"],
            "swap": props["swap"],
            "ephemeral": props["ephemeral"],
            "rxtx_factor": props["rxtx_factor"],
            "is_public": props["is_public"],
        }
        if props["flavorid"]:
            attrs["id"] = props["flavorid"]
        compute = self.conn.compute
        flavor = self.call(compute.create_flavor, **attrs)
        self.resource_id_set(str(flavor.id))
        if props["extra_specs"]:
            self.call(compute.create_flavor_extra_specs, flavor, dict(props["extra_specs"]))
        if not props["is_public"]:
            # Without tenants the flavor is shared with the stack's own project (Heat's way).
            tenants = self._project_ids(props["tenants"]) or {self.cloud.project_id}
            for tenant in sorted(tenants):
                self.call(compute.flavor_add_tenant_access, flavor, tenant)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        compute = self.conn.compute
        if "extra_specs" in prop_diff:
            wanted = {k: str(v) for k, v in (prop_diff["extra_specs"] or {}).items()}
            current = dict(self.obj.extra_specs or {})
            for key in sorted(set(current) - set(wanted)):
                self.call(compute.delete_flavor_extra_specs_property, self.resource_id, key)
            if wanted and wanted != current:
                self.call(compute.create_flavor_extra_specs, self.resource_id, wanted)
        if "tenants" in prop_diff and not self.properties["is_public"]:
            access = self.call(compute.get_flavor_access, self.resource_id)
            current_tenants = {str(a["tenant_id"]) for a in access}
            wanted_tenants = self._project_ids(prop_diff["tenants"])
            for tenant in sorted(current_tenants - wanted_tenants):
                self.call(compute.flavor_remove_tenant_access, self.resource_id, tenant)
            for tenant in sorted(wanted_tenants - current_tenants):
                self.call(compute.flavor_add_tenant_access, self.resource_id, tenant)
        # Attributes are read again after the update, not from the flavor as it was.
        self._obj = None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "is_public":
            return bool(self.obj.is_public)
        if name == "extra_specs":
            return dict(self.obj.extra_specs or {})
        return None

    def get_live_state(self) -> dict[str, Any]:
        found = self.fetch_or_none()
        return {} if found is None else {"extra_specs": dict(found.extra_specs or {})}


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Nova::Flavor": NovaFlavor}
