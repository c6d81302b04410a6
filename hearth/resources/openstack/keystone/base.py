"""What every Keystone resource type shares: Keystone's REST bodies and name-or-id lookups.

Objects are read and written as Keystone's own JSON through openstacksdk's identity adapter,
so ``show`` and the attributes are what Keystone answers, as in Heat. These types need an
admin (or a domain admin) as the stack's user.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar
from urllib import parse

from hearth.resources.openstack.base import CloudResource
from hearth.resources.support import SupportStatus

KEYSTONE_V3 = "Supported versions: keystone v3"


def keystone_v3(version: str) -> SupportStatus:
    """The support status of every Keystone type: since ``version``, Keystone v3 only."""
    return SupportStatus(version=version, message=KEYSTONE_V3)


class KeystoneResource(CloudResource):
    service_type = "identity"
    default_client_name = "keystone"
    # Keystone's name for one object (``project``); its collection is ``/<entity>s``.
    entity: ClassVar[str | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Name-or-id lookups made in this step: (kind, value) -> id.
        self._found: dict[tuple[str, str], str] = {}

    @classmethod
    def path(cls) -> str:
        return f"/{cls.entity}s"

    def object_path(self) -> str:
        # Ids are quoted: a region's id may itself hold "%" (Heat URL-encodes the ones it
        # is given), which Keystone would otherwise decode into another id.
        return f"{self.path()}/{parse.quote(str(self.resource_id), safe='')}"

    # --- REST ----------------------------------------------------------------------------

    def api(self, method: str, path: str, body: Any = None,
            params: Mapping[str, Any] | None = None) -> Any:
        """One call to Keystone; its JSON answer (None when empty). Errors as CloudErrors."""
        from openstack import exceptions as sdk

        def go() -> Any:
            kwargs: dict[str, Any] = {}
            if body is not None:
                kwargs["json"] = body
            if params:
                kwargs["params"] = dict(params)
            response = self.conn.identity.request(path, method, **kwargs)
            sdk.raise_from_response(response)
            return response.json() if response.content else None

        return self.call(go)

    def create_object(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST the object; its physical id is stored before anything else can fail."""
        assert self.entity is not None
        found = dict(self.api("POST", self.path(), {self.entity: dict(body)})[self.entity])
        self.resource_id_set(str(found["id"]))
        self._obj = found
        return found

    def fetch(self) -> dict[str, Any]:
        assert self.entity is not None
        return dict(self.api("GET", self.object_path())[self.entity])

    def update_object(self, body: Mapping[str, Any]) -> None:
        """PATCH the changed fields (Keystone refuses an empty update: nothing is sent)."""
        assert self.entity is not None
        if not body:
            return
        found = self.api("PATCH", self.object_path(), {self.entity: dict(body)})
        self._obj = dict(found[self.entity]) if found else None

    def delete_object(self) -> None:
        self.api("DELETE", self.object_path())

    # --- properties ----------------------------------------------------------------------

    def name_or_default(self, value: str | None) -> str:
        """A name property's value, or the physical resource name when it is not set."""
        return value or self.physical_resource_name()

    def find(self, kind: str, value: str | None) -> str | None:
        """The id of the Keystone ``kind`` (project, user, group, role, domain, service,
        region) whose id or name is ``value``; each value is looked up once per step."""
        from hearth.resources.openstack import finders

        if value is None:
            return None
        key = (kind, value)
        if key not in self._found:
            finder = finders.region_id if kind == "region" else finders.KEYSTONE_FINDERS[kind]
            self._found[key] = finder(self.cloud, value)
        return self._found[key]

    # --- attributes ----------------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.obj.get(name)
