"""How many SQL statements and commits an engine sends while a case runs: a measure of the
work per stack that the machine's noise does not move (unlike seconds).

Counted from SQLAlchemy's events, so the journal's batched inserts on SQLite, sent straight
to the driver as one ``executemany`` per kind of row, are not in it.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine, event


class StatementCounter:
    """Statements (an ``executemany`` counts once) and commits on ``engine`` since it was
    attached, until ``close``."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self.statements = 0
        self.commits = 0
        event.listen(engine, "before_cursor_execute", self._on_statement)
        event.listen(engine, "commit", self._on_commit)

    def _on_statement(self, *_: Any) -> None:
        with self._lock:
            self.statements += 1

    def _on_commit(self, *_: Any) -> None:
        with self._lock:
            self.commits += 1

    def snapshot(self) -> tuple[int, int]:
        with self._lock:
            return self.statements, self.commits

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._on_statement)
        event.remove(self._engine, "commit", self._on_commit)
