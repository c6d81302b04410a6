"""OS::Neutron::RouterInterface: a router plugged into a subnet or onto a port.

Router, subnet and port may be given by name. The physical id is Heat's
``<router id>:subnet_id=<subnet id>`` (or ``:port_id=<port id>``); ids of the older form
``<router id>:<subnet id>`` are still understood. Any change replaces the interface.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from hearth.clients.errors import NotFound
from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.openstack.neutron.renamed import renamed
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import CustomConstraint


def _hidden(version: str, replacement: str) -> SupportStatus:
    """An old property Heat still reads (as ``replacement``) but no longer serves."""
    return SupportStatus(status=HIDDEN, version=version, message=f"Use property {replacement}.",
                         previous_status=SupportStatus(status=DEPRECATED))


class RouterInterface(NeutronResource):
    """A resource for managing Neutron router interfaces.

    Router interfaces associate routers with existing subnets or ports.
    """

    required_service_extension = "router"

    properties_schema = {
        "router": P(P.STRING, "The router.", required=True,
                    constraints=[CustomConstraint("neutron.router")]),
        "router_id": P(
            P.STRING, "ID of the router.", constraints=[CustomConstraint("neutron.router")],
            support_status=_hidden("6.0.0", "router"),
        ),
        "subnet_id": P(
            P.STRING, constraints=[CustomConstraint("neutron.subnet")],
            support_status=_hidden("5.0.0", "subnet"),
        ),
        "subnet": P(P.STRING, "The subnet, either subnet or port should be specified.",
                    constraints=[CustomConstraint("neutron.subnet")]),
        "port_id": P(
            P.STRING, "The port id, either subnet or port_id should be specified.",
            constraints=[CustomConstraint("neutron.port")],
            support_status=_hidden("6.0.0", "port"),
        ),
        "port": P(P.STRING, "The port, either subnet or port should be specified.",
                  constraints=[CustomConstraint("neutron.port")],
                  support_status=SupportStatus(version="2015.1")),
    }

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        data, unresolved = renamed(
            data, unresolved, {"router_id": "router", "subnet_id": "subnet", "port_id": "port"}
        )
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        super().validate(properties, scope)
        has_subnet = properties["subnet"] is not None
        has_port = properties["port"] is not None
        if has_subnet and has_port:
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: subnet, port.")
        if not has_subnet and not has_port:
            raise StackValidationFailed(
                "At least one of the following properties must be specified: subnet, port.")

    # --- the interface -------------------------------------------------------------------

    def _parts(self) -> tuple[str, str, str]:
        """(router id, "subnet_id" or "port_id", its value) from the physical id."""
        assert self.resource_id is not None
        tokens = self.resource_id.replace("=", ":").split(":")
        if len(tokens) == 2:  # the oldest form: router:subnet
            tokens.insert(1, "subnet_id")
        router, key, value = tokens
        return router, key, value

    def handle_create(self) -> None:
        router = self.find("router", self.properties["router"])
        if self.properties["subnet"]:
            key, value = "subnet_id", self.find("subnet", self.properties["subnet"])
        else:
            key, value = "port_id", self.find("port", self.properties["port"])
        self.api("PUT", f"/routers/{router}/add_router_interface", {key: value})
        self.resource_id_set(f"{router}:{key}={value}")

    def delete_object(self) -> None:
        router, key, value = self._parts()
        self.api("PUT", f"/routers/{router}/remove_router_interface", {key: value})

    def fetch(self) -> dict[str, Any]:
        """The router's port of this interface (NotFound when the router lost it)."""
        router, key, value = self._parts()
        if key == "port_id":
            port = dict(self.api("GET", f"/ports/{value}")["port"])
            if port.get("device_id") == router:
                return port
        else:
            found = self.api("GET", "/ports", params={
                "device_id": router, "fixed_ips": f"subnet_id={value}"})
            ports = (found or {}).get("ports", [])
            if ports:
                return dict(ports[0])
        raise NotFound(f"Router {router} has no interface with {key} {value}", 404, "network")

    def _show_resource(self) -> Any:
        # Heat's interface has no Neutron object of its own: ``show`` is empty.
        return None

    def get_live_state(self) -> dict[str, Any]:
        return {}


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::RouterInterface": RouterInterface}
