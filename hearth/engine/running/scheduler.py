"""Run a dependency graph of units of work: a node starts the moment its requirements are done.

No polling and no fixed pauses: completion of one node makes its dependants ready at once. On the
first failure no new node starts; nodes already running get ``error_wait_time`` to finish (none,
if they can be cancelled cleanly), then are cancelled. A deadline or an external stop request
cancels what runs at once.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class NotStarted(Exception):
    """Raised by a node that found the graph stopping before it did anything."""


class StopReason(enum.Enum):
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"


@dataclass
class GraphResult(Generic[K]):
    completed: set[K] = field(default_factory=set)
    failed: dict[K, BaseException] = field(default_factory=dict)
    # Nodes cancelled while running (timeout, stop request, or after the error grace period).
    cancelled: set[K] = field(default_factory=set)
    not_started: set[K] = field(default_factory=set)
    stop: StopReason | None = None

    @property
    def success(self) -> bool:
        return not self.failed and not self.cancelled and not self.not_started and not self.stop


class StopSignal:
    """How the outside world (a cancel, a delete) asks a running graph to stop."""

    def __init__(self) -> None:
        self._requested = False
        self.reason: StopReason | None = None
        self.message = ""
        self.drain = False
        # Called at each request: the graphs running under this signal wake up.
        self._listeners: list[Callable[[], None]] = []

    def request(
        self, reason: StopReason = StopReason.CANCELLED, message: str = "", *, drain: bool = False
    ) -> None:
        """Stop the graph. With ``drain`` what runs finishes and only new work is held back
        (a cancel without rollback, as Heat's convergence engine does it)."""
        if self.reason is None:
            self.reason, self.message, self.drain = reason, message, drain
        elif not drain:
            self.drain = False  # a delete after a newer update's stop: what runs stops now
        self._requested = True
        for listener in list(self._listeners):
            listener()

    @property
    def requested(self) -> bool:
        return self._requested

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` at each request until the function returned is called (a
        callback rather than a task waiting on each event: a graph runs per stack action)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)


class GraphRunner(Generic[K]):
    """One traversal of a graph. ``requires[k]`` are the nodes that must be done before ``k``."""

    def __init__(
        self,
        requires: Mapping[K, Iterable[K]],
        run: Callable[[K], Awaitable[None]],
        *,
        already_done: Iterable[K] = (),
        error_wait_time: float = 240.0,
        grace_period: Callable[[K], float] | None = None,
        deadline: float | None = None,
        stop: StopSignal | None = None,
        aggregate_failures: bool = False,
        start_after_failures: bool = False,
        observe: Callable[[K, str, float], None] | None = None,
    ) -> None:
        self._requires = {k: set(v) for k, v in requires.items()}
        self._run = run
        self._error_wait = error_wait_time
        self._grace = grace_period
        self._deadline = deadline
        self._stop = stop or StopSignal()
        # After a failure, what runs is let finish, not cancelled after ``error_wait_time``
        # (a delete: Heat lets it finish), and ready nodes are still handed to ``run``, which
        # refuses them unless ``may_start``.
        self._aggregate = aggregate_failures or start_after_failures
        # A check starts what a failure does not block (Heat 27 checks every resource whose
        # requirements passed, and reports every failure).
        self._start_after_failures = start_after_failures
        # Told of each node that ran: (node, "complete"|"failed"|"cancelled", seconds).
        self._observe = observe
        self._started: dict[K, float] = {}
        self.result: GraphResult[K] = GraphResult()
        self.result.completed.update(k for k in already_done if k in self._requires)
        self._dependants: dict[K, set[K]] = {k: set() for k in self._requires}
        self._waiting: dict[K, int] = {}
        # Nodes whose dependants may start (done, or released early by ``release``).
        self._released: set[K] = set()
        self._released.update(self.result.completed)
        self._ready: list[K] = []
        self._wake: Callable[[], None] | None = None
        for node, reqs in self._requires.items():
            # Not ``reqs - keys()``: that copies every key once per node.
            unknown = {r for r in reqs if r not in self._requires}
            if unknown:
                raise ValueError(f"{node!r} requires unknown nodes {sorted(map(str, unknown))}")
            for req in reqs:
                self._dependants[req].add(node)
            self._waiting[node] = len(reqs - self.result.completed)

    @property
    def stopping(self) -> bool:
        """True once no new node may start (a failure, a timeout or a stop request)."""
        return self.result.stop is not None

    @property
    def may_start(self) -> bool:
        """Whether a node may begin its work now: not once the graph stops, unless it goes on
        past failures (``start_after_failures``)."""
        return not self.stopping or (
            self._start_after_failures and self.result.stop is StopReason.FAILED)

    def release(self, node: K) -> None:
        """Let ``node``'s dependants start before its task ends (what remains of it is only
        waiting for writes that are committed before any of theirs)."""
        self._ready.extend(self._release(node))
        if self._wake is not None:
            self._wake()

    def _release(self, node: K) -> list[K]:
        if node in self._released:
            return []
        self._released.add(node)
        newly = []
        for dep in self._dependants[node]:
            self._waiting[dep] -= 1
            if self._waiting[dep] == 0:
                newly.append(dep)
        return newly

    async def run(self) -> GraphResult[K]:
        loop = asyncio.get_running_loop()
        running: dict[asyncio.Task[None], K] = {}
        # Finished tasks gather here; one wake-up handles every task that ended meanwhile.
        finished: list[asyncio.Task[None]] = []
        wake = asyncio.Event()

        def on_done(task: asyncio.Task[None]) -> None:
            finished.append(task)
            wake.set()

        # Also woken by a stop request and by nodes released early.
        self._wake = wake.set
        self._ready = [
            k for k, n in self._waiting.items() if n == 0 and k not in self.result.completed
        ]
        blocked: set[K] = set()
        unlisten = self._stop.listen(wake.set)
        cancelled_all = False
        grace_deadline: float | None = None
        try:
            while True:
                if self._stop.requested and self.result.stop is None:
                    self.result.stop = self._stop.reason or StopReason.CANCELLED
                if self._stop.requested and not self._stop.drain and not cancelled_all:
                    cancelled_all = True
                    self._cancel_all(running)
                if not self.stopping or (self._aggregate and self.result.stop is StopReason.FAILED):
                    ready, self._ready = self._ready, []
                    for node in ready:
                        if node not in blocked:
                            task = asyncio.ensure_future(self._run(node))
                            task.add_done_callback(on_done)
                            running[task] = node
                            if self._observe is not None:
                                self._started[node] = time.perf_counter()
                if not running:
                    break
                timeout = self._next_timeout(loop.time(), grace_deadline)
                if timeout is not None and timeout <= 0:
                    if self._deadline is not None and loop.time() >= self._deadline:
                        self.result.stop = self.result.stop or StopReason.TIMEOUT
                    self._cancel_all(running)
                    timeout = None
                if not finished:
                    # Ready nodes are all launched by now (or held back by a stop). Nothing
                    # else runs between this check and the wait: no wake-up is lost.
                    wake.clear()
                    timer = None if timeout is None else loop.call_later(timeout, wake.set)
                    try:
                        await wake.wait()
                    finally:
                        if timer is not None:
                            timer.cancel()
                ended, finished[:] = list(finished), []
                for done in ended:
                    node = running.pop(done)
                    self._ready.extend(self._finish(node, done))
                    if self._observe is not None:
                        self._observed(node)
                    if node in self.result.failed:
                        blocked |= self._all_dependants(node)
                        if self.result.stop is None:
                            self.result.stop = StopReason.FAILED
                            grace_deadline = None if self._aggregate else loop.time() + max(
                                (self._grace_for(k) for k in running.values()), default=0.0
                            )
        finally:
            unlisten()
            self._wake = None
        self.result.not_started |= (
            set(self._requires)
            - self.result.completed
            - self.result.failed.keys()
            - self.result.cancelled
        )
        return self.result

    def _observed(self, node: K) -> None:
        started = self._started.pop(node, None)
        if started is None or self._observe is None or node in self.result.not_started:
            return  # a node that found the graph stopping did nothing
        if node in self.result.failed:
            outcome = "failed"
        elif node in self.result.cancelled:
            outcome = "cancelled"
        else:
            outcome = "complete"
        self._observe(node, outcome, time.perf_counter() - started)

    def _grace_for(self, node: K) -> float:
        return self._grace(node) if self._grace is not None else self._error_wait

    def _next_timeout(self, now: float, grace_deadline: float | None) -> float | None:
        candidates = [t for t in (self._deadline, grace_deadline) if t is not None]
        return min(candidates) - now if candidates else None

    def _cancel_all(self, running: Mapping[asyncio.Task[None], K]) -> None:
        for task in running:
            task.cancel()

    def _finish(self, node: K, task: asyncio.Task[None]) -> list[K]:
        if task.cancelled():
            self.result.cancelled.add(node)
            return []
        exc = task.exception()
        if isinstance(exc, NotStarted):
            self.result.not_started.add(node)
            return []
        if exc is not None:
            self.result.failed[node] = exc
            return []
        self.result.completed.add(node)
        return self._release(node)

    def _all_dependants(self, node: K) -> set[K]:
        out: set[K] = set()
        todo = [node]
        while todo:
            for dep in self._dependants[todo.pop()]:
                if dep not in out:
                    out.add(dep)
                    todo.append(dep)
        return out
