"""The machine's RabbitMQ is shared: the devcloud's Nova and Cinder talk over it, and one
cluster test restarts it. A devcloud test holds the broker shared for its whole run; the
restart waits for an exclusive hold, so no devcloud test is in the middle of an attach or a
boot (an RPC cast lost to the restart leaves a volume ``attaching`` forever) when it comes.

Two ``flock`` files: ``turn`` gives the restart its turn before devcloud tests that come
after it (readers cannot starve the writer), ``hold`` is the shared/exclusive lock itself.
Across processes and test runs on this machine alike, as the broker is.

After a restart, the devcloud's Nova may not schedule for a while: its compute host's status
report in flight when the broker went away waits out its RPC timeout (60 s), and meanwhile
the scheduler counts the host down ("No valid host was found"). ``devcloud_compute_reported``
waits for the host's first report after the restart.
"""

from __future__ import annotations

import fcntl
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from tests.devcloud_files import CLOUDS_FILE

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


def devcloud_compute_reported(since: datetime, timeout: float = 180.0) -> None:
    """Wait until every compute host of the devcloud, when it runs, has reported its status
    after ``since`` (UTC, naive, as Nova keeps it); give up quietly after ``timeout``: a
    devcloud test that then fails says why."""
    if not CLOUDS_FILE.is_file():
        return
    from bench.cloud_project import connect

    try:
        conn = connect("devcloud-admin", CLOUDS_FILE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reports = [_utc(service.updated_at) for service in conn.compute.services()
                       if service.binary == "nova-compute"]
            if all(at is not None and at > since for at in reports):
                return
            time.sleep(2.0)
    except Exception:  # no devcloud running: nothing to wait for
        return


def _utc(stamp: str | None) -> datetime | None:
    """Nova's time stamp as naive UTC."""
    if not stamp:
        return None
    at = datetime.fromisoformat(stamp)
    return at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo else at
