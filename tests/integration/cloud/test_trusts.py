"""Heat's deferred auth with Keystone trusts, against the devcloud's real Keystone and Neutron.

With ``auth_strategy = keystone`` a stack that uses another service gets a trust from its
creator to Hearth's service user when it is created; its later actions authenticate through
that trust, so they finish after the caller's token is revoked; the trust goes with the stack.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from openstack.connection import Connection

from hearth.common.config import load_config
from hearth.common.context import RequestContext
from hearth.common.errors import ResourceTypeUnavailable
from hearth.engine.engine import Engine
from tests.integration.cloud.conftest import (
    DevCloud,
    assert_nothing_left,
    inventory,
    physical_id,
    unique,
)
from tests.integration.conftest import DatabaseFactory
from tests.integration.engine.conftest import KEY, wait_state

AUTH_URL = "http://127.0.0.1:5000/v3"
NET = {
    "heat_template_version": "2018-08-31",
    "resources": {"net": {"type": "OS::Neutron::Net", "properties": {"tags": ["trust"]}}},
}
NONE_ONLY = {
    "heat_template_version": "2018-08-31",
    "resources": {"nothing": {"type": "OS::Heat::None"}},
}


def demo_context() -> tuple[RequestContext, str]:
    """A request of user demo with a fresh token of its own (and that token)."""
    auth = v3.Password(auth_url=AUTH_URL, username="demo", password="demopass",
                       project_name="demo", user_domain_id="default",
                       project_domain_id="default")
    sess = ks_session.Session(auth=auth)
    access = auth.get_access(sess)
    ctx = RequestContext(
        project_id=access.project_id, user_id=access.user_id, username="demo",
        roles=tuple(access.role_names), auth_token=access.auth_token,
    )
    return ctx, str(access.auth_token)


@pytest.fixture
def keystone_engine(devcloud: DevCloud, database_factory: DatabaseFactory) -> Iterator[Engine]:
    settings: dict[str, Any] = {"auth_encryption_key": KEY, "heartbeat_interval": 0.5}
    conf = load_config(overrides=[
        ("connection", "database", database_factory.new("sqlite")),
        ("auth_strategy", "api", "keystone"),
        ("auth_url", "trustee", AUTH_URL),
        ("username", "trustee", "heat"),
        ("password", "trustee", "heatpass"),
    ] + [(k, None, v) for k, v in settings.items()])
    engine = Engine.from_config(conf)
    engine.start()
    yield engine
    engine.stop()


def revoke(admin: Connection, token: str) -> None:
    admin.identity.delete("/auth/tokens", headers={"X-Subject-Token": token})
    check = admin.identity.head("/auth/tokens", headers={"X-Subject-Token": token})
    assert check.status_code == 404, "the token is still valid"


def trusts_of(admin: Connection, user_id: str) -> list[dict[str, Any]]:
    found = admin.identity.get("/OS-TRUST/trusts", params={"trustor_user_id": user_id})
    return list(found.json()["trusts"])


def test_update_and_delete_run_on_the_trust_after_the_token_is_revoked(
    keystone_engine: Engine, demo_conn: Connection, admin_conn: Connection
) -> None:
    before = inventory(demo_conn, ("networks",))
    ctx, token = demo_context()
    trusts_before = {t["id"] for t in trusts_of(admin_conn, ctx.user_id)}
    stack = keystone_engine.create_stack(ctx, unique("trust"), NET, {})
    # The caller's token dies as soon as the request is answered.
    revoke(admin_conn, token)
    assert wait_state(keystone_engine, stack, timeout=120)[:2] == ("CREATE", "COMPLETE")
    net_id = physical_id(keystone_engine, stack, "net")
    net = demo_conn.network.get_network(net_id)
    # Made as the creator (the trust impersonates): in the creator's project.
    assert net.project_id == ctx.project_id
    new_trusts = [t for t in trusts_of(admin_conn, ctx.user_id) if t["id"] not in trusts_before]
    assert len(new_trusts) == 1
    assert new_trusts[0]["impersonation"] is True

    # An update asked with a new token, revoked at once: the update runs on the trust.
    ctx2, token2 = demo_context()
    keystone_engine.update_stack(ctx2, stack, {
        **NET, "resources": {"net": {"type": "OS::Neutron::Net",
                                     "properties": {"tags": ["trust", "updated"]}}},
    }, {})
    revoke(admin_conn, token2)
    assert wait_state(keystone_engine, stack, timeout=120)[:2] == ("UPDATE", "COMPLETE")
    assert sorted(demo_conn.network.get_network(net_id).tags) == ["trust", "updated"]

    ctx3, token3 = demo_context()
    keystone_engine.delete_stack(ctx3, stack)
    revoke(admin_conn, token3)
    assert wait_state(keystone_engine, stack, timeout=120)[:2] == ("DELETE", "COMPLETE")
    assert_nothing_left(demo_conn, before)
    # The trust went with the stack.
    assert {t["id"] for t in trusts_of(admin_conn, ctx.user_id)} == trusts_before


def test_stacks_of_heat_types_only_make_no_trust(
    keystone_engine: Engine, admin_conn: Connection
) -> None:
    ctx, _ = demo_context()
    before = {t["id"] for t in trusts_of(admin_conn, ctx.user_id)}
    stack = keystone_engine.create_stack(ctx, unique("no-trust"), NONE_ONLY, {})
    assert wait_state(keystone_engine, stack)[:2] == ("CREATE", "COMPLETE")
    assert {t["id"] for t in trusts_of(admin_conn, ctx.user_id)} == before
    keystone_engine.delete_stack(ctx, stack)
    assert wait_state(keystone_engine, stack)[:2] == ("DELETE", "COMPLETE")


def test_a_request_without_a_token_cannot_use_other_services(keystone_engine: Engine) -> None:
    ctx, _ = demo_context()
    tokenless = RequestContext(project_id=ctx.project_id, user_id=ctx.user_id)
    with pytest.raises(ResourceTypeUnavailable, match="HEAT-E99001 Service neutron is not "
                       "available for resource type OS::Neutron::Net, reason: The request "
                       "carries no Keystone token"):
        keystone_engine.create_stack(tokenless, unique("tokenless"), NET, {})
