"""Stack locks and engine liveness records (the service table)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Table, bindparam, delete, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from hearth.store import driver
from hearth.store.models import Service, StackLock
from hearth.store.types import utcnow

_LOCKS: Table = StackLock.__table__  # type: ignore[assignment]

# The statements every action of every stack sends, built once: building one again per call
# (its expression, its cache key) costs more than sending it.
_FREE_INSERT = {
    dialect: make(_LOCKS)
    .values(stack_id=bindparam("stack_id"), engine_id=bindparam("engine_id"))
    .on_conflict_do_nothing(index_elements=["stack_id"])
    .returning(_LOCKS.c.stack_id)
    for dialect, make in (("sqlite", sqlite_insert), ("postgresql", postgresql_insert))
}
_HOLDER = select(_LOCKS.c.engine_id).where(_LOCKS.c.stack_id == bindparam("stack_id"))
_HOLDER_AND_MESSAGE = select(_LOCKS.c.engine_id, _LOCKS.c.message).where(
    _LOCKS.c.stack_id == bindparam("stack_id"))
_HOLDER_FOR_UPDATE = _HOLDER.with_for_update()
_HOLDER_FOR_SHARE = _HOLDER.with_for_update(read=True)
_RELEASE = delete(_LOCKS).where(
    _LOCKS.c.stack_id == bindparam("stack_id"), _LOCKS.c.engine_id == bindparam("engine_id")
)


def try_insert(session: Session, stack_id: str, engine_id: str) -> bool:
    """Take a free lock; False when a row exists already.

    Every action of every stack takes one: on SQLite and PostgreSQL a single INSERT that
    does nothing on a conflict, elsewhere an INSERT in a savepoint that a conflict rolls
    back (MySQL's INSERT IGNORE would also hide a missing stack).
    """
    values = {"stack_id": stack_id, "engine_id": engine_id}
    stmt = _FREE_INSERT.get(session.get_bind().dialect.name)
    if stmt is not None:
        # The row it made, if any (counted as returned: psycopg does not count the rows of
        # an INSERT).
        return driver.execute_write(session.connection(), stmt, values) > 0
    try:
        with session.begin_nested():
            session.connection().execute(insert(_LOCKS).values(**values))
    except IntegrityError:
        return False
    return True


def holder(session: Session, stack_id: str, *, for_update: bool = False) -> str | None:
    """The engine holding the lock (``for_update``: read as committed now, and locked, even
    under MySQL's repeatable read)."""
    found = session.connection().execute(
        _HOLDER_FOR_UPDATE if for_update else _HOLDER, {"stack_id": stack_id}
    ).scalar()
    return None if found is None else str(found)


def held(session: Session, stack_id: str, engine_id: str) -> bool:
    """Whether ``engine_id`` holds the lock; its row stays locked (shared) until the
    transaction ends, so that a takeover's steal waits for what this transaction writes."""
    # A Core statement, and nothing of the ORM's needed (an end that releases the lock checks
    # it by that DELETE's row count instead).
    found = session.connection().execute(_HOLDER_FOR_SHARE, {"stack_id": stack_id}).scalar()
    return found == engine_id


def steal(
    session: Session, stack_id: str, old_engine: str | None, new_engine: str,
    *, message: str | None = None,
) -> bool:
    """Take over a lock from a dead engine (or hand it on), with ``message`` on it and none
    waiting before; False when someone else changed it first."""
    result = session.execute(
        update(StackLock)
        .where(StackLock.stack_id == stack_id, StackLock.engine_id == old_engine)
        .values(engine_id=new_engine, message=message)
    )
    return bool(getattr(result, "rowcount", 0))


def holder_and_message(session: Session, stack_id: str) -> tuple[str | None, str | None]:
    """The engine holding the lock and the message on it (None, None: the lock is free)."""
    found = session.connection().execute(_HOLDER_AND_MESSAGE, {"stack_id": stack_id}).first()
    return (None, None) if found is None else (found[0], found[1])


def clear_message(session: Session, stack_id: str, engine_id: str, message: str) -> bool:
    """Remove ``message`` from the lock ``engine_id`` holds; False when it was not there
    (someone acted on it first)."""
    result = session.execute(
        update(StackLock)
        .where(StackLock.stack_id == stack_id, StackLock.engine_id == engine_id,
               StackLock.message == message)
        .values(message=None)
    )
    return bool(getattr(result, "rowcount", 0))


def release(session: Session, stack_id: str, engine_id: str) -> bool:
    session.flush()  # (a message taken through the ORM is written before its row goes)
    released = driver.execute_write(
        session.connection(), _RELEASE, {"stack_id": stack_id, "engine_id": engine_id}
    )
    return released > 0


def post_message(
    session: Session, stack_id: str, message: str, *, unless_prefix: str | None = None
) -> bool:
    """Leave ``message`` on the lock (replacing one waiting, unless that one starts with
    ``unless_prefix``)."""
    stmt = update(StackLock).where(StackLock.stack_id == stack_id)
    if unless_prefix is not None:
        stmt = stmt.where(or_(StackLock.message.is_(None),
                              ~StackLock.message.startswith(unless_prefix)))
    result = session.execute(stmt.values(message=message))
    return bool(getattr(result, "rowcount", 0))


def with_messages(session: Session, engine_id: str, *, kept: str | None = None) -> list[str]:
    """The stacks whose locks ``engine_id`` holds with a message waiting (a read); a lock
    whose message is ``kept`` (a note the holder leaves for itself) has none waiting."""
    stmt = select(StackLock.stack_id).where(
        StackLock.engine_id == engine_id, StackLock.message.is_not(None)
    )
    if kept is not None:
        stmt = stmt.where(StackLock.message != kept)
    return list(session.scalars(stmt))


def take_message(
    session: Session, stack_id: str, engine_id: str, *, kept: str | None = None
) -> str | None:
    """The message waiting on the lock ``engine_id`` holds, removed from it (``kept``: a
    message that stays and is not returned)."""
    row = session.get(StackLock, stack_id, populate_existing=True)
    if row is None or row.engine_id != engine_id or not row.message or row.message == kept:
        return None
    message = row.message
    row.message = None
    return message


def locks_of_engines(session: Session, engine_ids: list[str]) -> list[StackLock]:
    return list(session.scalars(select(StackLock).where(StackLock.engine_id.in_(engine_ids))))


# --- services ------------------------------------------------------------------------------


def register_service(
    session: Session, engine_id: str, host: str, hostname: str, report_interval: int
) -> None:
    session.add(
        Service(
            engine_id=engine_id,
            host=host,
            hostname=hostname,
            binary="hearth-engine",
            topic="engine",
            report_interval=report_interval,
            updated_at=utcnow(),
        )
    )


def report_service(
    session: Session, service_id: str, host: str, binary: str, topic: str,
    report_interval: int,
) -> None:
    """A process other than an engine (an API worker) says it is alive: its record made on
    its first report, its time updated on every later one."""
    found = session.execute(
        update(Service)
        .where(Service.engine_id == service_id, Service.deleted_at.is_(None))
        .values(updated_at=utcnow())
    )
    if getattr(found, "rowcount", 0) == 0:
        session.add(Service(engine_id=service_id, host=host, hostname=host, binary=binary,
                            topic=topic, report_interval=report_interval,
                            updated_at=utcnow()))


def heartbeat(session: Session, engine_id: str) -> bool:
    """Report ``engine_id`` alive; False when it has no record (see ``forget_dead_services``)."""
    result = session.execute(
        update(Service)
        .where(Service.engine_id == engine_id, Service.deleted_at.is_(None))
        .values(updated_at=utcnow())
    )
    return bool(getattr(result, "rowcount", 0))


def unregister_service(session: Session, engine_id: str) -> None:
    session.execute(delete(Service).where(Service.engine_id == engine_id))


def services(session: Session) -> list[Service]:
    stmt = select(Service).where(Service.deleted_at.is_(None)).order_by(Service.created_at)
    return list(session.scalars(stmt))


def last_seen(session: Session, engine_id: str) -> datetime | None:
    row = session.scalars(select(Service).where(Service.engine_id == engine_id)).first()
    if row is None:
        return None
    return row.updated_at or row.created_at


def is_alive(session: Session, engine_id: str, dead_after: timedelta) -> bool:
    seen = last_seen(session, engine_id)
    return seen is not None and utcnow() - seen < dead_after


def dead_engines(session: Session, dead_after: timedelta) -> list[str]:
    cutoff = utcnow() - dead_after
    out = []
    for row in services(session):
        seen = row.updated_at or row.created_at
        if seen < cutoff:
            out.append(row.engine_id)
    return out


def forget_dead_services(
    session: Session, host: str, keep_engine: str, dead_after: timedelta
) -> int:
    """Delete the records of this host's earlier engines that are dead and hold no stack lock
    (as Heat's engine cleans up its host's stale service records at start); returns how many.
    Other hosts' dead engines stay listed, as down, for their operators to see."""
    cutoff = utcnow() - dead_after
    stale = [
        row.engine_id for row in services(session)
        if row.host == host and row.engine_id != keep_engine
        and (row.updated_at or row.created_at) < cutoff
    ]
    if not stale:
        return 0
    holding = {lock.engine_id for lock in locks_of_engines(session, stale)}
    gone = [engine_id for engine_id in stale if engine_id not in holding]
    if gone:
        session.execute(delete(Service).where(Service.engine_id.in_(gone)))
    return len(gone)

