"""Names and ids of Neutron objects resolved against the devcloud's real Neutron, counting the
requests each lookup sends: a name that cannot be an id is asked for by name only, an id is
asked for once and then known for a few seconds, and an object the engine made is known until
the engine deletes it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from keystoneauth1.session import Session
from openstack.connection import Connection

from hearth.clients.cloud import Cloud
from hearth.clients.settings import ClientSettings
from hearth.common.errors import StackValidationFailed
from hearth.engine.engine import Engine
from hearth.resources.openstack.finders import NeutronNotFound, neutron_find
from tests.integration.cloud import neutron_checks
from tests.integration.cloud.conftest import CTX, delete, physical_id, state, unique
from tests.integration.cloud.neutron_checks import (
    assert_nothing_left,
    create_stack,
    hot,
    inventory,
)

delete_leftover_stacks = neutron_checks.delete_leftover_stacks


class CountingNetwork:
    """The connection's network proxy, every GET of it counted (and sent)."""

    def __init__(self, conn: Connection) -> None:
        self._proxy = conn.network
        self.gets: list[tuple[str, dict[str, Any]]] = []

    def get(self, url: str, **kwargs: Any) -> Any:
        self.gets.append((url, dict(kwargs.get("params") or {})))
        return self._proxy.get(url, **kwargs)


class CountingConnection:
    def __init__(self, conn: Connection) -> None:
        self.network = CountingNetwork(conn)


@pytest.fixture
def counted(demo_conn: Connection) -> tuple[Cloud, CountingNetwork]:
    wrapper = CountingConnection(demo_conn)
    cloud = Cloud(ClientSettings(), lambda: demo_conn.session, description="lookups",
                  connection_factory=lambda session: wrapper)  # type: ignore[arg-type,return-value]
    return cloud, wrapper.network


def test_a_name_is_asked_for_by_name_only(counted: tuple[Cloud, CountingNetwork],
                                          demo_conn: Connection) -> None:
    cloud, network = counted
    public = demo_conn.network.find_network("public", ignore_missing=False)
    assert neutron_find(cloud, "network", "public") == public.id
    assert network.gets == [("/networks", {"name": "public"})]


def test_an_id_is_asked_for_once_then_known(counted: tuple[Cloud, CountingNetwork],
                                            demo_conn: Connection) -> None:
    cloud, network = counted
    public = demo_conn.network.find_network("public", ignore_missing=False)
    assert neutron_find(cloud, "network", public.id) == public.id
    assert neutron_find(cloud, "network", public.id) == public.id
    assert network.gets == [("/networks", {"id": public.id})]


def test_a_missing_name_says_so_after_one_request(
        counted: tuple[Cloud, CountingNetwork]) -> None:
    cloud, network = counted
    with pytest.raises(NeutronNotFound, match="Unable to find network with name or id "
                                              "'no-such-network'"):
        neutron_find(cloud, "network", "no-such-network")
    assert len(network.gets) == 1


def test_what_a_stack_made_is_not_looked_up_until_it_is_deleted(
        cloud_engine: Engine, demo_conn: Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """The subnet and the ports name the stack's network by id, the ports its subnet too:
    the engine made both, so it does not ask Neutron whether they exist (Heat asks once per
    reference). Once the stack's delete took the network, naming it fails again."""
    gets: list[str] = []
    real = Session.request

    def counted(self: Session, url: str, method: str, *args: Any, **kwargs: Any) -> Any:
        if method.upper() == "GET":
            gets.append(f"{url}?{urlencode(kwargs.get('params') or {}, doseq=True)}")
        return real(self, url, method, *args, **kwargs)

    monkeypatch.setattr(Session, "request", counted)
    before = inventory(demo_conn)
    ports = {f"port{i}": {"type": "OS::Neutron::Port",
                          "properties": {"network": {"get_resource": "net"},
                                         "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}}
             for i in range(3)}
    stack = create_stack(cloud_engine, "made", hot({
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"},
                                  "cidr": "10.95.0.0/24"}},
        **ports,
    }))
    assert state(cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    net, subnet = physical_id(cloud_engine, stack, "net"), physical_id(cloud_engine, stack,
                                                                      "subnet")
    assert [url for url in gets if net in url or subnet in url] == []

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
    naming = {"heat_template_version": "2018-08-31",
              "parameters": {"net": {"type": "string",
                                     "constraints": [{"custom_constraint": "neutron.network"}]}},
              "resources": {}}
    with pytest.raises(StackValidationFailed, match=f"Unable to find network with name or id "
                                                    f"'{net}'"):
        cloud_engine.create_stack(CTX, unique("named"), naming, {"net": net})
