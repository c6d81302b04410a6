"""What groups of resources share: member names, member definitions, the child template, and
the attributes a group answers from its members.

Pure functions over plain data, so that template generation is tested without an engine.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from hearth.common.errors import InvalidTemplateAttribute, NotFound, ResourceTypeNotFound
from hearth.resources import group_size
from hearth.resources.attributes import select_from_attribute
from hearth.resources.nested import NestedMember
from hearth.template.environment import Environment

# The version of the templates Heat gives groups' nested stacks.
CHILD_VERSION = "2015-04-30"
# The resource data key of the removed names (Heat's name, so abandon/adopt data carry over).
SKIPLIST_KEY = "name_blacklist"

REFS = "refs"
REFS_MAP = "refs_map"
ATTRIBUTES = "attributes"
REMOVED_RSRC_LIST = "removed_rsrc_list"
MEMBER_PREFIX = "resource."

Definition = dict[str, Any]


# --- names -----------------------------------------------------------------------------------


def member_names(count: int, skipped: Collection[str] = ()) -> list[str]:
    """``count`` names "0", "1", ... leaving out removed ones (a removed name never returns)."""
    group_size.check(count)
    candidates = (str(i) for i in itertools.count())
    return list(itertools.islice((n for n in candidates if n not in skipped), max(count, 0)))


def stored_skiplist(data: Mapping[str, str]) -> list[str]:
    value = data.get(SKIPLIST_KEY)
    return value.split(",") if value else []


def removal_entries(
    policies: Sequence[Mapping[str, Any]] | None,
    current: Collection[str],
    existing: Collection[str] | None,
    refs_map: Mapping[str, Any],
) -> Iterator[str]:
    """Names the removal policies add to the skiplist.

    An entry is a member name or a member's reference (as ``refs`` shows it). ``existing``
    is None before the group has members: every entry is then taken as a name.
    """
    for policy in policies or ():
        for entry in (policy or {}).get("resource_list") or ():
            name = str(entry)
            if name in current or existing is None or name in existing:
                yield name
            elif isinstance(entry, str):
                # Only the first member with that reference is removed (as Heat).
                found = next((n for n, ref in refs_map.items() if ref == entry), None)
                if found is not None:
                    yield found


def updated_skiplist(current: Collection[str], new: Iterable[str], mode: str) -> set[str]:
    """``update`` mode forgets the names removed before; ``append`` keeps them."""
    base = set() if mode == "update" else set(current)
    return base | set(new)


def skiplist_data(names: Collection[str]) -> str:
    return ",".join(sorted(names))


# --- definitions and templates ---------------------------------------------------------------


def check_member_type(environment: Environment, member_type: Any) -> None:
    """Heat resolves a member type before it looks at the child, for no resource in
    particular: the errors name resource "None" and carry no path."""
    if member_type == "":
        raise ResourceTypeNotFound('Resource "None" has no type')
    if not isinstance(member_type, str):
        raise ResourceTypeNotFound('Resource "None" type is not a string')
    if environment.get_resource_info(member_type) is None:
        raise ResourceTypeNotFound(f"The Resource Type ({member_type}) could not be found.")


def substitute_index(value: Any, index_var: str, name: str) -> Any:
    """``index_var`` replaced by the member's name in every string inside ``value``."""
    if isinstance(value, str):
        return value.replace(index_var, name)
    if isinstance(value, Mapping):
        return {k: substitute_index(v, index_var, name) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [substitute_index(v, index_var, name) for v in value]
    return value


def clean_definition(resource_def: Mapping[str, Any]) -> dict[str, Any]:
    """The group's resource_def without its null property values (Heat passes none on)."""
    out = dict(resource_def)
    props = out.get("properties")
    if props:
        out["properties"] = {k: v for k, v in props.items() if v is not None}
    return out


def member_definition(resource_def: Mapping[str, Any], name: str, index_var: str) -> Definition:
    """One member's definition; the index is substituted in properties only (as Heat)."""
    defn: Definition = {"type": resource_def.get("type")}
    props = resource_def.get("properties")
    if props:
        defn["properties"] = substitute_index(props, index_var, name)
    metadata = resource_def.get("metadata")
    if metadata is not None:
        defn["metadata"] = metadata
    return defn


def child_template(
    definitions: Iterable[tuple[str, Definition]], *, refs_map: bool = True
) -> dict[str, Any]:
    """The HOT template of a group's child stack, with Heat's ``refs_map`` output."""
    resources = dict(definitions)
    template: dict[str, Any] = {"heat_template_version": CHILD_VERSION, "resources": resources}
    if refs_map:
        template["outputs"] = {
            REFS_MAP: {"value": {name: {"get_resource": name} for name in resources}}
        }
    return template


def current_definitions(template: Mapping[str, Any]) -> dict[str, Definition]:
    resources = template.get("resources")
    return dict(resources) if isinstance(resources, Mapping) else {}


# --- attributes ------------------------------------------------------------------------------


class MemberView:
    """A group's members as its attributes read them, in the group's order of names."""

    def __init__(self, group: str, names: Sequence[str], members: Iterable[NestedMember]):
        self.group = group
        self.names = list(names)
        self._known = set(self.names)
        self.by_name = {m.name: m for m in members}

    def member(self, name: str) -> NestedMember | None:
        return self.by_name.get(name)

    def reference(self, name: str) -> Any:
        member = self.by_name.get(name)
        return member.reference if member is not None else None

    def attribute(self, name: str, attribute: Any, path: Sequence[Any] = ()) -> Any:
        member = self.by_name.get(name)
        if member is None:
            return None
        return select_from_attribute(member.attributes.get(str(attribute)), path)

    def refs(self) -> list[Any]:
        return [self.reference(n) for n in self.names]

    def refs_map(self) -> dict[str, Any]:
        return {n: self.reference(n) for n in self.names}

    def each(self, attribute: Any, path: Sequence[Any]) -> list[Any]:
        return [self.attribute(n, attribute, path) for n in self.names]

    def by_member(self, path: Sequence[Any]) -> dict[str, Any]:
        return {n: self.attribute(n, path[0], path[1:]) for n in self.names}

    def one(self, key: str, path: Sequence[Any]) -> Any:
        """``resource.<name>[.<attribute>]`` then ``path``: a member's reference or attribute."""
        parts = [*key.split(".", 2)[1:], *path]
        target = str(parts[0]) if parts else ""
        if target not in self._known or target not in self.by_name:
            raise NotFound(f"Member '{target}' not found in group resource '{self.group}'.")
        if len(parts) == 1:
            return self.reference(target)
        return self.attribute(target, parts[1], parts[2:])


def group_attribute(
    view: MemberView, key: str, path: Sequence[Any], *, with_refs_map: bool = True
) -> Any:
    """What ``get_attr: [group, key, *path]`` gives, for the attributes every group shares.

    ``refs`` and ``refs_map`` list the members, ``attributes`` (a path is required) maps
    names to one attribute, ``resource.<name>...`` reads one member, and any other name is
    that attribute of each member, as a list.
    """
    if key == ATTRIBUTES and not path:
        raise InvalidTemplateAttribute(view.group, key)
    if key.startswith(MEMBER_PREFIX):
        return view.one(key, path)
    if key == REFS:
        return select_from_attribute(view.refs(), path)
    if key == REFS_MAP and with_refs_map:
        # Heat gives the whole map whatever the path.
        return view.refs_map()
    if key == ATTRIBUTES:
        return view.by_member(path)
    return view.each(key, path)
