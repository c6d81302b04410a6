"""Heat's stack user domain against the real Keystone: per-stack-tree projects and users that
in-instance agents act as, through ``hearth serve`` with ``auth_strategy = keystone``.

A test-only plugin type (``Test::StackUser``) makes one stack user when created and deletes it
when deleted, as the software deployment types do. Its user may read that resource's metadata
and signal the stack's resources with python-heatclient, and nothing else. Everything a test
makes in Keystone is removed again (checked, and cleaned up if a test failed half-way).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from hearth.cli.serve import RunningServer, serving
from hearth.clients.stack_domain import project_name
from hearth.engine.plugin_access.stack_users import EngineStackUsers
from tests.integration.api.keystone_fixtures import (  # noqa: F401 (fixtures used by name)
    DEMO,
    KEYSTONE_URL,
    Keystone,
    KeystoneUsers,
    keystone,
    keystone_server_conf,
    keystone_users,
    password_session,
    stack_domain_options,
)

PLUGIN = '''
import secrets

from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource

KEYS = ("user_id", "username", "password", "project_id", "auth_url")


class StackUser(Resource):
    """Makes a stack user for itself, as a server does for its agent."""

    attributes_schema = {key: AttributeSchema(key) for key in KEYS}

    def handle_create(self):
        password = secrets.token_urlsafe(18)
        made = self.context.stack_users.create_user(password)
        self.resource_id_set(made.user_id)
        for key in KEYS:
            self.data_set(key, getattr(made, key), redact=key == "password")

    def handle_signal(self, details=None):
        self.context.metadata_merge(lambda current: {**(current or {}), "signal": details})

    def handle_delete(self):
        user_id = self.data().get("user_id")
        if user_id:
            self.context.stack_users.delete_user(user_id)

    def _resolve_attribute(self, name):
        return self.data().get(name)


def resource_mapping():
    return {"Test::StackUser": StackUser}
'''

CHILD = {"heat_template_version": "2018-08-31",
         "resources": {"c": {"type": "Test::StackUser", "metadata": {"owner": "c"}}}}
TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        # a and b start together: they race for the stack's project.
        "a": {"type": "Test::StackUser", "metadata": {"owner": "a"}},
        "b": {"type": "Test::StackUser", "metadata": {"owner": "b"}},
        "child": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(CHILD)}},
    },
}


@pytest.fixture(scope="module")
def served(
    keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RunningServer]:
    tmp = tmp_path_factory.mktemp("hearth-stack-users")
    (tmp / "plugins").mkdir()
    (tmp / "plugins" / "stack_user_type.py").write_text(PLUGIN)
    conf = keystone_server_conf(tmp)
    for name, value in stack_domain_options().items():
        conf.set_override(name, value)
    conf.set_override("plugin_dirs", [str(tmp / "plugins")])
    with serving(conf) as running:
        yield running


@pytest.fixture(scope="module")
def domain_id(keystone: Keystone) -> str:  # noqa: F811
    name = stack_domain_options().get("stack_user_domain_name", "heat")
    return str(keystone.get("/domains", "domains", name=name)[0]["id"])


class Leftovers(list[str]):
    """Marks (stack names and ids); called: the stack domain's projects and users named
    with one (other tests may use the domain meanwhile: theirs are never touched)."""

    def __init__(self, keystone: Keystone, domain_id: str) -> None:  # noqa: F811
        super().__init__()
        self.keystone, self.domain_id = keystone, domain_id

    def __call__(self) -> list[tuple[str, str]]:
        return [(kind, x["id"]) for kind in ("users", "projects")
                for x in self.keystone.get(f"/{kind}", kind, domain_id=self.domain_id)
                if any(mark in x["name"] for mark in self)]


@pytest.fixture
def leftovers(keystone: Keystone, domain_id: str) -> Iterator[Leftovers]:  # noqa: F811
    """Keystone is left as it was, even when a test fails half-way."""
    found = Leftovers(keystone, domain_id)
    yield found
    for kind, item_id in found():
        keystone._call("DELETE", f"/{kind}/{item_id}", raise_exc=False)


def demo_heat(served: RunningServer, users: KeystoneUsers) -> Any:
    return heat_client.Client("1", session=password_session(*DEMO),
                              endpoint_override=f"{served.url}/v1/{users.demo_project_id}")


def agent_heat(served: RunningServer, attrs: dict[str, Any]) -> tuple[Any, list[str]]:
    """python-heatclient as the stack user (as an agent has it), and the token's roles."""
    auth = v3.Password(auth_url=attrs["auth_url"], user_id=attrs["user_id"],
                       password=attrs["password"], project_id=attrs["project_id"])
    sess = ks_session.Session(auth=auth)
    roles = list(auth.get_access(sess).role_names or [])
    return heat_client.Client("1", session=sess, endpoint_override=(
        f"{served.url}/v1/{attrs['project_id']}")), roles


def settle(hc: Any, stack_id: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            stack = hc.stacks.get(stack_id)
        except heat_exc.HTTPNotFound:
            return None
        if not stack.stack_status.endswith("_IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, f"still {stack.stack_status} after {timeout}s"
        time.sleep(0.2)


def exists(keystone: Keystone, kind: str, item_id: str) -> bool:  # noqa: F811
    return bool(keystone._call("GET", f"/{kind}/{item_id}", raise_exc=False).status_code == 200)


def test_stack_users_share_the_trees_project_act_as_agents_and_go_with_the_stack(
    served: RunningServer, keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
    domain_id: str, leftovers: Leftovers,
) -> None:
    hc = demo_heat(served, keystone_users)
    name = f"stack-users-{secrets.token_hex(3)}"
    leftovers.append(name)
    stack_id = hc.stacks.create(stack_name=name, template=TEMPLATE)["stack"]["id"]
    leftovers.append(stack_id[:20])  # project names keep 64 characters
    stack = settle(hc, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    child_id = hc.resources.get(stack_id, "child").physical_resource_id
    a, b, c = (dict(hc.resources.get(sid, res).attributes)
               for sid, res in ((stack_id, "a"), (stack_id, "b"), (child_id, "c")))

    # One project for the tree, in the stack domain, named as Heat names it; the child has it.
    project_id = a["project_id"]
    assert b["project_id"] == c["project_id"] == project_id
    assert stack.stack_user_project_id == project_id
    assert hc.stacks.get(child_id).stack_user_project_id == project_id
    project = keystone.get("/projects", "projects", domain_id=domain_id,
                           name=project_name(keystone_users.demo_project_id, stack_id))
    assert [p["id"] for p in project] == [project_id]
    assert project[0]["description"] == "Heat stack user project"
    users = {u["id"]: u for u in keystone.get("/users", "users", domain_id=domain_id)}
    role = keystone.get("/roles", "roles", name="heat_stack_user")[0]["id"]
    for res, attrs in (("a", a), ("b", b), ("c", c)):
        user = users[attrs["user_id"]]
        # Named after the resource's physical name (the child's starts with its parent's).
        assert user["name"] == attrs["username"]
        assert user["name"].startswith(f"{name}-") and f"-{res}-" in user["name"]
        assert user["default_project_id"] == project_id
        grants = keystone.get("/role_assignments", "role_assignments", **{
            "user.id": user["id"], "scope.project.id": project_id})
        assert [g["role"]["id"] for g in grants] == [role]

    # The agent of a: its own metadata (by bare stack id: the lookup redirect) and signals.
    agent, roles = agent_heat(served, a)
    assert roles == ["heat_stack_user"]
    assert agent.resources.metadata(stack_id, "a") == {"owner": "a"}
    assert agent.resources.metadata(f"{name}/{stack_id}", "a") == {"owner": "a"}
    agent.resources.signal(stack_id, "a", data={"status": "done"})
    assert hc.resources.metadata(stack_id, "a") == {"owner": "a", "signal": {"status": "done"}}
    child_agent, _ = agent_heat(served, c)
    assert child_agent.resources.metadata(child_id, "c") == {"owner": "c"}
    # ... and nothing else: another resource's metadata, lists, shows, creates.
    refused: list[Callable[[], Any]] = [
        lambda: agent.resources.metadata(stack_id, "b"),
        lambda: agent.resources.get(stack_id, "a"),
        lambda: next(agent.stacks.list()),
        lambda: agent.stacks.get(stack_id),
        lambda: agent.stacks.create(stack_name="nope", template=CHILD),
        lambda: agent.resources.list(stack_id),
    ]
    for call in refused:
        with pytest.raises(heat_exc.HTTPForbidden):
            call()

    hc.stacks.delete(stack_id)
    gone = settle(hc, stack_id)
    assert gone is None or gone.stack_status == "DELETE_COMPLETE", gone.stack_status_reason
    assert not exists(keystone, "projects", project_id)
    for attrs in (a, b, c):
        assert not exists(keystone, "users", attrs["user_id"])
    assert leftovers() == [], "the stack's delete left these in Keystone"


def test_racing_resources_end_with_one_project_and_its_users_go_with_it(
    served: RunningServer, keystone: Keystone, keystone_users: KeystoneUsers,  # noqa: F811
    domain_id: str, leftovers: Leftovers,
) -> None:
    hc = demo_heat(served, keystone_users)
    none = {"heat_template_version": "2018-08-31",
            "resources": {"n": {"type": "OS::Heat::None"}}}
    name = f"stack-users-race-{secrets.token_hex(3)}"
    leftovers.append(name)
    stack_id = hc.stacks.create(stack_name=name, template=none)["stack"]["id"]
    leftovers.append(stack_id[:20])  # project names keep 64 characters
    assert settle(hc, stack_id).stack_status == "CREATE_COMPLETE"
    core = served.engine.core
    start = threading.Barrier(6)
    got: list[Any] = []
    failed: list[BaseException] = []

    def make(number: int) -> None:
        users = EngineStackUsers(core, stack_id, keystone_users.demo_project_id,
                                 f"{name}-racer-{number}")
        start.wait()
        try:
            got.append(users.create_user(secrets.token_urlsafe(12)))
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=make, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failed == [] and len(got) == 6
    assert len({m.project_id for m in got}) == 1
    (project,) = keystone.get("/projects", "projects", domain_id=domain_id,
                              name=project_name(keystone_users.demo_project_id, stack_id))
    assert project["id"] == got[0].project_id == hc.stacks.get(stack_id).stack_user_project_id
    assert got[0].auth_url == KEYSTONE_URL

    # No resource owns these users: the project's delete takes them along.
    hc.stacks.delete(stack_id)
    settle(hc, stack_id)
    assert not exists(keystone, "projects", project["id"])
    assert [m.user_id for m in got if exists(keystone, "users", m.user_id)] == []
    assert leftovers() == [], "the stack's delete left these in Keystone"


def test_without_a_stack_user_domain_plugins_are_told_what_to_configure() -> None:
    core = SimpleNamespace(settings=SimpleNamespace(clients=SimpleNamespace(stack_domain=None)))
    why = EngineStackUsers(core, "stack", "project", "name").configured()  # type: ignore[arg-type]
    assert why is not None and "stack_user_domain_name" in why and "stack_domain_admin" in why
