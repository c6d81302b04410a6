"""Hearth's side of ``python -m bench.cloud``: an engine in this process on a fresh SQLite file,
acting in the benchmark's project through ``[clients] cloud`` (the embedded mode), creating
then deleting one stack; every call to the cloud counted (bench.api_calls)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench.api_calls import CallCounter
from bench.cloud_timeline import timeline
from bench.engine_run import StatePoller, bench_overrides
from bench.lifecycle import state_name, wait_settled
from bench.results import Result


def run_hearth(
    template: dict[str, Any], *, stack_name: str, cloud: str, clouds_file: Path,
    project_id: str, counter: CallCounter, poll: float = 0.05, timeout: float = 1800.0,
    clients: dict[str, int] | None = None,
) -> Result:
    """``clients``: ``[clients]`` options other than the defaults (service_requests...)."""
    from hearth.common.config import load_config
    from hearth.common.context import RequestContext
    from hearth.engine.engine import Engine

    result: Result = {"label": "engine in-process, embedded mode (clouds.yaml)",
                      "clients": dict(clients or {})}
    with tempfile.TemporaryDirectory(prefix="hearth-bench-cloud-") as tmp:
        db = Path(tmp) / "hearth.sqlite"
        conf = load_config(overrides=[
            ("connection", "database", f"sqlite:///{db}"),
            ("cloud", "clients", cloud),
            ("clouds_file", "clients", str(clouds_file)),
            *((name, "clients", value) for name, value in (clients or {}).items()),
            *bench_overrides(),
        ])
        engine = Engine.from_config(conf)
        engine.start()
        poller = StatePoller(db)
        try:
            ctx = RequestContext(project_id=project_id, user_id="bench", username="bench")
            counter.phase("create")
            started = time.perf_counter()
            ident = engine.create_stack(
                ctx, stack_name, template,
                args={"disable_rollback": True, "timeout_mins": max(1, int(timeout // 60))},
            )
            stack_id = ident["stack_id"]
            created, done = wait_settled(lambda: poller.read(stack_id), "CREATE", poll=poll,
                                         timeout=timeout)
            result["create_s"] = done - started
            result["create_state"] = state_name(created)
            result["create_reason"] = created[2]
            engine.wait_idle(stack_id, timeout)
            counter.phase("delete")
            started = time.perf_counter()
            engine.delete_stack(ctx, ident)
            deleted, done = wait_settled(lambda: poller.read(stack_id), "DELETE", poll=poll,
                                         timeout=timeout)
            result["delete_s"] = done - started
            result["delete_state"] = state_name(deleted)
            result["delete_reason"] = deleted[2]
            engine.wait_idle(stack_id, timeout)
            result["timeline"] = {action.lower(): timeline(db, stack_id, action)
                                  for action in ("CREATE", "DELETE")}
        finally:
            counter.phase("harness")
            poller.close()
            engine.stop()
    result["calls"] = {phase: counter.summary(phase) for phase in ("create", "delete")}
    return result
