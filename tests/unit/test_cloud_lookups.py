"""Cloud.seen_recently: an object found by id is not looked up again for a few seconds (a
stack's constraint check and its handler resolve the same networks over and over)."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.clients import cloud as cloud_module
from hearth.clients.cloud import Cloud
from hearth.clients.settings import ClientSettings


def make_cloud() -> Cloud:
    def no_session() -> Any:
        raise AssertionError("no session needed")

    return Cloud(ClientSettings(), no_session, description="test")


def test_a_hit_is_remembered_until_it_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(cloud_module.time, "monotonic", lambda: now[0])
    cloud = make_cloud()
    calls: list[str] = []

    def find() -> str:
        calls.append("net-1")
        return "net-1"

    assert cloud.seen_recently(("neutron", "network", "net-1"), find, ttl=10) == "net-1"
    now[0] += 9
    assert cloud.seen_recently(("neutron", "network", "net-1"), find, ttl=10) == "net-1"
    assert calls == ["net-1"]
    now[0] += 2  # past the ttl: asked again
    assert cloud.seen_recently(("neutron", "network", "net-1"), find, ttl=10) == "net-1"
    assert calls == ["net-1", "net-1"]


def test_a_miss_is_never_remembered() -> None:
    cloud = make_cloud()
    answers: list[str | None] = [None, "made-since"]
    assert cloud.seen_recently(("neutron", "network", "x"), lambda: answers.pop(0)) is None
    assert cloud.seen_recently(("neutron", "network", "x"), lambda: answers.pop(0)) == "made-since"


def test_keys_are_separate_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cloud_module, "FOUND_KEPT", 2)
    cloud = make_cloud()
    for name in ("a", "b", "c"):
        cloud.seen_recently(("k", name), lambda name=name: name.upper())
    calls: list[str] = []
    # "a" was pushed out by "c"; "b" and "c" are still known.
    assert cloud.seen_recently(("k", "a"), lambda: calls.append("a") or "A") == "A"
    assert cloud.seen_recently(("k", "c"), lambda: calls.append("c") or "C") == "C"
    assert calls == ["a"]


def test_threads_asking_at_once_share_one_lookup() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    cloud = make_cloud()
    calls: list[str] = []
    started, release = threading.Event(), threading.Event()

    def find() -> str:
        calls.append("net-1")
        started.set()
        assert release.wait(5)
        return "net-1"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(cloud.seen_recently, ("neutron", "network", "net-1"), find)]
        assert started.wait(5)
        futures += [pool.submit(cloud.seen_recently, ("neutron", "network", "net-1"), find)
                    for _ in range(7)]
        release.set()
        assert [f.result(5) for f in futures] == ["net-1"] * 8
    assert calls == ["net-1"]


def test_a_lookup_that_failed_is_asked_again_by_the_next_thread() -> None:
    cloud = make_cloud()

    def broken() -> str:
        raise RuntimeError("service down")

    with pytest.raises(RuntimeError):
        cloud.seen_recently(("k", "x"), broken)
    assert cloud.seen_recently(("k", "x"), lambda: "X") == "X"
