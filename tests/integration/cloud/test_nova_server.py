"""OS::Nova::Server against the devcloud's real Nova (fake compute driver) and Neutron."""

from __future__ import annotations

import base64
import email
import json
import os
import time
from typing import Any

from openstack.connection import Connection

from hearth.engine.engine import Engine
from hearth.resources.context import short_id
from tests.integration.cloud.conftest import (
    CTX,
    action,
    assert_nothing_left,
    create,
    delete,
    inventory,
    outputs,
    physical_id,
    state,
    update,
)
from tests.integration.engine.conftest import resources

KINDS = ("servers", "ports")
state_of = state


def physical_suffix() -> str:
    return f"{os.getpid()}-{os.urandom(3).hex()}"


def wait_for_image(conn: Connection, name: str, timeout: float = 60.0) -> Any:
    """The image of that name once Nova has made it (still without data)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = list(conn.image.images(name=name))
        if found:
            return found[0]
        time.sleep(0.5)
    raise AssertionError(f"no image {name} after {timeout}s")


def server_name_of(engine: Engine, identity: dict[str, str]) -> str:
    """The physical resource name Heat gives the server (what snapshots are named)."""
    row = resources(engine, identity)["server"]
    return f"{identity['stack_name']}-server-{short_id(row.uuid)}"


def server_template(outputs_of: str = "server", **props: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"image": "cirros", "flavor": "m1.tiny"}
    base.update(props)
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"server": {"type": "OS::Nova::Server", "properties": base}},
        "outputs": attribute_outputs(outputs_of),
    }


def attribute_outputs(name: str) -> dict[str, Any]:
    attrs = ("first_address", "networks", "addresses", "name", "tags", "accessIPv4",
             "instance_name", "os_collect_config")
    out = {a: {"value": {"get_attr": [name, a]}} for a in attrs}
    out["status"] = {"value": {"get_attr": [name, "show", "status"]}}
    out["novnc"] = {"value": {"get_attr": [name, "console_urls", "novnc"]}}
    return out


def gone(conn: Connection, server_id: str) -> bool:
    """Nova no longer has the server (it may answer DELETED for a moment)."""
    found = conn.compute.find_server(server_id)
    return found is None or found.status == "DELETED"


def nova_addresses(server: Any) -> dict[str, list[str]]:
    return {net: [a["addr"] for a in addrs] for net, addrs in server.addresses.items()}


def test_server_lifecycle(cloud_engine: Engine, demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    private = demo_conn.network.find_network("private")
    assert private is not None
    props = dict(networks=[{"network": "private"}], metadata={"role": "web", "n": 1},
                 tags=["a", "b"], user_data_format="RAW", user_data="#!/bin/sh\necho hi\n")
    stack = create(cloud_engine, "srv", server_template(**props))
    try:
        check_lifecycle(cloud_engine, demo_conn, stack, props, private.id)
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def check_lifecycle(cloud_engine: Engine, demo_conn: Connection, stack: dict[str, str],
                    props: dict[str, Any], private_id: str) -> None:
    server_id = physical_id(cloud_engine, stack, "server")
    server = demo_conn.compute.get_server(server_id)
    assert server.status == "ACTIVE"
    # What Nova says is what the stack says.
    assert server.metadata == {"role": "web", "n": "1"}
    assert sorted(server.tags) == ["a", "b"]
    assert server.flavor.original_name == "m1.tiny"
    assert server.name.startswith("srv-") and "-server-" in server.name
    out = outputs(cloud_engine, stack)
    addresses = nova_addresses(server)
    assert list(addresses) == ["private"] and len(addresses["private"]) == 1
    ip = addresses["private"][0]
    assert out["first_address"] == ip
    assert out["networks"] == {"private": [ip], private_id: [ip]}
    (entry,) = out["addresses"]["private"]
    port = demo_conn.network.get_port(entry["port"])
    assert port.device_id == server_id and entry["addr"] == ip
    assert entry["network"]["id"] == private_id
    assert [s["id"] for s in entry["subnets"]] == [f["subnet_id"] for f in port.fixed_ips]
    assert out["addresses"][private_id] == out["addresses"]["private"]
    assert out["name"] == server.name and out["status"] == "ACTIVE"
    assert sorted(out["tags"]) == ["a", "b"]
    assert out["os_collect_config"] == {}
    # Only admins see the hypervisor's instance name.
    assert out["instance_name"] is None
    # The devcloud has no consoles: the URL is Heat's explanation of why.
    assert out["novnc"].startswith("Cannot get console url: "), out["novnc"]

    # In place: name, metadata and tags change on the same server.
    props.update(name="renamed", metadata={"role": "db"}, tags=["c"])
    state = update(cloud_engine, stack, server_template(**props))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "server") == server_id
    server = demo_conn.compute.get_server(server_id)
    assert (server.name, server.metadata, server.tags) == ("renamed", {"role": "db"}, ["c"])
    assert outputs(cloud_engine, stack)["name"] == "renamed"

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")
    assert action(cloud_engine, stack, "suspend")[:2] == ("SUSPEND", "COMPLETE")
    assert demo_conn.compute.get_server(server_id).status == "SUSPENDED"
    assert action(cloud_engine, stack, "resume")[:2] == ("RESUME", "COMPLETE")
    assert demo_conn.compute.get_server(server_id).status == "ACTIVE"

    # Resize (flavor_update_policy RESIZE): the same server gets the new flavor, the
    # resize confirmed. The devcloud has one compute host and Nova's default
    # allow_resize_to_same_host=False, so there Nova finds no host and leaves the server
    # as it was: the update must then fail with Heat's words instead of waiting forever.
    props.update(flavor="m1.small")
    state = update(cloud_engine, stack, server_template(**props))
    assert physical_id(cloud_engine, stack, "server") == server_id
    server = demo_conn.compute.get_server(server_id)
    if state[:2] == ("UPDATE", "COMPLETE"):
        assert (server.status, server.flavor.original_name) == ("ACTIVE", "m1.small")
    else:
        small = demo_conn.compute.find_flavor("m1.small")
        assert state[:2] == ("UPDATE", "FAILED"), state
        assert f"Error: resources.server: Resizing to '{small.id}' failed" in state[2]
        assert (server.status, server.flavor.original_name) == ("ACTIVE", "m1.tiny")

    # Replacement: config_drive cannot change in place.
    props.update(config_drive=True)
    state = update(cloud_engine, stack, server_template(**props))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    new_id = physical_id(cloud_engine, stack, "server")
    assert new_id != server_id
    assert gone(demo_conn, server_id)
    assert demo_conn.compute.get_server(new_id).status == "ACTIVE"

    # CHECK expects an ACTIVE server: one suspended behind the stack's back fails it.
    demo_conn.compute.suspend_server(new_id)
    demo_conn.compute.wait_for_server(demo_conn.compute.get_server(new_id), "SUSPENDED",
                                      wait=60)
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED")
    assert "Error: resources.server: 'status': expected 'ACTIVE', got 'SUSPENDED'" in checked[2]


NET_KINDS = ("servers", "ports", "networks", "subnets", "floatingips")


def network_template(server_networks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "net": {"type": "OS::Neutron::Net"},
            "subnet": {"type": "OS::Neutron::Subnet", "properties": {
                "network": {"get_resource": "net"}, "cidr": "10.77.0.0/24"}},
            "port": {"type": "OS::Neutron::Port", "properties": {
                "network": {"get_resource": "net"},
                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
            "fip": {"type": "OS::Neutron::FloatingIP", "properties": {
                "floating_network": "public"}},
            "server": {"type": "OS::Nova::Server", "metadata": {"AWS::CloudFormation::Init": {}},
                       "properties": {"image": "cirros", "flavor": "m1.tiny",
                                      "networks": server_networks,
                                      "user_data": "#!/bin/sh\necho hello\n", **extra}},
        },
        "outputs": attribute_outputs("server"),
    }


def test_server_ports_in_the_same_stack(cloud_engine: Engine, demo_conn: Connection,
                                        admin_conn: Connection) -> None:
    before = inventory(demo_conn, NET_KINDS)
    own_port = {"port": {"get_resource": "port"}}
    # Heat creates the port of a subnet entry itself, and puts the floating IP on it.
    on_private = {"subnet": "private-subnet", "fixed_ip": "10.0.0.57",
                  "floating_ip": {"get_resource": "fip"}}
    stack = create(cloud_engine, "srv-net", network_template([own_port, on_private]))
    try:
        server_id = physical_id(cloud_engine, stack, "server")
        port_id = physical_id(cloud_engine, stack, "port")
        fip_id = physical_id(cloud_engine, stack, "fip")
        net_id = physical_id(cloud_engine, stack, "net")
        server = demo_conn.compute.get_server(server_id)
        assert server.status == "ACTIVE"
        ifaces = {i.port_id: i for i in demo_conn.compute.server_interfaces(server_id)}
        assert port_id in ifaces and len(ifaces) == 2
        (internal_id,) = set(ifaces) - {port_id}
        internal = demo_conn.network.get_port(internal_id)
        assert internal.name == "server-port-1"
        assert [f["ip_address"] for f in internal.fixed_ips] == ["10.0.0.57"]
        fip = demo_conn.network.get_ip(fip_id)
        assert (fip.port_id, fip.fixed_ip_address) == (internal_id, "10.0.0.57")

        check_cfntools_user_data(admin_conn.compute.get_server(server_id).user_data)

        out = outputs(cloud_engine, stack)
        net_name = demo_conn.network.get_network(net_id).name
        own_ip = demo_conn.network.get_port(port_id).fixed_ips[0]["ip_address"]
        assert out["networks"][net_name] == [own_ip] == out["networks"][net_id]
        private = {a["OS-EXT-IPS:type"]: a for a in out["addresses"]["private"]}
        assert private["fixed"]["addr"] == "10.0.0.57"
        assert private["fixed"]["port"] == internal_id
        assert private["floating"]["addr"] == fip.floating_ip_address
        assert out["addresses"][net_name][0]["port"] == port_id

        # Dropping the subnet entry detaches the interface, deletes the port Heat made
        # and frees the floating IP; a new network entry gets a port from Nova.
        state = update(cloud_engine, stack, network_template([own_port, {"network": "private"}]))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        assert demo_conn.network.find_port(internal_id) is None
        assert demo_conn.network.get_ip(fip_id).port_id is None
        ifaces = {i.port_id: i for i in demo_conn.compute.server_interfaces(server_id)}
        assert port_id in ifaces and len(ifaces) == 2
        (nova_port,) = set(ifaces) - {port_id}
        assert demo_conn.network.get_port(nova_port).device_owner.startswith("compute:")
        out = outputs(cloud_engine, stack)
        nova_ip = ifaces[nova_port].fixed_ips[0]["ip_address"]
        assert out["networks"]["private"] == [nova_ip]

        # A replacement gets the template's port: the old server gives it up first.
        state = update(cloud_engine, stack, network_template(
            [own_port, {"network": "private"}], config_drive=True))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        new_id = physical_id(cloud_engine, stack, "server")
        assert new_id != server_id
        assert gone(demo_conn, server_id)
        assert demo_conn.network.get_port(port_id).device_id == new_id
        assert port_id in {i.port_id for i in demo_conn.compute.server_interfaces(new_id)}
    finally:
        assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert gone(demo_conn, server_id)
    assert_nothing_left(demo_conn, before)


def test_rebuild_and_snapshot(cloud_engine: Engine, demo_conn: Connection,
                              admin_conn: Connection) -> None:
    before = inventory(demo_conn, ("servers", "ports", "images"))
    image = demo_conn.image.create_image(
        name=f"hearth-rebuild-{physical_suffix()}", data=b"\0" * 1024,
        disk_format="raw", container_format="bare", allow_duplicates=True)
    snapshot_image = None
    stack = None
    try:
        props: dict[str, Any] = {"networks": [{"network": "private"}],
                                 "user_data_format": "RAW", "user_data": "one"}
        stack = create(cloud_engine, "srv-img", server_template(**props))
        server_id = physical_id(cloud_engine, stack, "server")
        cirros = demo_conn.compute.get_server(server_id).image.id

        # image_update_policy REBUILD: the same server on the new image.
        props.update(image=image.id)
        state = update(cloud_engine, stack, server_template(**props))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        server = demo_conn.compute.get_server(server_id)
        assert (server.status, server.image.id) == ("ACTIVE", image.id) and cirros != image.id

        # user_data_update_policy REBUILD: rebuilt with the new user data, same image.
        props.update(user_data="two", user_data_update_policy="REBUILD")
        state = update(cloud_engine, stack, server_template(**props))
        assert state[:2] == ("UPDATE", "COMPLETE"), state
        assert physical_id(cloud_engine, stack, "server") == server_id
        server = demo_conn.compute.get_server(server_id)
        assert server.image.id == image.id
        # Only admins see a server's user data.
        assert base64.b64decode(admin_conn.compute.get_server(server_id).user_data) == b"two"

        # A stack snapshot makes an image of the server and keeps its id for a restore.
        snap = cloud_engine.stack_snapshot(CTX, stack, "snap")
        # Nova's fake driver never uploads the image data, so the image would stay queued
        # (and the snapshot wait for it): the test plays the hypervisor's part.
        uploading = wait_for_image(demo_conn, server_name_of(cloud_engine, stack))
        assert cloud_engine.show_snapshot(CTX, stack, snap["id"])["status"] == "IN_PROGRESS"
        uploading = demo_conn.image.update_image(uploading, disk_format="raw",
                                                 container_format="bare")
        assert uploading.upload(demo_conn.image, data=b"\0" * 512).ok
        assert state_of(cloud_engine, stack)[:2] == ("SNAPSHOT", "COMPLETE")
        shown = cloud_engine.show_snapshot(CTX, stack, snap["id"])
        data = shown["data"]["resources"]["server"]["resource_data"]
        snapshot_image = demo_conn.image.get_image(data["snapshot_image_id"])
        assert snapshot_image.status == "active"
        assert snapshot_image.name == server_name_of(cloud_engine, stack)
    finally:
        if stack is not None:
            assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
        if snapshot_image is not None:
            demo_conn.image.delete_image(snapshot_image)
        demo_conn.image.delete_image(image)
    assert_nothing_left(demo_conn, before)


def check_cfntools_user_data(encoded: str) -> None:
    """HEAT_CFNTOOLS (the default format): Heat's MIME multipart document for cloud-init."""
    document = email.message_from_bytes(base64.b64decode(encoded))
    assert document.is_multipart()
    parts = {p.get_filename(): p for p in document.get_payload()}
    assert list(parts) == ["cloud-config", "boothook.sh", "part-handler.py", "cfn-userdata",
                           "loguserdata.py", "cfn-init-data", "cfn-metadata-server",
                           "cfn-boto-cfg"]
    types = {name: part.get_content_type() for name, part in parts.items()}
    assert types["cloud-config"] == "text/cloud-config"
    assert types["boothook.sh"] == "text/cloud-boothook"
    assert types["part-handler.py"] == "text/part-handler"
    assert types["loguserdata.py"] == "text/x-shellscript"
    assert {types[n] for n in ("cfn-userdata", "cfn-init-data", "cfn-metadata-server",
                               "cfn-boto-cfg")} == {"text/x-cfninitdata"}
    assert parts["cfn-userdata"].get_payload() == "#!/bin/sh\necho hello\n"
    assert json.loads(parts["cfn-init-data"].get_payload()) == {
        "AWS::CloudFormation::Init": {}}
    assert parts["cfn-metadata-server"].get_payload().endswith("/v1/")
