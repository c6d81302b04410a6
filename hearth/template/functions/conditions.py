"""Condition functions (equals, not, and, or and their CFN forms) and the ``if`` macro.

A condition argument is a boolean, the name of a condition in the template's conditions
section, or an inline condition expression; names are looked up through the parse scope,
which evaluates (and caches) the conditions section against the stack's parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hearth.template.functions.base import ELIDED, Function, FunctionClass, Macro, resolve

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext


class Equals(Function):
    """equals: [a, b] -> deep equality of the resolved values."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not args or not isinstance(args, list) or len(args) != 2:
            raise ValueError(f'Arguments to "{name}" must be of the form: [value_1, value_2]')

    def result(self, ctx: ResolveContext) -> Any:
        return resolve(self.args[0], ctx) == resolve(self.args[1], ctx)


class _ConditionBoolean(Function):
    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self._scope = scope
        self._check_args()

    def _check_args(self) -> None:
        if not isinstance(self.args, list):
            raise ValueError(f'Arguments to "{self.name}" must be a list of conditions')
        if len(self.args) < 2:
            raise ValueError(
                f'The minimum number of condition arguments to "{self.name}" is 2.'
            )

    def _truth(self, value: Any) -> bool:
        return self._scope.is_condition_enabled(value)


class Not(_ConditionBoolean):
    """not: <condition>."""

    def _check_args(self) -> None:
        if self.args is None:
            raise ValueError(f'Argument to "{self.name}" must be a condition')
        self.condition = self.args

    def result(self, ctx: ResolveContext) -> Any:
        return not self._truth(resolve(self.condition, ctx))


class CfnNot(Not):
    """Fn::Not: [<condition>]."""

    def _check_args(self) -> None:
        if not self.args or not isinstance(self.args, list) or len(self.args) != 1:
            raise ValueError(f'Arguments to "{self.name}" must be of the form: [condition]')
        self.condition = self.args[0]


class And(_ConditionBoolean):
    def result(self, ctx: ResolveContext) -> Any:
        return all(self._truth(c) for c in resolve(self.args, ctx))


class Or(_ConditionBoolean):
    def result(self, ctx: ResolveContext) -> Any:
        return any(self._truth(c) for c in resolve(self.args, ctx))


class If(Macro):
    """if: [condition, value_if_true, value_if_false]; only the chosen branch is parsed."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        condition, if_true, if_false = self._read_args(args)
        chosen = if_true if scope.condition(condition, path) else if_false
        self.parsed = ELIDED if chosen is ELIDED else scope.parse(chosen, path)

    def _read_args(self, args: Any) -> tuple[Any, Any, Any]:
        if not args or not isinstance(args, list) or len(args) != 3:
            raise ValueError(self._usage())
        return args[0], args[1], args[2]

    def _usage(self) -> str:
        return (
            f'Arguments to "{self.name}" must be of the form: '
            "[condition_name, value_if_true, value_if_false]"
        )


class IfNullable(If):
    """The wallaby form: the false branch may be left out, removing the enclosing item."""

    def _read_args(self, args: Any) -> tuple[Any, Any, Any]:
        if not args or not isinstance(args, list) or not 2 <= len(args) <= 3:
            raise ValueError(self._usage())
        if len(args) == 2:
            return args[0], args[1], ELIDED
        return args[0], args[1], args[2]


IMPLEMENTATIONS: dict[str, FunctionClass] = {
    "equals": Equals,
    "not": Not,
    "and": And,
    "or": Or,
    "if": If,
    "if@nullable": IfNullable,
    "Fn::Equals": Equals,
    "Fn::Not": CfnNot,
    "Fn::And": And,
    "Fn::Or": Or,
    "Fn::If": If,
}
