"""OS::Nova::KeyPair against the devcloud's real Nova."""

from __future__ import annotations

import json
from typing import Any

from openstack.connection import Connection
from sqlalchemy import select

from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from hearth.store.models import ResourceData
from tests.integration.cloud.conftest import (
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
from tests.integration.engine.conftest import resources

KINDS = ("keypairs",)
ADMIN = RequestContext(project_id="admin", user_id="admin", username="admin", roles=("admin",))


def template(**props: Any) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {"kp": {"type": "OS::Nova::KeyPair", "properties": props}},
        "outputs": {
            "public_key": {"value": {"get_attr": ["kp", "public_key"]}},
            "private_key": {"value": {"get_attr": ["kp", "private_key"]}},
            "ref": {"value": {"get_resource": "kp"}},
            "show": {"value": {"get_attr": ["kp", "show"]}},
        },
    }


def stored_private_key(engine: Engine, identity: dict[str, str]) -> ResourceData:
    row = resources(engine, identity)["kp"]
    with engine.core.db.session() as session:
        return session.scalars(select(ResourceData).where(
            ResourceData.resource_id == row.id, ResourceData.key == "private_key")).one()


def test_generated_keypair_then_replaced_by_a_given_public_key(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("kp")
    stack = create(cloud_engine, "kp", template(name=name, save_private_key=True, type="ssh"))
    assert physical_id(cloud_engine, stack, "kp") == name
    key = demo_conn.compute.get_keypair(name)
    assert key.type == "ssh"
    out = outputs(cloud_engine, stack)
    # The generated private key is given once by Nova: the stack kept it, hidden.
    assert out["public_key"] == key.public_key
    assert out["private_key"].startswith("-----BEGIN")
    assert out["ref"] == name
    assert out["show"]["name"] == name and out["show"].get("private_key") is None
    stored = stored_private_key(cloud_engine, stack)
    assert stored.redact and out["private_key"] not in (stored.value or "")

    assert action(cloud_engine, stack, "check")[:2] == ("CHECK", "COMPLETE")

    # No property updates in place: a new name (and a given public key) replaces the pair.
    new_name = unique("kp2")
    state = update(cloud_engine, stack, template(name=new_name, public_key=key.public_key))
    assert state[:2] == ("UPDATE", "COMPLETE"), state
    assert physical_id(cloud_engine, stack, "kp") == new_name
    assert demo_conn.compute.find_keypair(name) is None
    replaced = demo_conn.compute.get_keypair(new_name)
    assert replaced.public_key == key.public_key
    out = outputs(cloud_engine, stack)
    # A given public key: there is no private key to give.
    assert out["public_key"] == key.public_key and out["private_key"] == ""

    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_private_key_is_not_kept_unless_asked(cloud_engine: Engine,
                                              demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    stack = create(cloud_engine, "kp-nosave", template(name=unique("kp")))
    assert outputs(cloud_engine, stack)["private_key"] == ""
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_check_fails_and_delete_succeeds_when_the_key_is_gone(
    cloud_engine: Engine, demo_conn: Connection
) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("kp")
    stack = create(cloud_engine, "kp-gone", template(name=name))
    demo_conn.compute.delete_keypair(name)
    checked = action(cloud_engine, stack, "check")
    assert checked[:2] == ("CHECK", "FAILED") and "NotFound" in checked[2], checked
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_duplicate_name_fails_with_novas_conflict(cloud_engine: Engine,
                                                  demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("kp")
    first = create(cloud_engine, "kp-a", template(name=name))
    second = create(cloud_engine, "kp-b", template(name=name))
    state = resources(cloud_engine, second)["kp"]
    assert state.status == "FAILED"
    assert "Conflict" in (state.status_reason or ""), state.status_reason
    # Deleting the failed stack leaves the other stack's key pair alone.
    assert delete(cloud_engine, second)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.compute.find_keypair(name) is not None
    assert delete(cloud_engine, first)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_private_key_is_not_cached_in_the_clear(cloud_engine: Engine,
                                                demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    plain = template(name=unique("kp"), save_private_key=True)
    plain["outputs"] = {"public_key": {"value": {"get_attr": ["kp", "public_key"]}}}
    stack = create(cloud_engine, "kp-cache", plain)
    row = resources(cloud_engine, stack)["kp"]
    # Kept (encrypted) as resource data, but not among the cached attributes.
    assert stored_private_key(cloud_engine, stack).redact
    assert "PRIVATE KEY" not in json.dumps(row.attr_data)
    assert delete(cloud_engine, stack)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)


def test_admin_adds_a_key_pair_to_another_user(admin_cloud_engine: Engine,
                                               demo_conn: Connection) -> None:
    before = inventory(demo_conn, KINDS)
    name = unique("kp-user")
    public = demo_conn.compute.create_keypair(name=unique("kp-src"))
    demo_conn.compute.delete_keypair(public.name)
    stack = create(admin_cloud_engine, "kp-user",
                   template(name=name, user="demo", public_key=public.public_key), ctx=ADMIN)
    assert state(admin_cloud_engine, stack)[:2] == ("CREATE", "COMPLETE")
    # The pair is demo's, not admin's.
    assert demo_conn.compute.get_keypair(name).public_key == public.public_key
    assert outputs(admin_cloud_engine, stack, ADMIN)["public_key"] == public.public_key
    assert action(admin_cloud_engine, stack, "check", ADMIN)[:2] == ("CHECK", "COMPLETE")
    assert delete(admin_cloud_engine, stack, ADMIN)[:2] == ("DELETE", "COMPLETE")
    assert demo_conn.compute.find_keypair(name) is None
    assert_nothing_left(demo_conn, before)
