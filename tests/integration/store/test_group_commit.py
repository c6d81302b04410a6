"""Write transactions that arrive together are committed as one, and each caller still gets
exactly what its own work alone would have done."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from sqlalchemy import event, select

from hearth.store.db import Database, Session
from hearth.store.group_commit import GroupCommit
from hearth.store.models import Stack
from tests.integration.store.conftest import add_stack


def count_commits(db: Database) -> list[int]:
    commits = [0]

    def on_commit(_conn: object) -> None:
        commits[0] += 1

    event.listen(db.engine, "commit", on_commit)
    return commits


def rename(stack_id: str, name: str) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        row = session.get(Stack, stack_id)
        assert row is not None
        row.name = name
        return name
    return work


def names(db: Database) -> set[str]:
    with db.session() as session:
        return set(session.scalars(select(Stack.name)))


def held_first_then(
    grouped: GroupCommit, first: Callable[[Session], object],
    others: list[Callable[[Session], object]],
) -> tuple[object, list[object]]:
    """``first`` holds the committing while the ``others`` queue behind it (each from a thread
    of its own); what each returned or raised."""
    inside, release = threading.Event(), threading.Event()
    outcomes: list[object] = [None] * len(others)

    def holding(session: Session) -> object:
        inside.set()
        assert release.wait(10)
        return first(session)

    def call(i: int, fn: Callable[[Session], object]) -> None:
        try:
            outcomes[i] = grouped.run(fn)
        except Exception as exc:
            outcomes[i] = exc

    leader_outcome: list[object] = [None]
    leader = threading.Thread(target=lambda: leader_outcome.__setitem__(0, grouped.run(holding)))
    leader.start()
    assert inside.wait(10)
    threads = [threading.Thread(target=call, args=(i, fn)) for i, fn in enumerate(others)]
    for t in threads:
        t.start()
    # Each of them has queued behind the held work (or, not grouped, is done) before it
    # goes on.
    waited = threading.Event()
    for _ in range(1000):
        done = sum(not t.is_alive() for t in threads)
        if grouped.waiting + done >= len(others) or waited.wait(0.01):
            break
    release.set()
    for t in [leader, *threads]:
        t.join(10)
    return leader_outcome[0], outcomes


def test_works_that_arrive_together_commit_once(database: Database) -> None:
    ids = [add_stack(database, f"s{i}") for i in range(4)]
    grouped = GroupCommit(database, grouping=True)
    commits = count_commits(database)
    first, others = held_first_then(
        grouped, rename(ids[0], "a0"), [rename(i, f"a{n}") for n, i in enumerate(ids[1:], 1)])
    assert first == "a0" and others == ["a1", "a2", "a3"]
    # The held one alone, then the three that queued behind it together.
    assert commits[0] == 2
    assert names(database) == {"a0", "a1", "a2", "a3"}


def test_a_failing_work_fails_alone_and_the_others_still_commit(database: Database) -> None:
    ids = [add_stack(database, f"s{i}") for i in range(3)]
    grouped = GroupCommit(database, grouping=True)

    def fails(session: Session) -> str:
        rename(ids[1], "never")(session)
        raise LookupError("this one fails")

    _, others = held_first_then(grouped, rename(ids[0], "b0"),
                                [rename(ids[2], "b2"), fails])
    assert others[0] == "b2"
    assert isinstance(others[1], LookupError) and str(others[1]) == "this one fails"
    assert names(database) == {"b0", "s1", "b2"}


def test_a_caller_alone_commits_at_once_and_gets_its_error(database: Database) -> None:
    stack_id = add_stack(database, "alone")
    grouped = GroupCommit(database)
    assert grouped.run(rename(stack_id, "renamed")) == "renamed"

    def fails(_session: Session) -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        grouped.run(fails)
    assert names(database) == {"renamed"}


def test_a_work_may_not_start_another_grouped_write(database: Database) -> None:
    grouped = GroupCommit(database)
    with pytest.raises(RuntimeError, match="may not start another"):
        grouped.run(lambda session: grouped.run(lambda inner: None))


def test_only_sqlite_groups_by_default(database: Database) -> None:
    assert GroupCommit(database).grouping == (database.dialect == "sqlite")


def test_not_grouping_each_work_commits_alone(database: Database) -> None:
    ids = [add_stack(database, f"s{i}") for i in range(3)]
    grouped = GroupCommit(database, grouping=False)
    commits = count_commits(database)
    first, others = held_first_then(grouped, rename(ids[0], "c0"),
                                    [rename(ids[1], "c1"), rename(ids[2], "c2")])
    assert (first, others) == ("c0", ["c1", "c2"])
    assert commits[0] == 3
