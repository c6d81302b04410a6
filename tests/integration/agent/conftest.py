"""The real Heat in-instance agent for tests: ``agent_tools`` (its venv, built once and cached
in ``~/.cache/hearth-agent``, or ``$HEARTH_AGENT_CACHE``) and ``agent`` (one server's agent in
the test's ``tmp_path``).

When the agent cannot be installed (no package index, no network) its tests are skipped with
the reason, except under CI (``CI=true``), where that fails the run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.integration.agent.harness import (
    DEFAULT_CACHE,
    Agent,
    AgentTools,
    AgentUnavailable,
    ensure_agent_tools,
)


@pytest.fixture(scope="session")
def agent_tools() -> AgentTools:
    cache = Path(os.environ.get("HEARTH_AGENT_CACHE") or DEFAULT_CACHE)
    try:
        return ensure_agent_tools(cache)
    except AgentUnavailable as exc:
        reason = f"the Heat agent cannot be installed: {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


@pytest.fixture()
def agent(agent_tools: AgentTools, tmp_path: Path) -> Agent:
    """A fresh server's agent (all its state under ``tmp_path / "server"``), not configured."""
    return Agent(agent_tools, tmp_path / "server")
