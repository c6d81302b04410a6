"""The base of resource types that live in another OpenStack service.

A subclass names its service (``service_type``, the catalog name; ``default_client_name``,
Heat's client name for messages) and implements three small hooks:

* ``fetch()``: the object (an openstacksdk resource or a dict) by ``resource_id``; not found
  raises (openstacksdk's ResourceNotFound or a 404);
* ``delete_object()``: ask the service to delete it;
* ``object_status(obj)`` (optional): its status, for polls and checks.

The base then gives Heat's behaviour: the physical id stored the moment the object exists
(``resource_id_set`` writes through), delete that treats "not found" as done and, for types
whose service deletes asynchronously (``delete_is_async``), polls until the object is gone;
CHECK that reads the object; the ``show`` attribute; and one read of the object per step
however many attributes are asked for (``obj``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from hearth.clients.errors import ResourceInError, is_not_found
from hearth.resources.base import Resource
from hearth.resources.exceptions import PollDelay
from hearth.resources.support import SupportStatus

if TYPE_CHECKING:
    from openstack.connection import Connection

    from hearth.clients.cloud import Cloud

T = TypeVar("T")

def since(version: str) -> SupportStatus:
    """A property's or attribute's support status: supported since Heat ``version``."""
    return SupportStatus(version=version)


# Polls of an object that is still changing: first quickly, then less often (seconds).
POLL_DELAYS = (0.2, 0.5, 1.0, 2.0)


class CloudResource(Resource):
    """A resource whose physical object lives in another OpenStack service."""

    # The service's type in the Keystone catalog (compute, network, image...).
    service_type: ClassVar[str] = ""
    default_client_name: ClassVar[str | None] = None
    # API extensions the type needs (space separated aliases, e.g. Neutron's "qos"): without
    # them the type is unavailable (HEAT-E99001), as in Heat.
    required_service_extension: ClassVar[str | None] = None
    # The service deletes in the background: poll until the object is gone.
    delete_is_async: ClassVar[bool] = False
    # Statuses meaning the object failed (compared upper-case).
    error_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR"})
    # After a failed action, the next update keeps the object unless it is gone or in one of
    # these statuses (Heat's needs_replace_failed); None: it is always replaced.
    replace_failed_statuses: ClassVar[frozenset[str] | None] = None
    # Attributes computed only when a template reads them (each costs calls of its own).
    uncached_attributes: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("handle_update")
        if callable(own) and not getattr(own, "_forgets_reads", False):
            cls.handle_update = _forgetting_reads(own)  # type: ignore[method-assign]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._obj: Any = None
        self._polls = 0

    # --- the service ---------------------------------------------------------------------

    @property
    def cloud(self) -> Cloud:
        return self.context.cloud

    @property
    def conn(self) -> Connection:
        return self.cloud.conn

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` with the service's errors as CloudErrors (Heat's names)."""
        return self.cloud.call(fn, *args, service=self.service_type, **kwargs)

    def resource_id_set(self, value: str | None) -> None:
        super().resource_id_set(value)
        # Stored now: whatever fails next, delete finds the object.
        self.context.physical_id_set(value)

    # --- hooks for subclasses ------------------------------------------------------------

    def fetch(self) -> Any:
        """The object by ``resource_id`` (raises when it is not found)."""
        raise NotImplementedError

    def delete_object(self) -> None:
        """Ask the service to delete the object (not found is handled by the caller)."""
        raise NotImplementedError

    def object_status(self, obj: Any) -> str | None:
        status = _field(obj, "status")
        return str(status) if status is not None else None

    def needs_replace_failed(self) -> bool:
        """Replaced after a failure when the object is gone or in one of
        ``replace_failed_statuses`` (upper case); always when the type names none."""
        statuses = type(self).replace_failed_statuses
        if statuses is None:
            return True
        found = self.fetch_or_none()
        if found is None:
            return True
        return (self.object_status(found) or "").upper() in statuses

    # --- reading the object, once per step -----------------------------------------------

    @property
    def obj(self) -> Any:
        """The object as last read in this step (read on first use)."""
        if self._obj is None:
            self._obj = self.call(self.fetch)
        return self._obj

    def refresh(self) -> Any:
        self._obj = None
        return self.obj

    def fetch_or_none(self) -> Any:
        """The object, or None when it does not exist (or there is no physical id)."""
        if self.resource_id is None:
            return None
        try:
            return self.refresh()
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise

    def _show_resource(self) -> Any:
        found = self.obj if self._obj is not None else self.fetch_or_none()
        return to_plain(found) if found is not None else None

    def get_live_state(self) -> dict[str, Any]:
        """The object's current values of this type's properties, for drift detection
        (Heat's ``get_live_state``): the properties that the service reports as-is."""
        found = self.fetch_or_none()
        if found is None:
            return {}
        plain = to_plain(found)
        return {
            name: plain[name] for name in type(self).properties_schema
            if isinstance(plain, Mapping) and name in plain
        }

    # --- polling -------------------------------------------------------------------------

    def poll_later(self) -> bool:
        """Not yet: poll again after a delay that grows with the number of polls."""
        delay = POLL_DELAYS[min(self._polls, len(POLL_DELAYS) - 1)]
        self._polls += 1
        raise PollDelay(delay)

    def raise_if_failed(self, obj: Any, action: str) -> None:
        status = (self.object_status(obj) or "").upper()
        if status in self.error_statuses:
            fault = _field(obj, "fault")
            detail = ""
            if isinstance(fault, Mapping) and fault.get("message"):
                detail = f": {fault['message']}"
            kind = type(self).__name__
            raise ResourceInError(
                f"Went to status {status} due to \"{action} of {kind} {self.resource_id} "
                f"failed{detail}\""
            )

    # --- delete and check ----------------------------------------------------------------

    def handle_delete(self) -> Any:
        if self.resource_id is None:
            return None
        try:
            self.call(self.delete_object)
        except Exception as exc:
            if is_not_found(exc):
                return None
            raise
        return self.resource_id if self.delete_is_async else None

    def check_delete_complete(self, cookie: Any) -> bool:
        if not cookie:
            return True
        try:
            obj = self.refresh()
        except Exception as exc:
            if is_not_found(exc):
                return True
            raise
        if (self.object_status(obj) or "").upper() in {"DELETED", "SOFT_DELETED"}:
            return True
        self.raise_if_failed(obj, "Delete")
        return self.poll_later()

    def handle_check(self) -> None:
        """CHECK: the object exists and is not in an error state."""
        obj = self.refresh()
        self.raise_if_failed(obj, "Check")


def _forgetting_reads(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handle_update`` that drops the object read before it: the attributes stored after
    the update are read afresh, not from the object as it was."""

    @functools.wraps(handler)
    def update(self: CloudResource, *args: Any, **kwargs: Any) -> Any:
        try:
            return handler(self, *args, **kwargs)
        finally:
            self._obj = None

    update._forgets_reads = True  # type: ignore[attr-defined]
    return update


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def to_plain(obj: Any) -> Any:
    """An openstacksdk resource as the JSON body its service sends (what ``show`` is)."""
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        try:
            return to_dict(body=True, headers=False, ignore_none=False, original_names=True)
        except TypeError:
            return to_dict()
    return obj
