"""Following a stack through a server restart: while waiting, a server that does not answer
is asked again for a bounded time; past it, the wait ends as "lost contact" (the stack's end
is unknown), never as the action's failure."""

from __future__ import annotations

from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

# Exit status of a wait that lost contact with the server (1 is a stack that ended FAILED).
LOST_CONTACT = 3
DEFAULT_LOST_AFTER = 120.0  # seconds; a restarting server answers well within this
# What a proxy in front of a restarting server answers.
_GATEWAY_CODES = (502, 503, 504)


def lost_contact(exc: BaseException) -> bool:
    """Whether ``exc`` says the server did not answer (as opposed to answering no)."""
    if isinstance(exc, heat_exc.CommunicationError | ks_exc.ConnectionError):
        return True
    return isinstance(exc, heat_exc.HTTPException) and exc.code in _GATEWAY_CODES


class Contact:
    """Since when the server has not answered, and whether that is too long."""

    def __init__(self, lost_after: float) -> None:
        self.lost_after = lost_after
        self.lost_since: float | None = None

    def lose(self, now: float) -> bool:
        """Record a failed poll; True the first time after contact."""
        first = self.lost_since is None
        if first:
            self.lost_since = now
        return first

    def given_up(self, now: float) -> bool:
        return self.lost_since is not None and now - self.lost_since >= self.lost_after

    def regain(self, now: float) -> float | None:
        """Record an answer; how long contact was lost, None when it was not."""
        if self.lost_since is None:
            return None
        gap, self.lost_since = now - self.lost_since, None
        return gap
