"""Counting refused guesses per source: a limit per sliding minute, memory bounded."""

from __future__ import annotations

import pytest

from hearth.api import attempts
from hearth.api.attempts import FailedAttempts


def test_a_source_is_held_back_until_its_window_passes() -> None:
    now = [1000.0]
    counter = FailedAttempts(3, clock=lambda: now[0])
    for _ in range(3):
        assert counter.retry_after("a") is None
        counter.failed("a")
    assert counter.retry_after("a") == 61
    assert counter.retry_after("b") is None  # other sources are not held back
    now[0] += 30
    assert counter.retry_after("a") == 31
    now[0] += 31
    assert counter.retry_after("a") is None


def test_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = FailedAttempts(1)
    monkeypatch.setattr(attempts, "MAX_SOURCES", 5)
    for i in range(20):
        counter.failed(f"10.0.0.{i}")
    assert len(counter._by_source) <= 5
    assert counter.retry_after("10.0.0.0") is None  # the oldest were forgotten
