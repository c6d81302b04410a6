"""The CloudFormation data functions: Fn::Join, Fn::Split, Fn::Replace, Fn::Base64, Fn::Select,
Fn::MemberListToMap and Fn::GetAZs.

They serve both CFN formats and, under the same names, the early HOT versions (see
``hearth.template.versions``). Argument shapes and messages are Heat's: a malformed call fails
when the template is parsed, a value of the wrong type when the call is resolved.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hearth.template.functions import budget
from hearth.template.functions.base import Function, FunctionClass, resolve
from hearth.template.functions.strings import scalar_replacement

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext


def _pair(args: Any, message: str) -> tuple[Any, Any]:
    """Unpack a two-item argument as Heat does (any iterable of exactly two items)."""
    try:
        first, second = args
    except ValueError:
        raise ValueError(message) from None
    return first, second


def _bad_shape(name: str, example: str) -> str:
    return f'Incorrect arguments to "{name}" should be: {example}'


class Join(Function):
    """``{"Fn::Join": [delimiter, [item, ...]]}``: the items, which must be strings, joined."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        message = _bad_shape(name, f'"{name}" : [ " ", [ "str1", "str2"]]')
        if not isinstance(args, list):
            raise TypeError(message)
        self._delimiter, self._items = _pair(args, message)

    def result(self, ctx: ResolveContext) -> Any:
        items = resolve(self._items, ctx)
        if items is None:
            items = []
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise TypeError(f'"{self.name}" must operate on a list')
        delimiter = resolve(self._delimiter, ctx)
        if not isinstance(delimiter, str):
            raise TypeError(f'"{self.name}" delimiter must be a string')
        texts = [_join_item(item) for item in items]
        budget.check_string(self.name, budget.joined_size(texts, delimiter))
        return delimiter.join(texts)


def _join_item(item: Any) -> str:
    if item is None:
        return ""
    if not isinstance(item, str):
        raise TypeError(f"Items to join must be strings not {repr(item)[:200]}")
    return item


class Split(Function):
    """``{"Fn::Split": [delimiter, string]}``: the list of the string's pieces."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        message = _bad_shape(name, f'"{name}" : [ ",", "str1,str2"]]')
        if isinstance(args, str | Mapping):
            raise TypeError(message)
        self._delimiter, self._string = _pair(args, message)

    def result(self, ctx: ResolveContext) -> Any:
        # Heat takes the delimiter as written: a function there is not resolved but refused.
        if not isinstance(self._delimiter, str):
            raise TypeError(f"Delimiter for {self.name} must be string")
        string = resolve(self._string, ctx)
        if not isinstance(string, str):
            raise TypeError(f"String to split must be string; got {type(string)}")
        return string.split(self._delimiter)


class Replace(Function):
    """``{"Fn::Replace": [{placeholder: value, ...}, template]}``: substitution in a string.

    Placeholders are tried longest first (ties in lexicographic order); the template is cut at
    each occurrence of a placeholder and the remaining placeholders are applied to the pieces
    only, so a substituted value is never itself searched for placeholders.
    """

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        message = _bad_shape(
            name, f'{{"{name}": [ {{"$var1": "foo", "%var2%": "bar"}}, "$var1 is %var2%"]}}'
        )
        if isinstance(args, str | Mapping):
            raise TypeError(message)
        self._params, self._template = _pair(args, message)
        if not isinstance(self._params, Mapping | Function):
            raise TypeError(f'"{name}" parameters must be a mapping')

    def result(self, ctx: ResolveContext) -> Any:
        template = resolve(self._template, ctx)
        params = resolve(self._params, ctx)
        if not isinstance(template, str):
            raise TypeError(f'"{self.name}" template must be a string')
        if not isinstance(params, Mapping):
            raise TypeError(f'"{self.name}" params must be a map')
        # Two sorts, so that unsortable or length-less keys fail the way Heat's do.
        placeholders = sorted(sorted(params), key=len, reverse=True)
        values: list[str] = []
        for placeholder in placeholders:
            if not isinstance(placeholder, str):
                raise TypeError(f'"{self.name}" param placeholders must be strings')
            values.append(scalar_replacement(self.name, params[placeholder], placeholder))
        return _substitute(template, placeholders, values)



def _substitute(template: str, placeholders: list[str], values: list[str]) -> str:
    """Replace placeholders in priority order; text already substituted is left alone.

    ``pieces`` alternates text still open to substitution (even positions) with substituted
    values (odd positions).
    """
    pieces = [template]
    for placeholder, value in zip(placeholders, values, strict=True):
        next_pieces: list[str] = []
        for index, piece in enumerate(pieces):
            if index % 2:
                next_pieces.append(piece)
                continue
            parts = piece.split(placeholder)
            next_pieces.append(parts[0])
            for part in parts[1:]:
                next_pieces.append(value)
                next_pieces.append(part)
        # An open piece becomes text, (value, text)*: the alternation is kept.
        pieces = next_pieces
    return "".join(pieces)


class Base64(Function):
    """``{"Fn::Base64": string}``: the string unchanged (Heat does no encoding)."""

    def result(self, ctx: ResolveContext) -> Any:
        value = resolve(self.args, ctx)
        if not isinstance(value, str):
            raise TypeError(f'"{self.name}" argument must be a string')
        return value


class Select(Function):
    """``{"Fn::Select": [index, collection]}``: one item of a list, map or JSON text.

    A missing item, an empty string or a null collection gives ''.
    """

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self._index, self._collection = _pair(
            args, f'Arguments to "{name}" must be of the form [index, collection]'
        )

    def result(self, ctx: ResolveContext) -> Any:
        index = resolve(self._index, ctx)
        collection = resolve(self._collection, ctx)
        if collection == "":
            return ""
        if isinstance(collection, str):
            try:
                collection = json.loads(collection)
            except ValueError as exc:
                raise ValueError(f'"{self.name}": {exc}') from None
        if isinstance(collection, Mapping):
            if not isinstance(index, str):
                raise TypeError(f'Index to "{self.name}" must be a string')
            return collection.get(index, "")
        try:
            index = int(index)
        except (ValueError, TypeError):
            pass
        if isinstance(collection, Sequence) and not isinstance(collection, str):
            if not isinstance(index, int):
                raise TypeError(f'Index to "{self.name}" must be an integer')
            try:
                return collection[index]
            except IndexError:
                return ""
        if collection is None:
            return ""
        raise TypeError(f"Arguments to {self.name} not fully resolved")


# The example Heat shows for a malformed Fn::MemberListToMap, whitespace included.
_MEMBER_LIST_EXAMPLE = (
    "\n"
    "            {'Fn::MemberListToMap': ['Name', 'Value',\n"
    "                                     ['.member.0.Name=key',\n"
    "                                      '.member.0.Value=door']]}\n"
    "            "
)

_MEMBER_KEY = re.compile(r"\.member\.([0-9]+)\.(.*)")


class MemberListToMap(Function):
    """``{"Fn::MemberListToMap": [key_name, value_name, [".member.N.<name>=<text>", ...]]}``.

    The AWS query API's encoding of a list of key/value records, turned into a map from each
    record's ``key_name`` field to its ``value_name`` field.
    """

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        try:
            self._key_name, self._value_name, self._members = args
        except ValueError:
            raise TypeError(f'Wrong Arguments try: "{_MEMBER_LIST_EXAMPLE}"') from None
        if not isinstance(self._key_name, str):
            raise TypeError(f"{name} Key Name must be a string")
        if not isinstance(self._value_name, str):
            raise TypeError(f"{name} Value Name must be a string")

    def result(self, ctx: ResolveContext) -> Any:
        members = resolve(self._members, ctx)
        if not isinstance(members, Iterable):
            raise TypeError("Member list must be a list")
        fields = dict(_member_field(member) for member in members)
        records: dict[int, dict[str, Any]] = {}
        for key, value in fields.items():
            match = _MEMBER_KEY.match(key)
            if match is None:
                continue
            records.setdefault(int(match.group(1)), {})[match.group(2)] = value
        out: dict[Any, Any] = {}
        for number in sorted(records):
            record = records[number]
            if self._key_name in record and self._value_name in record:
                out[record[self._key_name]] = record[self._value_name]
        return out


def _member_field(member: Any) -> list[str]:
    if not isinstance(member, str):
        raise TypeError("Member list items must be strings")
    return member.split("=", 1)


class GetAZs(Function):
    """``{"Fn::GetAZs": region}``: the availability zones' names (the region is ignored)."""

    def result(self, ctx: ResolveContext) -> Any:
        return list(ctx.availability_zones())


IMPLEMENTATIONS: dict[str, FunctionClass] = {
    "Fn::Join": Join,
    "Fn::Split": Split,
    "Fn::Replace": Replace,
    "Fn::Base64": Base64,
    "Fn::Select": Select,
    "Fn::MemberListToMap": MemberListToMap,
    "Fn::GetAZs": GetAZs,
}
