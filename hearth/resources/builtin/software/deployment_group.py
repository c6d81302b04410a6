"""OS::Heat::SoftwareDeploymentGroup and StructuredDeploymentGroup: one deployment per entry
of a map of servers, kept in a child stack whose members are named after the map's keys.

Every attribute is a map of member names to that attribute of each member's deployment
(``deploy_stdouts`` to ``deploy_stdout``..., any other name, such as a declared output, as it
is). A change of the group is one update of the child (a ``rolling_update`` policy is accepted
and validated, but the members are updated together).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from hearth.resources.attributes import AttributeSchema
from hearth.resources.builtin import group_template as gt
from hearth.resources.builtin import resource_group_schema as rg
from hearth.resources.builtin.software import deployment_schema as s
from hearth.resources.nested import ChildDefinition
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.stack_resource import StackResource
from hearth.resources.support import DEPRECATED, HIDDEN, SupportStatus
from hearth.template.constraints import Range
from hearth.template.environment import Environment

SERVERS = "servers"
STDOUTS, STDERRS, STATUS_CODES = "deploy_stdouts", "deploy_stderrs", "deploy_status_codes"
_MEMBER_ATTRIBUTE = {STDOUTS: s.STDOUT, STDERRS: s.STDERR, STATUS_CODES: s.STATUS_CODE}

_SERVERS = PropertySchema(
    PropertySchema.MAP,
    "A map of names and server IDs to apply configuration to. The name is arbitrary and is "
    "used as the Heat resource name for the corresponding deployment.",
    update_allowed=True, required=True,
)
_ATTRIBUTES = {
    STDOUTS: AttributeSchema(
        "A map of Nova names and captured stdouts from the configuration execution to each "
        "server.", type=AttributeSchema.MAP),
    STDERRS: AttributeSchema(
        "A map of Nova names and captured stderrs from the configuration execution to each "
        "server.", type=AttributeSchema.MAP),
    STATUS_CODES: AttributeSchema(
        "A map of Nova names and returned status code from the configuration execution.",
        type=AttributeSchema.MAP),
}
_ROLLING_UPDATE = {
    rg.MAX_BATCH_SIZE: PropertySchema(
        PropertySchema.INTEGER, "The maximum number of deployments to replace at once.",
        default=1, constraints=[Range(min=1)]),
    rg.PAUSE_TIME: PropertySchema(
        PropertySchema.NUMBER, "The number of seconds to wait between batches of updates.",
        default=0, constraints=[Range(min=0)]),
}
_UPDATE_POLICY = {
    rg.ROLLING_UPDATE: PropertySchema(PropertySchema.MAP, schema=_ROLLING_UPDATE,
                                      support_status=SupportStatus(version="7.0.0")),
    rg.BATCH_CREATE: PropertySchema(
        PropertySchema.MAP,
        schema={
            rg.MAX_BATCH_SIZE: PropertySchema(
                PropertySchema.INTEGER, "The maximum number of resources to create at once.",
                default=1, constraints=[Range(min=1)]),
            rg.PAUSE_TIME: PropertySchema(
                PropertySchema.NUMBER, "The number of seconds to wait between batches.",
                default=0, constraints=[Range(min=0)]),
        },
        support_status=SupportStatus(version="7.0.0")),
}


class SoftwareDeploymentGroup(StackResource):
    type_description = (
        "This resource associates a group of servers with some configuration.\n\n"
        "The configuration is to be deployed to all servers in the group.\n\n"
        "The properties work in a similar way to OS::Heat::SoftwareDeployment,\n"
        "and in addition to the attributes documented, you may pass any\n"
        "attribute supported by OS::Heat::SoftwareDeployment, including those\n"
        "exposing arbitrary outputs, and return a map of deployment names to\n"
        "the specified attribute."
    )
    support_status = SupportStatus(version="5.0.0")
    member_type: ClassVar[str] = "OS::Heat::SoftwareDeployment"
    properties_schema = {
        SERVERS: _SERVERS,
        **{k: v for k, v in s.PROPERTIES.items() if k != s.SERVER},
    }
    attributes_schema = _ATTRIBUTES
    update_policy_schema = _UPDATE_POLICY

    @classmethod
    def child_for(
        cls, name: str, properties: Properties, environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        servers = properties.get(SERVERS)
        if not isinstance(servers, Mapping):
            return None  # it comes from resources that do not exist yet
        shared = {k: v for k, v in properties.items()
                  if k != SERVERS and v is not None and k in cls.properties_schema}
        members = [
            (str(member), {"type": cls.member_type,
                           "properties": {**shared, s.SERVER: server}})
            for member, server in servers.items()
        ]
        return ChildDefinition(gt.child_template(members), environment.child({}, None, name),
                               files)

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        return None  # any attribute of the member deployments

    def get_attribute(self, name: str, *path: Any) -> Any:
        if name == "show":
            return super().get_attribute(name, *path)
        servers = self.properties.get(SERVERS) or {}
        members = self.child_members() if self.resource_id is not None else []
        view = gt.MemberView(self.name, [str(n) for n in servers], members)
        member_attribute = _MEMBER_ATTRIBUTE.get(name, name)
        return gt.group_attribute(view, gt.ATTRIBUTES, [member_attribute, *path])


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    type_description = (
        "This resource associates a group of servers with some configuration.\n\n"
        "This resource works similar as OS::Heat::SoftwareDeploymentGroup, but for\n"
        "structured resources."
    )
    member_type = "OS::Heat::StructuredDeployment"
    properties_schema = {
        SERVERS: _SERVERS,
        **{k: v for k, v in s.STRUCTURED_PROPERTIES.items() if k != s.SERVER},
    }


_PLURAL_MESSAGE = "Please use OS::Heat::{} instead."


class SoftwareDeployments(SoftwareDeploymentGroup):
    """The old name of OS::Heat::SoftwareDeploymentGroup, still accepted."""

    support_status = SupportStatus(
        status=HIDDEN, version="7.0.0",
        message=_PLURAL_MESSAGE.format("SoftwareDeploymentGroup"),
        previous_status=SupportStatus(status=DEPRECATED, version="2014.2"),
        substitute_class=SoftwareDeploymentGroup,
    )


class StructuredDeployments(StructuredDeploymentGroup):
    """The old name of OS::Heat::StructuredDeploymentGroup, still accepted."""

    support_status = SupportStatus(
        status=HIDDEN, version="7.0.0",
        message=_PLURAL_MESSAGE.format("StructuredDeploymentGroup"),
        previous_status=SupportStatus(status=DEPRECATED, version="2014.2"),
        substitute_class=StructuredDeploymentGroup,
    )
