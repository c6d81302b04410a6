"""Images and servers named in a template, resolved against the devcloud's real Glance and
Nova, counting the calls each lookup makes: their ids are UUIDs, so a name that cannot be
one is asked for by name only, while an id (or a name shaped like one) is still tried as an
id first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.clients.cloud import Cloud
from hearth.clients.settings import ClientSettings
from hearth.common.errors import EntityNotFound
from hearth.resources.openstack.finders import image_id, server_id


class CountingProxy:
    """A service proxy of the connection whose method calls are counted (and made)."""

    def __init__(self, proxy: Any) -> None:
        self._proxy = proxy
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._proxy, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return method(*args, **kwargs)

        return counted


class CountingConnection:
    def __init__(self, conn: Connection) -> None:
        self.image = CountingProxy(conn.image)
        self.compute = CountingProxy(conn.compute)


@pytest.fixture
def counted(demo_conn: Connection) -> tuple[Cloud, CountingConnection]:
    wrapper = CountingConnection(demo_conn)
    cloud = Cloud(ClientSettings(), lambda: demo_conn.session, description="lookups",
                  connection_factory=lambda session: wrapper)  # type: ignore[arg-type,return-value]
    return cloud, wrapper


def test_an_image_name_is_asked_for_by_name_only(
        counted: tuple[Cloud, CountingConnection], demo_conn: Connection) -> None:
    cloud, conn = counted
    cirros = demo_conn.image.find_image("cirros", ignore_missing=False)
    assert image_id(cloud, "cirros") == cirros.id
    assert conn.image.calls == ["images"]


def test_an_image_id_is_asked_for_as_an_id(
        counted: tuple[Cloud, CountingConnection], demo_conn: Connection) -> None:
    cloud, conn = counted
    cirros = demo_conn.image.find_image("cirros", ignore_missing=False)
    assert image_id(cloud, cirros.id) == cirros.id
    assert conn.image.calls == ["get_image"]


def test_a_missing_image_name_says_so_after_one_listing(
        counted: tuple[Cloud, CountingConnection]) -> None:
    cloud, conn = counted
    with pytest.raises(EntityNotFound, match=r"The Image \(no-such-image\) could not be found"):
        image_id(cloud, "no-such-image")
    assert conn.image.calls == ["images"]


def test_a_missing_uuid_is_tried_as_an_id_then_as_a_name(
        counted: tuple[Cloud, CountingConnection]) -> None:
    cloud, conn = counted
    missing = "6f1c3f0e-0000-4000-8000-000000000000"
    with pytest.raises(EntityNotFound, match=missing):
        image_id(cloud, missing)
    assert conn.image.calls == ["get_image", "images"]
    with pytest.raises(EntityNotFound, match=r"The Server \(no-such-server\) could not be found"):
        server_id(cloud, "no-such-server")
    assert conn.compute.calls == ["servers"]
