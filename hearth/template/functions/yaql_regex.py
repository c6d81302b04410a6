"""yaql's regular-expression functions, run on the ``regex`` module with a time limit.

yaql's own versions call ``re``, whose matching is one C call that no deadline can interrupt:
``regex("(a+)+$").matches("aaaa...b")`` held a worker for as long as it liked. These take the
same arguments and give the same results, but each match runs under the evaluation's remaining
time (``regex``'s ``timeout``), so a pattern that backtracks without end stops with an error.

They are registered over yaql's in the root context: ``exclusive`` for names that only regex
functions use; beside the string overloads for ``split`` and ``replace``, whose ``re.Pattern``
overloads can no longer be reached because ``regex()`` returns a :class:`TemplatePattern`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import regex  # type: ignore[import-untyped]
from yaql.language import specs, yaqltypes

# The longest one match may take when the evaluation has no deadline of its own.
DEFAULT_MATCH_SECONDS = 1.0


class TemplatePattern:
    """A compiled pattern from a template (what yaql's ``regex()`` returns)."""

    def __init__(self, pattern: str, flags: int) -> None:
        try:
            self.compiled: Any = regex.compile(pattern, flags | regex.V0)
        except regex.error as exc:
            raise ValueError(f"Invalid regular expression {pattern!r}: {exc}") from None
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"regex({self.pattern!r})"


def _seconds_left(context: Any) -> float:
    deadline = getattr(context, "deadline", math.inf)
    if deadline == math.inf:
        return DEFAULT_MATCH_SECONDS
    return max(deadline - time.monotonic(), 0.001)


def _bounded(context: Any, pattern: TemplatePattern, method: str, *args: Any,
             **kwargs: Any) -> Any:
    """Runs one ``regex`` call with the CPU time the evaluation has left (``regex`` counts
    its timeout in CPU time), without the GIL so other requests go on meanwhile."""
    call = getattr(pattern.compiled, method)
    try:
        found = call(*args, timeout=_seconds_left(context), concurrent=True, **kwargs)
        # finditer matches lazily: collect here, inside the time limit.
        return list(found) if method == "finditer" else found
    except TimeoutError:
        raise ValueError(
            f"The regular expression {pattern.pattern[:200]!r} ran out of time matching "
            "(a pattern that backtracks without end)") from None


def _compile(pattern: str) -> TemplatePattern:
    return TemplatePattern(pattern, regex.UNICODE)


def _publish_match(context: Any, match: Any) -> None:
    """Binds ``$1`` (the whole match), ``$2``... (groups) and ``$name`` (named groups)."""
    context["$1"] = {"value": match.group(), "start": match.start(0), "end": match.end(0)}
    for i, text in enumerate(match.groups(), 1):
        context[f"${i + 1}"] = {"value": text, "start": match.start(i), "end": match.end(i)}
    for name, text in match.groupdict().items():
        context[f"${name}"] = {"value": text, "start": match.start(name), "end": match.end(name)}


@specs.parameter("pattern", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.name("regex")  # type: ignore[untyped-decorator]
def make_regex(pattern: str, ignore_case: bool = False, multi_line: bool = False,
               dot_all: bool = False) -> TemplatePattern:
    flags = regex.UNICODE
    if ignore_case:
        flags |= regex.IGNORECASE
    if multi_line:
        flags |= regex.MULTILINE
    if dot_all:
        flags |= regex.DOTALL
    return TemplatePattern(pattern, flags)


def _found(context: Any, pattern: TemplatePattern, string: str) -> bool:
    return _bounded(context, pattern, "search", string) is not None


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("matches")  # type: ignore[untyped-decorator]
def pattern_matches(context: Any, regexp: TemplatePattern, string: str) -> bool:
    return _found(context, regexp, string)


@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("regexp", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("matches")  # type: ignore[untyped-decorator]
def string_matches(context: Any, string: str, regexp: str) -> bool:
    return _found(context, _compile(regexp), string)


def _match_operator(name: str, pattern_type: Any, negate: bool) -> Any:
    """``string =~ pattern`` or ``string !~ pattern``, the pattern compiled or as text."""

    @specs.parameter("regexp", pattern_type)  # type: ignore[untyped-decorator]
    @specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
    @specs.name(name)  # type: ignore[untyped-decorator]
    def operator(context: Any, string: str, regexp: Any) -> bool:
        pattern = regexp if isinstance(regexp, TemplatePattern) else _compile(regexp)
        return _found(context, pattern, string) != negate

    return operator


_OPERATORS = [_match_operator(name, pattern_type, negate)
              for name, negate in (("#operator_=~", False), ("#operator_!~", True))
              for pattern_type in (TemplatePattern, yaqltypes.String())]


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("selector", yaqltypes.Lambda(with_context=True))  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("search")  # type: ignore[untyped-decorator]
def search(context: Any, regexp: TemplatePattern, string: str,
           selector: Callable[[Any], Any] | None = None) -> Any:
    match = _bounded(context, regexp, "search", string)
    if match is None:
        return None
    if selector is None:
        return match.group()
    child = context.create_child_context()
    _publish_match(child, match)
    return selector(child)


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("selector", yaqltypes.Lambda(with_context=True))  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("searchAll")  # type: ignore[untyped-decorator]
def search_all(context: Any, regexp: TemplatePattern, string: str,
               selector: Callable[[Any], Any] | None = None) -> Iterator[Any]:
    # The whole scan is one bounded call; the selector then runs per match.
    matches = _bounded(context, regexp, "finditer", string)
    for match in matches:
        if selector is None:
            yield match.group()
        else:
            child = context.create_child_context()
            _publish_match(child, match)
            yield selector(child)


def _split(context: Any, regexp: TemplatePattern, string: str, max_split: int) -> list[str]:
    return list(_bounded(context, regexp, "split", string, maxsplit=max_split))


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("max_split", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("split")  # type: ignore[untyped-decorator]
def pattern_split(context: Any, regexp: TemplatePattern, string: str,
                  max_split: int = 0) -> list[str]:
    return _split(context, regexp, string, max_split)


@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("max_split", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("split")  # type: ignore[untyped-decorator]
def string_split(context: Any, string: str, regexp: TemplatePattern,
                 max_split: int = 0) -> list[str]:
    return _split(context, regexp, string, max_split)


def _replace(context: Any, regexp: TemplatePattern, string: str, repl: Any, count: int) -> str:
    return str(_bounded(context, regexp, "sub", repl, string, count=count))


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("repl", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("count", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("replace")  # type: ignore[untyped-decorator]
def pattern_replace(context: Any, regexp: TemplatePattern, string: str, repl: str,
                    count: int = 0) -> str:
    return _replace(context, regexp, string, repl, count)


@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("repl", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("count", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("replace")  # type: ignore[untyped-decorator]
def string_replace(context: Any, string: str, regexp: TemplatePattern, repl: str,
                   count: int = 0) -> str:
    return _replace(context, regexp, string, repl, count)


def _replace_by(context: Any, regexp: TemplatePattern, string: str,
                repl: Callable[[Any], Any], count: int) -> str:
    def replacement(match: Any) -> str:
        child = context.create_child_context()
        _publish_match(child, match)
        return str(repl(child))
    return _replace(context, regexp, string, replacement, count)


@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("repl", yaqltypes.Lambda(with_context=True))  # type: ignore[untyped-decorator]
@specs.parameter("count", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("replaceBy")  # type: ignore[untyped-decorator]
def pattern_replace_by(context: Any, regexp: TemplatePattern, string: str,
                       repl: Callable[[Any], Any], count: int = 0) -> str:
    return _replace_by(context, regexp, string, repl, count)


@specs.parameter("string", yaqltypes.String())  # type: ignore[untyped-decorator]
@specs.parameter("regexp", TemplatePattern)  # type: ignore[untyped-decorator]
@specs.parameter("repl", yaqltypes.Lambda(with_context=True))  # type: ignore[untyped-decorator]
@specs.parameter("count", int)  # type: ignore[untyped-decorator]
@specs.method  # type: ignore[untyped-decorator]
@specs.name("replaceBy")  # type: ignore[untyped-decorator]
def string_replace_by(context: Any, string: str, regexp: TemplatePattern,
                      repl: Callable[[Any], Any], count: int = 0) -> str:
    return _replace_by(context, regexp, string, repl, count)


@specs.name("isRegex")  # type: ignore[untyped-decorator]
def is_regex(value: Any) -> bool:
    return isinstance(value, TemplatePattern)


# Names whose every overload works on patterns: ours hide yaql's (exclusive is per name).
_EXCLUSIVE = (make_regex, pattern_matches, string_matches, *_OPERATORS, search, search_all,
              pattern_replace_by, string_replace_by, is_regex)
# Names shared with string functions ("a,b".split(","), "ab".replace("a", "c")): added beside.
_BESIDE = (pattern_split, string_split, pattern_replace, string_replace)


def register(context: Any) -> None:
    """Puts the bounded functions over yaql's ``re`` ones in ``context``."""
    for function in _EXCLUSIVE:
        context.register_function(function, exclusive=True)
    for function in _BESIDE:
        context.register_function(function)
