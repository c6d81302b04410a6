"""Stored templates as the read side needs them: each parsed once per call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.store import queries
from hearth.store.db import Session
from hearth.template.template import Template


class StoredTemplates:
    """Stored templates read during one call, each once."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._cache: dict[int, Template | None] = {}

    def get(self, template_id: int | None) -> Template | None:
        if template_id is None:
            return None
        if template_id not in self._cache:
            data = queries.template_data(self._session, template_id)
            self._cache[template_id] = Template(data) if data is not None else None
        return self._cache[template_id]

    def _body(
        self, template_id: int | None, name: str
    ) -> tuple[Template, Mapping[str, Any]] | None:
        tmpl = self.get(template_id)
        if tmpl is None:
            return None
        section = tmpl.resources_section
        body = section.get(name) if isinstance(section, Mapping) else None
        return (tmpl, body) if isinstance(body, Mapping) else None

    def resource_description(self, template_id: int | None, name: str) -> str:
        found = self._body(template_id, name)
        if found is None:
            return ""
        value = found[1].get(found[0].resource_key("description"))
        return "" if value is None else str(value)

    def resource_type(self, template_id: int | None, name: str) -> str | None:
        """The type as the template names it (Heat shows an alias, not what it maps to)."""
        found = self._body(template_id, name)
        value = found[1].get(found[0].resource_key("type")) if found is not None else None
        return value if isinstance(value, str) else None
