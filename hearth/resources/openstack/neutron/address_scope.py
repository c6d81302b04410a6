"""OS::Neutron::AddressScope: a Neutron address scope (subnet pools inside it may not
overlap).

Everything but the schema is NeutronResource's: POST, PUT of the changed name or shared flag,
DELETE that treats "not found" as done; ``tenant_id`` and ``ip_version`` replace the scope.
"""

from __future__ import annotations

from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint


class AddressScope(NeutronResource):
    """A resource for Neutron address scope.

    This resource can be associated with multiple subnet pools
    in a one-to-many relationship. The subnet pools under an
    address scope must not overlap.
    """

    required_service_extension = "address-scope"
    support_status = since("6.0.0")
    entity = "address_scope"
    collection = "address-scopes"

    properties_schema = {
        "name": P(
            P.STRING,
            "The name for the address scope.",
            update_allowed=True,
        ),
        "shared": P(
            P.BOOLEAN,
            "Whether the address scope should be shared to other tenants. Note that the "
            "default policy setting restricts usage of this attribute to administrative "
            "users only, and restricts changing of shared address scope to unshared with "
            "update.",
            default=False,
            update_allowed=True,
        ),
        "tenant_id": P(
            P.STRING,
            "The owner tenant ID of the address scope. Only administrative users can "
            "specify a tenant ID other than their own.",
            constraints=[CustomConstraint("keystone.project")],
        ),
        "ip_version": P(
            P.INTEGER,
            "Address family of the address scope, which is 4 or 6.",
            default=4,
            constraints=[AllowedValues([4, 6])],
        ),
    }


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::AddressScope": AddressScope}
