"""Names and ids of Neutron objects resolved against the devcloud's real Neutron, counting the
requests each lookup sends: a name that cannot be an id is asked for by name only, an id is
asked for once and then known for a few seconds."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.clients.cloud import Cloud
from hearth.clients.settings import ClientSettings
from hearth.resources.openstack.finders import NeutronNotFound, neutron_find


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
