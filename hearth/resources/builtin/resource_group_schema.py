"""The schema of OS::Heat::ResourceGroup as the API shows it (descriptions are Heat's own,
since clients compare them), apart from the behaviour in resource_group.py."""

from __future__ import annotations

from hearth.resources.attributes import AttributeSchema
from hearth.resources.builtin import group_template as gt
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues, Length, Range

COUNT = "count"
INDEX_VAR = "index_var"
RESOURCE_DEF = "resource_def"
REMOVAL_POLICIES = "removal_policies"
REMOVAL_POLICIES_MODE = "removal_policies_mode"
ROLLING_UPDATE = "rolling_update"
BATCH_CREATE = "batch_create"
MIN_IN_SERVICE = "min_in_service"
MAX_BATCH_SIZE = "max_batch_size"
PAUSE_TIME = "pause_time"

_P = PropertySchema


def _batch_size(description: str) -> PropertySchema:
    return _P(_P.INTEGER, description, default=1, constraints=[Range(min=1)])


def _pause(description: str) -> PropertySchema:
    return _P(_P.NUMBER, description, default=0, constraints=[Range(min=0)])


DESCRIPTION = (
    "Creates one or more identically configured nested resources.\n\n"
    "In addition to the `refs` attribute, this resource implements synthetic\n"
    "attributes that mirror those of the resources in the group. When\n"
    "getting an attribute from this resource, however, a list of attribute\n"
    "values for each resource in the group is returned. To get attribute values\n"
    "for a single resource in the group, synthetic attributes of the form\n"
    "`resource.{resource index}.{attribute name}` can be used. The resource ID\n"
    "of a particular resource in the group can be obtained via the synthetic\n"
    "attribute `resource.{resource index}`. Note, that if you get attribute\n"
    "without `{resource index}`, e.g. `[resource, {attribute_name}]`, you'll get\n"
    "a list of this attribute's value for all resources in group.\n\n"
    "While each resource in the group will be identically configured, this\n"
    "resource does allow for some index-based customization of the properties\n"
    "of the resources in the group. For example::\n\n"
    "  resources:\n"
    "    my_indexed_group:\n"
    "      type: OS::Heat::ResourceGroup\n"
    "      properties:\n"
    "        count: 3\n"
    "        resource_def:\n"
    "          type: OS::Nova::Server\n"
    "          properties:\n"
    "            # create a unique name for each server\n"
    "            # using its index in the group\n"
    "            name: my_server_%index%\n"
    "            image: CentOS 6.5\n"
    "            flavor: 4GB Performance\n\n"
    "would result in a group of three servers having the same image and flavor,\n"
    "but names of `my_server_0`, `my_server_1`, and `my_server_2`. The variable\n"
    "used for substitution can be customized by using the `index_var` property."
)

PROPERTIES = {
    COUNT: _P(
        _P.INTEGER, "The number of resources to create.", default=1,
        constraints=[Range(min=0)], update_allowed=True,
    ),
    INDEX_VAR: _P(
        _P.STRING,
        "A variable that this resource will use to replace with the current index of a "
        "given resource in the group. Can be used, for example, to customize the name "
        "property of grouped servers in order to differentiate them when listed with "
        "nova client.",
        default="%index%",
        constraints=[Length(min=3)],
        support_status=SupportStatus(version="2014.2"),
    ),
    RESOURCE_DEF: _P(
        _P.MAP,
        "Resource definition for the resources in the group. The value of this property "
        "is the definition of a resource just as if it had been declared in the template "
        "itself.",
        schema={
            "type": _P(_P.STRING, "The type of the resources in the group.", required=True),
            "properties": _P(_P.MAP, "Property values for the resources in the group."),
            "metadata": _P(
                _P.MAP, "Supplied metadata for the resources in the group.",
                support_status=SupportStatus(version="5.0.0"),
            ),
        },
        required=True,
        update_allowed=True,
    ),
    REMOVAL_POLICIES: _P(
        _P.LIST,
        "Policies for removal of resources on update.",
        schema=_P(
            _P.MAP,
            "Policy to be processed when doing an update which requires removal of "
            "specific resources.",
            schema={
                "resource_list": _P(
                    _P.LIST,
                    "List of resources to be removed when doing an update which requires "
                    "removal of specific resources. The resource may be specified several "
                    "ways: (1) The resource name, as in the nested stack, (2) The resource "
                    "reference returned from get_resource in a template, as available via "
                    "the 'refs' attribute. Note this is destructive on update when "
                    "specified; even if the count is not being reduced, and once a "
                    "resource name is removed, its name is never reused in subsequent "
                    "updates.",
                    default=[],
                ),
            },
        ),
        update_allowed=True,
        default=[],
        support_status=SupportStatus(version="2015.1"),
    ),
    REMOVAL_POLICIES_MODE: _P(
        _P.STRING,
        'How to handle changes to removal_policies on update. The default "append" mode '
        'appends to the internal list, "update" replaces it on update.',
        default="append",
        constraints=[AllowedValues(["append", "update"])],
        update_allowed=True,
        support_status=SupportStatus(version="10.0.0"),
    ),
}

ATTRIBUTES = {
    gt.REFS: AttributeSchema(
        "A list of resource IDs for the resources in the group.", type=AttributeSchema.LIST
    ),
    gt.REFS_MAP: AttributeSchema(
        "A map of resource names to IDs for the resources in the group.",
        type=AttributeSchema.MAP, support_status=SupportStatus(version="7.0.0"),
    ),
    gt.ATTRIBUTES: AttributeSchema(
        "A map of resource names to the specified attribute of each individual resource. "
        "Requires heat_template_version: 2014-10-16.",
        support_status=SupportStatus(version="2014.2"), type=AttributeSchema.MAP,
    ),
    gt.REMOVED_RSRC_LIST: AttributeSchema(
        "A list of removed resource names.",
        support_status=SupportStatus(version="7.0.0"), type=AttributeSchema.LIST,
    ),
}

UPDATE_POLICY = {
    ROLLING_UPDATE: _P(
        _P.MAP,
        schema={
            MIN_IN_SERVICE: _P(
                _P.INTEGER,
                "The minimum number of resources in service while rolling updates are "
                "being executed.",
                constraints=[Range(min=0)], default=0,
            ),
            MAX_BATCH_SIZE: _batch_size("The maximum number of resources to replace at once."),
            PAUSE_TIME: _pause("The number of seconds to wait between batches of updates."),
        },
        support_status=SupportStatus(version="5.0.0"),
    ),
    BATCH_CREATE: _P(
        _P.MAP,
        schema={
            MAX_BATCH_SIZE: _batch_size("The maximum number of resources to create at once."),
            PAUSE_TIME: _pause("The number of seconds to wait between batches."),
        },
        support_status=SupportStatus(version="5.0.0"),
    ),
}
