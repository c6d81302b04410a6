"""A PostgreSQL server of a test's own, from the machine's PostgreSQL binaries, on a free port:
a test may stop it hard and start it again without touching the machine's server, which
other tests (and the devcloud) use at the same time."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from tests.integration.serve_process import free_port

START_TIMEOUT = 60.0


def _bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with ``initdb`` and ``pg_ctl``."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def _unavailable(reason: str) -> None:
    reason = f"a private PostgreSQL server cannot be started: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


class PrivatePostgres:
    """``initdb`` into a fresh directory, then ``pg_ctl`` start, stop and restart. PostgreSQL
    refuses to run as root: as root the server runs as the ``postgres`` user."""

    def __init__(self, bin_dir: Path, data_dir: Path, run_as: str | None) -> None:
        self._bin = bin_dir
        self.data_dir = data_dir
        self._run_as = run_as
        self.port = free_port()
        self.log = data_dir.parent / "postgres.log"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/hearth"

    def _run(self, *args: str, timeout: float = START_TIMEOUT) -> None:
        command = [str(self._bin / args[0]), *args[1:]]
        if self._run_as is not None:
            command = ["runuser", "-u", self._run_as, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n"
                                 f"{done.stdout[-2000:]}{done.stderr[-2000:]}")

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data_dir), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync")

    def start(self) -> None:
        # The socket in the data directory: the machine's socket directory is not ours.
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 "
                   f"-c unix_socket_directories={self.data_dir} -c fsync=off")
        self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(self.log), "-o", options,
                  "-w", "-t", str(int(START_TIMEOUT)), "start")

    def stop(self, mode: str = "immediate") -> None:
        """``immediate``: every backend killed at once, no checkpoint (recovery at the next
        start), as a crash of the server would."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", mode, "-w", "stop")

    def connect(self, dbname: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname=dbname, autocommit=True, connect_timeout=5)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with self.connect():
                    return
            except psycopg.OperationalError:
                assert time.monotonic() < deadline, self.log.read_text()[-2000:]
                time.sleep(0.2)


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started private server with an empty ``hearth`` database; removed afterwards."""
    bin_dir = _bin_dir()
    if bin_dir is None or not (bin_dir / "initdb").exists():
        _unavailable("no initdb/pg_ctl (Debian's postgresql package) on this machine")
    assert bin_dir is not None
    run_as: str | None = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("running as root and there is no postgres user to run it as")
        run_as = "postgres"
    home = Path(tempfile.mkdtemp(prefix="hearth-pg-"))
    if run_as is not None:
        shutil.chown(home, user=run_as)
    server = PrivatePostgres(bin_dir, home / "data", run_as)
    try:
        server.init()
        server.start()
        with server.connect() as conn:
            conn.execute("CREATE DATABASE hearth ENCODING 'UTF8'")
        yield server
    finally:
        try:
            server.stop("fast")
        except (AssertionError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(home, ignore_errors=True)
