"""ServiceSlots: steps of one service run at most N at once; a waiting step with a longer
chain of resources after it gets the next slot first; a cancelled waiter loses nothing."""

from __future__ import annotations

import asyncio

from hearth.engine.running.service_slots import ServiceSlots


def test_waiting_steps_take_slots_by_priority_then_arrival() -> None:
    async def main() -> list[str]:
        slots = ServiceSlots(1)
        order: list[str] = []
        await slots.acquire()

        async def step(name: str, priority: int) -> None:
            async with slots.held(priority):
                order.append(name)

        tasks = []
        for name, priority in (("port", 0), ("subnet", 3), ("router", 2), ("net", 3)):
            tasks.append(asyncio.ensure_future(step(name, priority)))
            await asyncio.sleep(0)
        assert slots.waiting == 4
        slots.release()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(main()) == ["subnet", "net", "router", "port"]


def test_a_cancelled_waiter_passes_its_turn_on() -> None:
    async def main() -> tuple[bool, int]:
        slots = ServiceSlots(1)
        await slots.acquire()
        cancelled = asyncio.ensure_future(slots.acquire(5))
        after = asyncio.ensure_future(slots.acquire(1))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        slots.release()
        await asyncio.wait_for(after, 1)
        slots.release()
        # Every slot is free again: a new step gets one at once.
        await asyncio.wait_for(slots.acquire(), 1)
        return cancelled.cancelled(), slots.waiting

    assert asyncio.run(main()) == (True, 0)


def test_at_most_n_steps_hold_slots() -> None:
    async def main() -> int:
        slots = ServiceSlots(3)
        inside, most = [0], [0]

        async def step() -> None:
            async with slots.held():
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                await asyncio.sleep(0.01)
                inside[0] -= 1

        await asyncio.gather(*(step() for _ in range(12)))
        return most[0]

    assert asyncio.run(main()) == 3
