"""Signals to resources (hooks cleared, plugin signals) and mark-unhealthy."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from typing import Any

from hearth.common.context import RequestContext
from hearth.common.errors import (
    ActionInProgress,
    HearthError,
    Invalid,
    InvalidBreakPointHook,
    NotSupported,
    PhysicalResourceIDAmbiguity,
    ResourceNotFound,
)
from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.plugin_access.plugin_context import EngineResourceContext, StackScope
from hearth.engine.resource_labels import resource_label
from hearth.engine.running.actions import ActionManager
from hearth.engine.running.records import ResourceRecord, write_event, write_state
from hearth.engine.running.step_outcomes import failure_reason
from hearth.engine.services.stack_lookup import live_stack
from hearth.engine.services.stacks import StackService
from hearth.resources.context import METADATA, SECRET_URL_KINDS, SIGNAL, signal_token_key
from hearth.resources.exceptions import NoActionRequired, ResourceActionNotSupported
from hearth.resources.template_resource import TemplateResource
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Stack as StackRow
from hearth.template.registry import HOOK_TYPES


class SignalTokenInvalid(HearthError):
    """A signal URL whose resource or secret does not match: one answer for every case, so
    that it tells nothing about which resources exist."""

    http_status = 403

    def __init__(self) -> None:
        super().__init__("Signal token is not valid")

    @property
    def heat_type(self) -> str:
        return "Forbidden"


class SignalFailed(HearthError):
    """The resource's signal handler refused the signal; the message is Heat's reason."""

    @property
    def heat_type(self) -> str:
        return "ResourceFailure"


class ResourceSignals:
    def __init__(self, core: EngineCore, actions: ActionManager, stacks: StackService) -> None:
        self.core = core
        self.actions = actions
        self.stacks = stacks

    def _current(self, session: Session, row: StackRow, name: str) -> ResourceRecord | None:
        rows = [r for r in queries.current_resources(session, row.id) if r.name == name]
        return ResourceRecord.from_row(rows[-1]) if rows else None

    def _label(self, record: ResourceRecord, row: StackRow) -> str:
        plugins = self.core.plugins
        cls = (plugins.get_class(record.resource_type) if record.resource_type in plugins
               else TemplateResource)
        return resource_label(cls, record.name, record.physical_id, row.name, row.id)

    def resource_signal(
        self,
        ctx: RequestContext,
        stack_identity: Mapping[str, Any],
        resource_name: str,
        details: Any,
        sync_call: bool = False,
    ) -> Any:
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity, stack_users=True)
            record = self._current(session, row, resource_name)
            if record is None:
                raise ResourceNotFound(resource_name, row.name)
            if isinstance(details, Mapping) and "unset_hook" in details:
                return self._unset_hook(session, row, record, str(details["unset_hook"]))
        return self._plugin_signal(row, record, details)

    def resource_signal_by_token(
        self, resource_uuid: str, secret: str, details: Any, kind: str = SIGNAL
    ) -> dict[str, Any]:
        """A signal through a public signal URL: the URL's secret stands in for a token.

        Then exactly what an authenticated signal does (hooks, the plugin's handler, events).
        Returns the resource's name and metadata after the signal (Heat's CloudFormation
        wait condition answer).
        """
        row, record = self._by_token(resource_uuid, secret, kind)
        if isinstance(details, Mapping) and "unset_hook" in details:
            with self.core.db.session() as session:
                self._unset_hook(session, row, record, str(details["unset_hook"]))
        else:
            self._plugin_signal(row, record, details)
        with self.core.db.session(readonly=True) as session:
            metadata = resource_store.stored_metadata(session, record.id)
        return {"resource": record.name, "metadata": metadata}

    def resource_metadata_by_token(self, resource_uuid: str, secret: str) -> Any:
        """A server resource's metadata for its agent, through its secret metadata URL."""
        _, record = self._by_token(resource_uuid, secret, METADATA)
        with self.core.db.session(readonly=True) as session:
            metadata = resource_store.stored_metadata(session, record.id)
        return metadata if metadata is not None else {}

    def _by_token(
        self, resource_uuid: str, secret: str, kind: str
    ) -> tuple[StackRow, ResourceRecord]:
        """The resource whose ``kind`` secret is ``secret``; SignalTokenInvalid otherwise."""
        stored: str | None = None
        found: tuple[StackRow, ResourceRecord] | None = None
        if kind in SECRET_URL_KINDS:
            with self.core.db.session(readonly=True) as session:
                res = resource_store.by_uuid(session, resource_uuid)
                stack = None if res is None else stack_store.get_stack(
                    session, res.stack_id, show_deleted=False
                )
                if res is not None and stack is not None:
                    data = resource_store.data_all(session, res.id, self.core.encryptor)
                    stored = data.get(signal_token_key(kind)) or None
                    found = (stack, ResourceRecord.from_row(res))
        # Compared in constant time, against a throwaway value when there is nothing stored.
        expected = (stored or secrets.token_urlsafe(32)).encode()
        given = secret.encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(expected, given) or stored is None or found is None:
            raise SignalTokenInvalid()
        return found

    def _unset_hook(
        self, session: Session, row: StackRow, record: ResourceRecord, hook: str
    ) -> None:
        if hook not in HOOK_TYPES:
            raise InvalidBreakPointHook(
                f'Invalid hook type "{hook}" for {self._label(record, row)}'
            )
        data = resource_store.data_all(session, record.id)
        if data.get(hook) != "True":
            raise InvalidBreakPointHook(
                f'The "{hook}" hook is not defined on {self._label(record, row)}'
            )
        resource_store.data_delete(session, record.id, hook)
        write_event(session, record, f"Hook {hook} is cleared")
        run = self.actions.get(row.id)
        if run is not None:
            self.core.workers.call_soon(lambda: run.wake_hook(record.name))

    def _plugin_signal(self, row: StackRow, record: ResourceRecord, details: Any) -> Any:
        cls = self.core.plugins.get_class(record.resource_type)
        if not cls.has_handler("signal"):
            raise ResourceActionNotSupported("signal")
        try:
            cls.check_signal_allowed(record.action)
        except NotSupported:
            with self.core.db.session() as session:
                write_event(session, record, f"Cannot signal resource during {record.action}")
            raise
        with self.core.db.session() as session:
            props = resource_store.load_properties(
                session, record.prop_data_id, self.core.encryptor
            )
        plugin = EngineResourceContext(
            self.core, record, StackScope.of_row(row)).plugin(cls, props)
        try:
            reason = plugin.signal(details)
        except NoActionRequired:
            return None
        except Exception as exc:
            # Heat refuses the signal and leaves the resource's state alone (no event either):
            # a malformed signal must not break, say, a wait condition handle.
            raise SignalFailed(failure_reason(record.name, exc)) from exc
        with self.core.db.session() as session:
            write_event(session, record, reason, states.SIGNAL)
        return None

    def resource_mark_unhealthy(
        self,
        ctx: RequestContext,
        stack_identity: Mapping[str, Any],
        resource_name: str,
        mark_unhealthy: Any,
        resource_status_reason: str | None = None,
    ) -> None:
        if not isinstance(mark_unhealthy, bool):
            raise Invalid("mark_unhealthy is not a boolean")
        reason = resource_status_reason or "state changed by resource_mark_unhealthy api"
        with self.core.db.session() as session:
            row = live_stack(session, ctx, stack_identity)
            record = self._find(session, row, resource_name)
            if self.actions.get(row.id) is not None and record.status == states.IN_PROGRESS:
                raise ActionInProgress(row.name, row.action or "")
            if mark_unhealthy:
                if record.action != states.DELETE:
                    write_state(session, record, states.CHECK, states.FAILED, reason)
                return
            if record.state != (states.CHECK, states.FAILED):
                return
        cls = self.core.plugins.get_class(record.resource_type)
        if cls.has_handler("metadata_reset"):
            plugin = EngineResourceContext(
                self.core, record, StackScope.of_row(row)).plugin(cls, None)
            plugin.handle_metadata_reset()
        with self.core.db.session() as session:
            write_state(session, record, states.CHECK, states.COMPLETE, reason)

    def _find(self, session: Session, row: StackRow, name: str) -> ResourceRecord:
        record = self._current(session, row, name)
        if record is not None:
            return record
        matches = [
            r for r in resource_store.by_physical_id(session, name)
            if r.stack_id == row.id and r.replaced_by is None
        ]
        if len(matches) > 1:
            raise PhysicalResourceIDAmbiguity(name)
        if not matches:
            raise ResourceNotFound(name, row.name)
        return ResourceRecord.from_row(matches[0])
