"""OS::Heat::ResourceChain: one resource per listed type, all with the same properties, in a
nested stack; each member depends on the one before it unless ``concurrent`` is set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.builtin import group_template as gt
from hearth.resources.nested import ChildDefinition, NestedMember
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.stack_resource import StackResource
from hearth.resources.support import SupportStatus
from hearth.template.environment import Environment

RESOURCES = "resources"
CONCURRENT = "concurrent"
RESOURCE_PROPERTIES = "resource_properties"


def chain_definitions(
    types: Sequence[Any], properties: Mapping[str, Any] | None, concurrent: bool
) -> list[tuple[str, gt.Definition]]:
    """Members "0".."n-1", one per type, each after the previous one unless concurrent.

    Heat also limits a concurrent chain to as many members at once as it has engine
    services; Hearth's scheduler bounds concurrency itself, so a concurrent chain is fully so.
    """
    out: list[tuple[str, gt.Definition]] = []
    for index, member_type in enumerate(types):
        defn: gt.Definition = {"type": member_type}
        if properties:
            defn["properties"] = dict(properties)
        if index > 0 and not concurrent:
            defn["depends_on"] = [str(index - 1)]
        out.append((str(index), defn))
    return out


class ResourceChain(StackResource):
    """A list of resource types made with the same properties, in order or all at once."""

    type_description = (
        "Creates one or more resources with the same configuration.\n\n"
        "The types of resources to be created are passed into the chain\n"
        "through the ``resources`` property. One resource will be created for each\n"
        "type listed. Each is passed the configuration specified\n"
        "under ``resource_properties``.\n\n"
        "The ``concurrent`` property controls if the resources will be created\n"
        "concurrently. If omitted or set to false, each resource will be treated\n"
        "as having a dependency on the resource before it in the list."
    )
    support_status = SupportStatus(version="6.0.0")
    _members: list[NestedMember] | None = None

    properties_schema = {
        RESOURCES: PropertySchema(
            PropertySchema.LIST,
            "The list of resource types to create. This list may contain type names or "
            "aliases defined in the resource registry. Specific template names are not "
            "supported.",
            required=True,
            update_allowed=True,
        ),
        CONCURRENT: PropertySchema(
            PropertySchema.BOOLEAN,
            "If true, the resources in the chain will be created concurrently. If false or "
            "omitted, each resource will be treated as having a dependency on the previous "
            "resource in the list.",
            default=False,
        ),
        RESOURCE_PROPERTIES: PropertySchema(
            PropertySchema.MAP,
            "Properties to pass to each resource being created in the chain.",
        ),
    }

    attributes_schema = {
        gt.REFS: AttributeSchema(
            "A list of resource IDs for the resources in the chain.", type=AttributeSchema.LIST
        ),
        gt.ATTRIBUTES: AttributeSchema(
            "A map of resource names to the specified attribute of each individual resource.",
            type=AttributeSchema.MAP,
        ),
    }

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        types = properties.get(RESOURCES)
        if types is None:
            return None  # it comes from a resource that does not exist yet
        for member_type in types:
            # Heat checks every type up front and reports an unknown one without a path.
            gt.check_member_type(environment, member_type)
        definitions = chain_definitions(
            types, properties.get(RESOURCE_PROPERTIES), bool(properties.get(CONCURRENT))
        )
        return ChildDefinition(
            gt.child_template(definitions, refs_map=False), environment.child({}, None, name),
            files,
        )

    # --- attributes ------------------------------------------------------------------------

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        return None  # any member attribute, and resource.<index>[.<attribute>]

    def child_members(self) -> list[NestedMember]:
        if self._members is None:
            self._members = super().child_members()
        return self._members

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        self._members = None
        return super().handle_update(new_properties, prop_diff, tmpl_diff)

    def get_attribute(self, name: str, *path: Any) -> Any:
        if self.resource_id is None and name.startswith(gt.MEMBER_PREFIX):
            return None
        names = [str(i) for i in range(len(self.properties[RESOURCES] or []))]
        view = gt.MemberView(self.name, names, self.child_members())
        return gt.group_attribute(view, name, path, with_refs_map=False)
