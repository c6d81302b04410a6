"""What one function may build: strings and lists from templates are checked against these
bounds before they are made, so that a small template cannot make the server allocate
gigabytes (a str_replace of a 100,000-fold template with a 100,000-character value was 2.5 GB).
No honest template comes near them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common.errors import TemplateBudgetExceeded

# Characters in one string a function makes (str_replace, list_join, Fn::Join).
MAX_STRING_CHARS = 10 * 1024 * 1024
# Items in one list a function makes (repeat's combinations).
MAX_ITEMS = 100_000


def check_string(function: str, size: int) -> None:
    if size > MAX_STRING_CHARS:
        raise ValueError(f'"{function}" would make a string of {size} characters, more than '
                         f"the {MAX_STRING_CHARS} a template may make")


def joined_size(parts: Iterable[str], delimiter: str = "") -> int:
    count = total = 0
    for part in parts:
        count += 1
        total += len(part)
    return total + max(count - 1, 0) * len(delimiter)


def check_items(function: str, count: int) -> None:
    if count > MAX_ITEMS:
        raise ValueError(f'"{function}" would make a list of {count} items, more than the '
                         f"{MAX_ITEMS} a template may make")


def check_value_size(value: Any, limit: int, place: str) -> None:
    """Refuse a resolved value (a resource's properties, an output) that would take more than
    ``limit`` characters, counting only until the limit is passed: the references a repeat
    or a list of lists shares cost nothing to make but everything to store and answer."""
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, Mapping):
            pending.extend(item.keys())
            pending.extend(item.values())
            total += 2
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
            total += 2
        else:
            total += 8
        if total > limit:
            raise TemplateBudgetExceeded(
                f"{place} resolves to a value of more than {limit} characters "
                "(template_max_value_chars)")
