"""Heat 27's policy rules as oslo.policy defaults: names, check strings, scope types,
operations and deprecated rules, rule for rule.

The single deliberate difference from Heat is ``stacks:global_index`` (see there).
``list_rules`` is what the ``oslo.policy.policies`` entry point gives, so that
``oslopolicy-sample-generator --namespace hearth`` lists them.
"""

from __future__ import annotations

from oslo_policy import policy as oslo_policy

from hearth.common.policy_checks import (
    PROJECT_ADMIN,
    PROJECT_MEMBER,
    PROJECT_READER,
    PROJECT_READER_OR_STACK_USER,
    PROJECT_SCOPE,
    RULE_ALLOW_EVERYBODY,
    RULE_CONTEXT_IS_ADMIN,
    RULE_DENY_EVERYBODY,
    RULE_DENY_STACK_USER,
    RULE_PROJECT_ADMIN,
    api_rule,
    plain_rule,
)

_STACK = "/stacks/{stack_name}/{stack_id}"

BASE_RULES = [
    oslo_policy.RuleDefault(
        name="context_is_admin",
        check_str="(role:admin and is_admin_project:True)",
        description="Who counts as a cloud administrator (the request context's is_admin).",
    ),
    oslo_policy.RuleDefault(
        name="project_admin", check_str="role:admin", description="Any holder of admin."
    ),
    oslo_policy.RuleDefault(
        name="deny_stack_user",
        check_str="not role:heat_stack_user",
        description="Anyone but the users Hearth creates inside stacks.",
    ),
    oslo_policy.RuleDefault(name="deny_everybody", check_str="!", description="Nobody."),
    oslo_policy.RuleDefault(name="allow_everybody", check_str="", description="Everybody."),
]

_ACTIONS_PATH = _STACK + "/actions"
ACTIONS_RULES = [
    api_rule(f"actions:{name}", check, text, "POST", _ACTIONS_PATH, old=RULE_DENY_STACK_USER)
    for name, check, text in (
        ("action", PROJECT_MEMBER, "Any stack action (fallback for the specific rules)."),
        ("snapshot", PROJECT_MEMBER, "Snapshot a stack through the actions route."),
        ("suspend", PROJECT_MEMBER, "Suspend a stack."),
        ("resume", PROJECT_MEMBER, "Resume a suspended stack."),
        ("check", PROJECT_READER, "Check the resources of a stack."),
        ("cancel_update", PROJECT_MEMBER, "Cancel a stack update, rolling back."),
        ("cancel_without_rollback", PROJECT_MEMBER, "Cancel a stack update, no rollback."),
    )
]

BUILD_INFO_RULES = [
    api_rule(
        "build_info:build_info",
        PROJECT_READER,
        "Read the service's build information.",
        "GET",
        "/build_info",
        old=RULE_DENY_STACK_USER,
    )
]

CLOUDFORMATION_RULES = [
    plain_rule(f"cloudformation:{name}", check, text, old=old)
    for name, check, old, text in (
        ("ListStacks", PROJECT_READER, RULE_DENY_STACK_USER, "CFN API: list stacks."),
        ("CreateStack", PROJECT_MEMBER, RULE_DENY_STACK_USER, "CFN API: create a stack."),
        ("DescribeStacks", PROJECT_READER, RULE_DENY_STACK_USER, "CFN API: describe stacks."),
        ("DeleteStack", PROJECT_MEMBER, RULE_DENY_STACK_USER, "CFN API: delete a stack."),
        ("UpdateStack", PROJECT_MEMBER, RULE_DENY_STACK_USER, "CFN API: update a stack."),
        (
            "CancelUpdateStack",
            PROJECT_MEMBER,
            RULE_DENY_STACK_USER,
            "CFN API: cancel a stack update.",
        ),
        (
            "DescribeStackEvents",
            PROJECT_READER,
            RULE_DENY_STACK_USER,
            "CFN API: list a stack's events.",
        ),
        (
            "ValidateTemplate",
            PROJECT_READER,
            RULE_DENY_STACK_USER,
            "CFN API: validate a template.",
        ),
        ("GetTemplate", PROJECT_READER, RULE_DENY_STACK_USER, "CFN API: get a stack's template."),
        (
            "EstimateTemplateCost",
            PROJECT_READER,
            RULE_DENY_STACK_USER,
            "CFN API: estimate a template's cost.",
        ),
        (
            "DescribeStackResource",
            PROJECT_READER_OR_STACK_USER,
            RULE_ALLOW_EVERYBODY,
            "CFN API: describe one resource (stack users too).",
        ),
        (
            "DescribeStackResources",
            PROJECT_READER,
            RULE_DENY_STACK_USER,
            "CFN API: describe a stack's resources.",
        ),
        (
            "ListStackResources",
            PROJECT_READER,
            RULE_DENY_STACK_USER,
            "CFN API: list a stack's resources.",
        ),
    )
]

EVENTS_RULES = [
    api_rule(
        "events:index",
        PROJECT_READER,
        "List the events of a stack or of one of its resources.",
        "GET",
        _STACK + "/events",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "events:show",
        PROJECT_READER,
        "Read one event.",
        "GET",
        _STACK + "/resources/{resource_name}/events/{event_id}",
        old=RULE_DENY_STACK_USER,
    ),
]

RESOURCE_RULES = [
    api_rule(
        "resource:index",
        PROJECT_READER,
        "List the resources of a stack.",
        "GET",
        _STACK + "/resources",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "resource:metadata",
        PROJECT_READER_OR_STACK_USER,
        "Read a resource's metadata (stack users too, for in-instance agents).",
        "GET",
        _STACK + "/resources/{resource_name}/metadata",
        old=RULE_ALLOW_EVERYBODY,
    ),
    api_rule(
        "resource:signal",
        PROJECT_READER_OR_STACK_USER,
        "Send a signal to a resource (stack users too, e.g. wait conditions).",
        "POST",
        _STACK + "/resources/{resource_name}/signal",
        old=RULE_ALLOW_EVERYBODY,
    ),
    api_rule(
        "resource:mark_unhealthy",
        PROJECT_MEMBER,
        "Mark a resource unhealthy (or healthy again).",
        "PATCH",
        _STACK + "/resources/{resource_name_or_physical_id}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "resource:show",
        PROJECT_READER,
        "Read one resource.",
        "GET",
        _STACK + "/resources/{resource_name}",
        old=RULE_DENY_STACK_USER,
    ),
]

# Resource types only administrators may put in a template (checked per type when a stack is
# created, updated, previewed or validated, and when reading a type's schema or template).
ADMIN_ONLY_TYPES = (
    "OS::Nova::Flavor",
    "OS::Cinder::EncryptedVolumeType",
    "OS::Cinder::VolumeType",
    "OS::Cinder::Quota",
    "OS::Neutron::Quota",
    "OS::Nova::Quota",
    "OS::Octavia::Quota",
    "OS::Manila::ShareType",
    "OS::Neutron::ProviderNet",
    "OS::Neutron::QoSPolicy",
    "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule",
    "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::QoSMinimumPacketRateRule",
    "OS::Neutron::Segment",
    "OS::Nova::HostAggregate",
    "OS::Cinder::QoSSpecs",
    "OS::Cinder::QoSAssociation",
    "OS::Keystone::*",
    "OS::Blazar::Host",
    "OS::Octavia::Flavor",
    "OS::Octavia::FlavorProfile",
    "OS::Octavia::AvailabilityZone",
    "OS::Octavia::AvailabilityZoneProfile",
)

RESOURCE_TYPES_RULES = [
    oslo_policy.RuleDefault(
        name=f"resource_types:{type_name}",
        check_str=RULE_PROJECT_ADMIN,
        description=f"Use resources of type {type_name}.",
        scope_types=PROJECT_SCOPE,
    )
    for type_name in ADMIN_ONLY_TYPES
]

SERVICE_RULES = [
    plain_rule(
        "service:index",
        PROJECT_ADMIN,
        "List the engine services.",
        old=RULE_CONTEXT_IS_ADMIN,
    )
]

SOFTWARE_CONFIGS_RULES = [
    api_rule(
        "software_configs:global_index",
        RULE_DENY_EVERYBODY,
        "List the software configs of every project.",
        "GET",
        "/software_configs",
        scoped=False,
    ),
    api_rule(
        "software_configs:index",
        PROJECT_READER,
        "List software configs.",
        "GET",
        "/software_configs",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_configs:create",
        PROJECT_MEMBER,
        "Create a software config.",
        "POST",
        "/software_configs",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_configs:show",
        PROJECT_READER,
        "Read a software config.",
        "GET",
        "/software_configs/{config_id}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_configs:delete",
        PROJECT_MEMBER,
        "Delete a software config.",
        "DELETE",
        "/software_configs/{config_id}",
        old=RULE_DENY_STACK_USER,
    ),
]

_DEPLOYMENT = "/software_deployments/{deployment_id}"
SOFTWARE_DEPLOYMENTS_RULES = [
    api_rule(
        "software_deployments:index",
        PROJECT_READER,
        "List software deployments.",
        "GET",
        "/software_deployments",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_deployments:create",
        PROJECT_MEMBER,
        "Create a software deployment.",
        "POST",
        "/software_deployments",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_deployments:show",
        PROJECT_READER,
        "Read a software deployment.",
        "GET",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_deployments:update",
        PROJECT_MEMBER,
        "Update a software deployment.",
        "PUT",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_deployments:delete",
        PROJECT_MEMBER,
        "Delete a software deployment.",
        "DELETE",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "software_deployments:metadata",
        PROJECT_READER_OR_STACK_USER,
        "Read the deployment metadata of a server (stack users too).",
        "GET",
        "/software_deployments/metadata/{server_id}",
    ),
]

STACKS_RULES = [
    api_rule(
        "stacks:abandon",
        PROJECT_MEMBER,
        "Abandon a stack.",
        "DELETE",
        _STACK + "/abandon",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:create",
        PROJECT_MEMBER,
        "Create a stack.",
        "POST",
        "/stacks",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:delete",
        PROJECT_MEMBER,
        "Delete a stack.",
        "DELETE",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:detail",
        PROJECT_READER,
        "List stacks with details.",
        "GET",
        "/stacks",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:export",
        PROJECT_MEMBER,
        "Export a stack's data.",
        "GET",
        _STACK + "/export",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:generate_template",
        PROJECT_MEMBER,
        "Generate a template from a resource type.",
        "GET",
        _STACK + "/template",
        old=RULE_DENY_STACK_USER,
    ),
    # Deviation from Heat 27, which defaults this to rule:deny_everybody: Hearth's API spec lets
    # cloud administrators list the stacks of every project (GET /stacks?global_tenant=true),
    # which is what operators otherwise get only after writing a policy file. Like Heat, the
    # rule has no scope types.
    api_rule(
        "stacks:global_index",
        RULE_CONTEXT_IS_ADMIN,
        "List the stacks of every project.",
        "GET",
        "/stacks",
        scoped=False,
    ),
    api_rule(
        "stacks:index", PROJECT_READER, "List stacks.", "GET", "/stacks", old=RULE_DENY_STACK_USER
    ),
    api_rule(
        "stacks:list_resource_types",
        PROJECT_READER,
        "List resource types.",
        "GET",
        "/resource_types",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:list_template_versions",
        PROJECT_READER,
        "List template versions.",
        "GET",
        "/template_versions",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:list_template_functions",
        PROJECT_READER,
        "List the functions of a template version.",
        "GET",
        "/template_versions/{template_version}/functions",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:lookup",
        PROJECT_READER_OR_STACK_USER,
        "Find a stack by name or ARN (a redirect; stack users too).",
        "GET",
        "/stacks/{stack_identity}",
        old=RULE_ALLOW_EVERYBODY,
    ),
    api_rule(
        "stacks:preview",
        PROJECT_READER,
        "Preview a stack create.",
        "POST",
        "/stacks/preview",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:resource_schema",
        PROJECT_READER,
        "Read a resource type's schema.",
        "GET",
        "/resource_types/{type_name}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:show",
        PROJECT_READER,
        "Read a stack.",
        "GET",
        "/stacks/{stack_identity}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:template",
        PROJECT_READER,
        "Read a stack's template.",
        "GET",
        _STACK + "/template",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:environment",
        PROJECT_READER,
        "Read a stack's environment.",
        "GET",
        _STACK + "/environment",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:files",
        PROJECT_READER,
        "Read a stack's files.",
        "GET",
        _STACK + "/files",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:update",
        PROJECT_MEMBER,
        "Update a stack (replace).",
        "PUT",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:update_patch",
        PROJECT_MEMBER,
        "Update a stack (patch).",
        "PATCH",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:update_no_change",
        "rule:stacks:update_patch",
        "Patch-update a stack without changing anything (re-run).",
        "PATCH",
        _STACK,
    ),
    api_rule(
        "stacks:preview_update",
        PROJECT_MEMBER,
        "Preview a stack update (replace).",
        "PUT",
        _STACK + "/preview",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:preview_update_patch",
        PROJECT_MEMBER,
        "Preview a stack update (patch).",
        "PATCH",
        _STACK + "/preview",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:validate_template",
        PROJECT_MEMBER,
        "Validate a template.",
        "POST",
        "/validate",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:snapshot",
        PROJECT_MEMBER,
        "Snapshot a stack.",
        "POST",
        _STACK + "/snapshots",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:show_snapshot",
        PROJECT_READER,
        "Read a snapshot.",
        "GET",
        _STACK + "/snapshots/{snapshot_id}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:delete_snapshot",
        PROJECT_MEMBER,
        "Delete a snapshot.",
        "DELETE",
        _STACK + "/snapshots/{snapshot_id}",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:list_snapshots",
        PROJECT_READER,
        "List a stack's snapshots.",
        "GET",
        _STACK + "/snapshots",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:restore_snapshot",
        PROJECT_MEMBER,
        "Restore a stack from a snapshot.",
        "POST",
        _STACK + "/snapshots/{snapshot_id}/restore",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:list_outputs",
        PROJECT_READER,
        "List a stack's outputs.",
        "GET",
        _STACK + "/outputs",
        old=RULE_DENY_STACK_USER,
    ),
    api_rule(
        "stacks:show_output",
        PROJECT_READER,
        "Read one stack output.",
        "GET",
        _STACK + "/outputs/{output_key}",
        old=RULE_DENY_STACK_USER,
    ),
]


def list_rules() -> list[oslo_policy.RuleDefault]:
    """Every default rule, in Heat's order (entry point ``oslo.policy.policies``)."""
    return [
        *BASE_RULES,
        *ACTIONS_RULES,
        *BUILD_INFO_RULES,
        *CLOUDFORMATION_RULES,
        *EVENTS_RULES,
        *RESOURCE_RULES,
        *RESOURCE_TYPES_RULES,
        *SERVICE_RULES,
        *SOFTWARE_CONFIGS_RULES,
        *SOFTWARE_DEPLOYMENTS_RULES,
        *STACKS_RULES,
    ]
