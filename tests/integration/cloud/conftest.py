"""The devcloud (real Keystone, Nova, Neutron, Glance, Cinder on 127.0.0.1) for the tests of
OpenStack resource types, and an engine that uses it.

``devcloud`` makes sure the cloud answers: it uses a running one, else starts it with
``../shared/tools/devcloud/start-devcloud.sh`` (about 90 s once installed), else skips with the
reason; under CI (``CI=true``) a missing cloud fails the run instead.

``cloud_engine`` is an engine on its own SQLite database whose stacks act as the ``demo``
user (``[clients] cloud = devcloud-demo``); ``admin_cloud_engine`` acts as ``admin`` (for the
admin-only types). ``inventory`` lists what a project has in the cloud, so a test can check
after a delete that nothing it made is left (``assert_nothing_left``).
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from openstack.connection import Connection
from sqlalchemy import select

from bench.cloud_project import connect
from hearth.common.config import load_config
from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from hearth.store.models import Stack
from tests.devcloud_files import CLOUDS_FILE, HOME
from tests.integration.conftest import DatabaseFactory
from tests.integration.engine.conftest import KEY, resources, wait_state

REPO_ROOT = Path(__file__).resolve().parents[3]
START_SCRIPT = REPO_ROOT / ".." / "shared" / "tools" / "devcloud" / "start-devcloud.sh"
START_TIMEOUT = 900

# What answers when the devcloud is up (each API's version document).
ENDPOINTS = {
    "keystone": "http://127.0.0.1:5000/v3",
    "nova": "http://127.0.0.1:8774/",
    "neutron": "http://127.0.0.1:9696/",
    "glance": "http://127.0.0.1:9292/",
    "cinder": "http://127.0.0.1:8776/",
}

CTX = RequestContext(project_id="demo", user_id="demo", username="demo")
# For admin-only types (Heat's policy refuses them to other callers).
ADMIN_CTX = RequestContext(project_id="admin", user_id="admin", username="admin",
                           roles=("admin",), is_admin=True)
STACK_TIMEOUT = 180.0


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of the cloud in one xdist worker (run-tests uses ``--dist loadgroup``):
    they share the demo project, and a test's check that nothing is left must not see
    another test's objects."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.xdist_group("devcloud"))


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def _problem() -> str | None:
    """None when every service of the devcloud answers, else what does not."""
    for name, url in ENDPOINTS.items():
        try:
            resp = requests.get(url, timeout=5)
        except requests.RequestException as exc:
            return f"{name} at {url}: {exc}"
        if resp.status_code >= 500:
            return f"{name} at {url} answered {resp.status_code}"
    if not CLOUDS_FILE.is_file():
        return f"{CLOUDS_FILE} is missing"
    return None


def _start() -> str | None:
    script = START_SCRIPT.resolve()
    if not script.is_file():
        return f"no {script} to start it"
    HOME.mkdir(parents=True, exist_ok=True)
    with open(HOME / ".hearth-tests.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _problem() is None:  # another test worker started it meanwhile
            return None
        try:
            done = subprocess.run(
                ["bash", str(script)], capture_output=True, text=True,
                timeout=START_TIMEOUT, check=False,
            )
        except subprocess.TimeoutExpired:
            return f"{script} did not finish within {START_TIMEOUT}s"
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        return f"{script} failed ({done.returncode}): {tail}"
    return _problem()


@dataclass(frozen=True)
class DevCloud:
    clouds_file: Path

    def connect(self, cloud: str = "devcloud-demo") -> Connection:
        return connect(cloud, self.clouds_file)


@pytest.fixture(scope="session")
def devcloud() -> DevCloud:
    problem = _problem()
    if problem is not None:
        started = _start()
        if started is not None:
            _unavailable(f"The devcloud is not running ({problem}) and could not be "
                         f"started: {started}")
    return DevCloud(CLOUDS_FILE)


@pytest.fixture(scope="session")
def demo_conn(devcloud: DevCloud) -> Connection:
    return devcloud.connect("devcloud-demo")


@pytest.fixture(scope="session")
def admin_conn(devcloud: DevCloud) -> Connection:
    return devcloud.connect("devcloud-admin")


def _configured(url: str, cloud: str, **overrides: Any) -> Engine:
    settings: dict[str, Any] = {
        "auth_encryption_key": KEY,
        "heartbeat_interval": 0.5,
        "error_wait_time": 5,
    }
    settings.update(overrides)
    conf = load_config(
        overrides=[("connection", "database", url),
                   ("cloud", "clients", cloud),
                   ("clouds_file", "clients", str(CLOUDS_FILE))]
        + [(k, None, v) for k, v in settings.items()]
    )
    engine = Engine.from_config(conf)
    engine.start()
    return engine


@pytest.fixture
def cloud_engine_factory(
    devcloud: DevCloud, database_factory: DatabaseFactory
) -> Iterator[Callable[..., Engine]]:
    engines: list[Engine] = []

    def factory(cloud: str = "devcloud-demo", **overrides: Any) -> Engine:
        engine = _configured(database_factory.new("sqlite"), cloud, **overrides)
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        delete_left_stacks(engine)
        engine.stop()


def delete_left_stacks(engine: Engine) -> None:
    """Delete the stacks a test left (it failed before its delete: a create stuck on the cloud,
    an assertion), so that the tests after it find the cloud as the run found it. Best
    effort: the test has failed already, and says why."""
    with engine.core.db.session(readonly=True) as session:
        left = session.execute(
            select(Stack.id, Stack.name, Stack.tenant)
            .where(Stack.deleted_at.is_(None), Stack.owner_id.is_(None))
        ).all()
    for row in left:
        ctx = RequestContext(project_id=row.tenant or "", user_id="cleanup",
                             username="cleanup", roles=("admin",), is_admin=True)
        identity = {"tenant": row.tenant or "", "stack_name": row.name, "stack_id": row.id,
                    "path": ""}
        try:
            engine.delete_stack(ctx, identity)  # (a delete stops an action in progress)
            wait_state(engine, identity, timeout=STACK_TIMEOUT,
                       until=lambda action, status: action == "DELETE"
                       and status != "IN_PROGRESS")
        except Exception as exc:  # reported; the test's own failure stands
            warnings.warn(f"stack {row.name} left by a test was not deleted: {exc}",
                          stacklevel=1)


@pytest.fixture
def cloud_engine(cloud_engine_factory: Callable[..., Engine]) -> Engine:
    return cloud_engine_factory("devcloud-demo")


@pytest.fixture
def admin_cloud_engine(cloud_engine_factory: Callable[..., Engine]) -> Engine:
    return cloud_engine_factory("devcloud-admin")


# --- driving stacks ----------------------------------------------------------------------

def create(engine: Engine, name: str, template: dict[str, Any],
           params: dict[str, Any] | None = None,
           ctx: RequestContext = CTX) -> dict[str, str]:
    """Create a stack and wait for its end; returns its identity."""
    identity = engine.create_stack(ctx, unique(name), template, params or {},
                                   args={"disable_rollback": True})
    wait_state(engine, identity, timeout=STACK_TIMEOUT)
    return identity


def update(engine: Engine, identity: dict[str, str], template: dict[str, Any],
           params: dict[str, Any] | None = None,
           ctx: RequestContext = CTX) -> tuple[str, str, str]:
    engine.update_stack(ctx, identity, template, params or {},
                        args={"disable_rollback": True})
    return wait_state(engine, identity, timeout=STACK_TIMEOUT)


def delete(engine: Engine, identity: dict[str, str],
           ctx: RequestContext = CTX) -> tuple[str, str, str]:
    engine.delete_stack(ctx, identity)
    return wait_state(engine, identity, timeout=STACK_TIMEOUT)


def action(engine: Engine, identity: dict[str, str], what: str,
           ctx: RequestContext = CTX) -> tuple[str, str, str]:
    """suspend / resume / check: run it and wait for its end."""
    getattr(engine, f"stack_{what}")(ctx, identity)
    return wait_state(engine, identity, timeout=STACK_TIMEOUT)


def state(engine: Engine, identity: dict[str, str]) -> tuple[str, str, str]:
    return wait_state(engine, identity, timeout=STACK_TIMEOUT)


def physical_id(engine: Engine, identity: dict[str, str], name: str) -> str:
    row = resources(engine, identity)[name]
    assert row.physical_resource_id, f"{name} has no physical id ({row.status_reason})"
    return str(row.physical_resource_id)


def outputs(engine: Engine, identity: dict[str, str], ctx: RequestContext = CTX) -> dict[str, Any]:
    shown = engine.show_stack(ctx, identity)[0]
    return {o["output_key"]: o.get("output_value") for o in shown.get("outputs") or []}


def unique(prefix: str) -> str:
    """A stack name no other test (or worker) uses at the same time."""
    return f"{prefix}-{os.getpid()}-{time.monotonic_ns() % 10**9}"


# --- what is left in the cloud -----------------------------------------------------------

# kind -> how to list it (ids) for one project's connection
LISTERS: dict[str, Callable[[Connection], list[str]]] = {
    "networks": lambda c: [n.id for n in c.network.networks(project_id=c.current_project_id)],
    "subnets": lambda c: [s.id for s in c.network.subnets(project_id=c.current_project_id)],
    "ports": lambda c: [p.id for p in c.network.ports(project_id=c.current_project_id)],
    "routers": lambda c: [r.id for r in c.network.routers(project_id=c.current_project_id)],
    "floatingips": lambda c: [
        f.id for f in c.network.ips(project_id=c.current_project_id)
    ],
    "security_groups": lambda c: [
        g.id for g in c.network.security_groups(project_id=c.current_project_id)
    ],
    "servers": lambda c: [s.id for s in c.compute.servers()],
    "keypairs": lambda c: [k.name for k in c.compute.keypairs()],
    "server_groups": lambda c: [g.id for g in c.compute.server_groups()],
    "volumes": lambda c: [v.id for v in c.block_storage.volumes()],
    "snapshots": lambda c: [s.id for s in c.block_storage.snapshots()],
    "images": lambda c: [i.id for i in c.image.images(owner=c.current_project_id)],
    "address_scopes": lambda c: [
        a.id for a in c.network.address_scopes(project_id=c.current_project_id)
    ],
    "subnet_pools": lambda c: [
        p.id for p in c.network.subnet_pools(project_id=c.current_project_id)
    ],
}


def inventory(conn: Connection, kinds: tuple[str, ...] | None = None) -> dict[str, set[str]]:
    """What the connection's project has, by kind."""
    return {kind: set(LISTERS[kind](conn)) for kind in (kinds or tuple(LISTERS))}


def assert_nothing_left(conn: Connection, before: dict[str, set[str]],
                        timeout: float = 60.0) -> None:
    """Every object made since ``before`` is gone (waits a little for async deletes)."""
    deadline = time.monotonic() + timeout
    while True:
        after = inventory(conn, tuple(before))
        left = {kind: sorted(after[kind] - before[kind]) for kind in before}
        left = {kind: ids for kind, ids in left.items() if ids}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    assert left == {}, f"left in the cloud after delete: {left}"
