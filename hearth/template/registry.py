"""The resource registry: type mappings, provider templates, per-resource hooks and restrictions.

Entries come from the user's environment and from the global one; lookups follow Heat's order
(user before global, per-resource before type entries, then by name).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from hearth.common.errors import (
    InvalidBreakPointHook,
    InvalidEnvironment,
    InvalidRestrictedAction,
)

HOOK_TYPES: tuple[str, ...] = (
    "pre-create",
    "pre-update",
    "pre-delete",
    "post-create",
    "post-update",
    "post-delete",
)

RESTRICTED_ACTIONS: tuple[str, ...] = ("update", "replace")

HOOKS_KEY = "hooks"
RESTRICTED_ACTIONS_KEY = "restricted_actions"
RESOURCES_KEY = "resources"

TEMPLATE_SUFFIXES = (".yaml", ".template")

EntryKind = Literal["plugin", "template", "map", "glob"]


def deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value


# --- hooks and restricted actions ----------------------------------------------------------------


def _all_in(value: Any, allowed: tuple[str, ...]) -> bool:
    """A single name or a list of names, every one of them allowed."""
    if isinstance(value, str):
        return value in allowed
    if isinstance(value, Sequence):
        return all(isinstance(v, str) and v in allowed for v in value)
    return False


def _check_hooks(value: Any) -> None:
    if not _all_in(value, HOOK_TYPES):
        raise InvalidBreakPointHook(
            f'Invalid hook type "{value}" for resource breakpoint, acceptable hook types '
            f"are: {HOOK_TYPES}"
        )


def _check_restricted_actions(value: Any) -> None:
    if not _all_in(value, RESTRICTED_ACTIONS):
        raise InvalidRestrictedAction(
            f'Invalid restricted_action type "{value}" for resource, acceptable '
            f"restricted_action types are: {RESTRICTED_ACTIONS}"
        )


def _values_of(setting: Any) -> list[str]:
    """A hooks / restricted_actions setting (one string or a list of them) as a list."""
    if isinstance(setting, str):
        return [setting]
    if isinstance(setting, Sequence):
        return [v for v in setting if isinstance(v, str)]
    return []


def _narrow_resources(resources: Mapping[str, Any], resource_name: str) -> dict[str, Any]:
    """The ``resources`` block a child stack of ``resource_name`` sees.

    The contents of every entry whose pattern matches the name are merged (in the order they
    were declared), the entry named exactly like the resource last so that it wins.
    """
    narrowed: dict[str, Any] = {}
    for pattern, content in resources.items():
        if isinstance(content, dict) and fnmatch.fnmatchcase(resource_name, pattern):
            narrowed.update(content)
    exact = resources.get(resource_name)
    if isinstance(exact, dict):
        narrowed.update(exact)
    return narrowed


def _resources_for_path(
    resources: Mapping[str, Any], path: Sequence[str]
) -> tuple[Mapping[str, Any], str] | None:
    """Walk ``resources`` down the parent resource names of ``path``; None if path is empty."""
    if not path:
        return None
    current: Mapping[str, Any] = resources
    for parent in path[:-1]:
        current = _narrow_resources(current, parent)
    return current, path[-1]


def _hook_in(resources: Mapping[str, Any], resource_name: str, hook: str) -> bool:
    for pattern, content in resources.items():
        if not isinstance(content, dict) or HOOKS_KEY not in content:
            continue
        if fnmatch.fnmatchcase(resource_name, pattern) and hook in _values_of(content[HOOKS_KEY]):
            return True
    return False


def _restricted_in(resources: Mapping[str, Any], resource_name: str) -> set[str]:
    actions: set[str] = set()
    for pattern, content in resources.items():
        if not isinstance(content, dict) or RESTRICTED_ACTIONS_KEY not in content:
            continue
        if fnmatch.fnmatchcase(resource_name, pattern):
            actions.update(_values_of(content[RESTRICTED_ACTIONS_KEY]))
    return actions


# --- registry entries ----------------------------------------------------------------------------


class RegistryEntry:
    """One mapping in a resource registry.

    ``kind`` is one of:

    * ``plugin``: ``name`` is implemented by a Python plugin (``value`` is the plugin object);
    * ``template``: ``name`` is a provider template, ``template_name`` (== ``value``) says which;
    * ``map``: ``name`` is another name for the type ``value``;
    * ``glob``: ``name`` ends with ``*``; types with that prefix map to ``value`` (with the
      matched suffix put in place of a trailing ``*``, or all to one type otherwise).

    ``path`` is where the entry sits in the registry (``("OS::Foo",)`` or
    ``("resources", "my_server", "OS::Nova::Server")``); ``user`` says whether it comes from a
    user environment rather than the global one.
    """

    __slots__ = ("kind", "path", "registry", "user", "value")

    def __init__(
        self,
        registry: ResourceRegistry,
        path: Sequence[str],
        value: Any,
        kind: EntryKind | None = None,
        user: bool = True,
    ) -> None:
        self.registry = registry
        self.path: tuple[str, ...] = tuple(path)
        self.user = user
        name = self.path[-1]
        if kind is None:
            if name.endswith(TEMPLATE_SUFFIXES):
                kind = "template"
            elif not isinstance(value, str):
                kind = "plugin"
            elif value.endswith(TEMPLATE_SUFFIXES):
                kind = "template"
            elif name.endswith("*"):
                kind = "glob"
            else:
                kind = "map"
        if kind == "template" and name.endswith(TEMPLATE_SUFFIXES):
            # A key that is itself a template file name always stands for that file.
            value = name
        self.kind: EntryKind = kind
        self.value: Any = value

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def template_name(self) -> str | None:
        """The provider template's name (a ``files`` key or URL), for template entries."""
        return str(self.value) if self.kind == "template" else None

    @property
    def plugin(self) -> Any:
        """The plugin object, for plugin entries."""
        return self.value if self.kind == "plugin" else None

    def _key(self) -> tuple[int, int, tuple[str, ...]]:
        return (0 if self.user else 1, -len(self.path), self.path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RegistryEntry):
            return NotImplemented
        return (self.path, self.value, self.user) == (other.path, other.value, other.user)

    def __hash__(self) -> int:
        return hash((self.path, self.user))

    def __repr__(self) -> str:
        who = "user" if self.user else "global"
        return f"<RegistryEntry {self.kind} ({who}) {'/'.join(self.path)} -> {self.value!r}>"

    def matches(self, resource_type: str) -> bool:
        """Whether a glob entry applies to ``resource_type`` (never to its own target)."""
        if self.kind != "glob":
            return False
        return resource_type != self.value and resource_type.startswith(self.name[:-1])

    def _copy_as_user(self) -> RegistryEntry:
        return RegistryEntry(self.registry, self.path, self.value, self.kind, user=True)

    def _follow(
        self, resource_type: str, resource_name: str | None, seen: frozenset[str]
    ) -> RegistryEntry:
        if self.kind == "map":
            return self.registry._lookup(str(self.value), resource_name, seen)
        if self.kind == "glob":
            target = str(self.value)
            if target.endswith("*"):
                target = target[:-1] + resource_type[len(self.name) - 1 :]
            return self.registry._lookup(target, resource_name, seen)
        return self


class _NotFound(Exception):
    pass


# (this registry's version, the global registry, its version)
_Stamp = tuple[int, "ResourceRegistry | None", int]
# (type, resource name or None when the answer cannot depend on it, kind)
_AnswerKey = tuple[str, str | None, str | None]


class ResourceRegistry:
    """Type names to implementations, plus per-resource settings (hooks, restricted actions).

    A registry with a ``global_registry`` is a user registry: what it holds is marked as user
    entries and lookups fall back on the global registry.
    """

    def __init__(
        self,
        global_registry: ResourceRegistry | None = None,
        param_defaults: dict[str, Any] | None = None,
    ) -> None:
        self._registry: dict[str, Any] = {RESOURCES_KEY: {}}
        self.global_registry = global_registry
        self.param_defaults: dict[str, Any] = param_defaults if param_defaults is not None else {}
        # Bumped on every change, so that what is derived from the contents (the glob index,
        # remembered answers) is dropped when it may no longer hold.
        self._version = 0
        self._globs: list[RegistryEntry] | None = None
        # Answers of get_resource_info, with the state (see _stamp) they were found in.
        self._answers: tuple[_Stamp, dict[_AnswerKey, RegistryEntry | None]] = (
            (-1, None, -1),
            {},
        )

    @property
    def is_user(self) -> bool:
        return self.global_registry is not None

    # -- loading --

    def load(self, snippet: Mapping[str, Any]) -> None:
        """Add a ``resource_registry`` section on top of what is already there.

        A null value removes the entry of that name (every entry with that prefix for a name
        ending in ``*``) from this registry; it cannot remove global entries.
        """
        if not isinstance(snippet, Mapping):
            raise InvalidEnvironment(
                f'resource_registry must be a mapping, not "{snippet}"'
            )
        self._load([], snippet)

    def _load(self, path: list[str], snippet: Mapping[str, Any]) -> None:
        for key, value in snippet.items():
            key = str(key)
            here = [*path, key]
            if value is None:
                self._remove(here)
            elif key == HOOKS_KEY:
                _check_hooks(value)
                self._put_raw(here, value)
            elif key == RESTRICTED_ACTIONS_KEY:
                _check_restricted_actions(value)
                self._put_raw(here, value)
            elif isinstance(value, Mapping):
                self._load(here, value)
            elif isinstance(value, str):
                self._put(here, RegistryEntry(self, here, value, user=self.is_user))
            else:
                raise InvalidEnvironment(
                    f'Invalid resource_registry entry "{"/".join(here)}": {value!r} is not a '
                    "type name or a template name"
                )

    def _level(self, path: Sequence[str]) -> dict[str, Any]:
        level = self._registry
        for key in path:
            nxt = level.get(key)
            if not isinstance(nxt, dict):
                nxt = {}
                level[key] = nxt
            level = nxt
        return level

    def _changed(self) -> None:
        self._version += 1
        self._globs = None

    def _put_raw(self, path: Sequence[str], value: Any) -> None:
        self._changed()
        self._level(path[:-1])[path[-1]] = value

    def _put(self, path: Sequence[str], entry: RegistryEntry) -> None:
        self._changed()
        level = self._level(path[:-1])
        entry.user = self.is_user
        level[path[-1]] = entry

    def _remove(self, path: Sequence[str]) -> None:
        self._changed()
        level = self._level(path[:-1])
        name = path[-1]
        if name.endswith("*"):
            prefix = name[:-1]
            for key in [k for k, v in level.items() if isinstance(v, RegistryEntry)]:
                if key.startswith(prefix):
                    del level[key]
        else:
            level.pop(name, None)

    def register_plugin(
        self, type_name: str, plugin: Any, path: Sequence[str] | None = None
    ) -> RegistryEntry:
        """Make ``type_name`` implemented by ``plugin`` (any object the caller understands)."""
        where = list(path) if path is not None else [type_name]
        entry = RegistryEntry(self, where, plugin, kind="plugin", user=self.is_user)
        self._put(where, entry)
        return entry

    def register(self, path: Sequence[str] | str, value: str) -> RegistryEntry:
        """Add one string mapping at ``path`` (a type name or a registry path).

        This is how a provider template that was found is recorded in the stack's environment
        (Heat does the same), e.g. ``register(entry.path, entry.template_name)``.
        """
        where = [path] if isinstance(path, str) else list(path)
        entry = RegistryEntry(self, where, value, user=self.is_user)
        self._put(where, entry)
        return entry

    def remove_item(self, entry: RegistryEntry | None) -> None:
        """Drop the template entry at ``entry``'s path (for a child stack's environment)."""
        if entry is None or entry.kind != "template":
            return
        self._changed()
        level: Any = self._registry
        for key in entry.path[:-1]:
            if not isinstance(level, dict) or key not in level:
                return
            level = level[key]
        if isinstance(level, dict):
            level.pop(entry.path[-1], None)

    def remove_resources_except(self, resource_name: str) -> None:
        """Keep only the ``resources`` settings that address ``resource_name``, one level down."""
        self._changed()
        self._registry[RESOURCES_KEY] = _narrow_resources(self.resources, resource_name)

    # -- queries --

    @property
    def resources(self) -> dict[str, Any]:
        res = self._registry.get(RESOURCES_KEY)
        return res if isinstance(res, dict) else {}

    def matches_hook(self, resource_name: str, hook: str) -> bool:
        """Whether ``hook`` is set for the resource of this name (patterns are fnmatch-style)."""
        return _hook_in(self.resources, resource_name, hook)

    def matches_hook_path(self, path: Sequence[str], hook: str) -> bool:
        """Whether ``hook`` is set for a resource given by its path from this stack.

        ``["group", "0", "server"]`` is resource ``server`` in the stack of resource ``0`` in the
        stack of resource ``group`` of this stack; every level accepts patterns.
        """
        found = _resources_for_path(self.resources, path)
        if found is None:
            return False
        return _hook_in(found[0], found[1], hook)

    def get_rsrc_restricted_actions(self, resource_name: str) -> set[str]:
        """The restricted actions (``update``, ``replace``) set for the resource of this name."""
        return _restricted_in(self.resources, resource_name)

    def restricted_actions_for_path(self, path: Sequence[str]) -> set[str]:
        found = _resources_for_path(self.resources, path)
        if found is None:
            return set()
        return _restricted_in(found[0], found[1])

    def _candidates(self, resource_type: str, resource_name: str | None) -> Iterator[RegistryEntry]:
        if self.is_user and resource_type.endswith(TEMPLATE_SUFFIXES):
            # A template named directly as a type is registered on first use.
            current = self._registry.get(resource_type)
            if not isinstance(current, RegistryEntry):
                current = RegistryEntry(self, [resource_type], resource_type, kind="template")
                self._put([resource_type], current)
            yield current

        if resource_name:
            per_resource = self.resources.get(resource_name)
            if isinstance(per_resource, dict):
                entry = per_resource.get(resource_type)
                if isinstance(entry, RegistryEntry):
                    yield entry

        exact = self._registry.get(resource_type)
        if isinstance(exact, RegistryEntry):
            yield exact

        for entry in self._glob_entries():
            if entry.matches(resource_type):
                yield entry

    def _glob_entries(self) -> list[RegistryEntry]:
        """The top-level entries under a ``*`` key, in registry order (built once per change:
        scanning every type of the global registry on each lookup is what lookups cost)."""
        if self._globs is None:
            self._globs = [
                entry
                for key, entry in self._registry.items()
                if key.endswith("*") and isinstance(entry, RegistryEntry)
            ]
        return self._globs

    def get_resource_info(
        self,
        resource_type: str,
        resource_name: str | None = None,
        kind: EntryKind | None = None,
        ignore: RegistryEntry | None = None,
    ) -> RegistryEntry | None:
        """What ``resource_type`` (for the resource ``resource_name``) resolves to, or None.

        The answer is a ``plugin`` or ``template`` entry. ``kind`` keeps only answers of that
        kind; ``ignore`` skips an answer equal to it (used to find the plugin type a provider
        template stands in for).
        """
        if ignore is not None:
            return self._resolve(resource_type, resource_name, kind, ignore)
        key = (resource_type, self._answer_name(resource_name), kind)
        stamp = self._stamp()
        answers_stamp, answers = self._answers
        if answers_stamp != stamp:
            answers = {}
            self._answers = (stamp, answers)
        elif key in answers:
            return answers[key]
        found = self._resolve(resource_type, resource_name, kind, None)
        # A lookup that changed a registry (a template type registered, an alias remembered)
        # may answer differently next time: only answers of unchanged registries are kept.
        if self._stamp() == stamp:
            answers[key] = found
        return found

    def _resolve(
        self,
        resource_type: str,
        resource_name: str | None,
        kind: EntryKind | None,
        ignore: RegistryEntry | None,
    ) -> RegistryEntry | None:
        try:
            return self._lookup(resource_type, resource_name, frozenset(), kind, ignore)
        except _NotFound:
            return None

    def _stamp(self) -> _Stamp:
        """The state lookups here depend on: this registry's and the global one's."""
        glob = self.global_registry
        return (self._version, glob, glob._version if glob is not None else -1)

    def _answer_name(self, resource_name: str | None) -> str | None:
        """The resource name as far as lookups tell names apart: only the per-resource
        entries (of either registry) make an answer depend on it."""
        if not resource_name:
            return None
        if isinstance(self.resources.get(resource_name), dict):
            return resource_name
        glob = self.global_registry
        if glob is not None and isinstance(glob.resources.get(resource_name), dict):
            return resource_name
        return None

    def _lookup(
        self,
        resource_type: str,
        resource_name: str | None,
        seen: frozenset[str],
        kind: EntryKind | None = None,
        ignore: RegistryEntry | None = None,
    ) -> RegistryEntry:
        # A chain of mappings that comes back to a type already being resolved leads nowhere.
        marker = f"{id(self)}:{resource_type}"
        if marker in seen:
            raise _NotFound(resource_type)
        seen = seen | {marker}

        candidates = list(self._candidates(resource_type, resource_name))
        if self.global_registry is not None:
            candidates.extend(self.global_registry._candidates(resource_type, resource_name))
        candidates.sort(key=RegistryEntry._key)

        for candidate in candidates:
            try:
                match = candidate._follow(resource_type, resource_name, seen)
            except _NotFound:
                continue
            if kind is not None and match.kind != kind:
                continue
            if ignore is not None and match == ignore:
                continue
            if self.is_user and not match.user and candidate.kind in ("map", "glob"):
                # Like Heat, remember at the top of the user's registry which alias led to a
                # global answer (even a per-resource one, which then applies to every resource
                # of that type: Heat 27 does exactly this).
                remembered = candidate if candidate.user else candidate._copy_as_user()
                current = self._registry.get(resource_type)
                if current != remembered:
                    self._changed()
                    self._registry[resource_type] = remembered
            return match
        raise _NotFound(resource_type)

    def as_dict(self) -> dict[str, Any]:
        """The user part of the registry as an environment's ``resource_registry`` section."""

        def level_as_dict(level: Mapping[str, Any]) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for key, value in level.items():
                if isinstance(value, dict):
                    out[key] = level_as_dict(value)
                elif isinstance(value, RegistryEntry):
                    if value.user:
                        out[key] = value.value
                else:
                    out[key] = deep_copy(value)
            return out

        return level_as_dict(self._registry)

    def iter_entries(self) -> Iterator[RegistryEntry]:
        """Every top-level type entry of this registry (not per-resource ones)."""
        for value in self._registry.values():
            if isinstance(value, RegistryEntry):
                yield value

    def type_names(self) -> list[str]:
        """Names that denote resource types here: plugin and template entries, not aliases."""
        return [e.name for e in self.iter_entries() if e.kind in ("plugin", "template")]


# --- the environment -----------------------------------------------------------------------------
