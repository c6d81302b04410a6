"""A resource driven by another resource of its stack: a scaling policy adjusting its group.

Heat's policy finds its group in the loaded stack and calls it; a Hearth plugin only has its
context, so the engine does it (``ResourceContext.drive_peer``): it builds the peer exactly as a
stack action would (its child stacks, the stack's environment and files), runs the peer's
``handle_peer_request`` in the caller's thread, then polls ``check_peer_request_complete`` on
the engine's event loop without holding a worker. When that is done the engine stores again
what other resources and the API read of the stack: the peer's attributes, the metadata of
provider-template resources (Heat refreshes it after a signal) and the stack's outputs.

The peer's own state is left alone, as in Heat (its child stack shows the update). What the
peer must remember across an engine restart it keeps itself (a group: its metadata).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import Mapping
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.engine import states
from hearth.engine.core import EngineCore
from hearth.engine.plugin_access import peers
from hearth.engine.plugin_access.plugin_context import EngineResourceContext, StackScope
from hearth.engine.running.attribute_cache import jsonable
from hearth.engine.running.outputs import resolve_outputs
from hearth.engine.running.parent import Parent
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.resource_view import ALL_ATTRIBUTES
from hearth.engine.stack_builder import BoundStack
from hearth.engine.stack_source import StackSource
from hearth.resources.context import physical_resource_name
from hearth.resources.exceptions import (
    NoActionRequired,
    PollDelay,
    ResourceActionNotSupported,
)
from hearth.resources.template_resource import TemplateResource
from hearth.store import queries
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.template.parameters import StackIdentity

if TYPE_CHECKING:
    from hearth.resources.base import Resource

LOG = logging.getLogger(__name__)

POLL_FIRST = 0.05
POLL_MAX = 1.0

# The requests still being followed, per engine (tests and shutdown wait on them).
_pending: weakref.WeakKeyDictionary[EngineCore, set[Future[None]]] = (
    weakref.WeakKeyDictionary()
)
_pending_lock = threading.Lock()


@dataclass
class _Stack:
    """What building a resource of the stack needs, read in one transaction."""

    id: str
    name: str
    tenant: str
    action: str
    timeout: int | None
    parent: Parent
    bound: BoundStack


def _load_stack(core: EngineCore, session: Any, stack_id: str) -> _Stack | None:
    row = stack_store.get_stack(session, stack_id, show_deleted=False)
    if row is None:
        return None
    tmpl, files, env = stack_store.load_template(session, row.raw_template_id, core.encryptor)
    bound = BoundStack(
        StackSource(tmpl, files, env),
        StackIdentity(row.tenant or "", row.name, row.id),
        plugins=core.plugins,
        global_env=core.global_env,
        limits=core.template_limits,
        depth=row.nested_depth,
        max_depth=core.limits.max_nested_stack_depth,
    )
    return _Stack(row.id, row.name, row.tenant or "", row.action or "", row.timeout,
                  Parent.of(row), bound)


def _plugin(
    core: EngineCore, stack: _Stack, record: ResourceRecord, props: Mapping[str, Any] | None
) -> Resource:
    """The resource as a stack action builds it: child stacks, environment, files."""
    name = physical_resource_name(stack.name, record.name, record.uuid)
    nested = (
        core.nested.for_resource(stack.parent, record.name, name)
        if core.nested is not None else None
    )
    scope = StackScope(stack.name, stack.tenant, stack.action, stack.bound.env,
                       stack.bound.source.files, stack.timeout, stack.bound.update_policy)
    context = EngineResourceContext(core, record, scope, nested=lambda: nested)
    return context.plugin(stack.bound.stored_class(record.resource_type, record.name), props)


def drive(
    core: EngineCore, stack_id: str, reference: str, request: Mapping[str, Any]
) -> bool:
    """``ResourceContext.drive_peer`` (module doc). False when no resource has ``reference``."""
    with core.db.session(readonly=True) as session:
        row = peers.find(session, stack_id, reference)
        if row is None:
            return False
        record = ResourceRecord.from_row(row)
        props = resource_store.load_properties(session, record.prop_data_id, core.encryptor)
        stack = _load_stack(core, session, stack_id)
    if stack is None:
        return False
    if record.status != states.COMPLETE:
        # Heat leaves a resource alone while it is busy or broken.
        LOG.info("%s is %s_%s: request ignored", record.name, record.action, record.status)
        raise NoActionRequired()
    plugin = _plugin(core, stack, record, props)
    handler = getattr(plugin, "handle_peer_request", None)
    if not callable(handler):
        raise ResourceActionNotSupported(str(request.get("action") or "request"))
    cookie = handler(request)
    if plugin.has_check("peer_request"):
        future = core.workers.submit(_follow(core, plugin, record, cookie))
        with _pending_lock:
            _pending.setdefault(core, set()).add(future)
        future.add_done_callback(lambda f: _forget(core, f))
    else:
        refresh(core, stack_id, record.id)
    return True


def _forget(core: EngineCore, future: Future[None]) -> None:
    with _pending_lock:
        _pending.get(core, set()).discard(future)


async def _follow(core: EngineCore, plugin: Resource, record: ResourceRecord, cookie: Any) -> None:
    """Poll the peer with backoff until its request is done, then refresh what is stored."""
    check = plugin.check_peer_request_complete  # type: ignore[attr-defined]
    delay = POLL_FIRST
    try:
        while True:
            await asyncio.sleep(delay)
            try:
                if await core.workers.call(check, cookie):
                    break
            except PollDelay as wait:
                delay = wait.seconds
                continue
            delay = min(delay * 2, POLL_MAX)
    except asyncio.CancelledError:
        raise
    except Exception:
        # The peer recorded its own outcome (a group: its child stack's failure).
        LOG.exception("Request to %s failed", record.name)
    await core.workers.call(refresh, core, record.stack_id, record.id)


def refresh(core: EngineCore, stack_id: str, resource_id: int) -> None:
    """Store again what is read of the stack after its resource ``resource_id`` changed."""
    with core.db.session(readonly=True) as session:
        stack = _load_stack(core, session, stack_id)
        if stack is None or stack.action == states.DELETE:
            return
        records = {
            r.name: ResourceRecord.from_row(r)
            for r in queries.current_resources(session, stack_id)
        }
        peer = next((r for r in records.values() if r.id == resource_id), None)
        if peer is None:
            return
        props = resource_store.load_properties(session, peer.prop_data_id, core.encryptor)
    bound = stack.bound
    for name, record in records.items():
        bound.nodes[name] = record.node_data()
    peer.attr_data = _attributes(bound, _plugin(core, stack, peer, props))
    bound.nodes[peer.name] = peer.node_data()
    with core.db.session() as session:
        resource_store.bump(session, peer.id, attr_data=peer.attr_data)
        for name, record in records.items():
            _refresh_metadata(session, bound, name, record)
        stack_store.set_fields(session, stack_id, outputs=resolve_outputs(bound))


def _refresh_metadata(
    session: Any, bound: BoundStack, name: str, record: ResourceRecord
) -> None:
    """A provider-template resource's metadata, resolved again (Heat's metadata_update)."""
    if record.action in (states.INIT, states.DELETE) or name not in bound.resources:
        return
    try:
        if not issubclass(bound.stored_class(record.resource_type, name), TemplateResource):
            return
        metadata = bound.resolve_metadata(name)
    except Exception:
        return
    if metadata != record.metadata:
        resource_store.bump(session, record.id, rsrc_metadata=metadata)


def _attributes(bound: BoundStack, plugin: Resource) -> dict[str, Any]:
    """The reference and attributes stored for a resource, as a finished step stores them."""
    needed = bound.needed_attributes.get(plugin.name, set())
    names = (set(needed) | set(type(plugin).attributes_schema)) - {ALL_ATTRIBUTES}
    attrs: dict[str, Any] = {}
    for attr in sorted(names):
        try:
            attrs[attr] = plugin.get_attribute(attr)
        except Exception:
            attrs[attr] = None
    return {"ref": plugin.get_reference_id(), "attrs": jsonable(attrs)}


def wait_idle(core: EngineCore, timeout: float | None = None) -> bool:
    """Block until every request this engine follows is done (tests and shutdown)."""
    with _pending_lock:
        futures = list(_pending.get(core, set()))
    _done, not_done = wait_futures(futures, timeout)
    return not not_done
