"""GroupedCreates: creates that arrive while one is in flight go together, as one bulk
request; a lone create goes alone at once; a failed bulk request is sent again one by one so
that each caller gets its own object or its own error."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from hearth.clients.grouped import GroupedCreates


class FakeService:
    """Creates objects named after their bodies; the first request is held until released,
    so that others queue behind it."""

    def __init__(self, refuse: str | None = None) -> None:
        self.requests: list[list[str]] = []
        self.first_sent = threading.Event()
        self.release_first = threading.Event()
        self.refuse = refuse
        self._lock = threading.Lock()

    def _made(self, name: str) -> dict[str, Any]:
        if name == self.refuse:
            raise ValueError(f"{name} is refused")
        return {"id": f"id-{name}", "name": name}

    def _arrive(self, names: list[str]) -> None:
        with self._lock:
            self.requests.append(names)
            first = len(self.requests) == 1
        if first:
            self.first_sent.set()
            assert self.release_first.wait(10)

    def one(self, body: Mapping[str, Any]) -> dict[str, Any]:
        self._arrive([body["name"]])
        return self._made(body["name"])

    def many(self, bodies: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
        self._arrive([b["name"] for b in bodies])
        return [self._made(b["name"]) for b in bodies]  # all or nothing


def create_all(grouped: GroupedCreates, service: FakeService, names: list[str]) -> list[Any]:
    """The first name alone, then the others while its request is in flight."""
    results: list[Any] = [None] * len(names)

    def run(i: int) -> None:
        try:
            results[i] = grouped.create({"name": names[i]}, service.one, service.many)
        except Exception as exc:
            results[i] = exc

    with ThreadPoolExecutor(len(names)) as pool:
        futures = [pool.submit(run, 0)]
        assert service.first_sent.wait(10)
        futures += [pool.submit(run, i) for i in range(1, len(names))]
        deadline = time.monotonic() + 10
        while len(grouped._queued) < len(names) - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        service.release_first.set()
        for future in futures:
            future.result(10)
    return results


def test_a_lone_create_is_sent_at_once_as_a_single_create() -> None:
    grouped, service = GroupedCreates(), FakeService()
    service.release_first.set()
    assert grouped.create({"name": "a"}, service.one, service.many) == {"id": "id-a",
                                                                          "name": "a"}
    assert service.requests == [["a"]]
    assert (grouped.requests, grouped.created) == (1, 1)


def test_creates_arriving_while_one_is_in_flight_go_in_one_bulk_request() -> None:
    grouped, service = GroupedCreates(), FakeService()
    names = [f"p{i}" for i in range(8)]
    results = create_all(grouped, service, names)
    # Each caller gets its own object, whatever request carried it.
    assert [r["name"] for r in results] == names
    assert service.requests[0] == ["p0"]
    assert sorted(service.requests[1]) == names[1:]
    assert (grouped.requests, grouped.created) == (2, 8)


def test_groups_are_bounded() -> None:
    grouped, service = GroupedCreates(max_group=3), FakeService()
    names = [f"p{i}" for i in range(8)]
    results = create_all(grouped, service, names)
    assert [r["name"] for r in results] == names
    assert [len(r) for r in service.requests] == [1, 3, 3, 1]


def test_a_failed_bulk_request_is_sent_again_one_by_one() -> None:
    grouped, service = GroupedCreates(), FakeService(refuse="p3")
    names = [f"p{i}" for i in range(6)]
    results = create_all(grouped, service, names)
    # Only the refused body's caller gets the error, worded as for a single create.
    assert isinstance(results[3], ValueError)
    assert str(results[3]) == "p3 is refused"
    assert [r["name"] for i, r in enumerate(results) if i != 3] == [
        n for n in names if n != "p3"]
    singles = [r for r in service.requests[2:]]
    assert sorted(n for (n,) in singles) == sorted(names[1:])
    assert grouped.created == 5


def test_an_error_of_a_lone_create_reaches_its_caller() -> None:
    grouped, service = GroupedCreates(), FakeService(refuse="a")
    service.release_first.set()
    with pytest.raises(ValueError, match="a is refused"):
        grouped.create({"name": "a"}, service.one, service.many)
    # Nothing is left queued or in flight: the next create goes at once.
    assert grouped.create({"name": "b"}, service.one, service.many)["id"] == "id-b"
