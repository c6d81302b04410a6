"""OS::Neutron::Trunk: one parent port carrying several networks (needs Neutron's ``trunk``
extension).

Ports may be named or given by id (they are sent as ``port_id``). An update makes at most
three calls, in Heat's order: the trunk's own fields, then the subports that went away, then
the new ones (a port cannot be two subports at once, so removals come first). Create and
update wait until the trunk is built (ACTIVE or DOWN).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.base import since
from hearth.resources.openstack.neutron.base import NeutronResource
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint, Range

SUBPORT_KEYS = ("port", "segmentation_type", "segmentation_id")

SUBPORT_SCHEMA = {
    "port": P(
        P.STRING,
        "ID or name of a port to be used as a subport.",
        required=True,
        constraints=[CustomConstraint("neutron.port")],
    ),
    "segmentation_type": P(
        P.STRING,
        "Segmentation type to be used on the subport.",
        required=True,
        constraints=[AllowedValues(["vlan"])],
    ),
    "segmentation_id": P(
        P.INTEGER,
        "The segmentation ID on which the subport network is presented to the instance.",
        required=True,
        constraints=[Range(1, 4094)],
    ),
}

Subport = tuple[Any, Any, Any]


class Trunk(NeutronResource):
    """A resource for managing Neutron trunks.

    Requires Neutron Trunk Extension to be enabled::

      $ openstack extension show trunk

    The network trunk service allows multiple networks to be connected to
    an instance using a single virtual NIC (vNIC). Multiple networks can
    be presented to an instance by connecting the instance to a single port.

    Users can create a port, associate it with a trunk (as the trunk's parent)
    and launch an instance on that port. Users can dynamically attach and
    detach additional networks without disrupting operation of the instance.

    Every trunk has a parent port and can have any number (0, 1, ...) of
    subports. The parent port is the port that the instance is directly
    associated with and its traffic is always untagged inside the instance.
    Users must specify the parent port of the trunk when launching an
    instance attached to a trunk.

    A network presented by a subport is the network of the associated port.
    When creating a subport, a ``segmentation_type`` and ``segmentation_id``
    may be required by the driver so the user can distinguish the networks
    inside the instance. As of release Pike only ``segmentation_type``
    ``vlan`` is supported. ``segmentation_id`` defines the segmentation ID
    on which the subport network is presented to the instance.

    Note that some Neutron backends (primarily Open vSwitch) only allow
    trunk creation before an instance is booted on the parent port. To avoid
    a possible race condition when booting an instance with a trunk it is
    strongly recommended to refer to the trunk's parent port indirectly in
    the template via ``get_attr``. For example::

      trunk:
        type: OS::Neutron::Trunk
        properties:
          port: ...
      instance:
        type: OS::Nova::Server
        properties:
          networks:
            - { port: { get_attr: [trunk, port_id] } }

    Though other Neutron backends may tolerate the direct port reference
    (and the possible reverse ordering of API requests implied) it's a good
    idea to avoid writing Neutron backend specific templates.
    """

    required_service_extension = "trunk"
    support_status = since("9.0.0")
    entity = "trunk"

    properties_schema = {
        "name": P(
            P.STRING,
            "A string specifying a symbolic name for the trunk, which is not required to "
            "be uniqe.",
            update_allowed=True,
        ),
        "port": P(
            P.STRING,
            "ID or name of a port to be used as a parent port.",
            required=True,
            immutable=True,
            constraints=[CustomConstraint("neutron.port")],
        ),
        "sub_ports": P(
            P.LIST,
            "List with 0 or more map elements containing subport details.",
            schema=P(P.MAP, schema=SUBPORT_SCHEMA),
            update_allowed=True,
        ),
        "description": P(P.STRING, "Description for the trunk.", update_allowed=True),
        "admin_state_up": P(
            P.BOOLEAN,
            "Enable/disable subport addition, removal and trunk delete.",
            update_allowed=True,
        ),
    }

    attributes_schema = {
        "port_id": AttributeSchema(
            "ID or name of a port used as a parent port.", type=AttributeSchema.STRING
        ),
    }

    # --- bodies --------------------------------------------------------------------------

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        props["port_id"] = self.find("port", props.pop("port"))
        subports = props.pop("sub_ports", None)
        if subports:
            props["sub_ports"] = [self._subport_body(s) for s in _subports(subports)]
        return props

    def _subport_body(self, subport: Subport) -> dict[str, Any]:
        port, seg_type, seg_id = subport
        return {"port_id": self.find("port", port), "segmentation_type": seg_type,
                "segmentation_id": seg_id}

    # --- update --------------------------------------------------------------------------

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        # Subports are compared one by one (not replaced wholesale): only those that differ
        # are removed or added.
        old = set(_subports(self.properties["sub_ports"]))
        new = set(_subports(new_properties["sub_ports"]))
        fields = {k: v for k, v in prop_diff.items() if k != "sub_ports"}
        super().handle_update(new_properties, fields, tmpl_diff)
        gone = sorted(old - new, key=repr)
        added = sorted(new - old, key=repr)
        base = f"{self.path()}/{self.resource_id}"
        if gone:
            self.api("PUT", f"{base}/remove_subports",
                     {"sub_ports": [{"port_id": self.find("port", s[0])} for s in gone]})
        if added:
            self.api("PUT", f"{base}/add_subports",
                     {"sub_ports": [self._subport_body(s) for s in added]})
        if not (fields or gone or added):
            return None
        self._obj = None
        return self.resource_id

    def check_update_complete(self, cookie: Any) -> bool:
        return self.check_create_complete(cookie)


def _subports(value: Iterable[Mapping[str, Any]] | None) -> list[Subport]:
    """Subports as hashable triples (port, segmentation type, segmentation id)."""
    return [tuple(s.get(k) for k in SUBPORT_KEYS) for s in value or ()]  # type: ignore[misc]


def resource_mapping() -> dict[str, type[NeutronResource]]:
    return {"OS::Neutron::Trunk": Trunk}
