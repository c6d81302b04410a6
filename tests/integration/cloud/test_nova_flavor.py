"""OS::Nova::Flavor against the devcloud's real Nova (as admin: flavors are admin only)."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.connection import Connection

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    CTX,
    LISTERS,
    action,
    assert_nothing_left,
    create,
    delete,
    inventory,
    outputs,
    physical_id,
    unique,
    update,
)

# Flavors are global: every flavor, public or not, as admin sees them.
LISTERS.setdefault("flavors", lambda c: [f.id for f in c.compute.flavors(is_public=None)])
KINDS = ("flavors",)
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"flavor": {"type": "OS::Nova::Flavor", "properties": props}},
        "outputs": {
            "is_public": {"value": {"get_attr": ["flavor", "is_public"]}},
            "extra_specs": {"value": {"get_attr": ["flavor", "extra_specs"]}},
        },
    }


def access(conn: Connection, flavor_id: str) -> set[str]:
    return {a["tenant_id"] for a in conn.compute.get_flavor_access(flavor_id)}


def test_private_flavor_lifecycle(admin_cloud_engine: Engine, admin_conn: Connection,
                                  demo_conn: Connection) -> None:
    engine = admin_cloud_engine
    before = inventory(admin_conn, KINDS)
    demo_project = demo_conn.current_project_id
    admin_project = admin_conn.current_project_id
    name = unique("flavor")
    base = {"name": name, "ram": 64, "vcpus": 1, "disk": 1, "swap": 16, "ephemeral": 2,
            "rxtx_factor": 1.5, "is_public": False}
    stack = create(engine, "flavor", template(
        **base, extra_specs={"hearth:a": "1"}, tenants=["demo"]), ctx=ADMIN)
    flavor_id = physical_id(engine, stack, "flavor")
    flavor = admin_conn.compute.get_flavor(flavor_id)
    assert (flavor.name, flavor.ram, flavor.vcpus, flavor.disk, flavor.swap,
            flavor.ephemeral, flavor.is_public) == (name, 64, 1, 1, 16, 2, False)
    assert flavor.extra_specs == {"hearth:a": "1"}
    # The tenant named by the template (not the stack's own project) has access.
    assert access(admin_conn, flavor_id) == {demo_project}
    assert outputs(engine, stack, ADMIN) == {
        "is_public": False, "extra_specs": {"hearth:a": "1"}}

    # In place: extra specs replaced as a whole, access moved to another project.
    result = update(engine, stack, template(
        **base, extra_specs={"hearth:b": "2"}, tenants=[admin_project]), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    assert physical_id(engine, stack, "flavor") == flavor_id
    assert admin_conn.compute.fetch_flavor_extra_specs(flavor_id).extra_specs == {
        "hearth:b": "2"}
    assert access(admin_conn, flavor_id) == {admin_project}
    assert outputs(engine, stack, ADMIN)["extra_specs"] == {"hearth:b": "2"}

    assert action(engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")

    # Anything else replaces the flavor (the new one is made first: names are unique, so a
    # replacement needs a new name, as in Heat).
    renamed = {**base, "name": f"{name}-2", "ram": 128}
    result = update(engine, stack, template(**renamed, tenants=[admin_project]), ctx=ADMIN)
    assert result[:2] == ("UPDATE", "COMPLETE"), result
    new_id = physical_id(engine, stack, "flavor")
    assert new_id != flavor_id
    assert admin_conn.compute.find_flavor(flavor_id, ignore_missing=True) is None
    assert (admin_conn.compute.get_flavor(new_id).ram, admin_conn.compute.get_flavor(
        new_id).name) == (128, f"{name}-2")
    assert access(admin_conn, new_id) == {admin_project}

    assert delete(engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)


def test_private_flavor_without_tenants_is_shared_with_the_stacks_project(
    admin_cloud_engine: Engine, admin_conn: Connection
) -> None:
    before = inventory(admin_conn, KINDS)
    stack = create(admin_cloud_engine, "flavor-own",
                   template(ram=64, vcpus=1, is_public=False), ctx=ADMIN)
    flavor_id = physical_id(admin_cloud_engine, stack, "flavor")
    flavor = admin_conn.compute.get_flavor(flavor_id)
    # No name given: the physical resource name, as Heat does.
    assert flavor.name.startswith("flavor-own-") and "-flavor-" in flavor.name
    assert access(admin_conn, flavor_id) == {admin_conn.current_project_id}
    assert delete(admin_cloud_engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(admin_conn, before)


def test_non_admin_may_not_use_the_type(admin_cloud_engine: Engine) -> None:
    # Heat's policy: OS::Nova::Flavor is for admins; the stack is refused before anything.
    with pytest.raises(Forbidden, match="You are not authorized to use OS::Nova::Flavor"):
        admin_cloud_engine.create_stack(CTX, unique("flavor-demo"),
                                        template(ram=64, vcpus=1), {})
