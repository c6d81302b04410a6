"""Whether an error means the database server cannot be reached (restarted, crashed, its
connections dropped), as opposed to an error of the statement or the data. The first passes:
what failed because of it is done again once the server answers."""

from __future__ import annotations

from sqlalchemy import exc as sa_exc

__all__ = ["is_database_outage", "outage_summary"]

# PostgreSQL's SQLSTATEs of a server that is gone or going: class 08 (connection exception),
# admin_shutdown, crash_shutdown, cannot_connect_now (starting or shutting down).
_PG_GONE = ("57P01", "57P02", "57P03")
# MySQL/MariaDB client errors: cannot connect (socket, TCP, host), server gone away, lost
# connection, lost during query.
_MYSQL_GONE = frozenset({2002, 2003, 2005, 2006, 2013, 2055})


def is_database_outage(error: BaseException) -> bool:
    """True for a lost or refused connection, anywhere in ``error``'s chain of causes."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sa_exc.DisconnectionError):  # InvalidatePoolError too
            return True
        if isinstance(current, sa_exc.DBAPIError) and (
            # The dialect recognised a dropped connection (SQLAlchemy invalidated it).
            current.connection_invalidated
            # No statement (connecting, or committing) and the driver says it could not
            # reach the server: not a deadlock or a serialization failure at commit.
            or (current.statement is None and _cannot_connect(current.orig))
        ):
            return True
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return False


def _cannot_connect(orig: BaseException | None) -> bool:
    """Whether the driver's own error says the server could not be reached."""
    if orig is None:
        return False
    sqlstate = getattr(orig, "sqlstate", None)  # psycopg
    if isinstance(sqlstate, str):
        return sqlstate.startswith("08") or sqlstate in _PG_GONE
    kind = type(orig)
    if kind.__module__.startswith("psycopg"):
        # No SQLSTATE: the client's own failure (connection refused, lost, timed out).
        return kind.__name__ == "OperationalError"
    code = orig.args[0] if orig.args else None
    return kind.__module__.startswith("pymysql") and code in _MYSQL_GONE


def outage_summary(error: BaseException) -> str:
    """The first line of an outage's message, short enough for one log line a beat."""
    lines = str(error).splitlines()
    return lines[0][:200] if lines else type(error).__name__
