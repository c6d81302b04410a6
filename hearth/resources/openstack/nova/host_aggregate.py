"""OS::Nova::HostAggregate: a Nova host aggregate (admin only by Nova's default policy).

Everything updates in place: name and availability zone, hosts added and removed, metadata.
Delete takes the hosts out first (Nova refuses to delete an aggregate that has hosts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import CustomConstraint


class HostAggregate(CloudResource):
    """A resource for further partition an availability zone with hosts.

    While availability zones are visible to users, host aggregates are only
    visible to administrators. Host aggregates started out as a way to use
    Xen hypervisor resource pools, but has been generalized to provide a
    mechanism to allow administrators to assign key-value pairs to groups of
    machines. Each node can have multiple aggregates, each aggregate can have
    multiple key-value pairs, and the same key-value pair can be assigned to
    multiple aggregate. This information can be used in the scheduler to
    enable advanced scheduling, to set up xen hypervisor resources pools or to
    define logical groups for migration.
    """

    support_status = since("6.0.0")
    service_type = "compute"
    default_client_name = "nova"
    entity = "aggregates"

    properties_schema = {
        "name": P(P.STRING, "Name for the aggregate.", required=True, update_allowed=True),
        "availability_zone": P(
            P.STRING, "Name for the availability zone.", update_allowed=True
        ),
        "hosts": P(
            P.LIST,
            "List of hosts to join aggregate.",
            update_allowed=True,
            schema=P(P.STRING, constraints=[CustomConstraint("nova.host")]),
        ),
        "metadata": P(
            P.MAP,
            "Arbitrary key/value metadata to store information for aggregate.",
            update_allowed=True,
            default={},
        ),
    }

    def fetch(self) -> Any:
        return self.conn.compute.get_aggregate(str(self.resource_id))

    def delete_object(self) -> None:
        compute = self.conn.compute
        for host in self.obj.hosts or []:
            compute.remove_host_from_aggregate(str(self.resource_id), host)
        compute.delete_aggregate(str(self.resource_id), ignore_missing=False)

    def object_status(self, obj: Any) -> str | None:
        return None

    def handle_create(self) -> None:
        props = self.properties
        compute = self.conn.compute
        aggregate = self.call(compute.create_aggregate, name=props["name"],
                              availability_zone=props["availability_zone"])
        self.resource_id_set(str(aggregate.id))
        if props["metadata"]:
            self.call(compute.set_aggregate_metadata, aggregate,
                      {k: _text(v) for k, v in props["metadata"].items()})
        for host in props["hosts"] or []:
            self.call(compute.add_host_to_aggregate, aggregate, host)

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if not prop_diff:
            return
        compute = self.conn.compute
        aggregate_id = str(self.resource_id)
        current = self.obj
        if "hosts" in prop_diff:
            wanted, present = set(prop_diff["hosts"] or []), set(current.hosts or [])
            for host in sorted(wanted - present):
                self.call(compute.add_host_to_aggregate, aggregate_id, host)
            for host in sorted(present - wanted):
                self.call(compute.remove_host_from_aggregate, aggregate_id, host)
        if "metadata" in prop_diff:
            wanted_meta = {k: _text(v) for k, v in (prop_diff["metadata"] or {}).items()}
            # Keys the template dropped are unset (None), the others set.
            gone = {k: None for k in (current.metadata or {})
                    if k not in wanted_meta and k != "availability_zone"}
            if wanted_meta or gone:
                self.call(compute.set_aggregate_metadata, aggregate_id,
                          {**gone, **wanted_meta})
        fields = {k: prop_diff[k] for k in ("name", "availability_zone") if k in prop_diff}
        if fields:
            self.call(compute.update_aggregate, aggregate_id, **fields)
        # Attributes are read again after the update, not from the aggregate as it was.
        self._obj = None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Nova::HostAggregate": HostAggregate}
