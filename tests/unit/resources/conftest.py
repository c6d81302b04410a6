"""A clock the tests move by hand, for the built-in types' timed waits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hearth.resources.builtin import waiting


class ManualClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[ManualClock]:
    manual = ManualClock()
    monkeypatch.setattr(waiting, "clock", manual)
    yield manual
