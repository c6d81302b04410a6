"""RequestsInFlight: at most N threads at a time inside one service's calls, the waiting
ones let in highest step priority first; a thread's nested calls to the same service do not
wait again (no deadlock); other services are counted apart."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from hearth.clients.requests_in_flight import RequestsInFlight, step_priority


def test_at_most_the_limit_is_inside_one_service() -> None:
    limits = RequestsInFlight(2)
    inside, most, lock = [0], [0], threading.Lock()

    def call() -> None:
        with limits.held("network"):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.02)
            with lock:
                inside[0] -= 1

    with ThreadPoolExecutor(8) as pool:
        for future in [pool.submit(call) for _ in range(16)]:
            future.result(10)
    assert most[0] == 2


def test_nested_calls_of_one_thread_do_not_wait_again() -> None:
    limits = RequestsInFlight(1)
    done = threading.Event()

    def outer() -> None:
        with limits.held("network"), limits.held("network"):  # a finder inside a handler
            with limits.held("compute"):
                done.set()

    thread = threading.Thread(target=outer)
    thread.start()
    thread.join(5)
    assert done.is_set()


def test_no_limit_and_no_service_never_wait() -> None:
    held = RequestsInFlight(0)
    with held.held("network"), held.held("network"):
        pass
    with RequestsInFlight(1).held(None):
        pass


def test_waiting_threads_go_in_by_priority_then_arrival() -> None:
    limits = RequestsInFlight(1)
    order: list[str] = []
    release = threading.Event()
    holding = threading.Event()

    def holder() -> None:
        with limits.held("network"):
            holding.set()
            release.wait(10)

    def waiter(name: str, priority: int) -> None:
        with step_priority(priority), limits.held("network"):
            order.append(name)

    first = threading.Thread(target=holder)
    first.start()
    assert holding.wait(5)
    threads = []
    for name, priority in (("low", 0), ("high", 3), ("mid", 1), ("high-later", 3)):
        thread = threading.Thread(target=waiter, args=(name, priority))
        thread.start()
        threads.append(thread)
        time.sleep(0.05)  # arrive in this order
    release.set()
    for thread in [first, *threads]:
        thread.join(5)
    assert order == ["high", "high-later", "mid", "low"]
