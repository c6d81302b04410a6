"""What every part of one engine shares: database, plugins, configuration, identity, workers."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from oslo_config import cfg

from hearth.clients.manager import CloudClients
from hearth.clients.settings import ClientSettings
from hearth.common import metrics
from hearth.common.config import (
    EngineLimits,
    api_public_url,
    cfn_public_url,
    worker_threads,
)
from hearth.common.policy import Policy
from hearth.engine.plugin_access.cloud_access import StackClouds
from hearth.engine.requests import StackRequest
from hearth.engine.running.journal import Journal
from hearth.engine.running.messages import MessageBoard
from hearth.engine.running.service_slots import ServiceSlots
from hearth.engine.template_sandbox import Budgets, TemplateSandbox
from hearth.resources.registry import PluginRegistry
from hearth.store.crypto import Encryptor
from hearth.store.db import Database
from hearth.store.group_commit import GroupCommit
from hearth.template import functions as template_functions
from hearth.template.context import Limits
from hearth.template.environment import Environment

if TYPE_CHECKING:
    from hearth.engine.cluster.remote_steps import RemoteSteps
    from hearth.engine.running.action_run import ActionRun
    from hearth.engine.services.nested import NestedStackService
    from hearth.engine.services.software import SoftwareService

T = TypeVar("T")


@dataclass
class EngineSettings:
    host: str = "localhost"
    worker_threads: int = 8
    # Threads for steps of types whose handlers wait elsewhere (cloud APIs): see Workers.
    wait_threads: int = 64
    # Waiting steps run here before further ones are offered to other engines (-1: as many
    # as wait_threads); only with a bus (RemoteSteps).
    spread_after: int = -1
    # Whether steps of resources owning a child stack are offered too.
    spread_nested: bool = False
    heartbeat_interval: float = 5.0
    dead_after_heartbeats: int = 3
    encrypt: bool = True
    limits: EngineLimits = field(default_factory=EngineLimits)
    # Where signal URLs point (the API's public address).
    public_url: str = "http://127.0.0.1:8004"
    # The CFN API's public address (pre-signed wait condition URLs); None when not served.
    cfn_public_url: str | None = None
    # How resources reach other OpenStack services.
    clients: ClientSettings = field(default_factory=ClientSettings)
    # Worker processes that run a request's template work under budgets first (0: none; an
    # engine built in code has none unless asked, a configured one has [DEFAULT]
    # template_workers).
    template_workers: int = 0
    template_budgets: Budgets = field(default_factory=Budgets)

    @classmethod
    def from_config(cls, conf: cfg.ConfigOpts) -> EngineSettings:
        return cls(
            host=conf.host,
            worker_threads=worker_threads(conf),
            wait_threads=conf.engine_wait_threads,
            spread_after=conf.spread_steps_after,
            spread_nested=conf.spread_nested_steps,
            heartbeat_interval=conf.heartbeat_interval,
            dead_after_heartbeats=conf.engine_dead_after_missed_heartbeats,
            encrypt=conf.encrypt_parameters_and_properties,
            limits=EngineLimits.from_config(conf),
            public_url=api_public_url(conf),
            cfn_public_url=cfn_public_url(conf),
            clients=ClientSettings.from_config(conf),
            template_workers=conf.template_workers,
            template_budgets=Budgets(
                cpu_seconds=conf.template_cpu_seconds, memory_mb=conf.template_memory_mb,
                max_value_chars=conf.template_max_value_chars,
                max_template_size=conf.max_template_size,
                max_resources_per_stack=conf.max_resources_per_stack),
        )

    @property
    def dead_after(self) -> timedelta:
        return timedelta(seconds=self.heartbeat_interval * self.dead_after_heartbeats)


RELAY_THREADS = 8


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The engine's loop: uvloop's where it is installed (everywhere but Windows). A nested
    stack costs its engine a few dozen loop callbacks and thread hand-offs per resource, and
    uvloop's cost a fraction of asyncio's own; the semantics are asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class Workers:
    """The engine's event loop (one thread, drives actions) and its pool of worker threads.

    Actions are coroutines on the loop; every step that may block (database, plugin handlers)
    runs in a pool. Steps of types whose handlers mostly wait for another service (or sleep)
    run in a larger pool of their own (``wait``), so that a thousand resources each blocked
    for a cloud call's time do not queue behind eight threads, while the database work (the
    engine's own, nested stacks) keeps the small pool whose size suits the database.
    """

    def __init__(self, threads: int, wait_threads: int = 64) -> None:
        self.loop = new_event_loop()
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="hearth-worker")
        self.wait_pool = ThreadPoolExecutor(max_workers=wait_threads,
                                            thread_name_prefix="hearth-waiter")
        # Short sends and reads that pass steps between engines (``remote_steps``): never
        # queued behind the steps they pass.
        self.relay_pool = ThreadPoolExecutor(max_workers=RELAY_THREADS,
                                             thread_name_prefix="hearth-relay")
        self._thread = threading.Thread(target=self._run, name="hearth-engine", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return await self.loop.run_in_executor(self.pool, fn, *args)

    async def wait(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool of steps that wait elsewhere."""
        return await self.loop.run_in_executor(self.wait_pool, fn, *args)

    async def relay(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool of the cluster's step messages and their reads."""
        return await self.loop.run_in_executor(self.relay_pool, fn, *args)

    def call_soon(self, fn: Callable[[], None]) -> None:
        self.loop.call_soon_threadsafe(fn)

    def queued(self) -> int:
        """Calls waiting for a free worker thread."""
        # The executor's own queue (no public count); read only when metrics are collected.
        return sum(_queued(pool) for pool in (self.pool, self.wait_pool, self.relay_pool))

    def stop(self, timeout: float = 10.0) -> None:
        if self.loop.is_closed():
            return

        async def _cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        if self._thread.is_alive():
            try:
                asyncio.run_coroutine_threadsafe(_cancel_all(), self.loop).result(timeout)
            except Exception:
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.wait_pool.shutdown(wait=False, cancel_futures=True)
        self.relay_pool.shutdown(wait=False, cancel_futures=True)
        if not self._thread.is_alive():
            self.loop.close()


def _queued(pool: ThreadPoolExecutor) -> int:
    # The executor's own queue (no public count); read only when metrics are collected.
    queue = getattr(pool, "_work_queue", None)
    return queue.qsize() if queue is not None else 0


class EngineCore:
    """One engine process's shared state."""

    def __init__(
        self,
        db: Database,
        plugins: PluginRegistry,
        global_env: Environment,
        settings: EngineSettings,
        encryption_key: str | None = None,
        policy: Policy | None = None,
    ) -> None:
        self.db = db
        # Who may use which resource types (Heat's resource_types:* rules); None allows all.
        self.policy = policy
        self.plugins = plugins
        self.global_env = global_env
        self.settings = settings
        self.limits = settings.limits
        self.engine_id = str(uuid.uuid4())
        self._key = encryption_key
        self._encryptor: Encryptor | None = None
        # Resolved values (attributes, outputs, snapshots...) are sealed with the same key.
        db.seal_with(lambda: self.encryptor)
        self.workers = Workers(settings.worker_threads, settings.wait_threads)
        # A new stack's store and an action's end (many at once in a tree of nested stacks),
        # committed together when they come together.
        self.grouped = GroupCommit(db)
        # Resource steps' writes, committed in groups (with those above, on SQLite).
        self.journal = Journal(db, self.workers.loop, self.grouped)
        # Cancel requests other engines leave on this engine's locks.
        self.messages = MessageBoard(db, self.engine_id, self.workers.call)
        # Child stacks for resources that own one (set when the engine is wired).
        self.nested: NestedStackService | None = None
        # Software configs and deployments (set when the engine is wired).
        self.software: SoftwareService | None = None
        # Steps offered to every engine of a cluster (set when the engine joins a bus);
        # None: every step of this engine's actions runs here.
        self.remote_steps: RemoteSteps | None = None
        # This engine's copies of a stack's runs whose steps it runs for another engine
        # (``step_worker``): a child stack that ends here wakes its parent's step in them.
        self.run_copies: Callable[[str], list[ActionRun]] = lambda stack_id: []
        self._clouds: StackClouds | None = None
        self._service_slots: dict[str, ServiceSlots] = {}
        # What the template language may make here (sizes of templates and of values).
        self.template_limits = Limits(
            max_template_size=self.limits.max_template_size,
            max_value_chars=settings.template_budgets.max_value_chars)
        # The template functions' modules (yaql's among them) are imported now: a request
        # does not wait for them.
        template_functions.all_implementations()
        self.template_sandbox: TemplateSandbox | None = None
        if settings.template_workers > 0:
            self.template_sandbox = TemplateSandbox(
                settings.template_workers, settings.template_budgets)
            self.template_sandbox.warm()
        # Set when the engine stops: the actions it ran are left IN_PROGRESS, as they are,
        # for the next engine to carry on (not failed as cancelled).
        self.handing_over = False
        metrics.watch_queues(self)

    def preflight(self, request: StackRequest, *, outputs: bool) -> None:
        """Refuse a request whose template work is over its budgets, before any of it runs
        here (TemplateBudgetExceeded); ``outputs`` False for calls that never resolve them."""
        if self.template_sandbox is not None:
            self.template_sandbox.check_template(request, outputs=outputs)

    def service_slots(self, service: str) -> ServiceSlots:
        """The steps of one service's types that may run at once (on the engine's loop)."""
        slots = self._service_slots.get(service)
        if slots is None:
            slots = ServiceSlots(self.settings.clients.service_concurrency)
            self._service_slots[service] = slots
        return slots

    def queue_depths(self) -> dict[str, int]:
        """Resource steps ready but waiting, by what they wait for (``hearth.common.metrics``
        reads it from another thread: only counts are read, nothing is changed)."""
        return {
            "worker_threads": self.workers.queued(),
            "service_slots": sum(s.waiting for s in list(self._service_slots.values())),
        }

    @property
    def clouds(self) -> StackClouds:
        """Stacks' and requests' credentials on other OpenStack services."""
        if self._clouds is None:
            clients = self.settings.clients
            trustee = clients.trustee
            self._clouds = StackClouds(
                self.db, CloudClients(clients),
                self.encryptor if clients.keystone_auth else None,
                auth_url=trustee.auth_url if trustee is not None else None,
            )
        return self._clouds

    @property
    def has_encryption_key(self) -> bool:
        return bool(self._key)

    @property
    def encryptor(self) -> Encryptor | None:
        """The encryptor for data at rest, or None when encryption is switched off.

        Built on first use, so that a missing key is reported where encryption is needed.
        """
        if not self.settings.encrypt:
            return None
        if self._encryptor is None:
            self._encryptor = Encryptor.from_key(self._key)
        return self._encryptor
