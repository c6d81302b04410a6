"""Creates of one kind of object sent together, as one bulk request, while one is in flight.

Neutron creates ports in bulk (``POST /ports`` with ``{"ports": [...]}``) for about half the
service's work per port of one request each (measured on the devcloud's Neutron). So the
ports a stack creates at the same moment are not sent one by one: the first caller sends
its own body at once; callers that arrive while that request is in flight queue up and go
in the next request, all together (the journal's group commit, applied to a service).
Nothing waits for a batch to fill: a lone caller costs what it did before.

Neutron's bulk create is all or nothing. When a batch fails, each of its bodies is sent again
on its own, so every caller gets its own object or its own error, worded by the service as
for a single create.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

# Bodies in one bulk request at most (Neutron has no limit of its own; a huge batch would
# hold the service in one transaction for long).
MAX_GROUP = 50

Body = Mapping[str, Any]
SendOne = Callable[[Body], dict[str, Any]]
SendMany = Callable[[list[Body]], list[dict[str, Any]]]


class _Queued:
    __slots__ = ("body", "done", "error", "obj")

    def __init__(self, body: Body) -> None:
        self.body = body
        self.obj: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.done = False


class GroupedCreates:
    """One kind of create (e.g. Neutron ports of one set of credentials) grouped into bulk
    requests. ``create`` blocks until the caller's own object exists, and returns it.

    Whoever finds no request in flight sends the next one, for the oldest queued bodies; a
    caller returns as soon as its own object exists, and a waiting one sends the next group.
    """

    def __init__(self, max_group: int = MAX_GROUP) -> None:
        self.max_group = max_group
        self._cond = threading.Condition()
        self._queued: list[_Queued] = []
        self._sending = False
        # Requests sent and objects they made (what the tests check grouping by).
        self.requests = 0
        self.created = 0

    def create(self, body: Body, send_one: SendOne, send_many: SendMany) -> dict[str, Any]:
        """The object ``body`` made. ``send_one`` creates one object, ``send_many`` a list
        (in order); either raises the service's error, which reaches its own caller."""
        mine = _Queued(body)
        with self._cond:
            self._queued.append(mine)
        while True:
            with self._cond:
                while not mine.done and self._sending:
                    self._cond.wait()
                if mine.done:
                    break
                self._sending = True
                group = self._queued[:self.max_group]
                del self._queued[:self.max_group]
            try:
                self._send(group, send_one, send_many)
            finally:
                with self._cond:
                    for queued in group:
                        if not queued.done:  # the sender itself was interrupted
                            queued.error = RuntimeError("The grouped create was interrupted")
                            queued.done = True
                    self._sending = False
                    self._cond.notify_all()
        if mine.error is not None:
            raise mine.error
        assert mine.obj is not None
        return mine.obj

    def _send(self, group: list[_Queued], send_one: SendOne, send_many: SendMany) -> None:
        if len(group) > 1:
            try:
                made = send_many([q.body for q in group])
            except Exception:  # all or nothing: each is sent alone below
                made = None
            if made is not None and len(made) == len(group):
                self._settle(group, made)
                return
        for queued in group:
            try:
                obj = send_one(queued.body)
            except BaseException as exc:  # handed to the caller it belongs to
                with self._cond:
                    queued.error, queued.done = exc, True
            else:
                self._settle([queued], [obj])

    def _settle(self, group: list[_Queued], made: list[dict[str, Any]]) -> None:
        """One request made these objects."""
        with self._cond:
            for queued, obj in zip(group, made, strict=True):
                queued.obj, queued.done = obj, True
            self.requests += 1
            self.created += len(group)
