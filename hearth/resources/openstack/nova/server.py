"""OS::Nova::Server: a Nova instance, with the ports, floating IPs and user data Heat gives it.

The nics, internal ports and address attributes live in ``server_networks``,
``server_interfaces`` and ``server_addresses``; block devices in ``server_devices``; user data
in ``server_user_data``; the background steps of updates in ``server_updates``; the waits for
Nova's states (create, delete, suspend, resume, snapshot) in ``server_lifecycle``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.builtin.software import server_transport
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack import finders
from hearth.resources.openstack.nova import (
    rest,
    server_addresses,
    server_devices,
    server_interfaces,
    server_networks,
    server_updates,
)
from hearth.resources.openstack.nova.server_consoles import ConsoleUrls
from hearth.resources.openstack.nova.server_lifecycle import ServerLifecycle
from hearth.resources.openstack.nova.server_schema import ATTRIBUTES, PROPERTIES
from hearth.resources.openstack.nova.server_user_data import (
    RAW,
    SOFTWARE_CONFIG,
    build_user_data,
    meta_serialize,
)
from hearth.resources.properties import Properties

if TYPE_CHECKING:
    from hearth.resources.dependencies import ResourceShape

SUBNET_TYPE = "OS::Neutron::Subnet"
NET_TYPE = "OS::Neutron::Net"


class Server(ServerLifecycle):
    """A resource for managing Nova instances.

    A Server resource manages the running virtual machine instance within an
    OpenStack cloud.
    """

    entity = "servers"
    replace_failed_statuses = frozenset({"ERROR", "DELETED", "SOFT_DELETED"})
    # Heat's max_server_name_length.
    physical_resource_name_limit = 53
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES
    # Each costs calls of its own (Neutron lookups, console requests): only when read.
    uncached_attributes = frozenset({"addresses", "networks", "console_urls"})
    # The agent's settings and the deployments published to the server (software config).
    metadata_owned_keys = server_transport.OWNED_KEYS
    # What the agent of a Nova server collects before its transport's collector.
    default_collectors = ("ec2",)

    # --- validation ----------------------------------------------------------------------

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        server_devices.validate(
            scope.name, properties.get("image"), properties.get("block_device_mapping"),
            properties.get("block_device_mapping_v2"),
        )
        if properties.get("user_data_format") == SOFTWARE_CONFIG:
            server_transport.check_transport(
                properties.get(server_transport.TRANSPORT_PROPERTY),
                properties.get(server_transport.SWIFT_DATA_PROPERTY))
        networks = properties.get("networks") or []
        for entry in networks:
            server_networks.validate_entry(entry, scope.name)
        if server_networks.allocate_value(networks) is not None and len(networks) != 1:
            raise StackValidationFailed(
                'Property "allocate_network" can not be specified if multiple network '
                "interfaces set for server."
            )
        if any(n.get("port") is not None for n in networks) and properties.get(
                "security_groups"):
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: security_groups, "
                "networks/port."
            )
        if properties.get("personality"):
            # Hearth speaks compute microversion 2.96, past 2.57 where Nova dropped it.
            raise StackValidationFailed(
                "Cannot use the personality parameter as nova no longer supports it. Use "
                "user_data instead."
            )

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], after: Properties, before: Properties
    ) -> bool:
        def policy(key: str) -> Any:
            return after.get(key) or before.get(key)

        if "flavor" in changed and policy("flavor_update_policy") == "REPLACE":
            return True
        if "image" in changed and policy("image_update_policy") == "REPLACE":
            return True
        return "user_data" in changed and policy("user_data_update_policy") == "REPLACE"

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        """Heat's Server.add_dependencies: wait for the subnets of the server's networks (all
        subnets of the stack when an entry's network is not known)."""
        networks = shapes[name].properties.get("networks")
        if networks is None:
            return []
        subnets = {n: s for n, s in shapes.items() if s.type == SUBNET_TYPE}
        if not subnets:
            return []
        wanted, anything = _networks_named(networks, shapes)
        if anything:
            return sorted(subnets)
        out = []
        for subnet_name, shape in subnets.items():
            network = shape.properties.get("network") or shape.properties.get("network_id")
            if network is None or network[0] == "unknown" or network in wanted:
                out.append(subnet_name)
        return sorted(out)

    # --- create --------------------------------------------------------------------------

    def server_name(self) -> str:
        return str(self.properties.get("name") or self.physical_resource_name())

    def create_server(self) -> str:
        """POST the server (internal ports first); its id is stored at once."""
        props = self.properties
        # Checked again now that values from other resources are known.
        type(self).validate(props, ValidationScope(self.name, self.type_name))
        body: dict[str, Any] = {
            "name": self.server_name(),
            "flavorRef": finders.flavor_id(self.cloud, str(props["flavor"])),
            "imageRef": "",
            "min_count": 1,
            "max_count": 1,
        }
        image = props.get("image")
        if image:
            body["imageRef"] = finders.image_id(self.cloud, str(image))
        user_data = self.user_data()
        if user_data:
            body["user_data"] = base64.b64encode(user_data.encode("utf-8")).decode("ascii")
        if props.get("metadata"):
            body["metadata"] = meta_serialize(props["metadata"])
        groups = list(props.get("security_groups") or [])
        if groups:
            body["security_groups"] = [{"name": g} for g in groups]
        optional = {"key_name": "key_name", "availability_zone": "availability_zone",
                    "config_drive": "config_drive", "admin_pass": "adminPass",
                    "diskConfig": "OS-DCF:diskConfig"}
        # reservation_id is not sent: Nova chooses reservation ids itself (its API only takes
        # a boolean return_reservation_id, which would change the answer's shape).
        for prop, key in optional.items():
            if props.get(prop):
                body[key] = props[prop]
        legacy = server_devices.legacy_mappings(props.get("block_device_mapping"))
        mappings = server_devices.v2_mappings(
            props.get("block_device_mapping_v2"),
            lambda value: finders.image_id(self.cloud, value),
        )
        if legacy:
            body["block_device_mapping"] = legacy
        elif mappings:
            if image:
                # As novaclient: the image becomes the first (local, boot) device.
                mappings.insert(0, {"uuid": body["imageRef"], "source_type": "image",
                                    "destination_type": "local", "boot_index": 0,
                                    "delete_on_termination": True})
            body["block_device_mapping_v2"] = mappings
        if props.get("tags"):
            body["tags"] = list(props["tags"])
        body["networks"] = self.ports().nics(props.get("networks"), groups)
        request: dict[str, Any] = {"server": body}
        if props.get("scheduler_hints"):
            request["os:scheduler_hints"] = dict(props["scheduler_hints"])
        created = rest.nova(self.cloud, "POST", "/servers", request)
        server_id = str((created or {}).get("server", {}).get("id") or "")
        if not server_id:
            raise server_updates.Error("Nova did not answer with a server id")
        self.resource_id_set(server_id)
        return server_id

    def user_data(self) -> str | None:
        fmt = str(self.properties.get("user_data_format"))
        content = self.properties.get("user_data")
        metadata = self.context.metadata_get() or {}
        if fmt == SOFTWARE_CONFIG:
            # The agent's settings (and the deployments) travel in the user data too.
            metadata = server_transport.populate(self, self.config_transport(self.properties),
                                                 self.default_collectors)
        if fmt == RAW:
            return build_user_data(fmt, content, metadata, "")
        return build_user_data(fmt, content, metadata, self.cfn_metadata_url())

    @staticmethod
    def config_transport(properties: Properties) -> str:
        return str(properties.get(server_transport.TRANSPORT_PROPERTY)
                   or server_transport.POLL_SERVER_CFN)

    def cfn_metadata_url(self) -> str:
        """Where heat-cfntools reach the CloudFormation metadata API (``<public>/v1/``)."""
        try:
            signal = self.context.signal_url("signal", "")
        except Exception:
            return ""
        return signal.split("/v1/")[0] + "/v1/"

    def store_external_ports(self) -> None:
        """Record the ports Nova made for the server (Heat's ``external_ports``)."""
        assert self.resource_id is not None
        ids = [i["port_id"] for i in server_interfaces.interfaces(self.ports(),
                                                                   self.resource_id)]
        internal = set(server_networks.stored_ports(self))
        server_networks.store_ports(self, [p for p in ids if p not in internal],
                                    server_networks.EXTERNAL_PORTS)

    # --- update --------------------------------------------------------------------------

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if not prop_diff or self.resource_id is None:
            return None
        after = new_properties
        path = f"/servers/{self.resource_id}"
        if "metadata" in prop_diff:
            rest.nova(self.cloud, "PUT", f"{path}/metadata",
                      {"metadata": meta_serialize(after.get("metadata") or {})})
        if "tags" in prop_diff:
            rest.nova(self.cloud, "PUT", f"{path}/tags", {"tags": list(after.get("tags") or [])})
        if "name" in prop_diff:
            name = after.get("name") or self.physical_resource_name()
            rest.nova(self.cloud, "PUT", path, {"server": {"name": name}})
        steps: list[dict[str, Any]] = []
        if "networks" in prop_diff:
            steps += server_interfaces.plan_network_update(
                self.ports(), self.resource_id, self.properties.get("networks"),
                after.get("networks"), list(after.get("security_groups") or []),
            )
        if "flavor" in prop_diff:
            steps += server_updates.resize_steps(
                finders.flavor_id(self.cloud, str(after["flavor"])))
        if "user_data" in prop_diff and after.get("user_data_update_policy") == "REBUILD":
            steps.append(self._user_data_rebuild(after))
        if "image" in prop_diff:
            steps.append(server_updates.rebuild_step(
                finders.image_id(self.cloud, str(after["image"])),
                password=after.get("admin_pass"),
                preserve_ephemeral=after.get("image_update_policy")
                == "REBUILD_PRESERVE_EPHEMERAL",
                metadata=meta_serialize(after.get("metadata") or {}),
            ))
        elif "admin_pass" in prop_diff and after.get("admin_pass"):
            rest.server_action(self.cloud, self.resource_id, "changePassword",
                               {"adminPass": after["admin_pass"]})
        if (server_transport.TRANSPORT_PROPERTY in prop_diff
                and after.get("user_data_format") == SOFTWARE_CONFIG):
            server_transport.forget(self)
            server_transport.populate(self, self.config_transport(after),
                                      self.default_collectors)
        # The engine computes attributes after the update with this instance: let them
        # see the new definition (``name`` reads the property), as Heat's would.
        self.properties = new_properties
        return {"steps": steps} if steps else None

    def _user_data_rebuild(self, after: Properties) -> dict[str, Any]:
        """Rebuild on the server's current image with the new user data (Nova 2.57+)."""
        image = after.get("image")
        image_id = (finders.image_id(self.cloud, str(image)) if image
                    else str((self.refresh().get("image") or {}).get("id") or ""))
        fmt = str(after.get("user_data_format"))
        built = build_user_data(fmt, after.get("user_data"),
                                self.context.metadata_get() or {}, self.cfn_metadata_url())
        encoded = base64.b64encode(built.encode("utf-8")).decode("ascii") if built else None
        return server_updates.rebuild_step(image_id, user_data=encoded)

    def check_update_complete(self, cookie: Any) -> bool:
        if not cookie:
            return True
        assert self.resource_id is not None
        ports = self.ports()
        for step in cookie["steps"]:
            if step["done"]:
                continue
            if not step["called"]:
                server_updates.start(ports, self.resource_id, step)
                step["called"] = True
                return self.poll_later()
            server = self.refresh()
            if not server_updates.done(ports, server, step):
                return self.poll_later()
            step["done"] = True
        self.store_external_ports()
        return True

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "name":
            return self.server_name()
        if name == "os_collect_config":
            return (self.context.metadata_get() or {}).get("os-collect-config", {})
        server = self.obj if self._obj is not None else self.fetch_or_none()
        if server is None:
            return ""
        if name == "first_address":
            return server_addresses.first_address(server)
        if name == "addresses":
            return server_addresses.addresses_of(self.cloud, self.resource_id)
        if name == "networks":
            return server_addresses.with_network_ids(
                self.cloud, server_addresses.networks_of(server))
        if name == "instance_name":
            return server.get("OS-EXT-SRV-ATTR:instance_name")
        if name in ("accessIPv4", "accessIPv6"):
            return server.get(name)
        if name == "console_urls":
            return ConsoleUrls(self.cloud, self.resource_id)
        if name == "tags":
            return server.get("tags")
        return None

    def _show_resource(self) -> Any:
        shown = super()._show_resource()
        if isinstance(shown, dict):
            shown.setdefault(
                "os_collect_config",
                (self.context.metadata_get() or {}).get("os-collect-config", {}),
            )
        return shown

    def get_reference_id(self) -> str | None:
        return self.resource_id

    def get_live_state(self) -> dict[str, Any]:
        """What Nova says of the properties Heat compares (Heat's parse_live_resource_data;
        ``networks`` is left out: Heat rebuilds it from interfaces with lookups of its own)."""
        server = self.fetch_or_none()
        if server is None:
            return {}
        flavor = server.get("flavor") or {}
        image = server.get("image") or {}
        state = {
            "flavor": str(flavor.get("id") or flavor.get("original_name") or ""),
            "image": str(image.get("id")) if isinstance(image, Mapping) and image else None,
            "name": server.get("name"),
            "metadata": server.get("metadata"),
        }
        if "tags" in server:
            state["tags"] = server["tags"]
        return state


def _networks_named(networks: Any, shapes: Mapping[str, ResourceShape]
                    ) -> tuple[set[Any], bool]:
    """The comparable keys of the networks the entries name, and whether some entry names
    none (then every subnet of the stack may be the one)."""
    kind = networks[0]
    if kind == "value":
        wanted: set[Any] = set()
        for entry in json.loads(networks[1]) or []:
            network = (entry or {}).get("network") or (entry or {}).get("uuid")
            if not network:
                return set(), True
            wanted.add(("value", json.dumps(network, sort_keys=True)))
        return wanted, False
    referenced = [networks[1]] if kind == "resource" else list(networks[1])
    if not referenced:
        return set(), True
    # Entries refer to other resources: a network of the stack is matched by reference;
    # an entry built on a port or subnet names no network, as far as Heat can tell.
    if any(shapes.get(r) is None or shapes[r].type != NET_TYPE for r in referenced):
        return set(), True
    return {("resource", r) for r in referenced}, False


def resource_mapping() -> dict[str, type[ServerLifecycle]]:
    return {"OS::Nova::Server": Server}

