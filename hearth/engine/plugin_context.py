"""The small window a resource plugin gets onto the engine (the SDK's ResourceContext)."""

from __future__ import annotations

import threading
from typing import Any

from hearth.engine.core import EngineCore
from hearth.engine.records import ResourceRecord
from hearth.resources.context import physical_resource_name
from hearth.store import resources as resource_store


class EngineResourceContext:
    """ResourceContext over the store: resource data, metadata and the cancel flag."""

    def __init__(
        self,
        core: EngineCore,
        record: ResourceRecord,
        *,
        stack_name: str,
        tenant: str,
        action: str,
        cancel_event: threading.Event | None = None,
    ) -> None:
        self._core = core
        self._record = record
        self.stack_id = record.stack_id
        self.stack_name = stack_name
        self.tenant = tenant
        self.resource_uuid = record.uuid
        self.action = action
        self._cancel = cancel_event or threading.Event()
        self._data: dict[str, str] | None = None

    def physical_resource_name(self) -> str:
        return physical_resource_name(self.stack_name, self._record.name, self._record.uuid)

    def data(self) -> dict[str, str]:
        if self._data is None:
            with self._core.db.session() as session:
                self._data = resource_store.data_all(
                    session, self._record.id, self._core.encryptor
                )
        return dict(self._data)

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        with self._core.db.session() as session:
            resource_store.data_set(
                session, self._record.id, key, str(value), redact, self._core.encryptor
            )
        self._data = None

    def data_delete(self, key: str) -> bool:
        with self._core.db.session() as session:
            found = resource_store.data_delete(session, self._record.id, key)
        self._data = None
        return found

    def metadata_get(self) -> Any:
        return self._record.metadata

    def metadata_set(self, value: Any) -> None:
        with self._core.db.session() as session:
            resource_store.set_fields(session, self._record.id, rsrc_metadata=value)
        self._record.metadata = value

    def cancelled(self) -> bool:
        return self._cancel.is_set()
