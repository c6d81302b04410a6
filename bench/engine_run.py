"""A case through an in-process engine on a fresh SQLite file (the embedded mode's engine)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench import machine
from bench.lifecycle import State, state_name, wait_settled
from bench.profiling import maybe_recording
from bench.results import Result
from bench.statements import StatementCounter
from bench.templates import Case

# The benchmark's own limits: stacks of any size, templates of any size. Everything else is
# Hearth's default configuration (events kept, encryption on, 8 worker threads).
KEY = "hearth benchmark encryption key, long enough"


def bench_overrides(**extra: Any) -> list[tuple[str, str | None, object]]:
    settings: dict[str, Any] = {
        "auth_encryption_key": KEY,
        "max_resources_per_stack": -1,
        "max_template_size": 1 << 30,
        "max_json_body_size": 1 << 30,
        # The benchmark's own types (Bench::Blocking); nothing else changes.
        "plugin_dirs": str(Path(__file__).resolve().parent / "plugins"),
    }
    settings.update(extra)
    return [(name, None, value) for name, value in settings.items()]


class StatePoller:
    """Reads a stack's state with one plain read-only SQLite connection of its own: the
    measuring must cost the engine as little as possible (an ORM session per poll took about
    a tenth of the engine's CPU on the 10,000 case)."""

    def __init__(self, db: Path) -> None:
        self._db = db
        self._conn: sqlite3.Connection | None = None

    def read(self, stack_id: str) -> State:
        if self._conn is None:
            self._conn = sqlite3.connect(f"file:{self._db}?mode=ro", uri=True,
                                         check_same_thread=False)
        row = self._conn.execute(
            "SELECT action, status, status_reason FROM stack WHERE id = ?", (stack_id,)
        ).fetchone()
        if row is None:
            return ("", "", "stack row is gone")
        return (row[0] or "", row[1] or "", row[2] or "")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def run_engine(
    case: Case, *, poll: float = 0.02, timeout: float = 3600.0, profile: Path | None = None,
    profile_gil: bool = False,
) -> Result:
    """Create then delete ``case`` through ``Engine``; the figures as a result dict."""
    # Imported here: `python -m bench --help` and the unit tests need none of the engine.
    from hearth.common.config import load_config
    from hearth.common.context import RequestContext
    from hearth.engine.engine import Engine

    result: Result = {"via": "engine"}
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        db = Path(tmp) / "hearth.sqlite"
        conf = load_config(
            overrides=[("connection", "database", f"sqlite:///{db}"), *bench_overrides()]
        )
        engine = Engine.from_config(conf)
        engine.start()
        # A create is measured on a started engine: the template workers' processes import
        # what they need as the engine starts, and would take CPU from the first create.
        if not engine.wait_ready(timeout):
            raise RuntimeError("the engine's template workers did not start")
        poller = StatePoller(db)
        try:
            missing = [t for t in case.requires if t not in engine.core.plugins]
            if missing:
                result["skipped"] = f"{', '.join(missing)} is not in the registry yet"
                return result
            ctx = RequestContext(project_id="bench", user_id="bench", username="bench")

            def read(stack_id: str) -> State:
                return poller.read(stack_id)

            result["rss_start_bytes"] = machine.current_rss()
            counter = StatementCounter(engine.core.db.engine)
            name = f"bench-{uuid.uuid4().hex[:8]}"
            with maybe_recording(os.getpid(), profile, "create", gil=profile_gil):
                started, cpu_started = time.perf_counter(), time.process_time()
                ident = engine.create_stack(
                    ctx, name, case.template, files=case.files,
                    args={"disable_rollback": True, "timeout_mins": max(1, int(timeout // 60))},
                )
                stack_id = ident["stack_id"]
                created, done = wait_settled(
                    lambda: read(stack_id), "CREATE", poll=poll, timeout=timeout
                )
            result["create_s"] = done - started
            result["create_cpu_s"] = time.process_time() - cpu_started
            result["create_state"] = state_name(created)
            result["create_reason"] = created[2]
            # The action's tail (lock release) is neither create nor delete.
            engine.wait_idle(stack_id, timeout)
            result["create_statements"], result["create_commits"] = counter.snapshot()
            # What the created stack leaves in memory and on disk.
            result["rss_after_create_bytes"] = machine.current_rss()
            result["db_disk_bytes"] = machine.sqlite_bytes(db)
            result["db_bytes"] = machine.sqlite_checkpointed_bytes(db)
            with maybe_recording(os.getpid(), profile, "delete", gil=profile_gil):
                started, cpu_started = time.perf_counter(), time.process_time()
                engine.delete_stack(ctx, ident)
                deleted, done = wait_settled(
                    lambda: read(stack_id), "DELETE", poll=poll, timeout=timeout
                )
            result["delete_s"] = done - started
            result["delete_cpu_s"] = time.process_time() - cpu_started
            result["delete_state"] = state_name(deleted)
            engine.wait_idle(stack_id, timeout)
            statements, commits = counter.snapshot()
            result["delete_statements"] = statements - result["create_statements"]
            result["delete_commits"] = commits - result["create_commits"]
            counter.close()
            result["db_bytes_after_delete"] = machine.sqlite_checkpointed_bytes(db)
        finally:
            poller.close()
            engine.stop()
            result["peak_rss_bytes"] = machine.peak_rss()
    return result
