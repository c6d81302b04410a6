"""HOT functions over lists and maps: repeat (three flavours), map_merge, map_replace, filter,
list_concat, list_concat_unique and contains.

As in Heat, most of these look at their arguments only once they are resolved; what can be told
from the template alone is checked when it is parsed (or validated, where Heat does it then).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any, ClassVar

from hearth.template.functions import base, budget
from hearth.template.functions.base import Function, FunctionClass, is_list_like

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext




# --- repeat --------------------------------------------------------------------------------


class Repeat(Function):
    """``repeat: {template: ..., for_each: {placeholder: list}}`` (HOT 2015-04-30 to 2016-04-08).

    One copy of the template per combination of the for_each values, with every placeholder
    replaced (by plain substring replacement) in every string of the copy, map keys included.
    """

    # Whether map values are accepted in for_each (their keys are iterated).
    maps_allowed: ClassVar[bool] = False

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not isinstance(args, Mapping):
            raise TypeError(f'Arguments to "{name}" must be a map')
        if "for_each" not in args or "template" not in args:
            message = (
                '"repeat" syntax should be repeat:\n'
                "              template: This is %var%\n"
                "              for_each:\n"
                "                %var%: ['a', 'b', 'c']"
            )
            # Heat raises this one as a KeyError, whose text is the quoted message.
            raise ValueError(str(KeyError(message)))
        self._for_each = args["for_each"]
        self._template = args["template"]
        # Other keys are ignored, as Heat ignores them.
        self._nested = self._parse_permutations(args)

    def _parse_permutations(self, args: Mapping[str, Any]) -> bool:
        return True

    def validate(self, scope: ParseScope) -> None:
        # Heat checks the functions inside the arguments before the arguments themselves.
        base.validate(self.args, scope)
        if not isinstance(self._for_each, Function | Mapping):
            raise TypeError(f'The "for_each" argument to "{self.name}" must contain a map')

    def _check_values(self, value: Any) -> None:
        if self.maps_allowed and self._nested:
            if not isinstance(value, Sequence | Mapping) or isinstance(value, str):
                raise TypeError(
                    f'The values of the "for_each" argument to "{self.name}" must be lists or maps'
                )
        elif not is_list_like(value):
            raise TypeError(f'The values of the "for_each" argument to "{self.name}" must be lists')

    def result(self, ctx: ResolveContext) -> Any:
        for_each = base.resolve(self._for_each, ctx)
        if not isinstance(for_each, Mapping):
            raise TypeError(f"{type(for_each).__name__!r} object has no attribute 'items'")
        if not for_each:
            raise ValueError("not enough values to unpack (expected 2, got 0)")
        placeholders = list(for_each)
        values: list[Iterable[Any]] = []
        lengths: set[int] = set()
        for value in for_each.values():
            if value is None:
                values.append([])
                continue
            self._check_values(value)
            values.append(value)
            lengths.add(len(value))
        if not self._nested and len(lengths) > 1:
            raise ValueError(
                f"For {self.name}, the length of for_each values should be equal if no nested loop."
            )

        sizes = [len(list(v)) if not isinstance(v, Sized) else len(v) for v in values]
        budget.check_items(self.name, math.prod(sizes) if self._nested else min(sizes, default=0))
        template = base.resolve(self._template, ctx)
        combinations = itertools.product(*values) if self._nested else zip(*values, strict=False)
        return [_substitute(template, placeholders, list(combo)) for combo in combinations]


def _substitute(template: Any, placeholders: list[Any], values: list[Any]) -> Any:
    """A copy of ``template`` with every placeholder replaced in its strings."""
    if isinstance(template, str):
        for placeholder, value in zip(placeholders, values, strict=False):
            template = template.replace(placeholder, value)
        return template
    if isinstance(template, Mapping):
        return {
            _substitute(k, placeholders, values): _substitute(v, placeholders, values)
            for k, v in template.items()
        }
    if isinstance(template, Sequence):
        return [_substitute(item, placeholders, values) for item in template]
    return template


class RepeatWithMaps(Repeat):
    """``repeat`` from HOT 2016-10-14: a map in for_each iterates its keys."""

    maps_allowed = True


class RepeatWithPermutations(RepeatWithMaps):
    """``repeat`` from HOT 2017-09-01: ``permutations: false`` zips the lists instead."""

    def _parse_permutations(self, args: Mapping[str, Any]) -> bool:
        nested = args.get("permutations", True)
        if not isinstance(nested, bool):
            raise TypeError(f'"permutations" should be boolean type for {self.name} function.')
        return nested


# --- maps ----------------------------------------------------------------------------------


class MapMerge(Function):
    """``map_merge: [map, map, ...]``: a shallow merge, later maps winning; null counts as {}."""

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        if not isinstance(args, Sequence):
            raise TypeError(
                f'Incorrect arguments to "{self.name}" should be: '
                f'"{self.name}" : [ {{ "key1": "val1" }}, {{ "key2": "val2" }} ]'
            )
        merged: dict[Any, Any] = {}
        for item in args:
            if item is None:
                continue
            if not isinstance(item, Mapping):
                raise TypeError(
                    "Incorrect arguments: Items to merge must be maps. "
                    f"{repr(item)[:200]} is type {type(item)} instead of a dict"
                )
            merged.update(item)
        return merged


class MapReplace(Function):
    """``map_replace: [map, {keys: {old: new}, values: {old: new}}]``."""

    def _usage(self) -> str:
        return (
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
            '[ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def _map(self, value: Any) -> Mapping[Any, Any]:
        if value is None:
            return {}
        if isinstance(value, Mapping):
            return value
        raise TypeError(
            f'Incorrect arguments: to "{self.name}", arguments must be a list of maps. '
            f'Example:  "{self.name}" : [ {{ "key1": "val1" }}, '
            '{"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        if isinstance(args, dict):
            # Heat takes item 0 off whatever it got; a map fails on that key.
            raise ValueError(str(KeyError(0)))
        if not isinstance(args, list) or not args:
            raise TypeError(self._usage())
        source = self._map(args[0])
        if len(args) < 2:
            raise TypeError(self._usage())
        replacements = self._map(args[1])
        if len(args) > 2:
            raise TypeError(self._usage())
        for key in replacements:
            if key not in ("keys", "values"):
                raise ValueError(self._usage())
        new_keys = self._map(replacements.get("keys", {}))
        new_values = self._map(replacements.get("values", {}))

        out: dict[Any, Any] = {}
        for key, value in source.items():
            new_key = new_keys.get(key)
            if new_key is None:
                new_key = key
            elif new_key in source and new_key != key:
                raise ValueError(f"key replacement {new_key} collides with a key in the input map")
            elif new_key in out:
                raise ValueError(f"key replacement {new_key} collides with a key in the output map")
            try:
                new_value = new_values.get(value, value)
            except TypeError:  # an unhashable value is never replaced
                new_value = value
            out[new_key] = new_value
        return out


# --- lists ---------------------------------------------------------------------------------


class Filter(Function):
    """``filter: [values, list]``: the list without any item found in values."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not is_list_like(args):
            raise TypeError(f'Argument to "{name}" must be a list')
        if len(args) != 2:
            raise ValueError(
                f'"{name}" expected 2 arguments of the form [values, sequence] '
                f"but got {len(args)} arguments instead"
            )
        self._values, self._sequence = args

    def result(self, ctx: ResolveContext) -> Any:
        sequence = base.resolve(self._sequence, ctx)
        if not sequence:
            return sequence
        if not isinstance(sequence, list):
            raise TypeError(f'"{self.name}" only works with lists')
        values = base.resolve(self._values, ctx)
        if not values:
            return sequence
        if not isinstance(values, list):
            raise TypeError(f'"{self.name}" filters a list of values')
        return [item for item in sequence if item not in values]


class ListConcat(Function):
    """``list_concat: [list, list, ...]``: one list; null entries count as empty."""

    unique: ClassVar[bool] = False

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        if not is_list_like(args):
            raise TypeError(
                f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
                "[ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]"
            )
        joined: list[Any] = []
        for item in args:
            if item is None:
                continue
            if not is_list_like(item):
                raise TypeError(
                    "Incorrect arguments: Items to concat must be lists. "
                    f"{json.dumps(args)} contains an item that is not a list: "
                    f"{json.dumps(item)}"
                )
            joined.extend(item)
        return _unique(joined) if self.unique else joined


def _unique(items: list[Any]) -> list[Any]:
    """The first of each group of equal items, in order (equality as ``==`` sees it)."""
    out: list[Any] = []
    seen: set[Any] = set()
    seen_unhashable: list[Any] = []
    for item in items:
        try:
            if item in seen:
                continue
            seen.add(item)
        except TypeError:
            # Lists and maps can only equal other lists and maps: compare those one by one.
            if item in seen_unhashable:
                continue
            seen_unhashable.append(item)
        out.append(item)
    return out


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: list_concat keeping only the first of equal items."""

    unique = True


class Contains(Function):
    """``contains: [value, sequence]``: whether the value is in the sequence."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not args or not isinstance(args, list):
            raise TypeError(
                f'Incorrect arguments to "{name}" should be: '
                f'"{name}" : [ "value1", [ "value1", "value2"]]'
            )
        if len(args) != 2:
            raise ValueError(
                f'Arguments to "{name}" must be of the form: [value1, [value1, value2]]'
            )
        self._value, self._sequence = args

    def result(self, ctx: ResolveContext) -> Any:
        value = base.resolve(self._value, ctx)
        sequence = base.resolve(self._sequence, ctx)
        if not isinstance(sequence, Sequence):
            raise TypeError(f'Second argument to "{self.name}" should be a sequence.')
        return value in sequence


IMPLEMENTATIONS: dict[str, FunctionClass] = {
    "repeat@lists": Repeat,
    "repeat@maps": RepeatWithMaps,
    "repeat@permutations": RepeatWithPermutations,
    "map_merge": MapMerge,
    "map_replace": MapReplace,
    "filter": Filter,
    "list_concat": ListConcat,
    "list_concat_unique": ListConcatUnique,
    "contains": Contains,
}
