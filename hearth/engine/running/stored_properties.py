"""The stored properties and data an action reads, fetched once for the whole action."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database, Session
from hearth.store.models import ResourceData


class StoredProperties:
    """Properties rows by id: those of the stack's resources read in one query when the
    action is loaded (decoded when first asked for), and those the action writes."""

    def __init__(
        self, db: Database, encryptor: Encryptor | None, session: Session | None,
        ids: Iterable[int],
    ) -> None:
        self._db = db
        self._encryptor = encryptor
        self._encoded = (
            {} if session is None else resource_store.properties_of_rows(session, ids))
        self._decoded: dict[int, dict[str, Any] | None] = {}

    @classmethod
    def nothing_stored(cls, db: Database, encryptor: Encryptor | None) -> StoredProperties:
        """For a stack whose resources have no properties stored yet (a new stack)."""
        return cls(db, encryptor, None, ())

    def get(self, prop_data_id: int | None) -> dict[str, Any] | None:
        """The properties stored under ``prop_data_id`` (a copy; None for none)."""
        if prop_data_id is None:
            return None
        if prop_data_id not in self._decoded:
            encoded = self._encoded.pop(prop_data_id, None)
            if encoded is not None:
                props = resource_store.decode_properties(*encoded, self._encryptor)
            else:  # written by someone else since the action was loaded
                with self._db.session(readonly=True) as session:
                    props = resource_store.load_properties(session, prop_data_id, self._encryptor)
            self._decoded[prop_data_id] = props
        props = self._decoded[prop_data_id]
        return None if props is None else dict(props)

    def new_row(
        self, props: Mapping[str, Any] | None, stored: Callable[[int], None]
    ) -> batch.PropsRow | None:
        """A new row for a resource step's writes (none for empty properties); ``stored`` is
        told its id once written."""
        row = resource_store.properties_row(props, self._encryptor)
        if row is None or props is None:
            return None
        kept = dict(props)

        def written(new_id: int) -> None:
            self._decoded[new_id] = kept
            stored(new_id)

        row.on_id = written
        return row


class StoredData:
    """The resource data of a stack's resources as the action found it (one query), for the
    plugins that run on the engine's loop: nothing but their own steps writes their data
    during the action, and those steps keep what they write in their own context."""

    def __init__(
        self, encryptor: Encryptor | None, db: Database | None, stack_id: str
    ) -> None:
        self._encryptor = encryptor
        # Read when a plugin first asks (a delete of nested stacks never does).
        self._db = db
        self._stack_id = stack_id
        self._rows: dict[int, list[ResourceData]] | None = None if db is not None else {}
        self._taken: set[int] = set()

    @classmethod
    def nothing_stored(cls, encryptor: Encryptor | None) -> StoredData:
        """For a stack whose resources have no data yet (a new stack)."""
        return cls(encryptor, None, "")

    def take(self, resource_id: int) -> dict[str, str] | None:
        """The resource's data, once; None afterwards (the database has the newer state)."""
        if resource_id in self._taken:
            return None
        self._taken.add(resource_id)
        if self._rows is None:
            assert self._db is not None
            with self._db.session(readonly=True) as session:
                self._rows = resource_store.data_of_stack(session, self._stack_id)
        return resource_store.decode_data(self._rows.pop(resource_id, []), self._encryptor)
