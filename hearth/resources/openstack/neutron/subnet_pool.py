"""OS::Neutron::SubnetPool: a block of addresses that subnets are allocated from.

The address scope may be given by name (it is sent as ``address_scope_id``); an update may
only add prefixes (Neutron cannot shrink a pool, so Heat refuses before asking), and
``tenant_id`` or ``shared`` replace the pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import netaddr

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint, Length, Range


class SubnetPool(NeutronResource):
    """A resource that implements neutron subnet pool.

    This resource can be used to create a subnet pool with a large block
    of addresses and create subnets from it.
    """

    required_service_extension = "subnet_allocation"
    support_status = since("6.0.0")
    entity = "subnetpool"

    properties_schema = {
        "name": P(P.STRING, "Name of the subnet pool.", update_allowed=True),
        "prefixes": P(
            P.LIST,
            "List of subnet prefixes to assign.",
            schema=P(P.STRING, constraints=[CustomConstraint("net_cidr")]),
            constraints=[Length(min=1)],
            required=True,
            update_allowed=True,
        ),
        "address_scope": P(
            P.STRING,
            "An address scope ID to assign to the subnet pool.",
            constraints=[CustomConstraint("neutron.address_scope")],
            update_allowed=True,
        ),
        "default_quota": P(
            P.INTEGER,
            "A per-tenant quota on the prefix space that can be allocated from the subnet "
            "pool for tenant subnets.",
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
        "default_prefixlen": P(
            P.INTEGER,
            "The size of the prefix to allocate when the cidr or prefixlen attributes are "
            "not specified while creating a subnet.",
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
        "min_prefixlen": P(
            P.INTEGER,
            "Smallest prefix size that can be allocated from the subnet pool.",
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
        "max_prefixlen": P(
            P.INTEGER,
            "Maximum prefix size that can be allocated from the subnet pool.",
            constraints=[Range(min=0)],
            update_allowed=True,
        ),
        "is_default": P(
            P.BOOLEAN,
            "Whether this is default IPv4/IPv6 subnet pool. There can only be one default "
            "subnet pool for each IP family. Note that the default policy setting restricts "
            "administrative users to set this to True.",
            default=False,
            update_allowed=True,
        ),
        "tenant_id": P(
            P.STRING,
            "The ID of the tenant who owns the subnet pool. Only administrative users can "
            "specify a tenant ID other than their own.",
        ),
        "shared": P(
            P.BOOLEAN,
            "Whether the subnet pool will be shared across all tenants. Note that the "
            "default policy setting restricts usage of this attribute to administrative "
            "users only.",
            default=False,
        ),
        "tags": P(
            P.LIST,
            "The tags to be added to the subnetpool.",
            schema=P(P.STRING),
            update_allowed=True,
            support_status=since("9.0.0"),
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        low = properties["min_prefixlen"]
        default = properties["default_prefixlen"]
        high = properties["max_prefixlen"]
        # Heat's checks, in Heat's order; a zero counts as not given (as in Heat).
        if low and high and low > high:
            raise _bounds("max_prefixlen", high, "min_prefixlen", low)
        if default:
            if high and default > high:
                raise _bounds("max_prefixlen", high, "default_prefixlen", default)
            if low and low > default:
                raise _bounds("min_prefixlen", low, "default_prefixlen", default)

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        scope = props.pop("address_scope", None)
        if scope:
            props["address_scope_id"] = self.find("address_scope", scope)
        return props

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        # Refused before anything (tags included) is changed.
        if "prefixes" in prop_diff:
            old = list(self.properties["prefixes"] or [])
            new = list(prop_diff["prefixes"] or [])
            if not covers(new, old):
                raise StackValidationFailed(
                    f"Property prefixes updated value {sorted(new)} should be superset of "
                    f"existing value {sorted(old)}."
                )
        return super().handle_update(new_properties, prop_diff, tmpl_diff)

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        if "address_scope" in diff:
            scope = diff.pop("address_scope")
            # An empty value takes the pool out of its scope.
            diff["address_scope_id"] = self.find("address_scope", scope) if scope else scope
        return diff


def _bounds(key1: str, value1: int, key2: str, value2: int) -> StackValidationFailed:
    return StackValidationFailed(
        f"Illegal prefix bounds: {key1}={value1}, {key2}={value2}."
    )


def covers(new: Iterable[str], old: Iterable[str]) -> bool:
    """Whether the addresses of the ``new`` prefixes include every address of the ``old``."""
    return bool(netaddr.IPSet(list(old)).issubset(netaddr.IPSet(list(new))))


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::SubnetPool": SubnetPool}
