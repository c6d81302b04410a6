"""OS::Neutron::Router: a Neutron router, optionally with a gateway on an external network.

The gateway's network and subnets may be given by name (they are sent as ids). A router
whose gateway network is made by the same stack waits for that network's subnets (Heat's
``Router.add_dependencies``): Neutron gives the gateway an address on one of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.attributes import AttributeSchema as A
from hearth.resources.definition import ValidationScope
from hearth.resources.dependencies import ResourceShape
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron import implicit
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import CustomConstraint

GATEWAY = "external_gateway_info"
AGENT = "l3_agent_id"
AGENTS = "l3_agent_ids"


class Router(NeutronResource):
    """A resource that implements Neutron router.

    Router is a physical or virtual network device that passes network traffic
    between different networks.
    """

    required_service_extension = "router"
    entity = "router"

    properties_schema = {
        "name": P(P.STRING, "The name of the router.", update_allowed=True),
        GATEWAY: P(
            P.MAP, "External network gateway configuration for a router.",
            schema={
                "network": P(
                    P.STRING, "ID or name of the external network for the gateway.",
                    required=True, update_allowed=True,
                ),
                "enable_snat": P(
                    P.BOOLEAN,
                    "Enables Source NAT on the router gateway. NOTE: The default policy "
                    "setting in Neutron restricts usage of this property to administrative "
                    "users only.",
                    update_allowed=True,
                ),
                "external_fixed_ips": P(
                    P.LIST, "External fixed IP addresses for the gateway.",
                    schema=P(P.MAP, schema={
                        "ip_address": P(P.STRING, "External fixed IP address.",
                                        constraints=[CustomConstraint("ip_addr")]),
                        "subnet": P(P.STRING, "Subnet of external fixed IP address.",
                                    constraints=[CustomConstraint("neutron.subnet")]),
                    }),
                    update_allowed=True, support_status=since("6.0.0"),
                ),
            },
            update_allowed=True,
        ),
        "value_specs": P(
            P.MAP, "Extra parameters to include in the creation request.", default={},
            update_allowed=True,
        ),
        "admin_state_up": P(
            P.BOOLEAN, "The administrative state of the router.", default=True,
            update_allowed=True,
        ),
        AGENT: P(
            P.STRING,
            "ID of the L3 agent. NOTE: The default policy setting in Neutron restricts "
            "usage of this property to administrative users only.",
            update_allowed=True,
            support_status=SupportStatus(
                status=HIDDEN, version="6.0.0",
                previous_status=SupportStatus(
                    status=DEPRECATED, version="2015.1", message="Use property l3_agent_ids.",
                    previous_status=since("2014.1"),
                ),
            ),
        ),
        AGENTS: P(
            P.LIST,
            "ID list of the L3 agent. User can specify multi-agents for highly available "
            "router. NOTE: The default policy setting in Neutron restricts usage of this "
            "property to administrative users only.",
            schema=P(P.STRING), update_allowed=True, support_status=since("2015.1"),
        ),
        "distributed": P(
            P.BOOLEAN,
            "Indicates whether or not to create a distributed router. NOTE: The default "
            "policy setting in Neutron restricts usage of this property to administrative "
            "users only. This property can not be used in conjunction with the L3 agent ID.",
            support_status=since("2015.1"),
        ),
        "ha": P(
            P.BOOLEAN,
            "Indicates whether or not to create a highly available router. NOTE: The "
            "default policy setting in Neutron restricts usage of this property to "
            "administrative users only. And now neutron do not support distributed and ha "
            "at the same time.",
            support_status=since("2015.1"),
        ),
        "availability_zone_hints": P(
            P.LIST,
            "Availability zone candidates for the router. It requires the availability_zone "
            "extension to be available.",
            update_allowed=True, support_status=since("19.0.0"),
        ),
        "tags": P(
            P.LIST, "The tags to be added to the router.", schema=P(P.STRING),
            update_allowed=True, support_status=since("9.0.0"),
        ),
        "tenant_id": P(
            P.STRING,
            "The ID of the tenant which will own the router. Only administrative users can "
            "set the tenant identifier; this cannot be changed using authorization policies.",
            support_status=since("24.0.0"),
        ),
    }

    attributes_schema = {
        "status": A("The status of the router.", type=A.STRING),
        GATEWAY: A("Gateway network for the router.", type=A.MAP),
        "name": A("Friendly name of the router.", type=A.STRING),
        "admin_state_up": A("Administrative state of the router.", type=A.STRING),
        "tenant_id": A("Tenant owning the router.", type=A.STRING),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data = dict(data or {})
        pending = set(unresolved)
        # The old single agent is a list of one (Heat's ADD then DELETE translation).
        if data.get(AGENT) and not data.get(AGENTS):
            data[AGENTS] = [data.pop(AGENT)]
            if AGENT in pending:
                pending.discard(AGENT)
                pending.add(AGENTS)
        return Properties(cls.properties_schema, data, unresolved=pending)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        distributed, ha = properties["distributed"], properties["ha"]
        agent, agents = properties[AGENT], properties[AGENTS]
        if agent and agents:
            raise _conflict(AGENT, AGENTS)
        if distributed and (agent or agents):
            raise _conflict("distributed", f"{AGENT}/{AGENTS}")
        if ha and distributed:
            raise _conflict("distributed", "ha")
        if not ha and agents and len(agents) > 1:
            raise StackValidationFailed("Non HA routers can only have one L3 agent.")

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        found: list[str] = []
        for network in implicit.gateway_networks(shapes[name]):
            found += implicit.subnets_on(shapes, network)
        return found

    # --- create and update ---------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props.pop(AGENT, None)
        props.pop(AGENTS, None)
        return self._gateway_body(props)

    def after_create(self, props: Mapping[str, Any]) -> None:
        if props[AGENTS]:
            self._replace_agents(list(props[AGENTS]))

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        if AGENTS in diff or AGENT in diff:
            agents = diff.pop(AGENTS, None) or ([diff[AGENT]] if diff.get(AGENT) else [])
            diff.pop(AGENT, None)
            self._replace_agents(agents)
        return self._gateway_body(diff)

    def _gateway_body(self, body: dict[str, Any]) -> dict[str, Any]:
        gateway = body.get(GATEWAY)
        if not gateway:
            return body
        out: dict[str, Any] = {"network_id": self.find("network", gateway["network"])}
        if gateway.get("enable_snat") is not None:
            out["enable_snat"] = gateway["enable_snat"]
        if gateway.get("external_fixed_ips") is not None:
            out["external_fixed_ips"] = [self._fixed_ip(ip)
                                         for ip in gateway["external_fixed_ips"]]
        body[GATEWAY] = out
        return body

    def _fixed_ip(self, fixed_ip: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in fixed_ip.items() if v is not None}
        if "subnet" in out:
            out["subnet_id"] = self.find("subnet", out.pop("subnet"))
        return out

    def _replace_agents(self, wanted: list[str]) -> None:
        """Host the router on exactly these L3 agents (Heat removes every agent first)."""
        path = f"/routers/{self.resource_id}/l3-agents"
        for agent in (self.api("GET", path) or {}).get("agents", []):
            self.api("DELETE", f"/agents/{agent['id']}/l3-routers/{self.resource_id}")
        for agent_id in wanted:
            self.api("POST", f"/agents/{agent_id}/l3-routers", {"router_id": self.resource_id})

    def get_live_state(self) -> dict[str, Any]:
        state = super().get_live_state()
        gateway = (self._obj or {}).get(GATEWAY)
        if gateway is not None:
            state[GATEWAY] = {"network": gateway.get("network_id"),
                              "enable_snat": gateway.get("enable_snat")}
        return state


def _conflict(*names: str) -> StackValidationFailed:
    return StackValidationFailed(
        f"Cannot define the following properties at the same time: {', '.join(names)}.")


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Router": Router}
