"""Template validation as Heat's ``POST /validate`` does it, and the document it answers.

The checks run in Heat's order (structure, parameters, parameter groups, conditions, resource
definitions, resources, outputs) so that a template with several faults gets the same first
complaint. Values of required parameters are not needed: validation looks at the template, not
at one stack made from it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hearth.common.errors import (
    HearthError,
    Invalid,
    RequestLimitExceeded,
    ResourceTypeNotFound,
    StackValidationFailed,
    TemplateRejected,
    UserParameterMissing,
)
from hearth.template.context import Limits
from hearth.template.definitions import ResourceDefinition
from hearth.template.env_merge import merge_environments, request_environment
from hearth.template.environment import Environment, RegistryEntry
from hearth.template.functions import base
from hearth.template.functions.references import GetParam
from hearth.template.loader import check_decoded_depth, load_template_text
from hearth.template.parameter_groups import ParameterGroups
from hearth.template.parameters import Parameters, StackIdentity
from hearth.template.stack_definition import StackDefinition, validate_resource_functions
from hearth.template.template import Template
from hearth.template.versions import VERSION_KEYS

# Error codes a caller may ask validation to ignore (Heat knows just this one).
IGNORABLE_ERROR_CODES = frozenset({"99001"})

# Checks a resource's type once it is resolved through the environment: raise to refuse it.
TypeChecker = Callable[[ResourceDefinition, RegistryEntry], None]


class CheckedValues:
    """Parameter values as functions read them: an unset parameter is UserParameterMissing."""

    def __init__(self, parameters: Parameters) -> None:
        self._parameters = parameters

    def __contains__(self, name: object) -> bool:
        return name in self._parameters

    def value(self, name: str) -> Any:
        try:
            return self._parameters.value(name)
        except KeyError:
            raise UserParameterMissing(name) from None


def parameter_types(template: Template, files: Mapping[str, Any]) -> dict[str, str]:
    """Declared parameter names and types of the template and of templates in ``files``."""
    types: dict[str, str] = {}
    sources: list[Any] = [template.data]
    for content in files.values():
        if isinstance(content, str) and any(key in content for key in VERSION_KEYS):
            try:
                sources.append(load_template_text(content))
            except HearthError:
                continue
    for data in sources:
        if not isinstance(data, Mapping):
            continue
        section = data.get("parameters", data.get("Parameters"))
        if isinstance(section, Mapping):
            for name, body in section.items():
                if isinstance(body, Mapping):
                    ptype = body.get("type", body.get("Type"))
                    if isinstance(ptype, str):
                        types.setdefault(name, ptype)
    return types


@dataclass(frozen=True)
class LoadedTemplate:
    """A template read with its environment and parameters, ready to check or resolve."""

    template: Template
    env: Environment
    params: Parameters
    stack: StackDefinition


def load_for_validation(
    template: Mapping[str, Any] | str,
    files: Mapping[str, Any],
    environment: Mapping[str, Any] | str | None,
    environment_files: Sequence[str] | None,
    parameters: Mapping[str, Any] | None,
    global_env: Environment | None,
    limits: Limits,
    max_resources_per_stack: int,
    plugin_attributes: Callable[[str], frozenset[str] | None] | None = None,
) -> LoadedTemplate:
    """Parse the template and environments and bind the parameters (Heat's first checks)."""
    data: Mapping[str, Any]
    if isinstance(template, str):
        data = load_template_text(template, limits)
    else:
        check_decoded_depth(template, limits)
        data = template
    if isinstance(environment, Mapping):
        check_decoded_depth(environment, limits, "environment")
    tmpl = Template(data, {k: v for k, v in files.items() if isinstance(v, str)})

    env_doc = request_environment(environment, parameters, environment_files)
    merge_environments(environment_files, files, env_doc, parameter_types(tmpl, files))
    env = Environment(env_doc, global_env=global_env)
    # Heat reads the parameters' schemas (merging the environment) before it checks the
    # template's structure: a bad schema is the first complaint.
    params = _parameters(tmpl, env)

    try:
        tmpl.validate_structure()
    except HearthError as exc:
        raise TemplateRejected(str(exc)) from None
    resources_section = tmpl.resources_section
    if 0 <= max_resources_per_stack < len(resources_section):
        raise RequestLimitExceeded("Maximum resources per stack exceeded.")

    stack = StackDefinition(
        tmpl,
        CheckedValues(params),
        limits=limits,
        attribute_names=env.plugin_attribute_names(plugin_attributes)
        if plugin_attributes is not None
        else None,
    )
    return LoadedTemplate(tmpl, env, params, stack)


def validate_template(
    template: Mapping[str, Any] | str | None,
    *,
    files: Mapping[str, Any] | None = None,
    environment: Mapping[str, Any] | str | None = None,
    environment_files: Sequence[str] | None = None,
    parameters: Mapping[str, Any] | None = None,
    show_nested: bool = False,
    ignorable_errors: Collection[str] | None = None,
    global_env: Environment | None = None,
    type_checker: TypeChecker | None = None,
    limits: Limits | None = None,
    max_resources_per_stack: int = 1000,
    plugin_attributes: Callable[[str], frozenset[str] | None] | None = None,
) -> dict[str, Any]:
    """Validate a template and answer Heat's validate document, or raise the first error.

    ``plugin_attributes`` names the attributes a plugin type declares, so that get_attr of
    one it lacks is refused here as Heat refuses it.
    """
    limits = limits or Limits()
    files = dict(files or {})
    if template is None:
        raise Invalid("No Template provided.")
    ignorable = set(ignorable_errors or ())
    unknown_codes = ignorable - IGNORABLE_ERROR_CODES
    if unknown_codes:
        raise Invalid(f"Invalid codes in ignore_errors : {sorted(unknown_codes)}")
    loaded = load_for_validation(template, files, environment, environment_files, parameters,
                                 global_env, limits, max_resources_per_stack, plugin_attributes)
    tmpl, env, params, stack = loaded.template, loaded.env, loaded.params, loaded.stack
    try:
        _validate_stack(stack, params, env, ignorable, type_checker)
    except StackValidationFailed as exc:
        raise TemplateRejected(str(exc)) from None

    result: dict[str, Any] = {
        "Description": tmpl.description,
        "Parameters": params.validate_output(),
    }
    groups = ParameterGroups(tmpl.parameter_groups_section, list(params))
    if groups.output:
        result["ParameterGroups"] = groups.output
    if show_nested:
        nested = nested_parameters(stack, env, files, limits)
        if nested:
            result["NestedParameters"] = nested
    result["Environment"] = env.user_env_as_dict()
    return result


def _parameters(tmpl: Template, env: Environment) -> Parameters:
    """A template's parameters as validation reads them: for no stack in particular."""
    return Parameters(
        tmpl.version,
        tmpl.parameters_section,
        env.params,
        env.param_defaults,
        stack=StackIdentity(tenant="", stack_name="dummy"),
    )


def _validate_stack(
    stack: StackDefinition,
    params: Parameters,
    env: Environment,
    ignorable: set[str],
    type_checker: TypeChecker | None,
) -> None:
    tmpl = stack.template
    params.validate(validate_value=False)
    ParameterGroups(tmpl.parameter_groups_section, list(params)).validate()
    stack.conditions.validate()
    resources = stack.resource_definitions
    for name, defn in resources.items():
        # Heat looks every type up as it reads the resources: an unknown one comes first.
        try:
            env.resolve_type(defn.type, name)
        except ResourceTypeNotFound:
            raise
        except HearthError:
            pass  # reported, in its turn, by the resource's own checks below

    duplicates = set(params.declared_names) & set(resources)
    if duplicates:
        raise StackValidationFailed(f"Duplicate names {duplicates}")

    # Heat then checks every reference to a resource, parses the outputs (a malformed one,
    # or a call with wrong arguments in one) and looks for cycles, all before any resource's
    # own checks.
    stack.check_references()
    stack.outputs  # noqa: B018
    stack.dependency_graph()

    section = tmpl.section_name("resources")
    for name, defn in resources.items():
        try:
            entry = env.resolve_type(defn.type, name)
            if entry.kind == "template":
                # Heat records the provider template a type resolved to in the user's
                # registry; validate's Environment shows it.
                env.registry.register(entry.path, str(entry.template_name))
            if defn.external_id is not None:
                continue
            # The template's own faults first: they are there whatever plugin serves the type.
            _validate_definition(stack, defn)
            if type_checker is not None:
                type_checker(defn, entry)
        except HearthError as exc:
            if exc.error_code is not None and exc.error_code in ignorable:
                continue
            if isinstance(exc, StackValidationFailed):
                if exc.path and str(exc.path[0]).split(".")[0] == section:
                    raise
                raise StackValidationFailed.wrap(exc, [section, name]) from None
            raise
    for output in stack.outputs.values():
        base.validate(output.value, stack)


def _validate_definition(stack: StackDefinition, defn: ResourceDefinition) -> None:
    validate_resource_functions(stack, defn)
    _check_parameter_references(stack, defn)


def _check_parameter_references(stack: StackDefinition, defn: ResourceDefinition) -> None:
    """A property that reads an undeclared parameter can never be resolved: say so now.

    Heat finds this only when the stack is created ("Property error: ..."); the same error is
    reported here, at the same path, before anything exists.
    """
    for fn in base.walk([defn.properties, defn.metadata]):
        if not isinstance(fn, GetParam):
            continue
        name = fn.args[0] if isinstance(fn.args, list) and fn.args else fn.args
        if isinstance(name, str) and not stack.has_parameter(name):
            where = fn.path.rsplit(".", 1)[0]
            raise StackValidationFailed(
                str(UserParameterMissing(name)), [where], error="Property error"
            )


def nested_parameters(
    stack: StackDefinition,
    env: Environment,
    files: Mapping[str, Any],
    limits: Limits,
    depth: int = 0,
) -> dict[str, Any]:
    """Heat's ``NestedParameters``: for each resource served by a provider template, that
    template's description and parameters (with the values the resource's properties give
    them), its type, and the same for its own nested templates."""
    out: dict[str, Any] = {}
    if depth > MAX_NESTED_REPORT_DEPTH:
        return out
    for name, defn in stack.resource_definitions.items():
        try:
            entry = env.resolve_type(defn.type, name)
        except HearthError:
            continue
        text = files.get(str(entry.template_name)) if entry.kind == "template" else None
        if not isinstance(text, str):
            continue
        try:
            data = load_template_text(text, limits)
        except HearthError:
            continue
        child_tmpl = Template(data, {k: v for k, v in files.items() if isinstance(v, str)})
        child_env = env.child(_known_properties(stack, defn), entry, name)
        params = _parameters(child_tmpl, child_env)
        report: dict[str, Any] = {
            "Description": child_tmpl.description,
            "Parameters": params.validate_output(),
            "Type": defn.type,
        }
        groups = ParameterGroups(child_tmpl.parameter_groups_section, list(params))
        if groups.output:
            report["ParameterGroups"] = groups.output
        child = StackDefinition(child_tmpl, CheckedValues(params), limits=limits)
        deeper = nested_parameters(child, child_env, files, limits, depth + 1)
        if deeper:
            report["NestedParameters"] = deeper
        out[name] = report
    return out


# Provider templates may only nest so deep; the report stops there too.
MAX_NESTED_REPORT_DEPTH = 5


def _known_properties(stack: StackDefinition, defn: ResourceDefinition) -> dict[str, Any]:
    """The properties whose values are known without any resource existing."""
    props = defn.properties if isinstance(defn.properties, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in props.items():
        try:
            resolved = base.resolve(value, stack)
        except HearthError:
            continue
        if resolved is not None:
            out[str(key)] = resolved
    return out
