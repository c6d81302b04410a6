"""Small in-memory stand-ins for a template scope and a stack, for testing functions alone."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import StackValidationFailed, UserParameterMissing
from hearth.template.context import Limits, ResolveContext
from hearth.template.functions import base
from hearth.template.functions.base import ELIDED, Function, FunctionClass
from hearth.template.versions import TemplateVersion, find_version


@dataclass
class FakeResources:
    """ResourceView over fixed data: ref ids and attributes per resource name."""

    refs: dict[str, Any] = field(default_factory=dict)
    attrs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def reference_id(self, name: str) -> Any:
        return self.refs.get(name, name)

    def attribute(self, name: str, attribute: str, path: tuple[Any, ...]) -> Any:
        value = self.attrs.get(name, {}).get(attribute)
        for key in path:
            try:
                value = value[key]  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                return None
        return value

    def all_attributes(self, name: str) -> Any:
        if name not in self.attrs:
            return None
        return {k: v for k, v in self.attrs[name].items() if k != "show"}


@dataclass
class FakeContext:
    """ResolveContext with plain parameter values and files."""

    params: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    resources: FakeResources = field(default_factory=FakeResources)
    facades: dict[str, Any] = field(default_factory=dict)
    zones: list[str] = field(default_factory=lambda: ["nova"])
    limits: Limits = field(default_factory=Limits)

    def parameter_value(self, name: str) -> Any:
        if name not in self.params:
            raise UserParameterMissing(name)
        return self.params[name]

    def file(self, key: str) -> str | None:
        return self.files.get(key)

    def facade(self, what: str) -> Any:
        return self.facades.get(what)

    def availability_zones(self) -> list[str]:
        return self.zones


@dataclass
class FakeScope:
    """ParseScope for a template with the given resources, parameters and conditions."""

    version_name: str = "heat_template_version.2021-04-16"
    resources: dict[str, str] = field(default_factory=dict)  # name -> type
    disabled: set[str] = field(default_factory=set)
    parameters: set[str] = field(default_factory=set)
    conditions: dict[str, bool] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, frozenset[str]] = field(default_factory=dict)
    ctx: FakeContext = field(default_factory=FakeContext)

    @property
    def version(self) -> TemplateVersion:
        v = find_version(self.version_name)
        assert v is not None, self.version_name
        return v

    def has_resource(self, name: str) -> bool:
        return name in self.resources

    def resource_enabled(self, name: str) -> bool:
        return name in self.resources and name not in self.disabled

    def resource_type(self, name: str) -> str | None:
        return self.resources.get(name)

    def has_parameter(self, name: str) -> bool:
        return name in self.parameters

    def condition(self, name_or_expr: Any, path: str) -> bool:
        parsed = base.parse(name_or_expr, path, self, self.version.condition_functions)
        base.validate(parsed, self)
        return self.is_condition_enabled(base.resolve(parsed, self.ctx))

    def is_condition_enabled(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if not isinstance(value, str) or value not in self.conditions:
            raise ValueError(f'Invalid condition "{value}"')
        return self.conditions[value]

    def parse(self, snippet: Any, path: str) -> Any:
        return base.parse(snippet, path, self, self.version.functions)

    def mapping(self, name: str) -> Any:
        return self.mappings[name]

    def attribute_names(self, resource: str) -> frozenset[str] | None:
        return self.attributes.get(resource)


def evaluate(
    snippet: Any,
    version: str = "2021-04-16",
    ctx: FakeContext | None = None,
    scope: FakeScope | None = None,
    **ctx_args: Any,
) -> Any:
    """Parse, validate and resolve a snippet of a HOT (or ``cfn:``-prefixed) version."""
    ctx = ctx or FakeContext(**ctx_args)
    if scope is None:
        name = (
            f"heat_template_version.{version}"
            if not version.startswith(("AWS", "Heat"))
            else version
        )
        scope = FakeScope(version_name=name, ctx=ctx)
    parsed = scope.parse(snippet, "test")
    base.validate(parsed, scope)
    return base.resolve(parsed, ctx)


def params_of(values: Mapping[str, Any]) -> FakeContext:
    return FakeContext(params=dict(values))


# --- running snippets stage by stage, with a function that elides itself ---------------


class _Elided(Function):
    """Test stand-in for a two-argument ``if`` whose condition is false: it elides itself."""

    def result(self, ctx: ResolveContext) -> Any:
        return ELIDED


class _ElidingScope(FakeScope):
    """A FakeScope that also knows the ``elided`` test function."""

    def parse(self, snippet: Any, path: str) -> Any:
        functions: dict[str, FunctionClass] = {**self.version.functions, "elided": _Elided}
        return base.parse(snippet, path, self, functions)


def run_stages(
    snippet: Any, version: str = "2021-04-16", ctx: FakeContext | None = None
) -> tuple[str, Any]:
    """Parse, validate and resolve ``snippet``: ("ok", value) or (failing stage, message)."""
    ctx = ctx or FakeContext()
    scope = _ElidingScope(version_name=f"heat_template_version.{version}", ctx=ctx)
    try:
        parsed = scope.parse(snippet, "test")
    except StackValidationFailed as exc:
        return "parse", str(exc)
    try:
        base.validate(parsed, scope)
    except StackValidationFailed as exc:
        return "validate", str(exc)
    try:
        return "ok", base.resolve(parsed, ctx)
    except (TypeError, ValueError) as exc:
        return "resolve", str(exc)


def ids_of_cases(cases: list[tuple[Any, ...]]) -> Iterator[str]:
    for snippet, version, stage, _ in cases:
        yield f"{next(iter(snippet))}-{version}-{stage}"
