"""Environments: parameters, parameter defaults, the resource registry, hooks and event sinks.

Pure data handling; nothing here reads files or fetches URLs. A provider template named by the
registry is only reported (by name); its contents come from the request's ``files`` map, which is
the caller's business.

Two kinds of registry exist, as in Heat:

* the *global* registry (``Environment(user_env=False)`` / :func:`make_global_environment`) holds
  the Python resource plugins and the operator's environment files;
* a *user* registry (every stack's environment) holds what the user's environment declared and
  falls back on the global one.

Lookups (:meth:`ResourceRegistry.get_resource_info`) gather candidates from both, order them the
way Heat does (user before global, longer registry paths before shorter ones, then by path) and
take the first candidate that resolves. Like Heat, a lookup that is answered through a global
alias is remembered in the user registry, so the alias shows up in the stored environment and in
the ``Environment`` section of validate output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hearth.common.errors import (
    HearthError,
    InvalidEnvironment,
    ResourceTypeNotFound,
    StackValidationFailed,
    TemplateParseError,
)
from hearth.template.loader import (
    ENVIRONMENT_SECTIONS,
    check_environment_sections,
    load_environment_text,
)
from hearth.template.registry import (
    HOOK_TYPES,
    RESTRICTED_ACTIONS,
    EntryKind,
    RegistryEntry,
    ResourceRegistry,
    deep_copy,
)

__all__ = [
    "ENCRYPTED_PARAM_NAMES",
    "EVENT_SINKS",
    "HOOK_TYPES",
    "PARAMETERS",
    "PARAMETER_DEFAULTS",
    "PARAMETER_MERGE_STRATEGIES",
    "RESOURCE_REGISTRY",
    "RESTRICTED_ACTIONS",
    "SECTIONS",
    "Environment",
    "RegistryEntry",
    "ResourceRegistry",
    "default_for_missing",
    "get_child_environment",
    "is_flat_params",
    "make_global_environment",
    "mask_hidden_parameters",
    "parse_environment",
    "validate_environment",
]

PARAMETERS = "parameters"
RESOURCE_REGISTRY = "resource_registry"
PARAMETER_DEFAULTS = "parameter_defaults"
ENCRYPTED_PARAM_NAMES = "encrypted_param_names"
EVENT_SINKS = "event_sinks"
PARAMETER_MERGE_STRATEGIES = "parameter_merge_strategies"

# The top-level sections an environment document may have, in Heat's order.
SECTIONS: tuple[str, ...] = ENVIRONMENT_SECTIONS

# Event sink types known out of the box.
DEFAULT_EVENT_SINK_TYPES: frozenset[str] = frozenset({"zaqar-queue"})

_NOT_A_MAPPING = "The environment is not a valid YAML mapping data type."



# --- the document --------------------------------------------------------------------------------


def validate_environment(env: Any) -> dict[str, Any]:
    """Check an already-loaded environment document's top level as Heat does.

    Every key must be a known section (else 'environment has wrong section "x"') and none may be
    null (else 'environment has empty section "x"'). A document that is not a mapping is refused
    too. Returns a shallow copy.
    """
    if not isinstance(env, Mapping):
        raise InvalidEnvironment(_NOT_A_MAPPING)
    return check_environment_sections(env)


def parse_environment(
    text: str | bytes | None, load: Callable[[str | bytes], Any] | None = None
) -> dict[str, Any]:
    """Turn environment text into a checked document (Heat's ``environment_format.parse``).

    ``None`` text, empty text or a null document give ``{}``. ``load`` turns text into data; by
    default the safe loader of :mod:`hearth.template.loader` is used. Loader failures other than
    Hearth errors become :class:`InvalidEnvironment` with the loader's message.
    """
    if text is None:
        return {}
    if load is None:
        load = load_environment_text
    try:
        data = load(text)
    except (InvalidEnvironment, StackValidationFailed):
        raise
    except TemplateParseError as exc:
        raise InvalidEnvironment(str(exc)) from None
    except Exception as exc:
        if type(exc).__module__.startswith("hearth."):
            raise
        raise InvalidEnvironment(str(exc)) from None
    if data is None:
        return {}
    return validate_environment(data)


def default_for_missing(env: dict[str, Any]) -> dict[str, Any]:
    """Add every missing section (but ``parameter_merge_strategies``) with an empty value.

    Lists for ``encrypted_param_names`` and ``event_sinks``, maps for the rest. Changes ``env``
    in place and returns it.
    """
    for section in SECTIONS:
        if section == PARAMETER_MERGE_STRATEGIES or section in env:
            continue
        env[section] = [] if section in (ENCRYPTED_PARAM_NAMES, EVENT_SINKS) else {}
    return env


def is_flat_params(env_or_params: Mapping[str, Any] | None) -> bool:
    """True for a legacy flat document: a mapping with none of the section names as a key."""
    if env_or_params is None:
        return False
    return not any(section in env_or_params for section in SECTIONS)


def mask_hidden_parameters(
    env: Mapping[str, Any], is_hidden: Callable[[str], bool]
) -> dict[str, Any]:
    """A copy of a stored environment with hidden parameter values shown as ``******``.

    This is what GET .../environment answers; ``is_hidden(name)`` says whether a parameter
    declared by the template (or one of its nested templates) is hidden.
    """
    out: dict[str, Any] = deep_copy(dict(env))
    for section in (PARAMETERS, PARAMETER_DEFAULTS):
        values = out.get(section)
        if not isinstance(values, dict):
            continue
        for name in values:
            if is_hidden(name):
                values[name] = "******"
    return out


class Environment:
    """A stack's environment: parameters, parameter defaults, registry and event sinks.

    ``env`` is a loaded document (sections as in Heat, or a legacy flat map of parameters).
    A user environment (the default) needs ``global_env`` for lookups to fall back on; without
    it lookups only see the user's own entries.
    """

    def __init__(
        self,
        env: Mapping[str, Any] | None = None,
        *,
        user_env: bool = True,
        global_env: Environment | None = None,
        event_sink_types: Iterable[str] | None = None,
    ) -> None:
        env = {} if env is None else env
        if not isinstance(env, Mapping):
            raise InvalidEnvironment(_NOT_A_MAPPING)
        if user_env:
            global_registry = (
                global_env.registry if global_env is not None else ResourceRegistry()
            )
            sink_types = (
                set(event_sink_types)
                if event_sink_types is not None
                else set(global_env.event_sink_types)
                if global_env is not None
                else set(DEFAULT_EVENT_SINK_TYPES)
            )
        else:
            global_registry = None
            sink_types = set(event_sink_types or DEFAULT_EVENT_SINK_TYPES)
        self.event_sink_types: set[str] = sink_types

        self.param_defaults: dict[str, Any] = _mapping_section(env, PARAMETER_DEFAULTS)
        self.registry: ResourceRegistry = ResourceRegistry(global_registry, self.param_defaults)
        self.registry.load(env.get(RESOURCE_REGISTRY, {}))
        encrypted = env.get(ENCRYPTED_PARAM_NAMES) or []
        if not isinstance(encrypted, list):
            # the names of hidden parameters, in the environments Hearth stores itself
            raise InvalidEnvironment(
                f'{ENCRYPTED_PARAM_NAMES} must be a list of parameter names, not "{encrypted}"')
        self.encrypted_param_names: list[Any] = list(encrypted)
        if PARAMETERS in env:
            self.params: dict[str, Any] = _mapping_section(env, PARAMETERS)
        else:
            # A legacy flat environment: everything that is not another section is a parameter.
            self.params = {
                k: v
                for k, v in env.items()
                if k
                not in (PARAMETER_DEFAULTS, ENCRYPTED_PARAM_NAMES, EVENT_SINKS, RESOURCE_REGISTRY)
            }
        self._event_sinks: list[Any] = []
        self._add_event_sinks(env.get(EVENT_SINKS, []))

    @property
    def event_sinks(self) -> list[dict[str, Any]]:
        return list(self._event_sinks)

    @property
    def is_user(self) -> bool:
        return self.registry.is_user

    def load(self, snippet: Mapping[str, Any]) -> None:
        """Layer another document on top: registry entries added (null removes), parameters and
        parameter defaults updated, event sinks appended."""
        if not isinstance(snippet, Mapping):
            raise InvalidEnvironment(_NOT_A_MAPPING)
        self.registry.load(snippet.get(RESOURCE_REGISTRY, {}))
        self.params.update(_mapping_section(snippet, PARAMETERS))
        self.param_defaults.update(_mapping_section(snippet, PARAMETER_DEFAULTS))
        self._add_event_sinks(snippet.get(EVENT_SINKS, []))

    def _add_event_sinks(self, sinks: Any) -> None:
        if not sinks:
            return
        if not isinstance(sinks, list):
            raise InvalidEnvironment(f'event_sinks must be a list, not "{sinks}"')
        for sink in sinks:
            if not isinstance(sink, Mapping) or "type" not in sink:
                raise InvalidEnvironment(f'Invalid event sink "{sink}": a "type" is required')
            if sink["type"] not in self.event_sink_types:
                raise InvalidEnvironment(f'Unknown event sink type "{sink["type"]}"')
        self._event_sinks.extend(sinks)

    def user_env_as_dict(self) -> dict[str, Any]:
        """The environment as the user may see it (validate's ``Environment``, child stacks)."""
        return {
            RESOURCE_REGISTRY: self.registry.as_dict(),
            PARAMETERS: self.params,
            PARAMETER_DEFAULTS: self.param_defaults,
            EVENT_SINKS: self._event_sinks,
        }

    def env_as_dict(self) -> dict[str, Any]:
        """The environment as stored with the stack (and returned by GET environment)."""
        out = self.user_env_as_dict()
        out[ENCRYPTED_PARAM_NAMES] = self.encrypted_param_names
        return out

    # -- registry shortcuts --

    def register_plugin(
        self, type_name: str, plugin: Any, path: Sequence[str] | None = None
    ) -> RegistryEntry:
        return self.registry.register_plugin(type_name, plugin, path)

    def get_resource_info(
        self,
        resource_type: str,
        resource_name: str | None = None,
        kind: EntryKind | None = None,
        ignore: RegistryEntry | None = None,
    ) -> RegistryEntry | None:
        return self.registry.get_resource_info(resource_type, resource_name, kind, ignore)

    def resolve_type(self, resource_type: Any, resource_name: str) -> RegistryEntry:
        """What the type of resource ``resource_name`` resolves to, or Heat's error.

        A ``plugin`` entry (``.name`` is the concrete type, ``.plugin`` its implementation) or a
        ``template`` entry (``.template_name``). Raises StackValidationFailed for an empty,
        missing or non-string type and ResourceTypeNotFound for an unknown one.
        """
        if resource_type == "":
            raise StackValidationFailed(f'Resource "{resource_name}" has no type')
        if resource_type is None:
            raise StackValidationFailed(
                f'Non-empty resource type is required for resource "{resource_name}"'
            )
        if not isinstance(resource_type, str):
            raise StackValidationFailed(f'Resource "{resource_name}" type is not a string')
        found = self.get_resource_info(resource_type, resource_name)
        if found is None:
            raise ResourceTypeNotFound(f"The Resource Type ({resource_type}) could not be found.")
        return found

    def plugin_attribute_names(
        self, plugin_attributes: Callable[[str], frozenset[str] | None]
    ) -> Callable[[str, str], frozenset[str] | None]:
        """(resource name, type) -> the attributes its plugin declares (``plugin_attributes``
        of the concrete type); None for a provider template or a type that does not resolve."""

        def lookup(resource: str, resource_type: str) -> frozenset[str] | None:
            try:
                entry = self.resolve_type(resource_type, resource)
            except HearthError:
                return None
            if entry.kind != "plugin":
                return None
            return plugin_attributes(str(entry.name))

        return lookup

    def matches_hook(self, resource_name: str, hook: str) -> bool:
        return self.registry.matches_hook(resource_name, hook)

    def matches_hook_path(self, path: Sequence[str], hook: str) -> bool:
        return self.registry.matches_hook_path(path, hook)

    def restricted_actions(self, resource_name: str) -> set[str]:
        return self.registry.get_rsrc_restricted_actions(resource_name)

    def restricted_actions_for_path(self, path: Sequence[str]) -> set[str]:
        return self.registry.restricted_actions_for_path(path)

    def standalone(self, params: Mapping[str, Any] | None) -> Environment:
        """An environment of only ``params`` over the same global registry (the stack of an
        OS::Heat::Stack inherits nothing else from its parent)."""
        return Environment(
            {PARAMETERS: dict(params or {})},
            global_env=_global_of(self),
            event_sink_types=self.event_sink_types,
        )

    def child(
        self,
        child_params: Mapping[str, Any] | None,
        item_to_remove: RegistryEntry | None = None,
        child_resource_name: str | None = None,
    ) -> Environment:
        return get_child_environment(self, child_params, item_to_remove, child_resource_name)


def _mapping_section(env: Mapping[str, Any], section: str) -> dict[str, Any]:
    value = env.get(section)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidEnvironment(f'environment section "{section}" must be a mapping')
    return dict(value)


def _global_of(env: Environment) -> Environment | None:
    glob = env.registry.global_registry
    if glob is None:
        return None
    holder = Environment(user_env=False, event_sink_types=env.event_sink_types)
    holder.registry = glob
    return holder


def make_global_environment(
    plugins: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    documents: Iterable[Mapping[str, Any]] = (),
    event_sink_types: Iterable[str] | None = None,
) -> Environment:
    """The engine-wide environment: plugin types first, then operator documents in order.

    ``documents`` are loaded environment files (e.g. every file of ``environment_dir``, in the
    order the caller chose); later ones override earlier ones and null entries remove them.
    """
    env = Environment(user_env=False, event_sink_types=event_sink_types)
    items = plugins.items() if isinstance(plugins, Mapping) else plugins
    for type_name, plugin in items:
        env.register_plugin(type_name, plugin)
    for doc in documents:
        env.load(default_for_missing(validate_environment(doc)))
    return env


def get_child_environment(
    parent_env: Environment,
    child_params: Mapping[str, Any] | None,
    item_to_remove: RegistryEntry | None = None,
    child_resource_name: str | None = None,
) -> Environment:
    """The environment of a nested stack.

    Starts from the parent's user environment (registry, parameter defaults, event sinks) with
    the parameters replaced by ``child_params`` (flat parameters, or a full document which is
    then layered on top). ``item_to_remove`` (the template entry that produced the child) is
    dropped so the child does not recurse into itself, and with ``child_resource_name`` the
    ``resources`` settings narrow to those addressing that parent resource.
    """
    child_doc = parent_env.user_env_as_dict()
    child_doc[PARAMETERS] = {}
    flat = is_flat_params(child_params)
    if flat and child_params is not None:
        child_doc[PARAMETERS] = dict(child_params)
    new_env = Environment(
        global_env=_global_of(parent_env), event_sink_types=parent_env.event_sink_types
    )
    new_env.load(child_doc)
    if not flat and child_params is not None:
        new_env.load(child_params)
    if item_to_remove is not None:
        new_env.registry.remove_item(item_to_remove)
    if child_resource_name:
        new_env.registry.remove_resources_except(child_resource_name)
    return new_env
