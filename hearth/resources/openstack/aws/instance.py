"""AWS::EC2::Instance: a Nova server booted with Heat's CFN user data, its security groups,
network interfaces (or a port Heat makes on ``SubnetId``) and ``Tags`` as metadata, then the
``Volumes`` attached once it is ACTIVE.

The waits on Nova (boot with retries, delete, suspend, resume) are OS::Nova::Server's
(``ServerLifecycle``); the port made for ``SubnetId`` is kept as the server's internal ports
are, and deleted once the server is gone.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from hearth.clients.errors import ResourceUnknownStatus
from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack import finders
from hearth.resources.openstack.aws import instance_boot, instance_volumes
from hearth.resources.openstack.aws.common import (
    network_of_subnet,
    security_group_ids,
    tags_as_metadata,
)
from hearth.resources.openstack.aws.instance_schema import ATTRIBUTES, PROPERTIES
from hearth.resources.openstack.nova import rest, server_addresses, server_networks
from hearth.resources.openstack.nova.server_lifecycle import DEFERRED, ServerLifecycle
from hearth.resources.openstack.nova.server_updates import (
    Error,
    done,
    resize_steps,
    start,
    status_of,
)
from hearth.resources.properties import Properties

# Heat's instances speak Nova's base API: a server without nics gets Nova's default network.
BOOT_MICROVERSION = "2.1"
ADDRESS_ATTRIBUTES = frozenset({"PrivateDnsName", "PublicDnsName", "PrivateIp", "PublicIp"})


def _sorted_ports(interfaces: Sequence[Any]) -> list[str]:
    """Port ids of ``NetworkInterfaces`` (ids, or maps with a DeviceIndex) in device order."""
    entries: list[Mapping[str, Any]] = [
        entry if not isinstance(entry, str)
        else {"NetworkInterfaceId": entry, "DeviceIndex": index}
        for index, entry in enumerate(interfaces)
    ]
    entries.sort(key=lambda e: int(e["DeviceIndex"]))
    return [str(e["NetworkInterfaceId"]) for e in entries]


def _security_groups(props: Properties) -> list[str] | None:
    groups = [*(props.get("SecurityGroups") or []), *(props.get("SecurityGroupIds") or [])]
    return groups or None


def _detach_step(port_id: str) -> dict[str, Any]:
    return {"op": "detach", "port": port_id, "called": False, "done": False}


def _attach_step(port_id: str | None) -> dict[str, Any]:
    return {"op": "attach", "port": port_id, "network": None, "fixed_ip": None,
            "security_groups": [], "called": False, "done": False}


class Instance(ServerLifecycle):
    # Heat's max_server_name_length.
    physical_resource_name_limit = 53
    properties_schema = PROPERTIES
    attributes_schema = ATTRIBUTES

    # Heat's instances take no stack snapshot.
    handle_snapshot = None  # type: ignore[assignment]
    handle_snapshot_delete = None  # type: ignore[assignment]
    handle_delete_snapshot = None  # type: ignore[assignment]

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if _security_groups(properties) and properties.get("NetworkInterfaces"):
            raise StackValidationFailed(
                "Cannot define the following properties at the same time: "
                "SecurityGroups/SecurityGroupIds, NetworkInterfaces."
            )
        for mapping in properties.get("BlockDeviceMappings") or []:
            ebs = mapping.get("Ebs")
            if not ebs:
                raise StackValidationFailed(
                    "Ebs is missing, this is required when specifying BlockDeviceMappings."
                )
            if not ebs.get("SnapshotId"):
                raise StackValidationFailed(
                    "SnapshotId is missing, this is required when specifying "
                    "BlockDeviceMappings."
                )

    # --- create --------------------------------------------------------------------------

    def _neutron(self, method: str, path: str, body: Any = None,
                 params: Mapping[str, Any] | None = None) -> Any:
        return rest.neutron(self.cloud, method, path, body, params)

    def _nics(self, interfaces: Sequence[Any] | None, groups: list[str] | None,
              subnet_id: str | None) -> list[dict[str, str]] | None:
        """The server's nics: the interfaces given, else a port Heat makes on the subnet."""
        if interfaces:
            return [{"port": port} for port in _sorted_ports(interfaces)]
        if not subnet_id:
            return None
        body: dict[str, Any] = {
            "admin_state_up": True,
            "network_id": network_of_subnet(self._neutron, subnet_id),
            "fixed_ips": [{"subnet_id": subnet_id}],
        }
        if groups:
            body["security_groups"] = security_group_ids(
                self._neutron, self.conn.current_project_id, groups)
        port = self._neutron("POST", "/ports", {"port": body})["port"]
        # Recorded at once: the port goes with the server.
        server_networks.remember_port(self, str(port["id"]))
        return [{"port": str(port["id"])}]

    def cfn_metadata_url(self) -> str:
        """Where heat-cfntools reach the CloudFormation metadata API (``<public>/v1/``)."""
        try:
            signal = self.context.signal_url("signal", "")
        except Exception:
            return ""
        return signal.split("/v1/")[0] + "/v1/"

    def create_server(self) -> str:
        props = self.properties
        groups = _security_groups(props)
        content = instance_boot.cfn_user_data(
            props["UserData"], self.context.metadata_get(), self.cfn_metadata_url())
        body: dict[str, Any] = {
            "name": self.physical_resource_name(),
            "imageRef": finders.image_id(self.cloud, str(props["ImageId"])),
            "flavorRef": finders.flavor_id(self.cloud, str(props["InstanceType"])),
            "min_count": 1,
            "max_count": 1,
            "user_data": base64.b64encode(content.encode("utf-8")).decode("ascii"),
        }
        if props["KeyName"]:
            body["key_name"] = props["KeyName"]
        if groups:
            body["security_groups"] = [{"name": g} for g in groups]
        metadata = tags_as_metadata(props["Tags"])
        if metadata is not None:
            body["metadata"] = metadata
        if props["AvailabilityZone"]:
            body["availability_zone"] = props["AvailabilityZone"]
        devices = instance_boot.legacy_block_devices(props["BlockDeviceMappings"])
        if devices:
            body["block_device_mapping"] = devices
        nics = self._nics(props["NetworkInterfaces"], groups, props["SubnetId"])
        if nics:
            body["networks"] = nics
        request: dict[str, Any] = {"server": body}
        hints = instance_boot.scheduler_hints(props["NovaSchedulerHints"])
        if hints:
            request["os:scheduler_hints"] = hints
        created = self.call(self._boot, request)
        self.resource_id_set(str(created["server"]["id"]))
        return str(self.resource_id)

    def _boot(self, request: Mapping[str, Any]) -> Any:
        from openstack import exceptions as sdk

        response = self.conn.compute.request("/servers", "POST", json=dict(request),
                                             microversion=BOOT_MICROVERSION)
        sdk.raise_from_response(response)
        return response.json()

    def store_external_ports(self) -> None:
        """Instances keep no record of the ports Nova makes."""

    def handle_create(self) -> Any:
        return {
            "server": super().handle_create(),
            "volumes": [
                instance_volumes.attach_step(v["VolumeId"], v["Device"])
                for v in self.properties["Volumes"] or []
            ],
            "active": False,
        }

    def check_create_complete(self, cookie: Any) -> bool:
        if not cookie["active"]:
            super().check_create_complete(cookie)  # polls until the server is ACTIVE
            cookie["active"] = True
            if not cookie["volumes"]:
                return True
        return instance_volumes.run(self, cookie["volumes"]) or self.poll_later()

    # --- update --------------------------------------------------------------------------

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if not prop_diff or self.resource_id is None:
            return None
        steps: list[dict[str, Any]] = []
        if "Tags" in prop_diff:
            metadata = tags_as_metadata(prop_diff["Tags"]) or {}
            rest.nova(self.cloud, "PUT", f"/servers/{self.resource_id}/metadata",
                      {"metadata": metadata})
        if "InstanceType" in prop_diff:
            steps += resize_steps(
                finders.flavor_id(self.cloud, str(prop_diff["InstanceType"])))
        if "NetworkInterfaces" in prop_diff or "SubnetId" in prop_diff:
            steps += self._network_steps(new_properties, prop_diff)
        return {"steps": steps} if steps else None

    def _network_steps(self, after: Properties, prop_diff: Mapping[str, Any]
                       ) -> list[dict[str, Any]]:
        """Heat's interface changes: swap the interfaces that differ when both old and new
        lists are given; keep them when only SubnetId changed; otherwise detach everything
        and attach what the new properties say."""
        old = list(self.properties["NetworkInterfaces"] or [])
        new = list(prop_diff.get("NetworkInterfaces") or [])
        if old and new:
            gone = [i for i in old if i not in new]
            added = [i for i in new if i not in old]
            return ([_detach_step(p) for p in (_sorted_ports(gone) if gone else [])]
                    + [_attach_step(p) for p in (_sorted_ports(added) if added else [])])
        if old and "NetworkInterfaces" not in prop_diff:
            return []
        server_id = str(self.resource_id)
        found = rest.nova(self.cloud, "GET", f"/servers/{server_id}/os-interface")
        steps = [_detach_step(str(i["port_id"]))
                 for i in (found or {}).get("interfaceAttachments") or []]
        subnet_id = prop_diff.get("SubnetId") or self.properties["SubnetId"]
        nics = self._nics(new or None, _security_groups(after), subnet_id)
        if not nics:
            return [*steps, _attach_step(None)]
        return steps + [_attach_step(nic["port"]) for nic in nics]

    def check_update_complete(self, cookie: Any) -> bool:
        if not cookie:
            return True
        assert self.resource_id is not None
        ports = self.ports()
        for step in cookie["steps"]:
            if step["done"]:
                continue
            if not step["called"]:
                start(ports, self.resource_id, step)
                step["called"] = True
                return self.poll_later()
            if not done(ports, self.refresh(), step):
                return self.poll_later()
            step["done"] = True
        return True

    # --- suspend, resume, check ----------------------------------------------------------

    def _server_or_not_found(self) -> dict[str, Any]:
        from hearth.clients.errors import is_not_found
        from hearth.common.errors import NotFound

        if self.resource_id is None:
            raise Error(f"Cannot {self.context.action.lower()} {self.name}, "
                        "resource_id not set")
        try:
            return dict(self.refresh())
        except Exception as exc:
            if is_not_found(exc):
                raise NotFound(f"Failed to find instance {self.resource_id}") from None
            raise

    def check_suspend_complete(self, cookie: Any) -> bool:
        server = self.refresh()
        status = status_of(server)
        if status == "SUSPENDED":
            return True
        if status in DEFERRED | {"ACTIVE"}:
            return self.poll_later()
        raise ResourceUnknownStatus(
            f"Suspend of instance {server.get('name')} failed - Unknown status {status} "
            "due to \"Unknown\""
        )

    def handle_check(self) -> None:
        server = self.refresh()
        # ERROR (or a status Heat does not know) raises from is_active.
        if not self.is_active(server):
            raise Error(f"Instance is not ACTIVE (was: {status_of(server).strip()})")

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        server = self.obj if self._obj is not None else self.fetch_or_none()
        if server is None:
            value = None if name == "AvailabilityZone" else "0.0.0.0"
        elif name == "AvailabilityZone":
            value = server.get("OS-EXT-AZ:availability_zone")
        elif name in ADDRESS_ATTRIBUTES:
            value = server_addresses.first_address(server) or "0.0.0.0"
        else:
            return None
        return str(value) if value else None


def resource_mapping() -> dict[str, type[ServerLifecycle]]:
    return {"AWS::EC2::Instance": Instance}
