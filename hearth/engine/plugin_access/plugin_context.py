"""The small window a resource plugin gets onto the engine (the SDK's ResourceContext)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from hearth.common.ec2_presign import presigned_url
from hearth.common.errors import HearthError
from hearth.common.identifier import Identity
from hearth.engine.core import EngineCore
from hearth.engine.plugin_access import peers
from hearth.engine.running.records import ResourceRecord
from hearth.resources.context import WAITCONDITION, physical_resource_name
from hearth.store import batch
from hearth.store import resources as resource_store
from hearth.store.db import Session
from hearth.store.models import Stack as StackRow
from hearth.template.environment import Environment

if TYPE_CHECKING:
    from hearth.clients.cloud import Cloud
    from hearth.resources.base import Resource
    from hearth.resources.nested import NestedStacks
    from hearth.resources.software_api import SoftwareConfigs
    from hearth.resources.stack_users_api import StackUsers


class CancelFlag:
    """Set once when a resource's step is to stop; plugins read it from any thread (a plain
    attribute: a threading.Event per resource costs more than the rest of its step)."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


@dataclass(frozen=True)
class StackScope:
    """What a resource's context knows of its stack: its name, project and action and, within
    a stack action, the definition (environment, files, timeout, update policies). A run
    makes one for all its resources' contexts; outside a run there is only the first part."""

    name: str
    tenant: str
    action: str
    environment: Environment | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    timeout_mins: int | None = None
    # A resource's resolved update policy, by name (resolved only when a plugin asks).
    update_policy: Callable[[str], Any] | None = None

    @classmethod
    def of_row(cls, row: StackRow) -> StackScope:
        """A stored stack's scope, outside any action of it."""
        return cls(row.name, row.tenant or "", row.action or "")

    def outside_action(self) -> StackScope:
        return StackScope(self.name, self.tenant, self.action)


class EngineResourceContext:
    """ResourceContext over the store: resource data, metadata and the cancel flag. Every
    context is made by this constructor, for a stack scope; a resource step adds its own
    cancel flag, its write buffer and where its stored data comes from."""

    def __init__(
        self,
        core: EngineCore,
        record: ResourceRecord,
        scope: StackScope,
        *,
        nested: Callable[[], NestedStacks | None] | None = None,
        cancel_event: CancelFlag | None = None,
        buffer: list[batch.Write] | None = None,
        fences: Callable[[], Sequence[batch.Write]] | None = None,
        stored_data: Callable[[], dict[str, str] | None] | None = None,
    ) -> None:
        self._core = core
        self._record = record
        self._scope = scope
        self.stack_id = record.stack_id
        self.stack_name = scope.name
        self.tenant = scope.tenant
        self.resource_uuid = record.uuid
        self.action = scope.action
        self.stack_timeout_mins = scope.timeout_mins
        self._cancel = cancel_event or CancelFlag()
        self._data: dict[str, str] | None = None
        # Made when a plugin first asks (few types own child stacks).
        self._nested_factory = nested
        self._nested: NestedStacks | None = None
        # With a buffer, data changes join the step's writes (committed when it returns).
        self._buffer = buffer
        self._buffered: dict[str, str | None] = {}
        # What a write made at once (a blocking handler's) holds: within a step, the stack's
        # lock and the step's claim, so that an engine that lost them writes nothing.
        self._fences = fences
        # Where the stored data comes from when not the database (read once per action).
        self._stored_data = stored_data

    def plugin(
        self, cls: type[Resource], props: Mapping[str, Any] | None, type_name: str | None = None
    ) -> Resource:
        """This context's resource as a plugin of ``cls`` on ``props`` (its row's type unless
        ``type_name`` says another), with the row's physical id and metadata: how every
        part of the engine makes a plugin."""
        record = self._record
        return cls(record.name, type_name or record.resource_type, props, self,
                   resource_id=record.physical_id, metadata=record.metadata)

    @property
    def nested(self) -> NestedStacks:
        if self._nested is None and self._nested_factory is not None:
            self._nested = self._nested_factory()
        if self._nested is None:
            raise RuntimeError("No nested stacks outside a stack action")
        return self._nested

    def stack_environment(self) -> Environment:
        if self._scope.environment is None:
            raise RuntimeError("No stack environment outside a stack action")
        return self._scope.environment

    def stack_files(self) -> dict[str, str]:
        return dict(self._scope.files)

    def update_policy(self) -> dict[str, Any]:
        policy = self._scope.update_policy
        value = policy(self._record.name) if policy is not None else None
        return dict(value) if isinstance(value, Mapping) else {}

    def physical_resource_name(self) -> str:
        return physical_resource_name(self.stack_name, self._record.name, self._record.uuid)

    def data(self) -> dict[str, str]:
        if self._data is None and self._stored_data is not None:
            self._data = self._stored_data()
        if self._data is None:
            with self._core.db.session(readonly=True) as session:
                self._data = resource_store.data_all(
                    session, self._record.id, self._core.encryptor
                )
        out = dict(self._data)
        for key, value in self._buffered.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = value
        return out

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        change = resource_store.data_change(
            self._record.id, key, str(value), redact, self._core.encryptor
        )
        if self._buffer is not None:
            self._buffer.append(change)
            self._buffered[key] = str(value)
            return
        with self._writing() as session:
            batch.apply(session.connection(), [change])
        self._data = None

    @contextmanager
    def _holding(self) -> Iterator[Sequence[batch.Write]]:
        """What a write made at once must hold (the step's fences; none outside a step):
        a write refused for them (``LockLost``, ``ClaimLost``) cancels the step too, for a
        handler that checks ``cancelled()``."""
        try:
            yield () if self._fences is None else self._fences()
        except (batch.LockLost, batch.ClaimLost):
            self._cancel.set()
            raise

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A transaction for a write made at once, refused whole unless it holds what
        ``_holding`` says."""
        with self._holding() as fences, self._core.db.session() as session:
            if fences:
                batch.apply(session.connection(), fences)
            yield session

    def data_delete(self, key: str) -> bool:
        if self._buffer is not None:
            found = key in self.data()
            self._buffer.append(batch.DataChange(self._record.id, key, None))
            self._buffered[key] = None
            return found
        with self._writing() as session:
            found = resource_store.data_delete(session, self._record.id, key)
        self._data = None
        return found

    def metadata_get(self) -> Any:
        return self._record.metadata

    def metadata_set(self, value: Any) -> None:
        with self._writing() as session:
            resource_store.set_fields(session, self._record.id, rsrc_metadata=value)
        self._record.metadata = value

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def physical_id_set(self, value: str | None) -> None:
        if value == self._record.physical_id:
            return
        if self._buffer is not None:
            self._buffer.append(batch.ResourceChange(
                self._record.id, {"physical_resource_id": value}, bump=False))
        else:
            with self._writing() as session:
                resource_store.set_fields(session, self._record.id, physical_resource_id=value)
        self._record.physical_id = value

    @property
    def cloud(self) -> Cloud:
        return self._core.clouds.for_stack(self.stack_id)

    @property
    def software(self) -> SoftwareConfigs:
        from hearth.engine.plugin_access.software_access import ProjectSoftware

        service = self._core.software
        if service is None:
            raise HearthError("Software configs are not available in this engine")
        return ProjectSoftware(service, self.tenant, self._holding)

    @property
    def stack_users(self) -> StackUsers:
        from hearth.engine.plugin_access.stack_users import EngineStackUsers

        return EngineStackUsers(self._core, self.stack_id, self.tenant,
                                self.physical_resource_name())

    def metadata_merge(self, merge: Callable[[Any], Any]) -> Any:
        with self._writing() as session:
            merged = peers.merge_metadata(session, self._record.id, merge)
        self._record.metadata = merged
        return merged

    def signal_url(self, kind: str, secret: str) -> str:
        base = self._core.settings.public_url.rstrip("/")
        return f"{base}/v1/{kind}/{self.resource_uuid}/{secret}"

    def cfn_api_url(self) -> str | None:
        base = self._core.settings.cfn_public_url
        return f"{base.rstrip('/')}/v1/" if base else None

    def cfn_signal_url(self, kind: str, access: str, secret: str) -> str | None:
        base = self._core.settings.cfn_public_url
        if not base:
            return None
        arn = Identity(self.tenant, self.stack_name, self.stack_id,
                       f"/resources/{self._record.name}").arn()
        verb = "PUT" if kind == WAITCONDITION else "POST"
        return presigned_url(base, f"/v1/{kind}/{arn}", verb, access, secret)

    def drive_peer(self, reference: str, request: Mapping[str, Any]) -> bool:
        from hearth.engine.plugin_access import peer_requests  # it builds contexts of this class

        return peer_requests.drive(self._core, self.stack_id, reference, request)

    def authenticated_signal_url(self, project_id: str | None = None) -> str:
        base = self._core.settings.public_url.rstrip("/")
        path = f"{project_id or self.tenant}/stacks/{self.stack_name}/{self.stack_id}/resources"
        return f"{base}/v1/{path}/{quote(self._record.name, safe='')}/signal"

    def peer(self, reference: str) -> Resource | None:
        with self._core.db.session(readonly=True) as session:
            row = peers.find(session, self.stack_id, reference)
            if row is None:
                return None
            record = ResourceRecord.from_row(row)
            props = resource_store.load_properties(
                session, record.prop_data_id, self._core.encryptor
            )
        try:
            cls = self._core.plugins.get_class(record.resource_type)
        except HearthError:
            # A row whose type is no longer known is nothing a plugin can use.
            return None
        context = EngineResourceContext(self._core, record, self._scope.outside_action())
        return context.plugin(cls, props)
