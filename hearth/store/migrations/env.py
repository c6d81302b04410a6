"""Alembic's entry point: runs the revisions on the connection ``hearth.store.migrate`` opened."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from hearth.store.db import Database
from hearth.store.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite alters tables by copying them; batch mode does that for later revisions.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    # Run by the alembic command itself, with ``sqlalchemy.url`` set.
    db = Database(config.get_main_option("sqlalchemy.url") or "")
    try:
        with db.engine.connect() as conn:
            _run(conn)
            conn.commit()
    finally:
        db.dispose()


main()
