"""The machine's RabbitMQ is shared: the devcloud's Nova and Cinder talk over it, and one
cluster test restarts it. A devcloud test holds the broker shared for its whole run; the
restart waits for an exclusive hold, so no devcloud test is in the middle of an attach or a
boot (an RPC cast lost to the restart leaves a volume ``attaching`` forever) when it comes.

Two ``flock`` files: ``turn`` gives the restart its turn before devcloud tests that come
after it (readers cannot starve the writer), ``hold`` is the shared/exclusive lock itself.
Across processes and test runs on this machine alike, as the broker is.
"""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_DIR = Path(tempfile.gettempdir())
_TURN = _DIR / "hearth-tests-rabbitmq.turn"
_HOLD = _DIR / "hearth-tests-rabbitmq.hold"


@contextmanager
def _locked(path: Path, how: int) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, how)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def broker_in_use() -> Iterator[None]:
    """Inside: the broker is not restarted by a test."""
    with _TURN.open("a") as turn, _HOLD.open("a") as hold:
        fcntl.flock(turn, fcntl.LOCK_EX)
        try:
            fcntl.flock(hold, fcntl.LOCK_SH)
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(hold, fcntl.LOCK_UN)


@contextmanager
def broker_to_restart() -> Iterator[None]:
    """Inside: no test that uses the broker through the devcloud is running."""
    with _locked(_TURN, fcntl.LOCK_EX), _locked(_HOLD, fcntl.LOCK_EX):
        yield
