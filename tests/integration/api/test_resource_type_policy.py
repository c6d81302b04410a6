"""Heat's ``resource_types:*`` rules: admin-only types are refused to others and not listed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf

FLAVOR_TEMPLATE = {
    "heat_template_version": "2015-10-15",
    "resources": {"not4everyone": {"type": "OS::Nova::Flavor",
                                   "properties": {"ram": 20000, "vcpus": 10}}},
}


@pytest.fixture(scope="module")
def member_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # noauth's default roles: member and reader.
    with serving(server_conf(tmp_path_factory.mktemp("members"))) as running:
        yield running


@pytest.fixture(scope="module")
def admin_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = server_conf(tmp_path_factory.mktemp("admins"),
                       api__noauth_roles=["admin", "member", "reader"])
    with serving(conf) as running:
        yield running


def test_member_may_not_create_an_admin_only_type(member_server: RunningServer) -> None:
    url = f"{member_server.url}/v1/p1/stacks"
    resp = requests.post(url, json={"stack_name": "flavors", "template": FLAVOR_TEMPLATE})
    assert resp.status_code == 403
    error = resp.json()["error"]
    assert error["type"] == "Forbidden"
    assert error["message"] == "You are not authorized to use OS::Nova::Flavor."
    assert requests.get(url).json()["stacks"] == []


def test_member_does_not_see_admin_only_types(member_server: RunningServer) -> None:
    base = f"{member_server.url}/v1/p1"
    assert "OS::Heat::None" in requests.get(f"{base}/resource_types").json()["resource_types"]
    resp = requests.get(f"{base}/resource_types/OS::Nova::Flavor")
    assert resp.status_code == 403


def test_admin_gets_past_the_type_rule(admin_server: RunningServer) -> None:
    # The admin is allowed to use the type; it then fails as unavailable (no Nova here).
    resp = requests.post(
        f"{admin_server.url}/v1/admin/stacks",
        json={"stack_name": "flavors", "template": FLAVOR_TEMPLATE},
    )
    assert resp.status_code == 400
    assert "OS::Nova::Flavor" in resp.json()["error"]["message"]


def test_unavailable_service_types_are_refused_and_not_listed(
    noauth_server: RunningServer, tmp_path: Path
) -> None:
    base = f"{noauth_server.url}/v1/demo"
    template = {"heat_template_version": "2015-10-15",
                "resources": {"share": {"type": "OS::Manila::Share",
                                        "properties": {"share_protocol": "NFS", "size": 1}}}}
    resp = requests.post(f"{base}/stacks", json={"stack_name": "share", "template": template})
    assert resp.status_code == 400
    assert "ResourceTypeUnavailable" in resp.text and "OS::Manila::Share" in resp.text
    listed = requests.get(f"{base}/resource_types").json()["resource_types"]
    assert not any("Manila" in name for name in listed)
