"""A stack seen as the parent of its resources' child stacks."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hearth.store import resources as resource_store
from hearth.store.db import Database, Session
from hearth.store.models import Stack as StackRow
from hearth.template.context import StaticFacade


@dataclass(frozen=True)
class StoredFiles:
    """A stack's files as stored, and their row: a child stack of the same files shares it."""

    files_id: int
    files: Mapping[str, str]


@dataclass(frozen=True)
class Parent:
    """The stack a resource with a child stack belongs to."""

    stack_id: str
    tenant: str
    username: str | None
    depth: int
    root_stack_id: str
    files: StoredFiles | None = None

    def files_id_for(self, files: Mapping[str, str]) -> int | None:
        """The stored row a child with ``files`` can share (None: it stores its own)."""
        if self.files is not None and files == self.files.files:
            return self.files.files_id
        return None

    @classmethod
    def of(cls, row: StackRow) -> Parent:
        return cls(row.id, row.tenant or "", row.username, row.nested_depth,
                   row.root_stack_id or row.id)


class StackIds(Protocol):
    """What ``stored_facade`` reads of a stack row (an ORM row or a plain one)."""

    @property
    def id(self) -> str: ...
    @property
    def owner_id(self) -> str | None: ...
    @property
    def parent_resource_name(self) -> str | None: ...


def stored_facade(session: Session, row: StackIds) -> StaticFacade | None:
    """What a stored nested stack sees through resource_facade: its parent resource's
    metadata and policies as stored (None for a top-level stack)."""
    if row.owner_id is None or row.parent_resource_name is None:
        return None
    candidates = resource_store.all_named(session, row.owner_id, row.parent_resource_name)
    if not candidates:
        return None
    # The row whose child this is; during its create, the newest row of that name.
    owner = next(
        (r for r in candidates if r.physical_resource_id == row.id),
        max(candidates, key=lambda r: r.id),
    )
    definition = owner.definition or {}
    metadata = owner.rsrc_metadata
    policy = definition.get("update_policy")
    return StaticFacade(
        metadata if isinstance(metadata, Mapping) else None,
        str(definition.get("deletion_policy") or "Delete"),
        policy if isinstance(policy, Mapping) else None,
    )


class StoredFacade:
    """``stored_facade`` read when a template first evaluates resource_facade: most actions
    (every delete) never do, and skip the read of the owner's rows."""

    def __init__(self, db: Database, row: StackIds) -> None:
        self._db = db
        self._ids = _Ids(row.id, row.owner_id, row.parent_resource_name)
        self._read: StaticFacade | None = None
        self._lock = threading.Lock()

    def __call__(self, what: str) -> Any:
        with self._lock:
            if self._read is None:
                with self._db.session(readonly=True) as session:
                    # No owner row left: the defaults a parent resource would have.
                    self._read = stored_facade(session, self._ids) or StaticFacade()
        return self._read(what)


@dataclass(frozen=True)
class _Ids:
    id: str
    owner_id: str | None
    parent_resource_name: str | None
