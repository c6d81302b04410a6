"""The ``yaql`` function (HOT 2016-10-14 and later; also a condition function from 2017-09-01).

``yaql: {expression: <string>, data: <anything>}`` evaluates the expression with the data bound
to ``$.data``. Evaluation is bounded as Heat bounds it (``limit_iterators`` elements per
collection, ``memory_quota`` bytes per intermediate result) and, beyond Heat, by a wall-clock
limit, so that a runaway expression ends with a clear error instead of holding a worker.
"""

from __future__ import annotations

import collections.abc  # noqa: F401  (yaql uses collections.abc without importing it)
import math
import threading
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import yaql
from yaql.language import contexts, expressions, specs, yaqltypes
from yaql.language import exceptions as yaql_exceptions
from yaql.language import utils as yaql_utils

from hearth.template.functions import base, yaql_regex
from hearth.template.functions.base import ELIDED, Function, FunctionClass

if TYPE_CHECKING:
    from hearth.template.context import Limits, ParseScope, ResolveContext

_lock = threading.Lock()
_parser: Any = None
_root_context: Any = None
_engines: dict[tuple[int, int], Any] = {}


def _base_engine() -> Any:
    """The yaql parser, built once (building it takes a noticeable moment)."""
    global _parser
    with _lock:
        if _parser is None:
            _parser = yaql.YaqlFactory().create()
        return _parser


def _engine(limits: Limits) -> Any:
    """The parser with the evaluation options for these limits (parsing tables shared)."""
    key = (limits.yaql_limit_iterators, limits.yaql_memory_quota)
    engine = _engines.get(key)
    if engine is None:
        engine = _base_engine().copy({"yaql.limitIterators": key[0], "yaql.memoryQuota": key[1]})
        _engines[key] = engine
    return engine


# The most bits a yaql ``pow`` may make (one C call that no deadline interrupts: pow(10,
# 10000000) held a worker 6 s).
MAX_POW_BITS = 100_000


@specs.parameter("a", yaqltypes.Number())  # type: ignore[untyped-decorator]
@specs.parameter("b", yaqltypes.Number())  # type: ignore[untyped-decorator]
@specs.parameter("c", yaqltypes.Number(nullable=True))  # type: ignore[untyped-decorator]
def _bounded_pow(a: Any, b: Any, c: Any = None) -> Any:
    """yaql's ``pow``, refusing an exact result too large to compute in bounded time."""
    if c is None and isinstance(a, int) and isinstance(b, int) and abs(a) > 1 and b > 0:
        bits = b * abs(a).bit_length()
        if bits > MAX_POW_BITS:
            raise ValueError(f"pow({a}, {b}) would be a number of about {bits} bits, more "
                             f"than the {MAX_POW_BITS} a template may make")
    return pow(a, b, c)


def _context() -> Any:
    """yaql's standard library, set up once; each evaluation works in a child of it."""
    global _root_context
    with _lock:
        if _root_context is None:
            root = yaql.create_context().create_child_context()
            root.register_function(_bounded_pow, name="pow", exclusive=True)
            yaql_regex.register(root)
            _root_context = root
        return _root_context


@lru_cache(maxsize=1024)
def _parse_text(expression: str) -> Any:
    engine = _base_engine()
    # The lexer and parser keep state while they work: one parse at a time.
    with _lock:
        return engine(expression)


class _OutOfTime(BaseException):
    """Stops an evaluation that passed its deadline (a BaseException so that no ``except
    Exception`` inside yaql's library swallows it)."""


class _TimedContext(contexts.Context):  # type: ignore[misc]
    """A yaql context that ends the evaluation once its deadline has passed.

    yaql looks every function and operator up through the context chain of the expression
    being evaluated, so checking the clock at each look-up bounds the whole evaluation; the
    child contexts yaql creates while evaluating inherit the deadline.
    """

    def __init__(
        self,
        parent_context: Any = None,
        data: Any = yaql_utils.NO_VALUE,
        convention: Any = None,
        deadline: float | None = None,
    ) -> None:
        super().__init__(parent_context, data, convention)
        if deadline is None:
            deadline = getattr(parent_context, "deadline", math.inf)
        self.deadline: float = deadline

    def get_functions(self, name: Any, predicate: Any = None, use_convention: bool = False) -> Any:
        if time.monotonic() > self.deadline:
            raise _OutOfTime
        return super().get_functions(name, predicate, use_convention)


class Yaql(Function):
    """``yaql: {expression: <string>, data: <anything>}``."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not isinstance(args, Mapping):
            raise TypeError(f'Arguments to "{name}" must be a map.')
        if "expression" not in args or set(args) - {"expression", "data"}:
            message = (
                f'"{name}" syntax should be {name}:\n'
                "              expression: $.data.var1.sum()\n"
                "              data:\n"
                "                var1: [3, 2, 1]"
            )
            # Heat raises this one as a KeyError, whose text is the quoted message.
            raise ValueError(str(KeyError(message)))
        self._expression = args["expression"]
        self._data = args.get("data", {})

    def validate(self, scope: ParseScope) -> None:
        # Heat checks the functions inside the arguments before the arguments themselves.
        base.validate(self.args, scope)
        if not isinstance(self._expression, Function):
            self._parse(self._expression)

    def _parse(self, expression: Any) -> Any:
        if not isinstance(expression, str):
            raise TypeError(f'The "expression" argument to {self.name} must contain a string.')
        try:
            return _parse_text(expression)
        except yaql_exceptions.YaqlException as exc:
            raise ValueError(f"Bad expression {exc}.") from None

    def result(self, ctx: ResolveContext) -> Any:
        expression = base.resolve(self._expression, ctx)
        statement = self._parse(None if expression is ELIDED else expression)
        data = base.resolve(self._data, ctx)
        if data is ELIDED:
            data = None
        limits = ctx.limits
        bound = expressions.Statement(statement.expression, _engine(limits))
        timeout = limits.yaql_timeout_seconds
        context = _TimedContext(_context(), deadline=time.monotonic() + timeout)
        try:
            return bound.evaluate({"data": data}, context)
        except _OutOfTime:
            raise ValueError(
                f"The yaql expression {expression[:200]!r} did not finish within {timeout:g} "
                "seconds and was stopped"
            ) from None
        except Exception as exc:
            # Heat shows whatever the expression raised as it stands.
            raise ValueError(str(exc)) from None


IMPLEMENTATIONS: dict[str, FunctionClass] = {"yaql": Yaql}
