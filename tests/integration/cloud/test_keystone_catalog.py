"""OS::Keystone::Region, Service and Endpoint against the devcloud's real Keystone.

Everything here carries the test's unique prefix, including the service type, so that the
devcloud's own catalog entries (and every other client's view of the catalog) stay as they
are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openstack.connection import Connection

from hearth.engine.engine import Engine
from tests.integration.cloud.keystone_support import (
    action,
    assert_none_named,
    cleanup,
    create,
    delete,
    outputs,
    physical_id,
    prefix,
    update,
)


@pytest.fixture
def mark(admin_conn: Connection) -> Iterator[str]:
    value = prefix("catalog")
    yield value
    cleanup(admin_conn, value, ("endpoints", "services", "regions"))


def region_named(conn: Connection, region_id: str) -> Any:
    """The region, or None (openstacksdk does not quote ids, and these hold a "%")."""
    found = [r for r in conn.identity.regions() if r.id == region_id]
    return found[0] if found else None


def region_template(mark: str, **props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "parent": {"type": "OS::Keystone::Region",
                       "properties": {"id": f"{mark}-parent"}},
            "region": {"type": "OS::Keystone::Region", "properties": props},
        },
        "outputs": {"ref": {"value": {"get_resource": "region"}},
                    "show": {"value": {"get_attr": ["region", "show"]}}},
    }


def test_region_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                          mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-region", region_template(
        mark, id=f"{mark} one", description=f"{mark} first",
        parent_region={"get_resource": "parent"}))
    # As Heat: the id is URL-encoded.
    region_id = physical_id(engine, stack, "region")
    assert region_id == f"{mark}%20one"
    region = region_named(admin_conn, region_id)
    assert (region.description, region.parent_region_id) == (f"{mark} first", f"{mark}-parent")
    out = outputs(engine, stack)
    assert out["ref"] == region_id and out["show"]["parent_region_id"] == f"{mark}-parent"

    # In place: description, enabled, and out of its parent.
    state = update(engine, stack, region_template(mark, id=f"{mark} one",
                                                  description=f"{mark} second",
                                                  enabled=False))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "region") == region_id
    region = region_named(admin_conn, region_id)
    assert (region.description, region.parent_region_id) == (f"{mark} second", None)
    assert outputs(engine, stack)["show"]["enabled"] is False

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # Replacement: the id cannot change in place.
    state = update(engine, stack, region_template(mark, id=f"{mark}-two",
                                                  parent_region=f"{mark}-parent"))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(engine, stack, "region") == f"{mark}-two"
    assert region_named(admin_conn, region_id) is None
    assert admin_conn.identity.get_region(f"{mark}-two").parent_region_id == f"{mark}-parent"

    assert delete(engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_none_named(admin_conn, mark, ("regions",))


def catalog_template(mark: str, service: dict[str, Any],
                     endpoint: dict[str, Any]) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "r1": {"type": "OS::Keystone::Region", "properties": {"id": f"{mark}-r1"}},
            "r2": {"type": "OS::Keystone::Region", "properties": {"id": f"{mark}-r2"}},
            "service": {"type": "OS::Keystone::Service", "properties": service},
            "other": {"type": "OS::Keystone::Service",
                      "properties": {"name": f"{mark}-other", "type": f"{mark}-other"}},
            "endpoint": {"type": "OS::Keystone::Endpoint", "properties": endpoint},
        },
        "outputs": {"endpoint": {"value": {"get_attr": ["endpoint", "show"]}}},
    }


def test_service_and_endpoint_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                                        mark: str) -> None:
    engine = admin_cloud_engine
    stack = create(engine, "ks-catalog", catalog_template(
        mark,
        {"name": f"{mark}-s", "type": f"{mark}-type", "description": "first"},
        {"service": {"get_resource": "service"}, "region": {"get_resource": "r1"},
         "interface": "public", "url": f"http://{mark}.example/v1", "name": f"{mark}-e"},
    ))
    ids = {name: physical_id(engine, stack, name)
           for name in ("service", "other", "endpoint")}
    service = admin_conn.identity.get_service(ids["service"])
    assert (service.name, service.type, service.description, service.is_enabled) == (
        f"{mark}-s", f"{mark}-type", "first", True)
    endpoint = admin_conn.identity.get_endpoint(ids["endpoint"])
    assert (endpoint.service_id, endpoint.region_id, endpoint.interface, endpoint.url,
            endpoint.is_enabled) == (ids["service"], f"{mark}-r1", "public",
                                     f"http://{mark}.example/v1", True)
    shown = outputs(engine, stack)["endpoint"]
    assert (shown["id"], shown["name"]) == (ids["endpoint"], f"{mark}-e")

    # In place: every property of both (the endpoint moves to another service and region).
    state = update(engine, stack, catalog_template(
        mark,
        {"name": f"{mark}-s2", "type": f"{mark}-type2", "description": "second",
         "enabled": False},
        # The service by name; the region by reference, so that it outlives the endpoint
        # when the stack is deleted (Keystone keeps a region that has endpoints).
        {"service": f"{mark}-other", "region": {"get_resource": "r2"}, "interface": "internal",
         "url": f"http://{mark}.example/v2", "name": f"{mark}-e2", "enabled": False},
    ))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert {name: physical_id(engine, stack, name) for name in ids} == ids
    service = admin_conn.identity.get_service(ids["service"])
    assert (service.name, service.type, service.description, service.is_enabled) == (
        f"{mark}-s2", f"{mark}-type2", "second", False)
    endpoint = admin_conn.identity.get_endpoint(ids["endpoint"])
    assert (endpoint.service_id, endpoint.region_id, endpoint.interface, endpoint.url,
            endpoint.is_enabled) == (ids["other"], f"{mark}-r2", "internal",
                                     f"http://{mark}.example/v2", False)
    assert outputs(engine, stack)["endpoint"]["name"] == f"{mark}-e2"

    assert action(engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    state = delete(engine, stack)
    assert state[:2] == ("DELETE", "COMPLETE"), state
    assert admin_conn.identity.find_endpoint(ids["endpoint"]) is None
    assert_none_named(admin_conn, mark, ("services", "endpoints", "regions"))
