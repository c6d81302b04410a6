"""An engine per test, on SQLite and on the real PostgreSQL, with helpers to drive it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hearth.common.config import load_config
from hearth.common.context import RequestContext
from hearth.engine.engine import Engine
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import ServeProcess

KEY = "an encryption key that is long enough for tests"
CTX = RequestContext(project_id="tenant-a", user_id="user-a", username="alice")


def make_engine(url: str, **overrides: Any) -> Engine:
    settings: dict[str, Any] = {
        "auth_encryption_key": KEY,
        "heartbeat_interval": 0.5,
        "error_wait_time": 5,
        "enable_stack_abandon": True,
        "enable_stack_adopt": True,
    }
    settings.update(overrides)
    conf = load_config(
        overrides=[("connection", "database", url)]
        + [(k, None, v) for k, v in settings.items()]
    )
    engine = Engine.from_config(conf)
    engine.start()
    return engine


@pytest.fixture(params=["sqlite", "postgresql"])
def engine_url(request: pytest.FixtureRequest, database_factory: DatabaseFactory) -> Iterator[str]:
    url = database_factory.new(request.param)
    yield url
    database_factory.discard(url)


@pytest.fixture
def serve_process(tmp_path: Path, engine_url: str) -> Iterator[ServeProcess]:
    """A real ``hearth serve`` on the test's database (killed at the end if still running)."""
    process = ServeProcess(tmp_path / "hearth", engine_url)
    process.start()
    yield process
    process.close()


@pytest.fixture
def engine_factory(engine_url: str) -> Iterator[Callable[..., Engine]]:
    engines: list[Engine] = []

    def factory(**overrides: Any) -> Engine:
        engine = make_engine(engine_url, **overrides)
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        engine.stop()


@pytest.fixture
def engine(engine_factory: Callable[..., Engine]) -> Engine:
    return engine_factory()


def engine_with_plugin(factory: Callable[..., Engine], tmp_path: Path, module_name: str,
                       source: str, **overrides: Any) -> tuple[Engine, ModuleType]:
    """An engine whose ``plugin_dirs`` hold one module of test types (``source``), and that
    module as the engine loaded it (for the state its types keep)."""
    plugin_dir = tmp_path / "plugins"
    plugin_dir.mkdir()
    path = plugin_dir / f"{module_name}.py"
    path.write_text(source)
    engine = factory(plugin_dirs=[str(plugin_dir)], **overrides)
    module = next(m for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) == str(path))
    return engine, module


def wait_state(
    engine: Engine,
    identity: dict[str, str],
    *,
    timeout: float = 30.0,
    until: Callable[[str, str], bool] | None = None,
) -> tuple[str, str, str]:
    """Wait until the stack is no longer IN_PROGRESS (or ``until(action, status)``)."""
    deadline = time.monotonic() + timeout
    done = until or (lambda action, status: status != "IN_PROGRESS")
    while True:
        with engine.core.db.session(readonly=True) as session:
            row = stack_store.get_stack(session, identity["stack_id"])
            assert row is not None
            state = (row.action or "", row.status or "", row.status_reason or "")
        if done(state[0], state[1]) and (until is not None or engine.actions.get(
            identity["stack_id"]) is None):
            if state[1] == "FAILED":
                print_failed_resources(engine, identity, state)
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"stack still {state} after {timeout}s")
        time.sleep(0.02)


def print_failed_resources(engine: Engine, identity: dict[str, str],
                           state: tuple[str, str, str]) -> None:
    """Say why a stack failed, resource by resource: pytest shows what a failed test printed,
    where an assertion on the stack's (action, status) alone would hide the reasons."""
    print(f"stack {identity['stack_id']} ended {state[0]}_{state[1]}: {state[2]}")
    for name, row in sorted(resources(engine, identity).items()):
        if row.status == "FAILED":
            print(f"  {name} {row.action}_FAILED: {row.status_reason}")


def resources(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    """name -> row of the current (not replaced) resources."""
    with engine.core.db.session() as session:
        rows = resource_store.of_stack(session, identity["stack_id"])
        return {r.name: r for r in rows if r.replaced_by is None}


def events(engine: Engine, identity: dict[str, str]) -> list[tuple[str, str, str, str]]:
    with engine.core.db.session() as session:
        rows = queries.list_events(session, stack_ids=[identity["stack_id"]], sort_dir="asc")
        return [
            (e.resource_name or "", e.resource_action or "", e.resource_status or "",
             e.resource_status_reason or "")
            for e in rows
        ]


def stack_row(engine: Engine, identity: dict[str, str]) -> Any:
    with engine.core.db.session() as session:
        return stack_store.get_stack(session, identity["stack_id"])
