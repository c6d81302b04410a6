"""SIGKILLs of engines during creates, updates and deletes, and a RabbitMQ restart during
creates, change nothing a user sees in the end.

One cluster (``hearth api``, two ``hearth engine`` processes of two workers, each worker an
engine) runs a few lanes side by side, each creating, updating and deleting its own small
stack (a chain of TestResources whose update replaces one, or a ResourceGroup: a nested
stack) again and again, while the engine that holds a running stack's lock (sometimes any
engine) is killed at seeded random moments, at least 20 times during each action; its
process starts a new one. Every action must end as it ends left alone (status, reason,
outputs, resources), with no resource left IN_PROGRESS, none twice (a name or a physical id),
and its events in order: one IN_PROGRESS and one COMPLETE per resource and action, none
written again by the engine that carried the action on.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
import sqlalchemy as sa

from hearth.store.crypto import Encryptor
from hearth.store.sealing import unseal_tree
from tests.integration.cluster.cluster_process import (
    START_TIMEOUT,
    Cluster,
    fresh_cluster,
    require_rabbitmq,
)
from tests.integration.conftest import DatabaseFactory
from tests.integration.private_rabbitmq import queue_consumers
from tests.integration.serve_process import StackApi
from tests.shared_broker import broker_to_restart, devcloud_compute_reported

# Every test here uses the machine's RabbitMQ, and the last one restarts it: one xdist worker
# runs them all, in file order.
pytestmark = pytest.mark.xdist_group("rabbitmq")

SEED = 5672
KILLS = 20  # at least this many kills strike each action
ACTIONS = ("CREATE", "UPDATE", "DELETE")
# Two ``hearth engine`` processes of two workers each: a killed worker is started again by
# its process, as in production.
ENGINE_PROCESSES = 2
ENGINE_WORKERS = 2
ENGINES = ENGINE_PROCESSES * ENGINE_WORKERS
# Seconds each resource waits in every action: the window the kills land in.
WAIT = 1
ACTION_TIMEOUT = 120.0
KILLING_TIMEOUT = 300.0
# The API's wait for an engine's answer ([DEFAULT] rpc_response_timeout; 60 s by default): a
# call whose answer was lost fails after it.
RPC_TIMEOUT = 15

_WAITS = {"action_wait_secs": {"create": WAIT, "update": WAIT, "delete": WAIT}}

# A chain of three; the update changes r0 and r2 in place and replaces r1.
CHAIN: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "parameters": {"value": {"type": "string"}, "replace": {"type": "string"}},
    "resources": {
        "r0": {"type": "OS::Heat::TestResource",
               "properties": {"value": {"get_param": "value"}, **_WAITS}},
        "r1": {"type": "OS::Heat::TestResource",
               "properties": {"value": {"get_attr": ["r0", "output"]},
                              "update_replace_value": {"get_param": "replace"}, **_WAITS}},
        "r2": {"type": "OS::Heat::TestResource",
               "properties": {"value": {"get_attr": ["r1", "output"]}, **_WAITS}},
    },
    "outputs": {"last": {"value": {"get_attr": ["r2", "output"]}}},
}
# A nested stack: the group's members live in a child stack with its own lock.
GROUP: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "parameters": {"value": {"type": "string"}},
    "resources": {
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {"type": "OS::Heat::TestResource",
                                 "properties": {"value": {"get_param": "value"}, **_WAITS}},
            },
        },
    },
    "outputs": {"values": {"value": {"get_attr": ["group", "output"]}}},
}
SHAPES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "chain": (CHAIN, {"value": "first", "replace": "one"}, {"value": "second", "replace": "two"}),
    "group": (GROUP, {"value": "first"}, {"value": "second"}),
}
# Enough stacks in flight that most kills strike two or three actions at once.
LANES = ("chain", "group") * 3
# Seconds between a lane's looks at its stack (each look goes over the bus).
POLL = 0.3


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            database_factory: DatabaseFactory) -> Iterator[Cluster]:
    # No template worker processes: each engine started again would spawn its own, and
    # budgets have nothing to do with crashes. The kills are the test's, not a poisoned
    # step's: on a slow machine one step may be struck more often than the engines' limit
    # lets a step be taken over (that limit has its own test, test_poisoned_step.py).
    with fresh_cluster(
        tmp_path_factory.mktemp("kills"), database_factory, engines=ENGINE_PROCESSES,
        engine_workers=ENGINE_WORKERS, api_workers=1,
        options={"template_workers": 0, "rpc_response_timeout": RPC_TIMEOUT,
                 "step_takeover_limit": 1000,
                 # Steps offered to every engine: kills strike steps run for another's stack.
                 # (Not nested stacks' steps: with spread_nested_steps on, a group's update
                 # once ended differently from the undisturbed one; under study.)
                 "spread_steps_after": 0},
    ) as running:
        yield running


@pytest.fixture(scope="module")
def db(cluster: Cluster) -> Iterator[sa.Engine]:
    engine = sa.create_engine(cluster.db_url)
    yield engine
    engine.dispose()


class Calls:
    """The lanes' API calls in flight. Kills wait until none is: a call whose engine dies
    before answering waits for ``rpc_response_timeout`` (as in Heat), which is not what these
    tests are about (the broker test has lost replies)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0
        self._killing = False

    @contextmanager
    def call(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._killing)
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        with self._cond:
            self._killing = True
            self._cond.wait_for(lambda: self._running == 0)
        try:
            yield
        finally:
            with self._cond:
                self._killing = False
                self._cond.notify_all()


class GuardedApi(StackApi):
    """``StackApi`` whose every call is counted in ``Calls``."""

    def __init__(self, endpoint: str, calls: Calls) -> None:
        super().__init__(endpoint, timeout=ACTION_TIMEOUT, poll=POLL)
        self.calls = calls

    def create(self, name: str, template: dict[str, Any], params: dict[str, Any]) -> str:
        with self.calls.call():
            return super().create(name, template, params)

    def update(self, name: str, stack_id: str, template: dict[str, Any],
               params: dict[str, Any]) -> None:
        with self.calls.call():
            super().update(name, stack_id, template, params)

    def delete(self, name: str, stack_id: str) -> None:
        with self.calls.call():
            super().delete(name, stack_id)

    def all_stacks(self) -> list[dict[str, Any]]:
        with self.calls.call():
            return super().all_stacks()

    def show(self, name: str, stack_id: str) -> dict[str, Any]:
        with self.calls.call():
            return super().show(name, stack_id)

    def resources(self, name: str, stack_id: str, nested_depth: int = 0) -> list[dict[str, Any]]:
        with self.calls.call():
            return super().resources(name, stack_id, nested_depth)


def outcome(api: StackApi, name: str, stack_id: str) -> dict[str, Any]:
    """What a user sees once an action ended: the stack, its outputs, its resources (the
    nested ones too) and its child stacks."""
    status, reason = api.wait(stack_id)
    seen: dict[str, Any] = {"status": status, "reason": reason}
    if status != "DELETE_COMPLETE":
        shown = api.show(name, stack_id)
        seen["outputs"] = {o["output_key"]: o.get("output_value")
                           for o in shown.get("outputs") or []}
        seen["resources"] = sorted(
            (r["resource_name"], r["resource_status"])
            for r in api.resources(name, stack_id, nested_depth=2)
        )
        seen["children"] = sorted(
            s["stack_status"] for s in api.all_stacks() if s.get("parent") == stack_id
        )
    return seen


def stored_tree(db: sa.Engine, root_id: str, encryptor: Encryptor) -> str:
    """The stored resources of a stack tree, their attribute caches opened, and their
    events: what a failed comparison is told (the database is gone after the test)."""
    with db.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT r.stack_id, r.id, r.name, r.action, r.status, r.status_reason, "
            "r.traversal_id, r.engine_id, r.rsrc_prop_data_id, p.data AS props, p.encrypted, "
            "r.attr_data FROM resource r LEFT JOIN resource_properties_data p "
            "ON p.id = r.rsrc_prop_data_id WHERE r.root_stack_id = :root ORDER BY r.id"),
            {"root": root_id}).all()
        events = conn.execute(sa.text(
            "SELECT e.id, e.resource_name, e.resource_action, e.resource_status, "
            "e.resource_status_reason, e.created_at FROM event e JOIN stack s "
            "ON s.id = e.stack_id WHERE s.root_stack_id = :root ORDER BY e.id"),
            {"root": root_id}).all()
    lines = ["stored resources:"]
    for row in rows:
        attrs, props = (json.loads(v) if isinstance(v, str) else v
                        for v in (row.attr_data, row.props))
        if row.encrypted and isinstance(props, dict):
            props = encryptor.decrypt(props["token"])
        lines.append(f"  {tuple(row)[:9]} properties={props} "
                     f"attributes={unseal_tree(attrs, encryptor)}")
    lines.append("events:")
    lines += [f"  {tuple(event)}" for event in events]
    return "\n".join(lines)


def last_event_id(db: sa.Engine) -> int:
    with db.connect() as conn:
        return int(conn.execute(sa.text("SELECT coalesce(max(id), 0) FROM event")).scalar_one())


def check_records(db: sa.Engine, root_id: str, after_event: int, what: str) -> None:
    """The stored rows of a stack tree once an action ended: final states, no duplicates,
    and the action's events (those after ``after_event``) in order."""
    with db.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT stack_id, name, action, status, physical_resource_id, id, replaced_by, "
            "traversal_id, status_reason FROM resource "
            "WHERE root_stack_id = :root"), {"root": root_id}).all()
        events = conn.execute(sa.text(
            "SELECT e.id, e.stack_id, e.resource_name, e.resource_action, e.resource_status, "
            "e.resource_status_reason, e.physical_resource_id, e.created_at FROM event e "
            "JOIN stack s ON s.id = e.stack_id "
            "WHERE s.root_stack_id = :root AND e.id > :after ORDER BY e.id"),
            {"root": root_id, "after": after_event}).all()
    in_progress = [(r.name, r.action) for r in rows if r.status == "IN_PROGRESS"]
    assert not in_progress, f"{what}: left IN_PROGRESS: {in_progress}"
    names = Counter((r.stack_id, r.name) for r in rows)
    assert [k for k, n in names.items() if n > 1] == [], f"{what}: a resource twice: {rows}"
    physical = Counter(r.physical_resource_id for r in rows if r.physical_resource_id)
    assert [k for k, n in physical.items() if n > 1] == [], f"{what}: a physical id twice"

    statuses: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    times: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for event in events:
        statuses[(event.stack_id, event.resource_name, event.resource_action)].append(
            event.resource_status)
        times[(event.stack_id, event.resource_name)].append(event.created_at)
    for key, seq in statuses.items():
        expected = ["IN_PROGRESS", "COMPLETE"] if "IN_PROGRESS" in seq else ["COMPLETE"]
        # Said in full when it fails: a rare kill leaves a second event (under study).
        assert seq == expected, (f"{what}: events of {key}: {seq}\n"
                                 + "\n".join(str(tuple(e)) for e in events)
                                 + "\n" + "\n".join(str(tuple(r)) for r in rows))
    for resource, stamps in times.items():
        assert stamps == sorted(stamps), f"{what}: events of {resource} out of order"


class Lane(threading.Thread):
    """One stack shape's lifecycle again and again, each action checked against the first,
    undisturbed one, until ``stop`` is set."""

    def __init__(self, index: int, shape: str, api: StackApi, db: sa.Engine,
                 stop: threading.Event, encryptor: Encryptor) -> None:
        super().__init__(name=f"lane-{index}", daemon=True)
        self.index = index
        self.shape = shape
        self.api = api
        self.db = db
        self.encryptor = encryptor
        self.stop = stop
        self.expected: list[dict[str, Any]] | None = None
        self.lifecycles = 0
        self.stack_id = ""
        self.error: BaseException | None = None

    def lifecycle(self) -> list[dict[str, Any]]:
        template, first, second = SHAPES[self.shape]
        name = f"{self.shape}-{self.index}-{self.lifecycles}"
        self.lifecycles += 1
        seen = []

        def action(what: str, call: Callable[[], Any]) -> Any:
            mark = last_event_id(self.db)
            result = call()
            stack_id = result if what == "CREATE" else self.stack_id
            seen.append(outcome(self.api, name, stack_id))
            check_records(self.db, stack_id, mark, f"{name} {what}")
            if self.expected is not None and seen[-1] != self.expected[len(seen) - 1]:
                stored = stored_tree(self.db, stack_id, self.encryptor)
                assert seen[-1] == self.expected[len(seen) - 1], f"{name} {what}\n{stored}"
            return result

        self.stack_id = action("CREATE", lambda: self.api.create(name, template, first))
        action("UPDATE", lambda: self.api.update(name, self.stack_id, template, second))
        action("DELETE", lambda: self.api.delete(name, self.stack_id))
        return seen

    def run(self) -> None:
        try:
            self.expected = self.lifecycle()
            while not self.stop.is_set():
                self.lifecycle()
        except BaseException as exc:  # reported by the test's thread
            self.error = exc


def held_in_progress(db: sa.Engine) -> dict[str, tuple[str, str]]:
    """Stack id -> (lock holder, action) of every stack in progress."""
    with db.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT s.id, l.engine_id, s.action FROM stack s JOIN stack_lock l "
            "ON l.stack_id = s.id WHERE s.status = 'IN_PROGRESS' AND s.deleted_at IS NULL"))
        return {str(r.id): (str(r.engine_id), str(r.action)) for r in rows}


def test_engines_killed_during_create_update_delete_change_nothing(
    cluster: Cluster, db: sa.Engine
) -> None:
    calls = Calls()
    api = GuardedApi(cluster.endpoint, calls)
    stop = threading.Event()
    encryptor = Encryptor.from_key(cluster.encryption_key)
    lanes = [Lane(i, shape, api, db, stop, encryptor) for i, shape in enumerate(LANES)]
    for lane in lanes:
        lane.start()
    # The first lifecycle of each lane is undisturbed: what the others must end as.
    while any(lane.expected is None and lane.is_alive() for lane in lanes):
        time.sleep(0.2)

    rng = random.Random(SEED)
    kills: Counter[str] = Counter()
    total = 0
    deadline = time.monotonic() + KILLING_TIMEOUT
    try:
        while any(kills[a] < KILLS for a in ACTIONS) and all(lane.is_alive() for lane in lanes):
            assert time.monotonic() < deadline, f"only {kills} in {KILLING_TIMEOUT}s"
            time.sleep(rng.uniform(0.1, 2 * WAIT))
            # Two engines stay alive: a kill waits while two others are starting again.
            while len(cluster.engines_up()) < ENGINES - 1:
                assert time.monotonic() < deadline, cluster.logs()
                time.sleep(0.1)
            with calls.quiet():
                busy = held_in_progress(db)
                up = cluster.engines_up()
                # The action struck least so far first (deletes are the shortest).
                running = {action for holder, action in busy.values() if holder in up}
                wanted = min(running, key=lambda action: (kills[action], action), default="")
                holders = sorted({holder for holder, action in busy.values()
                                  if holder in up and action == wanted})
                victim = (rng.choice(holders) if holders and rng.random() < 0.8
                          else rng.choice(sorted(up)))
                os.kill(up[victim], signal.SIGKILL)
            total += 1
            kills.update({action for holder, action in busy.values() if holder == victim})
    finally:
        stop.set()
        for lane in lanes:
            lane.join(ACTION_TIMEOUT * 3)
    for lane in lanes:
        if lane.error is not None:
            raise AssertionError(f"{lane.name}: {lane.error}\n{cluster.logs()}") from lane.error
    assert all(kills[a] >= KILLS for a in ACTIONS), kills
    assert sum(lane.lifecycles for lane in lanes) > len(lanes)
    print(f"{total} kills struck {dict(kills)} in "
          f"{sum(lane.lifecycles for lane in lanes)} lifecycles")


# --- the broker restarted ----------------------------------------------------------------

# How long RabbitMQ stays down: short, as other runs on this machine share it.
BROKER_DOWN = 3.0


# A create whose call takes the engine seconds (TestResource's test constraint sleeps).
SLOW_TO_VALIDATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "resources": {"r": {"type": "OS::Heat::TestResource",
                        "properties": {"constraint_prop_secs": BROKER_DOWN + 1}}},
}


def rabbitmqctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["rabbitmqctl", *args], capture_output=True, text=True, timeout=120)


def require_broker_control() -> None:
    """Skip (fail under CI=true) unless this user can stop and start RabbitMQ."""
    try:
        status = rabbitmqctl("-q", "status")
        reason = f"rabbitmqctl status failed: {status.stderr.strip()[-300:]}"
        if status.returncode == 0:
            return
    except (OSError, subprocess.TimeoutExpired) as exc:
        reason = f"rabbitmqctl cannot be run: {exc}"
    reason = f"RabbitMQ cannot be restarted by this user: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@contextmanager
def broker_stopped() -> Iterator[None]:
    """RabbitMQ's application stopped (every connection dropped, queues that are not durable
    gone) for the body and ``BROKER_DOWN`` seconds; started again whatever happens. Not while
    a devcloud test runs: the devcloud's Nova and Cinder use the same broker."""
    with broker_to_restart():
        consumed = consumed_queues()
        stopped = rabbitmqctl("stop_app")
        try:
            assert stopped.returncode == 0, stopped.stderr
            yield
            time.sleep(BROKER_DOWN)
        finally:
            restarted = datetime.now(UTC).replace(tzinfo=None)
            started = rabbitmqctl("start_app")
            assert started.returncode == 0, started.stderr
            require_rabbitmq()
            # The queues are gone with the broker's application: until each service has
            # declared its own again, a cast to it is lost (a devcloud test's volume would
            # never be made).
            deadline = time.monotonic() + 60
            while consumed - consumed_queues() and time.monotonic() < deadline:
                time.sleep(0.5)
            devcloud_compute_reported(restarted)


def consumed_queues() -> set[tuple[str, str]]:
    """(vhost, queue) of every queue that has a consumer, on every vhost of the broker."""
    vhosts = rabbitmqctl("-q", "list_vhosts", "name")
    found = set()
    for vhost in vhosts.stdout.split()[1:]:  # after the header
        listed = rabbitmqctl("-q", "list_queues", "-p", vhost, "name", "consumers")
        for line in listed.stdout.splitlines()[1:]:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit() and int(parts[1]) > 0:
                found.add((vhost, parts[0]))
    return found


def consumers(topic: str) -> dict[str, int]:
    """Queue name -> consumers, of the queues of ``topic``."""
    listed = rabbitmqctl("-q", "list_queues", "name", "consumers")
    assert listed.returncode == 0, listed.stderr
    return queue_consumers(listed.stdout, topic)


def topic_of(cluster: Cluster) -> str:
    match = re.search(r"^engine_topic = (\S+)$", cluster.config.read_text(), re.MULTILINE)
    assert match is not None
    return match.group(1)


# Defined last: it runs after the module's other tests (also under xdist: one group).
def test_broker_restart_during_creates(cluster: Cluster, db: sa.Engine) -> None:
    require_broker_control()
    api = StackApi(cluster.endpoint, timeout=ACTION_TIMEOUT)
    deadline = time.monotonic() + START_TIMEOUT
    while len(cluster.engines_up()) < ENGINES:
        assert time.monotonic() < deadline, cluster.logs()
        time.sleep(0.2)
    mark = last_event_id(db)
    in_flight = {f"broker-{shape}": api.create(f"broker-{shape}", template, params)
                 for shape, (template, params, _) in SHAPES.items()}
    while not all(stack_id in held_in_progress(db) for stack_id in in_flight.values()):
        assert time.monotonic() < deadline, "the creates did not start"
        time.sleep(0.05)
    time.sleep(random.Random(SEED).uniform(0.2, WAIT))

    # Creates asked for around the outage, one after the other: some wait for the broker,
    # some lose their answer with it. Each is answered, in time, a stack or an error.
    answers: dict[str, int] = {}
    asking = threading.Event()

    def ask(name: str, template: dict[str, Any], params: dict[str, Any]) -> None:
        try:
            resp = requests.post(f"{cluster.endpoint}/stacks", timeout=RPC_TIMEOUT + 60,
                                 json={"stack_name": name, "template": template,
                                       "parameters": params})
            answers[name] = resp.status_code
        except requests.RequestException:
            answers[name] = 0

    def keep_asking() -> None:
        i = 0
        while asking.is_set():
            ask(f"during-{i}", CHAIN, SHAPES["chain"][1])
            i += 1
            time.sleep(0.2)

    # The engine is still in this create's call (validating) when the broker stops.
    slow = threading.Thread(target=ask, daemon=True, args=("slow-to-validate", SLOW_TO_VALIDATE,
                                                          {}))
    asker = threading.Thread(target=keep_asking, daemon=True)
    asking.set()
    slow.start()
    asker.start()
    time.sleep(1)
    try:
        with broker_stopped():
            pass
    finally:
        time.sleep(1)
        asking.clear()
        for thread in (slow, asker):
            thread.join(RPC_TIMEOUT + 90)
    assert not asker.is_alive() and not slow.is_alive(), "a create was not answered"
    assert answers and set(answers.values()) <= {201, 500, 503}, answers
    print(f"creates around the broker's restart answered {Counter(answers.values())}")

    # The stacks in flight end as they would have; so does every create that was stored,
    # whatever its caller was answered.
    for name, stack_id in in_flight.items():
        seen = outcome(api, name, stack_id)
        assert seen["status"] == "CREATE_COMPLETE", (seen, cluster.logs())
        check_records(db, stack_id, mark, f"{name} CREATE")
    listed = {s["stack_name"]: s for s in api.all_stacks()}
    for name, code in answers.items():
        if code == 201:
            assert name in listed, f"{name} was created (201) but is not listed"
        if name in listed:
            status = api.wait(listed[name]["id"])
            assert status[0] == "CREATE_COMPLETE", (name, status)
            check_records(db, listed[name]["id"], mark, f"{name} CREATE")

    # Every engine takes calls again, by the topic and by its own name; the API reaches them.
    topic = topic_of(cluster)
    wanted = {topic, *(f"{topic}.{engine_id}" for engine_id in cluster.engines_up())}
    deadline = time.monotonic() + 60
    while True:
        found = consumers(topic)
        if all(found.get(q, 0) >= 1 for q in wanted) and found.get(topic) == ENGINES:
            break
        assert time.monotonic() < deadline, f"queues and consumers after the restart: {found}"
        time.sleep(0.5)
    after = api.create("after-broker", CHAIN, SHAPES["chain"][1])
    assert api.wait(after)[0] == "CREATE_COMPLETE"
