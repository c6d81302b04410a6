"""Which class implements each resource type, and what the API says about the types.

Types arrive from two places, in this order (a later one replaces an earlier one of the same
name): installed packages declaring the ``hearth.resources`` entry point group (Hearth's own
built-in types come this way too), then Python modules in the operator's plugin directories.
An entry point names a ``resource_mapping`` callable (or a module that has one); a module
provides ``available_resource_mapping()`` (preferred: it may leave out types it cannot serve
here) or ``resource_mapping()``, each returning ``{type name: Resource subclass}``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import pkgutil
import re
import sys
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hearth.common.errors import (
    EntityNotFound,
    Invalid,
    NotSupported,
    ResourceTypeNotFound,
)
from hearth.resources import describe, validation
from hearth.resources.base import Resource
from hearth.resources.catalog import (
    DEFAULT_GLOBAL_ENVIRONMENT,
    HEAT_RESOURCE_TYPES,
    check_type_available,
)
from hearth.resources.support import SUPPORT_STATUSES, is_valid_status
from hearth.template.definitions import ResourceDefinition
from hearth.template.environment import Environment, RegistryEntry, make_global_environment

ENTRY_POINT_GROUP = "hearth.resources"
MAPPING_FUNCTIONS = ("available_resource_mapping", "resource_mapping")

ResourceMapping = Mapping[str, type[Resource]]


def mapping_from_module(module: types.ModuleType) -> ResourceMapping:
    """The types a plugin module provides (its first mapping function that exists)."""
    for func_name in MAPPING_FUNCTIONS:
        func = getattr(module, func_name, None)
        if callable(func):
            return _checked(func(), f"{module.__name__}.{func_name}()")
    return {}


def _checked(mapping: Any, source: str) -> ResourceMapping:
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{source} must return a mapping, not {type(mapping).__name__}")
    for name, cls in mapping.items():
        if not (isinstance(cls, type) and issubclass(cls, Resource)):
            raise TypeError(f"{source}: {name} is not a Resource subclass")
    return mapping


def _entry_point_mappings() -> Iterator[ResourceMapping]:
    points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for point in sorted(points, key=lambda p: p.name):
        target = point.load()
        if isinstance(target, types.ModuleType):
            yield mapping_from_module(target)
        elif callable(target):
            yield _checked(target(), f"entry point {point.name} ({point.value})")
        else:
            raise TypeError(f"entry point {point.name} ({point.value}) is not callable")


def _plugin_modules(plugin_dirs: Sequence[str]) -> Iterator[types.ModuleType]:
    """Every module under the plugin directories, imported into a package of their own.

    The package (one per set of directories) lets plugin modules import each other.
    """
    dirs = [str(Path(d)) for d in plugin_dirs if Path(d).is_dir()]
    if not dirs:
        return
    digest = hashlib.sha1("\0".join(dirs).encode()).hexdigest()[:12]
    package_name = f"_hearth_plugins_{digest}"
    package = sys.modules.get(package_name)
    if package is None:
        package = types.ModuleType(package_name)
        package.__path__ = dirs
        sys.modules[package_name] = package
    for info in pkgutil.walk_packages(dirs, prefix=f"{package_name}."):
        if ".tests." in info.name or info.name.endswith(".setup"):
            continue
        yield importlib.import_module(info.name)


class PluginRegistry:
    """Resource type name -> implementing class, plus the type catalog the API serves.

    ``catalog`` holds the names Heat knows (with the service each needs): such a name without
    a Hearth plugin is reported as unavailable (HEAT-E99001) rather than unknown.
    """

    def __init__(
        self,
        classes: ResourceMapping,
        catalog: Mapping[str, str] = HEAT_RESOURCE_TYPES,
    ) -> None:
        self._classes: dict[str, type[Resource]] = dict(_checked(classes, "registry"))
        self._catalog = dict(catalog)

    @classmethod
    def load(cls, plugin_dirs: Sequence[str] = ()) -> PluginRegistry:
        classes: dict[str, type[Resource]] = {}
        for mapping in _entry_point_mappings():
            classes.update(mapping)
        for module in _plugin_modules(plugin_dirs):
            classes.update(mapping_from_module(module))
        return cls(classes)

    # --- lookups -------------------------------------------------------------------------

    def get_class(self, type_name: str) -> type[Resource]:
        """The class of a type; ResourceTypeUnavailable for a Heat type Hearth lacks,
        ResourceTypeNotFound for a name nobody knows."""
        found = self._classes.get(type_name)
        if found is not None:
            return found
        if type_name in self._catalog:
            check_type_available(type_name)
        raise ResourceTypeNotFound(f"The Resource Type ({type_name}) could not be found.")

    def __contains__(self, type_name: object) -> bool:
        return type_name in self._classes

    def type_names(self) -> tuple[str, ...]:
        """The types that have a plugin, sorted."""
        return tuple(sorted(self._classes))

    def attribute_names(self, type_name: str) -> frozenset[str] | None:
        """Attributes get_attr may read from the type; None when any name goes (or unknown)."""
        found = self._classes.get(type_name)
        return None if found is None else found.attribute_names()

    def global_environment(self, documents: Iterable[Mapping[str, Any]] = ()) -> Environment:
        """The engine-wide environment: Heat's type names and every plugin type, then
        Heat's default mappings and the operator's ``documents``."""
        names = dict.fromkeys([*self._catalog, *self._classes])
        return make_global_environment(
            {name: name for name in names}, [DEFAULT_GLOBAL_ENVIRONMENT, *documents]
        )

    def type_checker(self, defn: ResourceDefinition, entry: RegistryEntry) -> None:
        """For ``validate_template`` without a cloud: the type has a plugin, needs no other
        service, and the definition fits it."""
        validation.check_definition(self, defn, entry)

    def definition_checker(self, defn: ResourceDefinition, entry: RegistryEntry) -> None:
        """As ``type_checker``, once the caller checked the type's service is there."""
        validation.check_definition(self, defn, entry, offline=False)

    # --- what the API serves -------------------------------------------------------------

    def list_types(
        self,
        support_status: str | None = None,
        type_name: str | None = None,
        version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]:
        """Heat's resource type list: names (or name + description), HIDDEN types left out.

        ``type_name`` is a regular expression matched at the start of the name (an invalid
        one matches nothing); ``version`` and ``support_status`` must equal the type's.
        """
        if support_status is not None and not is_valid_status(support_status):
            raise Invalid(
                f"Invalid support status and should be one of {SUPPORT_STATUSES}"
            )
        pattern: re.Pattern[str] | None = None
        if type_name is not None:
            try:
                pattern = re.compile(type_name)
            except re.error:
                return []
        out: list[Any] = []
        for name in sorted(self._classes):
            status = self._classes[name].support_status
            if status.hidden or (pattern is not None and not pattern.match(name)):
                continue
            if version is not None and status.version != version:
                continue
            if support_status is not None and status.status != support_status:
                continue
            if with_description:
                out.append(
                    {"resource_type": name, "description": self._classes[name].description()}
                )
            else:
                out.append(name)
        return out

    def _describable(self, type_name: str) -> type[Resource]:
        found = self._classes.get(type_name)
        if found is None:
            if type_name in self._catalog:
                check_type_available(type_name)
            raise EntityNotFound("Resource Type", type_name)
        if found.support_status.hidden:
            raise NotSupported(type_name)
        return found

    def schema(self, type_name: str, with_description: bool = False) -> dict[str, Any]:
        """GET /resource_types/{type_name}: EntityNotFound (404) for an unknown type,
        NotSupported (400) for a HIDDEN one, ResourceTypeUnavailable for one Hearth lacks."""
        return describe.resource_schema(self._describable(type_name), type_name, with_description)

    def generate_template(self, type_name: str, template_type: str = "cfn") -> dict[str, Any]:
        """GET /resource_types/{type_name}/template (``cfn`` or ``hot``)."""
        return describe.generate_template(self._describable(type_name), type_name, template_type)
