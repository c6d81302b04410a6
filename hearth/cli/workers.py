"""A parent process that keeps N forked worker processes running until it is told to stop.

``hearth api`` and ``hearth engine`` run their workers this way (as Heat's services do): a
worker that dies is started again; SIGTERM or SIGINT to the parent is passed on to every
worker, and the parent returns once they have all ended. The parent starts no threads and
opens no connections before forking: each worker makes its own.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from typing import Any

from hearth.common.metrics_server import process_exited

LOG = logging.getLogger("hearth.workers")
# A worker that dies sooner than this after its start is started again only after a pause:
# a worker failing at start-up must not become a busy loop.
QUICK_DEATH_SECONDS = 2.0


class Workers:
    def __init__(self, count: int, target: Callable[[int], int], name: str) -> None:
        self.count = count
        self.target = target
        self.name = name
        self.stopping = False
        self._started: dict[int, float] = {}
        # Each worker's slot (0 .. count - 1): a worker started again takes the dead one's.
        self._slots: dict[int, int] = {}

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        for slot in range(self.count):
            self._spawn(slot)
        while self._started:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            started = self._started.pop(pid, None)
            slot = self._slots.pop(pid, 0)
            process_exited(pid)
            if started is None or self.stopping:
                continue
            LOG.warning("%s worker %d ended (%s); starting another", self.name, pid,
                        _describe(status))
            if time.monotonic() - started < QUICK_DEATH_SECONDS:
                time.sleep(QUICK_DEATH_SECONDS)
            if not self.stopping:
                self._spawn(slot)
        return 0

    def _spawn(self, slot: int) -> None:
        pid = os.fork()
        if pid == 0:
            # The worker: default signal handling until its own target sets its handlers.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 1
            try:
                code = self.target(slot)
            except BaseException:
                LOG.exception("%s worker failed", self.name)
            finally:
                logging.shutdown()
                os._exit(code)
        self._started[pid] = time.monotonic()
        self._slots[pid] = slot
        LOG.info("Started %s worker %d", self.name, pid)

    def _stop(self, signum: int, frame: Any) -> None:
        self.stopping = True
        for pid in list(self._started):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    @property
    def pids(self) -> list[int]:
        return list(self._started)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
