"""Many threads writing to one SQLite file: writers queue, none fails with "locked"."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from hearth.store.db import Database
from hearth.store.models import Event, Stack
from tests.integration.store.conftest import add_stack

THREADS, TRANSACTIONS = 8, 200


def test_concurrent_writers_all_succeed(sqlite_database: Database) -> None:
    stack_id = add_stack(sqlite_database)
    start = threading.Barrier(THREADS)

    def writer(n: int) -> None:
        start.wait()
        for i in range(TRANSACTIONS):
            # Read, then write: the pattern that fails under deferred transactions.
            with sqlite_database.session() as session:
                seen = session.scalar(select(func.count()).select_from(Event))
                session.add(Event(stack_id=stack_id, resource_name=f"{n}-{i}-{seen}"))

    def reader() -> int:
        start_count = 0
        for _ in range(TRANSACTIONS):
            with sqlite_database.session(readonly=True) as session:
                count = session.scalar(select(func.count()).select_from(Event)) or 0
                assert count >= start_count
                start_count = count
        return start_count

    with ThreadPoolExecutor(THREADS + 1) as pool:
        writers = [pool.submit(writer, n) for n in range(THREADS)]
        read = pool.submit(reader)
        for future in writers:
            future.result()
        read.result()

    with sqlite_database.session(readonly=True) as session:
        assert session.scalar(select(func.count()).select_from(Event)) == THREADS * TRANSACTIONS
        assert session.get_one(Stack, stack_id).name == "s"
