"""Old (HIDDEN) property names that Neutron types still accept, as Heat's REPLACE
translation rules do: ``network_id`` is read as ``network``, ``subnet_id`` inside
``fixed_ips`` as ``subnet``...
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


def renamed(
    data: Mapping[str, Any] | None, unresolved: Collection[str], names: Mapping[str, str]
) -> tuple[dict[str, Any], frozenset[str]]:
    """The data with each old name (key of ``names``) moved to its new name, unless the new
    one is given too; an unresolved old value stays unresolved under its new name."""
    out = dict(data or {})
    pending = set(unresolved)
    for old, new in names.items():
        if old in out and out.get(new) is None:
            out[new] = out.pop(old)
            if old in pending:
                pending.discard(old)
                pending.add(new)
    return out, frozenset(pending)


def renamed_in_items(value: Any, old: str, new: str) -> Any:
    """A list of maps (``fixed_ips``) with ``old`` keys moved to ``new``; anything else as is."""
    if not isinstance(value, list):
        return value
    items: list[Any] = []
    for item in value:
        if isinstance(item, Mapping) and old in item and item.get(new) is None:
            item = {k: v for k, v in item.items() if k != old} | {new: item[old]}
        items.append(item)
    return items
