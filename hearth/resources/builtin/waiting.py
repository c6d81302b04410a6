"""Timed waits done by polling: a handler records when it started, a check compares.

The start time is wall-clock time in the cookie, so whichever engine worker polls next can
tell how long the wait has lasted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

# Replaceable in tests.
clock: Callable[[], float] = time.time


def start(seconds: float, **extra: Any) -> dict[str, Any]:
    """A cookie for a wait of ``seconds`` (negative: forever) starting now."""
    return {"started_at": clock(), "wait_secs": seconds, **extra}


def elapsed(cookie: Mapping[str, Any]) -> float:
    return clock() - float(cookie["started_at"])
