"""Worker processes that run a request's template work under CPU-time and memory budgets.

The server's threads share one interpreter: a template that makes it compute for seconds would
hold every other client's request behind it. So before the engine works on a template a request
brought (validate, create, update, preview), the preflight (``hearth.template.preflight``) does the
same work in one of these processes. Each has an address-space limit; each preflight has a
CPU-time limit (``RLIMIT_CPU``: ``SIGXCPU`` stops the work where it is) and a wall-clock
backstop after which the process is killed. A template over a budget is refused with a 413
that names the budget and the place in the template; the worker goes on to the next request
(or is replaced), and nothing of the request reaches the engine's own threads.
"""

from __future__ import annotations

import atexit
import logging
import math
import multiprocessing
import os
import pickle
import resource
import signal
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from types import FrameType

import pebble

from hearth.common.errors import TemplateBudgetExceeded
from hearth.engine.requests import StackRequest
from hearth.template.context import Limits
from hearth.template.preflight import PreflightRequest, Progress, run_preflight

LOG = logging.getLogger(__name__)


# How much lower the workers' scheduling priority is than the server's.
WORKER_NICENESS = 10


@dataclass(frozen=True)
class Budgets:
    cpu_seconds: int = 20
    memory_mb: int = 2048
    max_value_chars: int = 16 * 1024 * 1024
    # The server's own limits, so the preflight reads templates as the server will.
    max_template_size: int = 524288
    max_resources_per_stack: int = 1000

    @property
    def wall_seconds(self) -> float:
        # CPU time is the budget; wall time only catches a worker that cannot be stopped
        # (stuck in one C call), with room for a machine so busy that the worker, at its
        # lower priority, gets a small share of a core.
        return self.cpu_seconds * 10 + 30


class _CpuSpent(BaseException):
    """Raised in the worker by SIGXCPU (a BaseException: no ``except Exception`` hides it)."""


def _on_sigxcpu(signum: int, frame: FrameType | None) -> None:
    raise _CpuSpent


def _init_worker(memory_bytes: int) -> None:
    # Workers ignore Ctrl-C: the server stops them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A busy worker must not take the CPU from the server's own threads.
    os.nice(WORKER_NICENESS)
    signal.signal(signal.SIGXCPU, _on_sigxcpu)
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    base = pages * resource.getpagesize()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = base + memory_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _no_work() -> None:
    return None


def _worker_pid(hold_seconds: float) -> int:
    # Held a moment: a worker that started first cannot take every probe of ``wait_ready``.
    time.sleep(hold_seconds)
    return os.getpid()


def _preflight_in_worker(pickled: bytes, cpu_seconds: int, memory_mb: int) -> str | None:
    request: PreflightRequest = pickle.loads(pickled)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    # The soft limit counts the worker's whole life: this preflight gets ``cpu_seconds`` more.
    resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(_cpu_used()) + cpu_seconds, hard))
    try:
        return run_preflight(request)
    except _CpuSpent:
        return _over_cpu(cpu_seconds, Progress.place)
    except MemoryError:
        return _over_memory(memory_mb, Progress.place)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))


class TemplateSandbox:
    """An engine's preflight: its budgets, on the process's pool of workers for its memory
    limit (engines and apps built in one process, as tests build many, share the pool)."""

    def __init__(self, workers: int, budgets: Budgets) -> None:
        self.workers = workers
        self.budgets = budgets

    def _get_pool(self) -> pebble.ProcessPool:
        return _shared_pool(self.workers, self.budgets.memory_mb)

    def warm(self) -> None:
        """Start the workers now, in the background, so the first request need not wait."""
        self._get_pool().schedule(_no_work)

    def wait_ready(self, timeout: float) -> bool:
        """Wait until every worker process has started (imported what a preflight needs):
        what a server does at its start, done before anything is measured against it. False
        when they were not all up within ``timeout`` seconds."""
        pool = self._get_pool()
        deadline = time.monotonic() + timeout
        seen: set[int] = set()
        while len(seen) < self.workers:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            probes = [pool.schedule(_worker_pid, args=(0.05,)) for _ in range(self.workers)]
            try:
                seen.update(probe.result(timeout=left) for probe in probes)
            except (FutureTimeout, pebble.ProcessExpired):
                return False
        return True

    def check_template(self, request: StackRequest, *, outputs: bool) -> None:
        """Preflight a request's template; ``outputs`` False for calls that never resolve
        them (validate, preview)."""
        if request.template is None:
            return  # a PATCH keeping the stored template, checked when it came
        budgets = self.budgets
        self.check(PreflightRequest(
            template=request.template, files=dict(request.files or {}),
            environment=request.environment, environment_files=request.environment_files,
            parameters=request.params,
            limits=Limits(max_template_size=budgets.max_template_size,
                          max_value_chars=budgets.max_value_chars),
            max_resources_per_stack=budgets.max_resources_per_stack, resolve_outputs=outputs))

    def check(self, request: PreflightRequest) -> None:
        """Raise TemplateBudgetExceeded when the request's template work is over a budget."""
        budgets = self.budgets
        try:
            # Pickled here, where a failure (a structure too deep to pickle) is seen, rather
            # than in the pool's feeder thread, where it would leave the request waiting.
            pickled = pickle.dumps(request)
        except (RecursionError, pickle.PicklingError):
            return  # too deep for the server too: its own checks refuse it
        try:
            future = self._get_pool().schedule(
                _preflight_in_worker, args=(pickled, budgets.cpu_seconds, budgets.memory_mb),
                timeout=budgets.wall_seconds)
            reason = future.result()
        except FutureTimeout:
            reason = (f"The template work did not finish within {budgets.wall_seconds:g} s "
                      f"and was stopped (template_cpu_seconds is {budgets.cpu_seconds})")
        except pebble.ProcessExpired as exc:
            reason = _expired_reason(exc, budgets)
        except Exception:
            # A fault of the preflight itself must not refuse a request: the server's own
            # checks still run.
            LOG.exception("The template preflight failed; the request goes on unchecked")
            return
        if reason is not None:
            raise TemplateBudgetExceeded(reason)



def _over_cpu(cpu_seconds: int, place: str | None = None) -> str:
    where = f", at {place}" if place else ""
    return (f"The template work took more than its CPU-time budget of {cpu_seconds} s "
            f"(template_cpu_seconds){where}")


def _over_memory(memory_mb: int, place: str | None = None) -> str:
    where = f", at {place}" if place else ""
    return (f"The template work needed more than its memory budget of {memory_mb} MiB "
            f"(template_memory_mb){where}")


def _expired_reason(exc: pebble.ProcessExpired, budgets: Budgets) -> str:
    """A worker that died: killed at its CPU limit, or out of memory."""
    if exc.exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
        return _over_cpu(budgets.cpu_seconds)
    return _over_memory(budgets.memory_mb)


# The process's worker pools, by (workers, memory MiB): the limit is set as a worker starts.
_pools: dict[tuple[int, int], pebble.ProcessPool] = {}
_pools_lock = threading.Lock()


def _shared_pool(workers: int, memory_mb: int) -> pebble.ProcessPool:
    with _pools_lock:
        pool = _pools.get((workers, memory_mb))
        if pool is None:
            pool = _pools[(workers, memory_mb)] = pebble.ProcessPool(
                max_workers=workers,
                initializer=_init_worker,
                initargs=(memory_mb * 1024 * 1024,),
                # A fresh interpreter: forking a threaded server is unsafe.
                context=multiprocessing.get_context("spawn"),
            )
        return pool


@atexit.register
def _close_pools() -> None:
    with _pools_lock:
        for pool in _pools.values():
            pool.stop()  # type: ignore[no-untyped-call]
            pool.join(timeout=5)
        _pools.clear()
