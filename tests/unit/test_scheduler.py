"""The graph runner: order, early release, failures, stops and deadlines."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

import pytest

from hearth.engine.running.scheduler import GraphResult, GraphRunner, StopReason, StopSignal


def run(
    requires: Mapping[str, set[str]],
    node: Callable[[GraphRunner[str], str], Awaitable[None]],
    **kwargs: object,
) -> GraphResult[str]:
    async def main() -> GraphResult[str]:
        runner: GraphRunner[str] = GraphRunner(
            requires, lambda name: node(runner, name), **kwargs  # type: ignore[arg-type]
        )
        return await runner.run()

    return asyncio.run(main())


def test_a_node_starts_only_after_what_it_requires() -> None:
    log: list[str] = []

    async def node(_: GraphRunner[str], name: str) -> None:
        log.append(f"start {name}")
        await asyncio.sleep(0.01 if name == "a" else 0)
        log.append(f"end {name}")

    result = run({"a": set(), "b": set(), "c": {"a", "b"}}, node)
    assert result.success and result.completed == {"a", "b", "c"}
    assert log.index("start c") > max(log.index("end a"), log.index("end b"))


def test_ten_thousand_independent_nodes_complete() -> None:
    async def node(_: GraphRunner[str], name: str) -> None:
        await asyncio.sleep(0)

    result = run({str(i): set() for i in range(10_000)}, node)
    assert result.success and len(result.completed) == 10_000


def test_a_released_node_lets_its_dependants_start_before_it_ends() -> None:
    log: list[str] = []

    async def node(runner: GraphRunner[str], name: str) -> None:
        log.append(f"start {name}")
        if name == "a":
            runner.release("a")
            await asyncio.sleep(0.02)
        log.append(f"end {name}")

    result = run({"a": set(), "b": {"a"}}, node)
    assert result.success
    assert log == ["start a", "start b", "end b", "end a"]


def test_a_released_node_that_then_fails_still_fails_the_run() -> None:
    async def node(runner: GraphRunner[str], name: str) -> None:
        if name == "a":
            runner.release("a")
            await asyncio.sleep(0.01)
            raise RuntimeError("its writes failed")
        await asyncio.sleep(1)

    result = run({"a": set(), "b": {"a"}}, node, error_wait_time=0.0)
    assert result.stop is StopReason.FAILED
    assert isinstance(result.failed["a"], RuntimeError)
    assert "b" in result.cancelled


def test_a_failure_keeps_dependants_from_starting() -> None:
    started: list[str] = []

    async def node(_: GraphRunner[str], name: str) -> None:
        started.append(name)
        if name == "a":
            raise ValueError("boom")

    result = run({"a": set(), "b": {"a"}, "c": {"b"}}, node)
    assert started == ["a"]
    assert result.not_started == {"b", "c"} and not result.success


def test_a_drained_stop_lets_running_nodes_finish_and_starts_nothing_new() -> None:
    stop = StopSignal()

    async def node(runner: GraphRunner[str], name: str) -> None:
        if name == "a":
            runner.release("a")  # "b" is ready, but held back by the stop
            stop.request(StopReason.CANCELLED, drain=True)
            await asyncio.sleep(0.01)

    async def main() -> GraphResult[str]:
        runner: GraphRunner[str] = GraphRunner(
            {"a": set(), "b": {"a"}}, lambda n: node(runner, n), stop=stop
        )
        return await asyncio.wait_for(runner.run(), 5)

    result = asyncio.run(main())
    assert result.completed == {"a"} and result.not_started == {"b"}
    assert result.stop is StopReason.CANCELLED


def test_the_deadline_cancels_what_runs() -> None:
    async def node(_: GraphRunner[str], name: str) -> None:
        await asyncio.sleep(10)

    async def main() -> GraphResult[str]:
        loop = asyncio.get_running_loop()
        runner: GraphRunner[str] = GraphRunner(
            {"slow": set()}, lambda n: node(runner, n), deadline=loop.time() + 0.05
        )
        return await asyncio.wait_for(runner.run(), 5)

    result = asyncio.run(main())
    assert result.stop is StopReason.TIMEOUT and result.cancelled == {"slow"}


def test_an_unknown_requirement_is_refused() -> None:
    with pytest.raises(ValueError, match="requires unknown nodes"):
        GraphRunner({"a": {"missing"}}, lambda n: asyncio.sleep(0))


def test_each_node_that_ran_is_observed_once_with_its_outcome() -> None:
    from hearth.engine.running.scheduler import NotStarted

    seen: list[tuple[str, str]] = []

    async def node(_: GraphRunner[str], name: str) -> None:
        if name == "bad":
            raise RuntimeError("boom")
        if name == "skipped":
            raise NotStarted(name)
        if name == "slow":
            await asyncio.sleep(30)

    result = run(
        {"ok": set(), "bad": {"ok"}, "slow": {"ok"}, "skipped": {"ok"}, "after": {"bad"}},
        node, error_wait_time=0.0,
        observe=lambda name, outcome, seconds: seen.append((name, outcome)),
    )
    assert result.failed.keys() == {"bad"}
    # "after" never ran (its requirement failed), "skipped" did nothing: neither is a step.
    assert sorted(seen) == [("bad", "failed"), ("ok", "complete"), ("slow", "cancelled")]
