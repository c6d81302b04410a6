"""A migrated database per test, and small builders for the rows the tests need."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hearth.store.db import Database
from hearth.store.migrate import upgrade
from hearth.store.models import RawTemplate, Stack


@pytest.fixture
def database(db_url: str) -> Iterator[Database]:
    """A Database at the newest schema, on each backend in turn."""
    upgrade(db_url)
    db = Database(db_url)
    yield db
    db.dispose()


@pytest.fixture
def sqlite_database(any_db_url: str) -> Iterator[Database]:
    upgrade(any_db_url)
    db = Database(any_db_url)
    yield db
    db.dispose()


def add_stack(db: Database, name: str = "s", **fields: Any) -> str:
    """Store a stack (with its own raw template) and return its id."""
    with db.session() as session:
        template = RawTemplate(template={"heat_template_version": "2021-04-16"}, environment={})
        session.add(template)
        session.flush()
        fields.setdefault("disable_rollback", True)
        fields.setdefault("tenant", "project-a")
        stack = Stack(name=name, raw_template_id=template.id, **fields)
        session.add(stack)
        session.flush()
        return stack.id
