"""heat-cfntools for the CFN API tests: ``cfntools`` is its venv's bin directory, built once
and cached in ``~/.cache/hearth-cfntools`` (or ``$HEARTH_CFNTOOLS_CACHE``).

It runs on Python 3.11 only (boto 2); elsewhere, or when it cannot be installed, its tests
are skipped with the reason, except under CI (``CI=true``), where that fails the run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.integration.tool_venvs import ToolUnavailable, cache_key, cached_build, venv_with

REQUIREMENTS = Path(__file__).with_name("cfntools-requirements.txt")
DEFAULT_CACHE = Path.home() / ".cache" / "hearth-cfntools"


def _build(target: Path) -> None:
    venv_with(target, REQUIREMENTS)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def cfntools() -> Path:
    if sys.version_info[:2] != (3, 11):
        _unavailable("heat-cfntools needs boto 2, which runs on Python 3.11 only")
    cache = Path(os.environ.get("HEARTH_CFNTOOLS_CACHE") or DEFAULT_CACHE)
    try:
        root = cached_build(cache, cache_key(REQUIREMENTS), _build)
    except ToolUnavailable as exc:
        _unavailable(f"heat-cfntools cannot be installed: {exc}")
    return root / "venv" / "bin"
