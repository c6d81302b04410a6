"""A ResourceContext held in memory, and helpers to build plugin instances with it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hearth.resources.base import Resource
from hearth.resources.context import physical_resource_name

HEAT27 = Path(__file__).resolve().parent / "heat27" / "heat27.json"


@cache
def heat27() -> dict[str, Any]:
    """Heat 27's recorded answers (see heat27/record.py)."""
    data: dict[str, Any] = json.loads(HEAT27.read_text())
    return data


@dataclass
class FakeResourceContext:
    """What the engine would give a resource, kept in plain attributes for tests to inspect."""

    resource_name: str = "r"
    stack_id: str = "5f1e7a3c-0000-4000-8000-000000000001"
    stack_name: str = "teststack"
    tenant: str = "test_tenant"
    resource_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    action: str = "CREATE"
    stored: dict[str, str] = field(default_factory=dict)
    redacted: set[str] = field(default_factory=set)
    metadata: Any = None
    is_cancelled: bool = False
    public_url: str = "http://hearth.test:8004"
    # Other resources of the same stack, by reference and by name (what peer() finds).
    peers: dict[str, Resource] = field(default_factory=dict)

    def physical_resource_name(self) -> str:
        return physical_resource_name(self.stack_name, self.resource_name, self.resource_uuid)

    def data(self) -> dict[str, str]:
        return dict(self.stored)

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        self.stored[key] = value
        if redact:
            self.redacted.add(key)
        else:
            self.redacted.discard(key)

    def data_delete(self, key: str) -> bool:
        self.redacted.discard(key)
        return self.stored.pop(key, None) is not None

    def metadata_get(self) -> Any:
        return self.metadata

    def metadata_set(self, value: Any) -> None:
        self.metadata = value

    def cancelled(self) -> bool:
        return self.is_cancelled

    def metadata_merge(self, merge: Callable[[Any], Any]) -> Any:
        self.metadata = merge(self.metadata)
        return self.metadata

    def signal_url(self, kind: str, secret: str) -> str:
        return f"{self.public_url}/v1/{kind}/{self.resource_uuid}/{secret}"

    def peer(self, reference: str) -> Resource | None:
        return self.peers.get(reference)


def make(
    cls: type[Resource],
    properties: dict[str, Any] | None = None,
    *,
    name: str = "r",
    type_name: str = "Test::Type",
    context: FakeResourceContext | None = None,
    resource_id: str | None = None,
) -> tuple[Resource, FakeResourceContext]:
    ctx = context or FakeResourceContext(resource_name=name)
    return cls(name, type_name, properties, ctx, resource_id=resource_id), ctx
