"""hearth.common.blocking: an API server gets a thread more for each call that waits on an
API (which may be its own), and none once it is closed."""

from __future__ import annotations

from hearth.common.blocking import SpareThreads, waiting_on_api


def test_each_waiting_call_adds_a_thread_while_it_waits() -> None:
    counts: list[int] = []
    spares = SpareThreads(4, counts.append).register()
    try:
        with waiting_on_api():
            with waiting_on_api():
                assert counts == [5, 6]
            assert counts == [5, 6, 5]
        assert counts == [5, 6, 5, 4]
    finally:
        spares.close()


def test_a_closed_server_is_left_alone() -> None:
    counts: list[int] = []
    spares = SpareThreads(2, counts.append).register()
    with waiting_on_api():
        spares.close()  # the server stops while a call waits
    with waiting_on_api():
        pass
    assert counts == [3]
