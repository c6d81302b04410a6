"""What the Cinder resource types share: Cinder's REST through openstacksdk's block-storage
adapter, Heat's wording of status errors, and a small runner for multi-step updates.

Objects are read and written as Cinder's own JSON at the base API version (3.0, what Heat's
cinderclient speaks), so ``show`` is what Cinder answers, as in Heat.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from hearth.clients.errors import ResourceUnknownStatus
from hearth.common.errors import HearthError
from hearth.resources.openstack.base import CloudResource

# A step of a multi-step action: a JSON dict with an "op" naming what to do.
Step = dict[str, Any]


class Error(HearthError):
    """Heat's generic ``exception.Error``: the status reason reads ``Error: ...``."""


def unknown_status(status: str, result: str) -> ResourceUnknownStatus:
    return ResourceUnknownStatus(f'{result} - Unknown status {status} due to "Unknown"')


def as_id(value: str, find: Callable[[], str]) -> str:
    """``value`` when it is already an id (a UUID), else what ``find`` resolves the name to.
    Heat's constraints accept only ids here; Hearth's accept names too, which Cinder and
    Nova do not, so a name is looked up once."""
    try:
        uuid.UUID(value)
    except ValueError:
        return find()
    return value


def request(proxy: Any, method: str, path: str, body: Any = None,
            params: Mapping[str, Any] | None = None,
            microversion: str | None = None) -> Any:
    """One REST call through an openstacksdk proxy; its JSON answer (None when empty)."""
    from openstack import exceptions as sdk

    kwargs: dict[str, Any] = {}
    if body is not None:
        kwargs["json"] = body
    if params:
        kwargs["params"] = dict(params)
    if microversion:
        kwargs["headers"] = {"OpenStack-API-Version": microversion}
    response = proxy.request(path, method, **kwargs)
    sdk.raise_from_response(response)
    return response.json() if response.content else None


class CinderResource(CloudResource):
    service_type = "block-storage"
    default_client_name = "cinder"
    # The path of the object below the project's endpoint (``/types``) and the key of its
    # JSON body (``volume_type``); types with other shapes override fetch/delete_object.
    collection: ClassVar[str] = ""
    body_key: ClassVar[str] = ""

    def api(self, method: str, path: str, body: Any = None,
            params: Mapping[str, Any] | None = None, microversion: str | None = None) -> Any:
        """One call to Cinder; errors as CloudErrors (Heat's names)."""
        return self.call(request, self.conn.block_storage, method, path, body, params,
                         microversion)

    def fetch(self) -> Any:
        return self.api("GET", f"{self.collection}/{self.resource_id}")[self.body_key]

    def delete_object(self) -> None:
        self.api("DELETE", f"{self.collection}/{self.resource_id}")

    def get_reference_id(self) -> str | None:
        return self.resource_id

    # --- multi-step actions --------------------------------------------------------------

    def run_steps(self, steps: list[Step], ops: Mapping[str, Callable[[Step], bool]]) -> bool:
        """Work through ``steps`` in order (the list is the action's cookie and shrinks as
        steps finish); each op answers whether its step is done. Not done: poll later."""
        while steps:
            if not ops[steps[0]["op"]](steps[0]):
                return self.poll_later()
            steps.pop(0)
        # What the steps last read may predate their end: attributes read the object again.
        self._obj = None
        return True


class UncheckedCinderResource(CinderResource):
    """A Cinder type without CHECK in Heat: a stack check reports it as not supported."""

    handle_check = None  # type: ignore[assignment]
