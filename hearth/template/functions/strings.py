"""HOT functions that build strings: list_join, str_replace (all four flavours), str_split,
digest and make_url.

Each class checks what it can of its argument's shape when the template is parsed and does the
rest when it is resolved, at the same moments Heat does, so that an error shows up in the same
place (template validation, property validation or output resolution) with the same text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from urllib import parse as urlparse

from hearth.template.functions import base, budget
from hearth.template.functions.base import Function, FunctionClass, is_list_like

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext




def _to_json(value: Any) -> str:
    """JSON text of a list or map, keys sorted, as Heat embeds them in strings."""
    return json.dumps(value, sort_keys=True)


def _syntax_error(message: str) -> ValueError:
    """Heat raises some syntax errors as KeyError, whose text is the quoted message."""
    return ValueError(str(KeyError(message)))


# --- list_join -----------------------------------------------------------------------------



def scalar_replacement(fn_name: str, value: Any, placeholder: Any) -> str:
    """The text for a placeholder where only scalars may stand (null is the empty string)."""
    if value is None:
        return ""
    if not isinstance(value, str | int | float | bool):
        raise TypeError(
            f'"{fn_name}" params must be strings or numbers, param {placeholder} is not valid'
        )
    return str(value)

class ListJoin(Function):
    """``list_join: [delimiter, list]`` of HOT 2013-05-23 to 2015-04-30: items must be strings."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        usage = f'Incorrect arguments to "{name}" should be: "{name}" : [ " ", [ "str1", "str2"]]'
        if not isinstance(args, list):
            raise TypeError(usage)
        if len(args) != 2:
            raise ValueError(usage)
        self._delimiter, self._items = args

    def result(self, ctx: ResolveContext) -> Any:
        items = base.resolve(self._items, ctx)
        if items is None:
            items = []
        if not is_list_like(items):
            raise TypeError(f'"{self.name}" must operate on a list')
        delimiter = base.resolve(self._delimiter, ctx)
        if not isinstance(delimiter, str):
            raise TypeError(f'"{self.name}" delimiter must be a string')
        parts: list[str] = []
        for item in items:
            if item is None:
                parts.append("")
            elif isinstance(item, str):
                parts.append(item)
            else:
                raise TypeError(f"Items to join must be strings not {repr(item)[:200]}")
        budget.check_string(self.name, budget.joined_size(parts, delimiter))
        return delimiter.join(parts)


class ListJoinMulti(Function):
    """``list_join: [delimiter, list, ...]`` from HOT 2015-10-15: lists and maps become JSON."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        usage = (
            f'Incorrect arguments to "{name}" should be: "{name}" : [ " ", [ "str1", "str2"] ...]'
        )
        if not isinstance(args, list):
            raise TypeError(usage)
        if len(args) < 2:
            raise ValueError(usage)
        self._delimiter = args[0]
        self._lists = args[1:]

    def result(self, ctx: ResolveContext) -> Any:
        items: list[Any] = []
        for one in base.resolve(self._lists, ctx):
            if not one:
                # Null (and any other empty value) contributes nothing.
                continue
            if not is_list_like(one):
                raise TypeError(f'"{self.name}" must operate on a list')
            items.extend(one)
        delimiter = base.resolve(self._delimiter, ctx)
        if not isinstance(delimiter, str):
            raise TypeError(f'"{self.name}" delimiter must be a string')
        texts = [self._text(item) for item in items]
        budget.check_string(self.name, budget.joined_size(texts, delimiter))
        return delimiter.join(texts)

    @staticmethod
    def _text(item: Any) -> str:
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        if isinstance(item, Mapping | Sequence):
            try:
                return _to_json(item)
            except TypeError:
                raise TypeError(
                    "Items to join must be string, map or list. "
                    f"{repr(item)[:200]} failed json serialization"
                ) from None
        raise TypeError(f"Items to join must be string, map or list not {repr(item)[:200]}")


# --- str_replace ---------------------------------------------------------------------------


class StrReplace(Function):
    """``str_replace: {template: ..., params: {...}}`` of HOT 2013-05-23 to 2015-04-30.

    Placeholders are tried longest first (ties in string order); text that a replacement put in
    is never searched again. Parameter values must be strings, numbers, booleans or null.
    """

    strict: ClassVar[bool] = False
    allow_empty: ClassVar[bool] = True

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not isinstance(args, Mapping):
            raise TypeError(f'Arguments to "{name}" must be a map')
        if "params" not in args or "template" not in args:
            raise _syntax_error(
                f'"{name}" syntax should be {name}:\n'
                "              template: This is var1 template var2\n"
                "              params:\n"
                "                var1: a\n"
                "                var2: string"
            )
        self._params = args["params"]
        self._template = args["template"]
        if not isinstance(self._params, Mapping | Function):
            raise TypeError(f'"{name}" parameters must be a mapping')

    def replacement(self, value: Any, placeholder: Any) -> str:
        """The text that stands in for ``placeholder``."""
        return scalar_replacement(self.name, value, placeholder)

    def result(self, ctx: ResolveContext) -> Any:
        template = base.resolve(self._template, ctx)
        params = base.resolve(self._params, ctx)
        # Heat takes the set of placeholders before checking what params is.
        missing = set(params) if self.strict else set()
        if not isinstance(template, str):
            raise TypeError(f'"{self.name}" template must be a string')
        if not isinstance(params, Mapping):
            raise TypeError(f'"{self.name}" params must be a map')

        placeholders = sorted(sorted(params), key=len, reverse=True)
        pairs: list[tuple[str, str]] = []
        for placeholder in placeholders:
            if not isinstance(placeholder, str):
                raise TypeError(f'"{self.name}" param placeholders must be strings')
            pairs.append((placeholder, self.replacement(params[placeholder], placeholder)))

        # Fragments of the output: (text, still_to_be_searched).
        fragments: list[tuple[str, bool]] = [(template, True)]
        for placeholder, text in pairs:
            found = False
            next_fragments: list[tuple[str, bool]] = []
            for fragment, searchable in fragments:
                if not searchable:
                    next_fragments.append((fragment, False))
                    continue
                pieces = fragment.split(placeholder)
                if len(pieces) > 1:
                    found = True
                for i, piece in enumerate(pieces):
                    if i:
                        next_fragments.append((text, False))
                    next_fragments.append((piece, True))
            fragments = next_fragments
            if found:
                missing.discard(placeholder)

        if self.strict and missing:
            names = ",".join(sorted(sorted(missing), key=len, reverse=True))
            raise ValueError(f"The following params were not found in the template: {names}")
        budget.check_string(self.name, budget.joined_size(f for f, _ in fragments))
        return "".join(fragment for fragment, _ in fragments)


class StrReplaceJson(StrReplace):
    """``str_replace`` from HOT 2015-10-15: list and map values are substituted as JSON."""

    def _empty(self, placeholder: Any) -> ValueError:
        return ValueError(
            f"{self.name} has an undefined or empty value for param {placeholder}, "
            "must be a defined non-empty value"
        )

    def replacement(self, value: Any, placeholder: Any) -> str:
        if value is None:
            if self.allow_empty:
                return ""
            raise self._empty(placeholder)
        if not isinstance(value, str | int | float | bool):
            if not isinstance(value, Mapping | Sequence):
                raise TypeError(f'"{self.name}" params must be strings, numbers, list or map.')
            if not self.allow_empty and len(value) == 0:
                raise self._empty(placeholder)
            try:
                return _to_json(value)
            except TypeError:
                raise TypeError(
                    f'"{self.name}" params must be strings, numbers, list or map. '
                    f"Failed to json serialize {value}"
                ) from None
        text = str(value)
        if not self.allow_empty and not text:
            raise self._empty(placeholder)
        return text


class StrReplaceStrict(StrReplaceJson):
    """``str_replace_strict``: every placeholder must occur in the template."""

    strict = True


class StrReplaceVeryStrict(StrReplaceStrict):
    """``str_replace_vstrict``: strict, and no value may be null or empty."""

    allow_empty = False


# --- str_split -----------------------------------------------------------------------------


class StrSplit(Function):
    """``str_split: [delimiter, string]`` or ``[delimiter, string, index]``."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self._example = f'"{name}" : [ ",", "apples,pears", <index>]'
        if isinstance(args, str | Mapping):
            raise TypeError(f'Incorrect arguments to "{name}" should be: {self._example}')

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        usage = f'Incorrect arguments to "{self.name}" should be: {self._example}'
        if isinstance(args, dict):
            # Heat pops item 0 off whatever it got twice over, so a map always fails so.
            raise ValueError(str(KeyError(0)))
        if not isinstance(args, list) or len(args) < 2:
            raise ValueError(usage)
        delimiter, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str):
            raise TypeError(f"{type(text).__name__!r} object has no attribute 'split'")
        pieces = text.split(delimiter)
        if len(args) == 2:
            return pieces
        try:
            index = int(args[2])
        except ValueError:
            raise ValueError(
                f'Incorrect index to "{self.name}" should be: {self._example}'
            ) from None
        try:
            return pieces[index]
        except IndexError:
            raise ValueError(
                f'Incorrect index to "{self.name}" should be between 0 and {len(pieces) - 1}'
            ) from None


# --- digest --------------------------------------------------------------------------------


class Digest(Function):
    """``digest: [algorithm, value]``: the hex digest of the value's latin-1 bytes."""

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise TypeError(f'Argument to function "{self.name}" must be a list of strings')
        if len(args) != 2:
            raise ValueError(f'Function "{self.name}" usage: ["<algorithm>", "<value>"]')
        algorithm, value = args
        available = hashlib.algorithms_available
        if algorithm.lower() not in available:
            raise ValueError(f"Algorithm must be one of {available}")
        digest = hashlib.new(algorithm)
        digest.update(value.encode("latin-1"))
        return digest.hexdigest()


# --- make_url ------------------------------------------------------------------------------

_URL_KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")


class MakeUrl(Function):
    """``make_url: {scheme, username, password, host, port, path, query, fragment}``."""

    def validate(self, scope: ParseScope) -> None:
        # Heat checks the functions inside the arguments before the arguments themselves.
        base.validate(self.args, scope)
        if not isinstance(self.args, Mapping):
            raise TypeError(f'The arguments to "{self.name}" must be a map')
        unknown = [key for key in self.args if key not in _URL_KEYS]
        if unknown:
            raise ValueError(f'Invalid arguments to "{self.name}": {", ".join(unknown)}')
        self._check(self.args)

    def _check(self, args: Mapping[Any, Any]) -> None:
        for key in _URL_KEYS:
            if key not in args:
                continue
            value = args[key]
            if key == "query":
                if not isinstance(value, Function | Mapping):
                    raise TypeError(f'The "query" argument to "{self.name}" must be a map')
                # Heat stops checking at the query (so a fragment after it goes unchecked).
                return
            if key == "port":
                if isinstance(value, Function):
                    continue
                port = value
                if not isinstance(port, int):
                    try:
                        port = int(port)
                    except ValueError:
                        raise ValueError(
                            f'Invalid URL port "{value}" for {self.name} called with {args}'
                        ) from None
                if not 0 < port <= 65535:
                    raise ValueError(f"Invalid URL port {port:d}, must be in range 1-65535")
            elif not isinstance(value, Function | str):
                raise TypeError(f'The "{key}" argument to "{self.name}" must be a string')

    def result(self, ctx: ResolveContext) -> Any:
        args = base.resolve(self.args, ctx)
        self._check(args)

        scheme = args.get("scheme", "")
        if ":" in scheme:
            raise ValueError("URL \"scheme\" should not contain ':'")

        netloc = ""
        username = urlparse.quote(args.get("username", ""), safe="")
        password = urlparse.quote(args.get("password", ""), safe="")
        if username or password:
            netloc += username
            if password:
                netloc += ":" + password
            netloc += "@"
        host = args.get("host", "")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = urlparse.quote(host, safe=":")
        if ":" in host:
            host = f"[{host}]"
        netloc += host
        port = args.get("port", "")
        if port:
            netloc += f":{port}"

        path = urlparse.quote(args.get("path", ""))
        query = urlparse.urlencode(args.get("query", {})).replace("%2F", "/")
        fragment = urlparse.quote(args.get("fragment", ""))
        return urlparse.urlunsplit((scheme, netloc, path, query, fragment))


IMPLEMENTATIONS: dict[str, FunctionClass] = {
    "list_join@single": ListJoin,
    "list_join@multi": ListJoinMulti,
    "str_replace@scalar": StrReplace,
    "str_replace@json": StrReplaceJson,
    "str_replace@strict": StrReplaceStrict,
    "str_replace@vstrict": StrReplaceVeryStrict,
    "str_split": StrSplit,
    "digest": Digest,
    "make_url": MakeUrl,
}
