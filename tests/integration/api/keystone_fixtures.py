"""A real Keystone for the API tests: reachability, test users, and a keystone-mode server.

``keystone`` makes sure Keystone answers on ``KEYSTONE_URL``: it uses a running one, else
starts the shared one with ``start-keystone.sh`` (about a minute the first time), else skips
the test with the reason; under CI (``CI=true``) a missing Keystone fails the run instead.

``keystone_users`` adds (idempotently, as admin through the v3 REST API) what the seed of
``start-keystone.sh`` lacks: project ``hearth-iso-b`` with ``hearth-iso-b-user`` (member) and
``hearth-reader``, who has only ``reader`` in project ``demo``.

``keystone_server`` is ``hearth serve`` with ``auth_strategy = keystone``: keystonemiddleware
registers the ``[keystone_authtoken]`` options itself when the app is built, so they come from
a config file rather than from overrides.

Test modules import the fixtures they use from here (``pytest_plugins`` is only honoured in
the root conftest).
"""

from __future__ import annotations

import configparser
import fcntl
import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from hearth.cli.serve import RunningServer, serving
from hearth.common.config import load_config

KEYSTONE_URL = "http://127.0.0.1:5000/v3"
REPO_ROOT = Path(__file__).resolve().parents[3]
START_SCRIPT = REPO_ROOT / ".." / "shared" / "tools" / "keystone" / "start-keystone.sh"
START_TIMEOUT = 600

# The seed of start-keystone.sh (its defaults).
ADMIN = ("admin", "secret", "admin")
DEMO = ("demo", "demopass", "demo")
SERVICE = ("heat", "heatpass", "service")
# Added here.
ISO_B_PROJECT = "hearth-iso-b"
ISO_B = ("hearth-iso-b-user", "hearth-iso-b-pass", ISO_B_PROJECT)
READER = ("hearth-reader", "hearth-reader-pass", "demo")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def _answers() -> str | None:
    """None when Keystone answers, else why not."""
    try:
        resp = requests.get(KEYSTONE_URL, timeout=3)
    except requests.RequestException as exc:
        return f"{KEYSTONE_URL}: {exc}"
    return None if resp.status_code == 200 else f"{KEYSTONE_URL} answered {resp.status_code}"


def _start_keystone(script: Path) -> str | None:
    """Run start-keystone.sh once (a lock keeps parallel test workers from racing)."""
    # The devcloud's Keystone home: whichever of the two starts first, the other finds the
    # Keystone on port 5000 to be its own (start-devcloud.sh refuses a foreign one).
    home = Path(
        os.environ.get("KEYSTONE_HOME")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "hearth-devcloud" / "keystone"
    )
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".hearth-tests.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _answers() is None:  # another worker started it meanwhile
            return None
        env = {**os.environ, "KEYSTONE_THREADS": "1", "KEYSTONE_HOME": str(home)}
        try:
            done = subprocess.run(
                ["bash", str(script)], env=env, capture_output=True, text=True,
                timeout=START_TIMEOUT, check=False,
            )
        except subprocess.TimeoutExpired:
            return f"{script} did not finish within {START_TIMEOUT}s"
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        return f"{script} failed ({done.returncode}): {tail}"
    return _answers()


def password_session(user: str, password: str, project: str) -> ks_session.Session:
    """A keystoneauth session that authenticates (lazily) with a password."""
    auth = v3.Password(
        auth_url=KEYSTONE_URL, username=user, password=password, project_name=project,
        user_domain_id="default", project_domain_id="default",
    )
    return ks_session.Session(auth=auth)


def token_of(sess: ks_session.Session) -> str:
    """The session's token (authenticating now if it has none yet)."""
    token = sess.get_token()
    assert token, "Keystone issued no token"
    return str(token)


def roles_of(sess: ks_session.Session) -> list[str]:
    assert sess.auth is not None
    return list(sess.auth.get_access(sess).role_names)  # type: ignore[attr-defined]


@dataclass
class Keystone:
    """The running Keystone, with an admin session for its v3 REST API."""

    url: str
    admin: ks_session.Session

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.admin.request(path, method, endpoint_override=self.url, **kwargs)

    def get(self, path: str, key: str, **params: str) -> list[dict[str, Any]]:
        return list(self._call("GET", path, params=params).json()[key])

    def create(self, path: str, key: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST, or (another test worker won the race: 409) the one that now exists."""
        resp = self._call("POST", path, json={key: body}, raise_exc=False)
        if resp.status_code == 409:
            return self.get(path, key + "s", name=body["name"], domain_id="default")[0]
        resp.raise_for_status()
        return dict(resp.json()[key])

    def project(self, name: str) -> dict[str, Any]:
        found = self.get("/projects", "projects", name=name, domain_id="default")
        return found[0] if found else self.create(
            "/projects", "project", {"name": name, "domain_id": "default", "description": name}
        )

    def user(self, name: str, password: str, project: dict[str, Any]) -> dict[str, Any]:
        found = self.get("/users", "users", name=name, domain_id="default")
        if found:
            return found[0]
        return self.create("/users", "user", {
            "name": name, "password": password, "domain_id": "default",
            "default_project_id": project["id"], "enabled": True,
        })

    def grant(self, project: dict[str, Any], user: dict[str, Any], role_name: str) -> None:
        role = self.get("/roles", "roles", name=role_name)[0]
        self._call("PUT", f"/projects/{project['id']}/users/{user['id']}/roles/{role['id']}")

    def revoke_token(self, token: str) -> None:
        self._call("DELETE", "/auth/tokens", headers={"X-Subject-Token": token})

    def token_is_valid(self, token: str) -> bool:
        resp = self._call(
            "HEAD", "/auth/tokens", headers={"X-Subject-Token": token}, raise_exc=False
        )
        return bool(resp.status_code == 200)


@pytest.fixture(scope="session")
def keystone() -> Keystone:
    problem = _answers()
    if problem is not None:
        script = START_SCRIPT.resolve()
        if not script.is_file():
            _unavailable(f"Keystone not reachable: {problem}; no {script} to start one")
        started = _start_keystone(script)
        if started is not None:
            _unavailable(f"Keystone not reachable: {started}")
    return Keystone(url=KEYSTONE_URL, admin=password_session(*ADMIN))


@dataclass(frozen=True)
class KeystoneUsers:
    demo_project_id: str
    admin_project_id: str
    iso_b_project_id: str

    @staticmethod
    def session(who: tuple[str, str, str]) -> ks_session.Session:
        return password_session(*who)


@pytest.fixture(scope="session")
def keystone_users(keystone: Keystone) -> KeystoneUsers:
    demo = keystone.project(DEMO[2])
    iso_b = keystone.project(ISO_B_PROJECT)
    b_user = keystone.user(ISO_B[0], ISO_B[1], iso_b)
    keystone.grant(iso_b, b_user, "member")
    reader = keystone.user(READER[0], READER[1], demo)
    keystone.grant(demo, reader, "reader")
    for who, user in ((ISO_B, b_user), (READER, reader)):
        # A user left over with another password gets ours back.
        probe = password_session(*who)
        try:
            probe.get_token()
        except Exception:
            keystone._call("PATCH", f"/users/{user['id']}", json={"user": {"password": who[1]}})
    admin_project = keystone.project(ADMIN[2])
    return KeystoneUsers(
        demo_project_id=demo["id"], admin_project_id=admin_project["id"],
        iso_b_project_id=iso_b["id"],
    )


AUTHTOKEN_CONF = f"""\
[api]
auth_strategy = keystone

[keystone_authtoken]
www_authenticate_uri = {KEYSTONE_URL}
auth_url = {KEYSTONE_URL}
auth_type = password
username = {SERVICE[0]}
password = {SERVICE[1]}
project_name = {SERVICE[2]}
user_domain_name = Default
project_domain_name = Default
"""


def keystone_server_conf(tmp: Path, *, trustee: bool = False,
                         stack_domain: bool = False) -> Any:
    """The test server's config (as ``server_conf`` makes it) with keystone auth; with
    ``trustee``, Hearth's service user (trusts, the CFN API's ec2tokens checks); with
    ``stack_domain``, Heat's stack user domain."""
    conf_file = tmp / "hearth.conf"
    conf_file.write_text(AUTHTOKEN_CONF)
    overrides: list[tuple[str, str | None, object]] = [
        ("data_dir", None, str(tmp / "data")),
        ("bind_port", "api", 0),
        ("bind", "cfn_api", "127.0.0.1:0"),
        ("heartbeat_interval", None, 0.5),
        ("enable_stack_abandon", None, True),
        ("enable_stack_adopt", None, True),
        ("hidden_stack_tags", None, ["hidden"]),
    ]
    if trustee:
        overrides += [("auth_url", "trustee", KEYSTONE_URL), ("username", "trustee", SERVICE[0]),
                      ("password", "trustee", SERVICE[1])]
    if stack_domain:
        overrides += [(name, None, value) for name, value in stack_domain_options().items()]
    return load_config([conf_file], overrides)


def demo_heat(server_url: str) -> Any:
    """The demo user's heatclient against a test server."""
    from heatclient import client as heat_client

    session = password_session(*DEMO)
    return heat_client.Client("1", endpoint=f"{server_url}/v1/{session.get_project_id()}",
                              token=session.get_token())


@pytest.fixture(scope="session")
def keystone_server(
    keystone: Keystone, keystone_users: KeystoneUsers, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningServer]:
    with serving(keystone_server_conf(tmp_path_factory.mktemp("hearth-keystone"))) as running:
        yield running


@contextmanager
def own_region(keystone: Keystone, prefix: str) -> Iterator[str]:
    """A Keystone region of the test's own (``<prefix>-<random>``); it and its endpoints are
    removed at the end, so the shared catalog is left as it was."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    keystone._call("POST", "/regions", json={"region": {"id": name}})
    try:
        yield name
    finally:
        for endpoint in keystone.get("/endpoints", "endpoints", region_id=name):
            keystone._call("DELETE", f"/endpoints/{endpoint['id']}", raise_exc=False)
        keystone._call("DELETE", f"/regions/{name}", raise_exc=False)


def stack_domain_options() -> dict[str, str]:
    """What start-keystone.sh wrote for Heat's stack user domain (its seed's values when the
    file is missing)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    home = Path(os.environ.get("KEYSTONE_HOME") or cache / "hearth-devcloud" / "keystone")
    found = {"stack_user_domain_name": "heat", "stack_domain_admin": "heat_domain_admin",
             "stack_domain_admin_password": "domainpass"}
    parser = configparser.ConfigParser()
    if parser.read(home / "stack_domain.conf"):
        found.update(parser.defaults())
    return found

