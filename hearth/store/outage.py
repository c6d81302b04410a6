"""Whether an error means the database server cannot be reached (restarted, crashed, its
connections dropped), as opposed to an error of the statement or the data. The first passes:
what failed because of it is done again once the server answers."""

from __future__ import annotations

from sqlalchemy import exc as sa_exc

__all__ = ["is_database_outage"]


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
            # No statement: the error came while connecting (refused, server starting).
            or current.statement is None
        ):
            return True
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return False
