"""What a resource leaves for others when it completes: its reference and attribute values,
read once from the plugin and stored as plain JSON with its row (``attr_data``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common.errors import TemplateOutputError
from hearth.engine.running.resource_view import ALL_ATTRIBUTES, path_key
from hearth.store.types import json_default

if TYPE_CHECKING:
    from hearth.resources.base import Resource


def cached_attributes(
    plugin: Resource, needed: Collection[str], paths: Collection[tuple[Any, ...]] | None
) -> dict[str, Any]:
    """The ``attr_data`` of a completed resource: ``needed`` are the attributes the template
    reads, ``paths`` the attribute paths it reads from a type that answers any name."""
    # Every attribute is stored, not only those the template reads: resource show
    # reports them all, as Heat does (it resolves them live).
    # Attributes that cost calls of their own (cloud types) only when read.
    uncached: frozenset[str] = getattr(type(plugin), "uncached_attributes", frozenset())
    names = (
        set(needed) | (set(type(plugin).attributes_schema) - uncached)
        | set(plugin.dynamic_attribute_names())
    ) - {ALL_ATTRIBUTES}
    attrs: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for attr in sorted(names):
        try:
            attrs[attr] = plugin.get_attribute(attr)
        except TemplateOutputError as exc:
            # A nested output in error stays an error for whoever reads it.
            attrs[attr] = None
            errors[attr] = str(exc)
        except Exception:
            attrs[attr] = None
    out = {"ref": plugin.get_reference_id(), "attrs": jsonable(attrs)}
    if errors:
        out["errors"] = errors
    if paths and type(plugin).attribute_names() is None:
        # A type answering any name may give a path its own meaning (groups).
        values: dict[str, Any] = {}
        for attr, *rest in sorted(paths, key=repr):
            try:
                values[path_key(str(attr), rest)] = plugin.get_attribute(str(attr), *rest)
            except Exception:
                values[path_key(str(attr), rest)] = None
        out["paths"] = jsonable(values)
    return out


def jsonable(value: Any) -> Any:
    """Plain JSON data (the cookie and cached attributes are stored as JSON)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        value = json_default(value)  # in the stored order
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return str(value)
