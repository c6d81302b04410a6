"""What every Neutron resource type shares: Neutron's REST bodies, value_specs, tags, status.

Neutron objects are read and written as Neutron's own JSON (through openstacksdk's network
adapter), so ``show`` and the attributes are exactly what Neutron answers, as in Heat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.clients.errors import ResourceInError, ResourceUnknownStatus
from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import CloudResource
from hearth.resources.openstack.finders import neutron_find, neutron_key, neutron_key_of_path
from hearth.resources.properties import Properties

VALUE_SPECS = "value_specs"
TAGS = "tags"


class NeutronResource(CloudResource):
    service_type = "network"
    default_client_name = "neutron"
    # Neutron's name for one object (``network``) and the path of its collection.
    entity: ClassVar[str | None] = None
    collection: ClassVar[str] = ""
    # Neutron deletes synchronously: a 204 means the object is gone.
    delete_is_async = False
    # Creates made at the same moment go to Neutron as one bulk request (``create_object``).
    creates_in_bulk: ClassVar[bool] = False
    error_statuses = frozenset({"ERROR", "DEGRADED"})
    replace_failed_statuses: ClassVar[frozenset[str] | None] = frozenset({"ERROR"})
    # What ``neutron_find`` looks this type's objects up as, when not ``entity``.
    lookup_kind: ClassVar[str | None] = None

    @classmethod
    def path(cls) -> str:
        return "/" + (cls.collection or f"{cls.entity}s")

    # --- REST ----------------------------------------------------------------------------

    def api(self, method: str, path: str, body: Any = None,
            params: Mapping[str, Any] | None = None) -> Any:
        """One call to Neutron; its JSON answer (None when empty). Errors as CloudErrors."""
        from openstack import exceptions as sdk

        if method == "DELETE":
            key = neutron_key_of_path(path)
            if key is not None:  # no longer known to be there (``create_object``)
                self.cloud.gone(key)

        def go() -> Any:
            kwargs: dict[str, Any] = {}
            if body is not None:
                kwargs["json"] = body
            if params:
                kwargs["params"] = dict(params)
            response = self.conn.network.request(path, method, **kwargs)
            sdk.raise_from_response(response)
            return response.json() if response.content else None

        return self.call(go)

    def create_object(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST the object; its physical id is stored before anything else can fail."""
        entity = self.entity
        assert entity is not None
        path = self.path()

        def one(item: Mapping[str, Any]) -> dict[str, Any]:
            return dict(self.api("POST", path, {entity: dict(item)})[entity])

        def many(items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
            answer = self.api("POST", path, {f"{entity}s": [dict(i) for i in items]})
            return [dict(obj) for obj in answer[f"{entity}s"]]

        if type(self).creates_in_bulk:
            found = self.cloud.grouped_creates(f"network{path}").create(body, one, many)
        else:
            found = one(body)
        object_id = str(found["id"])
        self.resource_id_set(object_id)
        self._obj = found
        key = neutron_key(type(self).lookup_kind or entity, object_id)
        if key is not None:
            # The stack's other resources name it by id: no need to ask Neutron it exists.
            self.cloud.made(key, object_id)
        return dict(found)

    def needs_replace_failed(self) -> bool:
        # Heat asks Neutron only for the types that name their object (not an interface,
        # an association or a quota).
        if type(self).entity is None:
            return True
        return super().needs_replace_failed()

    def fetch(self) -> dict[str, Any]:
        assert self.entity is not None
        return dict(self.api("GET", f"{self.path()}/{self.resource_id}")[self.entity])

    def update_object(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        assert self.entity is not None
        if not body:
            return None
        found = self.api("PUT", f"{self.path()}/{self.resource_id}", {self.entity: dict(body)})
        self._obj = found[self.entity] if found else None
        return self._obj  # type: ignore[no-any-return]

    def delete_object(self) -> None:
        self.api("DELETE", f"{self.path()}/{self.resource_id}")

    def set_tags(self, tags: list[str] | None) -> None:
        self.api("PUT", f"{self.path()}/{self.resource_id}/tags", {"tags": list(tags or [])})
        # What was read before no longer shows the tags.
        if self._obj is not None:
            self._obj = {**self._obj, "tags": list(tags or [])}

    # --- properties to Neutron bodies ----------------------------------------------------

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        # Heat: value_specs may not set what the schema has, nor shared / tenant_id.
        if VALUE_SPECS not in properties.schema:
            return
        specs = properties.get(VALUE_SPECS) or {}
        banned = {"shared", "tenant_id"} | set(properties.schema)
        found = sorted(banned & set(specs))
        if found:
            raise StackValidationFailed(f"{', '.join(found)} not allowed in value_specs")

    def prepare_properties(self, properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The properties as a Neutron body: no None values, value_specs merged, the name
        defaulting to the physical resource name."""
        source = self.properties if properties is None else properties
        props = {k: v for k, v in source.items() if v is not None}
        if "name" in source:
            props.setdefault("name", self.physical_resource_name())
        specs = props.pop(VALUE_SPECS, None)
        if specs:
            props.update(specs)
        return props

    def prepare_update_properties(self, prop_diff: Mapping[str, Any]) -> dict[str, Any]:
        """An update's changes as a Neutron body: value_specs merged (only changed keys), a
        removed name back to the physical name."""
        diff = dict(prop_diff)
        if VALUE_SPECS in diff:
            before = self.properties.get(VALUE_SPECS) or {}
            specs = dict(diff.pop(VALUE_SPECS) or {})
            diff.update({k: v for k, v in specs.items() if before.get(k) != v})
        if "name" in diff and diff["name"] is None:
            diff["name"] = self.physical_resource_name()
        return diff

    # --- lifecycle -----------------------------------------------------------------------

    def is_built(self, obj: Mapping[str, Any]) -> bool:
        status = obj.get("status")
        if status is None or status in ("ACTIVE", "DOWN"):
            return True
        if status == "BUILD":
            return False
        if status in self.error_statuses:
            raise ResourceInError(f"Went to status {status} due to \"Unknown\"")
        raise ResourceUnknownStatus(
            f"Resource is not built - Unknown status {status} due to \"Unknown\""
        )

    def create_body(self, props: dict[str, Any]) -> dict[str, Any]:
        """Hook: the create body from the prepared properties (tags already taken out)."""
        return props

    def update_body(self, diff: dict[str, Any]) -> dict[str, Any]:
        """Hook: the update body from the prepared changes (tags already taken out)."""
        return diff

    def after_create(self, props: Mapping[str, Any]) -> None:
        """Hook: calls that need the object to exist (the physical id is stored)."""

    def handle_create(self) -> Any:
        props = self.prepare_properties()
        tags = props.pop(TAGS, None)
        obj = self.create_object(self.create_body(props))
        if tags:
            self.set_tags(tags)
        self.after_create(self.properties)
        # Already built: nothing to poll (fewer calls than Heat, which always reads again).
        return None if self.is_built(obj) else self.resource_id

    def check_create_complete(self, cookie: Any) -> bool:
        if cookie is None:
            return True
        if self.is_built(self.refresh()):
            return True
        return self.poll_later()

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> Any:
        if not prop_diff:
            return None
        diff = self.prepare_update_properties(prop_diff)
        if TAGS in diff:
            self.set_tags(diff.pop(TAGS))
        body = self.update_body(diff)
        if body:
            self.update_object(body)
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        return self.obj.get(name)

    def get_reference_id(self) -> str | None:
        return self.resource_id

    def find(self, kind: str, value: str | None) -> str | None:
        """The id of a neutron object named (or identified) by ``value``."""
        return None if value is None else neutron_find(self.cloud, kind, value)
