"""OS::Glance::WebImage against the devcloud's real Glance (web-download import).

Glance fetches the image data itself. With its default import filtering it only fetches from
ports 80 and 443 and never from loopback addresses, so the tests serve the data from an HTTP
server on port 80 of a test host of their own (a network namespace made for the test).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from openstack.connection import Connection

from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
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
    unique,
    update,
)

KINDS = ("images",)
FIRST = b"first image " * 300
SECOND = b"second image " * 500


FILES = {"first.raw": FIRST, "second.raw": SECOND}


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


@pytest.fixture(scope="module")
def image_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of an HTTP server Glance may download from.

    Glance refuses loopback addresses, so the server is a test host of our own: a network
    namespace made for the test, reached through a veth pair on a /30 of its own.
    """
    root = tmp_path_factory.mktemp("images")
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    tag = f"{os.getpid() % 10000}"
    namespace, host_side, ns_side = f"hearth-img-{tag}", f"himg{tag}h", f"himg{tag}n"
    net = 16 + os.getpid() % 200
    host_ip, ns_ip = f"10.213.{net}.1", f"10.213.{net}.2"
    server: subprocess.Popen[bytes] | None = None
    try:
        _ip("netns", "add", namespace)
        _ip("link", "add", host_side, "type", "veth", "peer", "name", ns_side)
        _ip("link", "set", ns_side, "netns", namespace)
        _ip("addr", "add", f"{host_ip}/30", "dev", host_side)
        _ip("link", "set", host_side, "up")
        _ip("netns", "exec", namespace, "ip", "addr", "add", f"{ns_ip}/30", "dev", ns_side)
        _ip("netns", "exec", namespace, "ip", "link", "set", ns_side, "up")
        server = subprocess.Popen(
            ["ip", "netns", "exec", namespace, sys.executable, "-m", "http.server", "80",
             "--bind", ns_ip, "--directory", str(root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        while True:
            try:
                if requests.get(f"http://{ns_ip}/first.raw", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise OSError("the image server in the namespace does not answer")
            time.sleep(0.2)
    except (OSError, subprocess.SubprocessError) as exc:
        _teardown(server, namespace, host_side)
        pytest.skip(f"cannot run a test host in a network namespace here ({exc})")
    yield f"http://{ns_ip}"
    _teardown(server, namespace, host_side)


def _teardown(server: subprocess.Popen[bytes] | None, namespace: str, host_side: str) -> None:
    if server is not None:
        server.terminate()
        server.wait(10)
    for args in (("link", "del", host_side), ("netns", "del", namespace)):
        subprocess.run(["ip", *args], capture_output=True, check=False, timeout=30)


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"image": {"type": "OS::Glance::WebImage", "properties": props}},
        "outputs": {
            "show": {"value": {"get_attr": ["image", "show"]}},
            "ref": {"value": {"get_resource": "image"}},
        },
    }


def image_json(conn: Connection, image_id: str) -> dict[str, Any]:
    response = conn.image.get(f"/images/{image_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def sha512(data: bytes) -> str:
    return hashlib.sha512(data).hexdigest()


def test_web_image_lifecycle(cloud_engine: Engine, demo_conn: Connection,
                             image_server: str) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("img")
    base = {"name": name, "disk_format": "raw", "container_format": "bare",
            "location": f"{image_server}/first.raw", "min_disk": 1, "min_ram": 64}
    stack = create(cloud_engine, "img", template(
        **base, tags=["one", "two"], architecture="x86_64", os_distro="cirros",
        extra_properties={"hearth_a": "1", "hearth_b": "2"}))
    assert state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE"), state(cloud_engine, stack)
    image_id = physical_id(cloud_engine, stack, "image")
    image = image_json(demo_conn, image_id)
    # Glance downloaded the bytes the location serves; the record is what the template says.
    assert image["status"] == "active"
    assert (image["size"], image["os_hash_value"]) == (len(FIRST), sha512(FIRST))
    assert (image["name"], image["disk_format"], image["container_format"],
            image["min_disk"], image["min_ram"], image["visibility"],
            image["protected"]) == (name, "raw", "bare", 1, 64, "private", False)
    assert sorted(image["tags"]) == ["one", "two"]
    assert (image["architecture"], image["os_distro"], image["hearth_a"],
            image["hearth_b"]) == ("x86_64", "cirros", "1", "2")
    out = outputs(cloud_engine, stack)
    assert out["ref"] == image_id
    assert out["show"]["id"] == image_id and out["show"]["status"] == "active"

    # In place: tags, extra properties, os fields and visibility change on the same image.
    result = update(cloud_engine, stack, template(
        **base, tags=["two", "three"], os_distro="ubuntu", visibility="shared",
        members=["hearth-member-a"], extra_properties={"hearth_b": "20", "hearth_c": "3"}))
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(cloud_engine, stack, "image") == image_id
    image = image_json(demo_conn, image_id)
    assert sorted(image["tags"]) == ["three", "two"]
    assert (image["os_distro"], image["visibility"], image["hearth_b"],
            image["hearth_c"]) == ("ubuntu", "shared", "20", "3")
    # Removed from the template, removed from the image.
    assert "hearth_a" not in image and "architecture" not in image
    members = demo_conn.image.get(f"/images/{image_id}/members").json()["members"]
    assert [m["member_id"] for m in members] == ["hearth-member-a"]
    assert outputs(cloud_engine, stack)["show"]["os_distro"] == "ubuntu"

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Another location is another image.
    result = update(cloud_engine, stack, template(
        **{**base, "location": f"{image_server}/second.raw"}))
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    new_id = physical_id(cloud_engine, stack, "image")
    assert new_id != image_id
    assert demo_conn.image.get(f"/images/{image_id}").status_code == 404
    replaced = image_json(demo_conn, new_id)
    assert (replaced["status"], replaced["size"], replaced["os_hash_value"]) == (
        "active", len(SECOND), sha512(SECOND))

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.image.get(f"/images/{new_id}").status_code == 404
    assert_nothing_left(demo_conn, before)


def test_failed_download_fails_the_create_with_glances_reason(
    cloud_engine: Engine, demo_conn: Connection, image_server: str
) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "img-404", template(
        disk_format="raw", container_format="bare", location=f"{image_server}/missing.raw"))
    result = state(cloud_engine, stack)
    assert result[:2] == ("CREATE", "FAILED"), result
    assert f"Image import from {image_server}/missing.raw failed" in result[2], result
    # What Glance's import task says (its log has the HTTP 404; its API only this).
    assert "Task failed" in result[2], result
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_loopback_location_is_refused_by_glance(cloud_engine: Engine,
                                                demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "img-lo", template(
        disk_format="raw", container_format="bare", location="http://127.0.0.1/x.raw"))
    result = state(cloud_engine, stack)
    assert result[:2] == ("CREATE", "FAILED"), result
    assert "BadRequest" in result[2], result
    # The image record made before the import was refused goes with the stack.
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


@pytest.mark.parametrize(("props", "message"), [
    ({"disk_format": "raw", "container_format": "ami"}, "Invalid mix of disk and container"),
    ({"disk_format": "raw", "container_format": "bare", "members": ["x"]},
     "members property should only be specified for visibility with value shared"),
    ({"disk_format": "floppy", "container_format": "bare"}, "disk_format"),
])
def test_invalid_definitions_are_refused_at_create(cloud_engine: Engine,
                                                   props: dict[str, Any],
                                                   message: str) -> None:
    with pytest.raises(StackValidationFailed, match=message):
        cloud_engine.create_stack(CTX, unique("img-x"),
                                  template(location="http://example.com/x", **props), {})


def test_deactivated_image_then_reactivated(admin_cloud_engine: Engine, admin_conn: Connection,
                                            image_server: str) -> None:
    # Deactivation is for admins in Glance's default policy.
    before = inventory(admin_conn, KINDS)
    props = {"disk_format": "raw", "container_format": "bare",
             "location": f"{image_server}/first.raw"}
    stack = create(admin_cloud_engine, "img-off", template(**props, active=False))
    assert state(admin_cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    image_id = physical_id(admin_cloud_engine, stack, "image")
    assert image_json(admin_conn, image_id)["status"] == "deactivated"

    result = update(admin_cloud_engine, stack, template(**props, active=True))
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(admin_cloud_engine, stack, "image") == image_id
    assert image_json(admin_conn, image_id)["status"] == "active"

    assert delete(admin_cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)
