"""The machinery shared by every intrinsic function: parsing snippets, resolving, walking.

A template snippet is parsed once into plain data with ``Function`` objects where the template
calls a function. Resolving a parsed snippet against a ``ResolveContext`` (the stack's parameters,
files and, through the engine, its resources) gives plain data again.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from hearth.common.errors import HearthError, StackValidationFailed

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext


class _Elided:
    """What a two-argument ``if`` gives when its condition is false: the item disappears."""

    _instance: ClassVar[_Elided | None] = None

    def __new__(cls) -> _Elided:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ELIDED"

    def __bool__(self) -> bool:
        return False


ELIDED = _Elided()


class Function(ABC):
    """One call of an intrinsic function inside a template.

    ``args`` is the already-parsed argument (it may itself contain functions). Subclasses check
    the argument's shape in ``__init__`` (raising TypeError/ValueError, which parsing turns into
    a StackValidationFailed at the function's path) and compute their value in ``result``.
    """

    # The name the template used (``get_attr``, ``Fn::GetAtt``...).
    name: str
    args: Any
    path: str

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        self.name = name
        self.args = args
        self.path = path

    def validate(self, scope: ParseScope) -> None:
        """Checks that need the whole template (references, removed functions)."""

    @abstractmethod
    def result(self, ctx: ResolveContext) -> Any:
        """The value of this call."""

    def dependencies(self) -> Iterator[str]:
        """Names of the resources this call itself refers to (not those of its arguments)."""
        return iter(())

    def attribute_references(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """(resource, attribute path) pairs this call reads; ``()`` for all attributes."""
        return iter(())

    def children(self) -> Iterator[Any]:
        """The parsed snippets below this call that walking should visit."""
        yield self.args

    def __repr__(self) -> str:
        return f"{{{self.name!r}: {self.args!r}}}"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Function)
            and type(other) is type(self)
            and other.name == self.name
            and other.args == self.args
        )

    def __hash__(self) -> int:
        return hash((type(self), self.name))


class Macro(Function):
    """A function that rewrites the template while it is parsed (``if``, ``Fn::If``).

    Its ``__init__`` receives the *raw* argument and parses what it keeps; ``parsed`` is what
    stands in the template in its place (possibly ``ELIDED``).
    """

    parsed: Any

    def result(self, ctx: ResolveContext) -> Any:
        return resolve_nullable(self.parsed, ctx)

    def children(self) -> Iterator[Any]:
        yield self.parsed


FunctionClass = type[Function]


def parse(
    snippet: Any,
    path: str,
    scope: ParseScope,
    functions: Mapping[str, FunctionClass],
) -> Any:
    """Turn raw template data into data with ``Function`` objects where functions are called."""
    if isinstance(snippet, Mapping):
        if len(snippet) == 1:
            fn_name, raw_args = next(iter(snippet.items()))
            cls = functions.get(fn_name) if isinstance(fn_name, str) else None
            if cls is not None:
                fn_path = _join(path, fn_name)
                try:
                    if issubclass(cls, Macro):
                        return cls(scope, fn_name, raw_args, fn_path)
                    args = parse(raw_args, fn_path, scope, functions)
                    return cls(scope, fn_name, args, fn_path)
                except (TypeError, ValueError, KeyError) as exc:
                    raise StackValidationFailed(_message(exc), [fn_path]) from None
        return {k: parse(v, _join(path, k), scope, functions) for k, v in snippet.items()}
    if isinstance(snippet, list | tuple):
        return [parse(v, f"{path}[{i}]", scope, functions) for i, v in enumerate(snippet)]
    return snippet


def _message(exc: BaseException) -> str:
    # KeyError's str() adds quotes around its argument.
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def resolve(snippet: Any, ctx: ResolveContext) -> Any:
    """Evaluate every function in a parsed snippet; elided items disappear.

    A snippet that is elided as a whole resolves to None.
    """
    value = resolve_nullable(snippet, ctx)
    return None if value is ELIDED else value


def resolve_nullable(snippet: Any, ctx: ResolveContext) -> Any:
    """Like resolve, but a wholly elided snippet gives ELIDED (so its container drops it)."""
    if isinstance(snippet, Function):
        return snippet.result(ctx)
    if isinstance(snippet, dict):
        out = {}
        for k, v in snippet.items():
            value = resolve_nullable(v, ctx)
            if value is not ELIDED:
                out[k] = value
        return out
    if isinstance(snippet, list):
        items = (resolve_nullable(v, ctx) for v in snippet)
        return [item for item in items if item is not ELIDED]
    return snippet


def walk(snippet: Any) -> Iterator[Function]:
    """Every function call in a parsed snippet, outermost first."""
    if isinstance(snippet, Function):
        yield snippet
        for child in snippet.children():
            yield from walk(child)
    elif isinstance(snippet, dict):
        for v in snippet.values():
            yield from walk(v)
    elif isinstance(snippet, list):
        for v in snippet:
            yield from walk(v)


def validate(snippet: Any, scope: ParseScope) -> None:
    """Run every function's template-wide checks, reporting the failing function's path."""
    for fn in walk(snippet):
        try:
            fn.validate(scope)
        except StackValidationFailed:
            raise
        except HearthError as exc:
            raise StackValidationFailed(str(exc), [fn.path]) from None
        except (TypeError, ValueError, KeyError) as exc:
            raise StackValidationFailed(_message(exc), [fn.path]) from None


def dependencies(snippet: Any) -> set[str]:
    """Names of the resources a parsed snippet refers to."""
    names: set[str] = set()
    for fn in walk(snippet):
        names.update(fn.dependencies())
    return names


def is_function(value: Any) -> bool:
    return isinstance(value, Function)


def is_list_like(value: Any) -> bool:
    """A sequence that is not a string (what Heat accepts where it wants a list)."""
    return isinstance(value, Sequence) and not isinstance(value, str)
