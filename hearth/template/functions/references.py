"""Functions that read the stack: parameters, resources, attributes, files, the facade.

Also the two kinds of function that exist only to fail: names removed from a HOT version, and
normal functions used where only condition functions are allowed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hearth.common.errors import (
    InvalidTemplateAttribute,
    InvalidTemplateReference,
    InvalidTemplateVersion,
    UserParameterMissing,
)
from hearth.template.functions.base import Function, FunctionClass, is_function, resolve

if TYPE_CHECKING:
    from hearth.template.context import ParseScope, ResolveContext


def _static(value: Any) -> Any:
    """The value of an argument known without a stack (None if it needs resolving)."""
    return None if is_function(value) or _contains_function(value) else value


def _contains_function(value: Any) -> bool:
    if isinstance(value, dict):
        return any(is_function(v) or _contains_function(v) for v in value.values())
    if isinstance(value, list):
        return any(is_function(v) or _contains_function(v) for v in value)
    return False


class GetParam(Function):
    """get_param: name, or [name, key_or_index, ...]."""

    def result(self, ctx: ResolveContext) -> Any:
        args = resolve(self.args, ctx)
        if not args:
            raise ValueError(f'Function "{self.name}" must have arguments')
        if isinstance(args, str):
            name, path = args, []
        elif isinstance(args, list):
            name, path = args[0], args[1:]
        else:
            raise TypeError(f'Argument to "{self.name}" must be string or list')
        if not isinstance(name, str):
            raise TypeError(f'Parameter name in "{self.name}" must be string')
        value = ctx.parameter_value(name)
        try:
            for key in path:
                value = self._step(value, key)
        except (KeyError, IndexError, TypeError):
            # Heat gives '' for any path that does not lead anywhere.
            return ""
        return value

    def _step(self, collection: Any, key: Any) -> Any:
        if not isinstance(collection, Mapping | Sequence):
            raise TypeError(f"\"{self.name}\" can't traverse path")
        if not isinstance(key, str | int):
            raise TypeError(f'Path components in "{self.name}" must be strings')
        if isinstance(collection, Sequence) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError:
                raise TypeError(
                    f"Path components in '{self.name}' must be a string that can be "
                    "parsed into an integer."
                ) from None
        return collection[key]


class GetResource(Function):
    """get_resource: name -> the resource's reference id."""

    def _resource_name(self) -> Any:
        return _static(self.args)

    # No validate(): a reference to no resource is found with the dependencies (where
    # Heat finds it), and in an output it is the output's error, not the template's.

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self._scope = scope

    def dependencies(self) -> Iterator[str]:
        name = self._resource_name()
        if isinstance(name, str):
            yield name

    def result(self, ctx: ResolveContext) -> Any:
        name = resolve(self.args, ctx)
        if not (isinstance(name, str) and self._scope.has_resource(name)):
            raise InvalidTemplateReference(str(name), "unknown")
        return ctx.resources.reference_id(name)


class GetAttThenSelect(Function):
    """get_attr of HOT 2013-05-23: the attribute is read, then the path applied here."""

    # Whether `get_attr: [resource]` (all attributes) is allowed.
    all_attributes_form = False

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self.resource_arg, self.attribute_arg, self.path_args = self._split_args()

    def _split_args(self) -> tuple[Any, Any, list[Any]]:
        if not isinstance(self.args, list):
            raise TypeError(f'Argument to "{self.name}" must be a list')
        if len(self.args) < 2:
            raise ValueError(
                f'Arguments to "{self.name}" must be of the form '
                "[resource_name, attribute, (path), ...]"
            )
        return self.args[0], self.args[1], list(self.args[2:])

    def validate(self, scope: ParseScope) -> None:
        name = _static(self.resource_arg)
        if name is None:
            return
        if not (isinstance(name, str) and scope.resource_enabled(name)):
            # Heat does not say where (a resource's own references are checked, with their
            # place, before its functions are).
            raise InvalidTemplateReference(str(name), "unknown")
        attribute = _static(self.attribute_arg)
        if attribute is None:
            return
        known = scope.attribute_names(name)
        if known is not None and attribute not in known:
            raise InvalidTemplateAttribute(name, str(attribute))

    def dependencies(self) -> Iterator[str]:
        name = _static(self.resource_arg)
        if isinstance(name, str):
            yield name

    def attribute_references(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        name = _static(self.resource_arg)
        if not isinstance(name, str):
            return
        if self.attribute_arg is None:
            yield name, ()
            return
        attribute = _static(self.attribute_arg)
        if attribute is not None:
            yield name, (attribute,)

    def result(self, ctx: ResolveContext) -> Any:
        name = resolve(self.resource_arg, ctx)
        attribute = resolve(self.attribute_arg, ctx)
        value = ctx.resources.attribute(name, attribute, ())
        if value is None:
            return None
        return select_path(value, resolve(self.path_args, ctx))


class GetAtt(GetAttThenSelect):
    """get_attr from 2014-10-16: the path goes to the resource's attribute resolver."""

    def result(self, ctx: ResolveContext) -> Any:
        name = resolve(self.resource_arg, ctx)
        attribute = resolve(self.attribute_arg, ctx)
        return ctx.resources.attribute(name, attribute, tuple(resolve(self.path_args, ctx)))

    def attribute_references(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        name = _static(self.resource_arg)
        attribute = _static(self.attribute_arg)
        path = _static(self.path_args)
        if isinstance(name, str) and attribute is not None and path is not None:
            yield name, (attribute, *path)
        else:
            yield from super().attribute_references()


class GetAttAllAttributes(GetAtt):
    """get_attr from 2015-10-15: also ``[resource]`` alone, giving every attribute."""

    def _split_args(self) -> tuple[Any, Any, list[Any]]:
        if not self.args:
            raise ValueError(
                f'Arguments to "{self.name}" can be of the next forms: [resource_name] '
                "or [resource_name, attribute, (path), ...]"
            )
        if not isinstance(self.args, list):
            raise TypeError(f'Argument to "{self.name}" must be a list')
        if len(self.args) == 1:
            return self.args[0], None, []
        return super()._split_args()

    def result(self, ctx: ResolveContext) -> Any:
        if self.attribute_arg is None:
            return ctx.resources.all_attributes(resolve(self.resource_arg, ctx))
        return super().result(ctx)


def select_path(value: Any, path: Sequence[Any]) -> Any:
    """Apply an attribute path (maps by key, lists by integer); None where it leads nowhere."""
    try:
        for key in path:
            if not isinstance(value, Mapping | Sequence):
                raise TypeError("Can't traverse attribute path")
            if not isinstance(key, str | int):
                raise TypeError("Path components in attributes must be strings")
            value = value[key]  # type: ignore[index]  # a str key on a list fails: None
    except (KeyError, IndexError, TypeError):
        return None
    return value


class GetFile(Function):
    """get_file: key -> that entry of the stack's files map (never the server's disk)."""

    def result(self, ctx: ResolveContext) -> Any:
        key = resolve(self.args, ctx)
        if not isinstance(key, str):
            raise TypeError(f'Argument to "{self.name}" must be a string')
        content = ctx.file(key)
        if content is None:
            raise ValueError(
                f'No content found in the "files" section for {self.name} path: {key}'
            )
        return content


class ResourceFacade(Function):
    """resource_facade: metadata | deletion_policy | update_policy of the parent resource."""

    allowed: tuple[str, str, str] = ("metadata", "deletion_policy", "update_policy")

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        if not isinstance(args, str) or args not in self.allowed:
            raise ValueError(
                f'Incorrect arguments to "{name}" should be one of: {", ".join(self.allowed)}'
            )

    def result(self, ctx: ResolveContext) -> Any:
        # The engine answers in HOT terms; CFN names map onto them by position.
        return ctx.facade(ResourceFacade.allowed[self.allowed.index(self.args)])


class CfnResourceFacade(ResourceFacade):
    allowed = ("Metadata", "DeletionPolicy", "UpdatePolicy")


class ParamRef(Function):
    """Ref to a parameter (also the only Ref allowed inside CFN conditions)."""

    def result(self, ctx: ResolveContext) -> Any:
        name = resolve(self.args, ctx)
        try:
            return ctx.parameter_value(name)
        except UserParameterMissing:
            raise InvalidTemplateReference(str(name), "unknown") from None


class Ref(Function):
    """CFN Ref: a resource's reference id if the name is a resource, else a parameter."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        self.to_resource = isinstance(args, str) and scope.resource_enabled(args)

    def dependencies(self) -> Iterator[str]:
        if self.to_resource:
            yield self.args

    def result(self, ctx: ResolveContext) -> Any:
        if self.to_resource:
            return ctx.resources.reference_id(self.args)
        name = resolve(self.args, ctx)
        try:
            return ctx.parameter_value(name)
        except UserParameterMissing:
            raise InvalidTemplateReference(str(name), "unknown") from None


class CfnGetAtt(GetAttThenSelect):
    """Fn::GetAtt: [resource, attribute], nothing more."""

    def _split_args(self) -> tuple[Any, Any, list[Any]]:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise ValueError(
                f'Arguments to "{self.name}" must be of the form [resource_name, attribute]'
            )
        return self.args[0], self.args[1], []


class FindInMap(Function):
    """Fn::FindInMap: [mapping, key, value] from the template's Mappings."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        super().__init__(scope, name, args, path)
        try:
            self.map_name, self.key, self.value = args
        except (ValueError, TypeError) as exc:
            raise KeyError(str(exc)) from None
        self._scope = scope

    def result(self, ctx: ResolveContext) -> Any:
        mapping = self._scope.mapping(resolve(self.map_name, ctx))
        try:
            return mapping[resolve(self.key, ctx)][resolve(self.value, ctx)]
        except KeyError as exc:
            # Heat's message is the missing key as Python quotes it: 'k3'.
            raise ValueError(str(exc)) from None


class Removed(Function):
    """A name this HOT version no longer supports; any use fails validation."""

    def _unsupported(self) -> InvalidTemplateVersion:
        return InvalidTemplateVersion(
            f"The function {self.name} is not supported in this version of HOT."
        )

    def validate(self, scope: ParseScope) -> None:
        raise self._unsupported()

    def result(self, ctx: ResolveContext) -> Any:
        raise self._unsupported()


class InvalidInContext(Function):
    """A normal function used inside a condition."""

    def __init__(self, scope: ParseScope, name: str, args: Any, path: str) -> None:
        raise ValueError(f'The function "{name}" is invalid in this context')

    def result(self, ctx: ResolveContext) -> Any:  # pragma: no cover - never constructed
        raise AssertionError("unreachable")


IMPLEMENTATIONS: dict[str, FunctionClass] = {
    "get_param": GetParam,
    "get_resource": GetResource,
    "get_attr@then_select": GetAttThenSelect,
    "get_attr@path": GetAtt,
    "get_attr@all": GetAttAllAttributes,
    "get_file": GetFile,
    "resource_facade": ResourceFacade,
    "Fn::ResourceFacade": CfnResourceFacade,
    "Ref": Ref,
    "Ref@param": ParamRef,
    "Fn::GetAtt": CfnGetAtt,
    "Fn::FindInMap": FindInMap,
    "removed": Removed,
    "invalid": InvalidInContext,
}
