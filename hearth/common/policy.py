"""Authorization: oslo.policy with Heat 27's rule names, check strings and scope types.

Operators keep their Heat policy files: every rule Heat registers is registered here under the
same name with the same default, and ``[oslo_policy] policy_file`` overrides them exactly as it
does for Heat. oslo.policy's own defaults apply (with 6.x: new defaults enforced and the token
scope always checked), so the deprecated ``deny_stack_user`` era rules below only matter when
an operator sets ``[oslo_policy] enforce_new_defaults = false``.

The single deliberate difference from Heat is ``stacks:global_index`` (see there).

``list_rules`` is meant for the ``oslo.policy.policies`` entry point and
``get_policy_enforcer`` for ``oslo.policy.enforcer``, so that ``oslopolicy-sample-generator``
and friends work with ``--namespace hearth``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden

# --- Check strings (the same text as Heat's defaults) ---------------------------------------

RULE_CONTEXT_IS_ADMIN = "rule:context_is_admin"
RULE_PROJECT_ADMIN = "rule:project_admin"
RULE_DENY_STACK_USER = "rule:deny_stack_user"
RULE_DENY_EVERYBODY = "rule:deny_everybody"
RULE_ALLOW_EVERYBODY = "rule:allow_everybody"

PROJECT_ADMIN = "role:admin and project_id:%(project_id)s"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
PROJECT_READER = "role:reader and project_id:%(project_id)s"
PROJECT_STACK_USER = "role:heat_stack_user and project_id:%(project_id)s"
PROJECT_READER_OR_STACK_USER = f"({PROJECT_READER}) or ({PROJECT_STACK_USER})"

PROJECT_SCOPE = ["project"]

# Heat replaced its pre-RBAC defaults in Wallaby; oslo.policy only evaluates them when
# enforce_new_defaults is off (then each is OR'd with the new default).
_DEPRECATED_SINCE = "W"
_DEPRECATED_REASON = "Replaced by project-scoped defaults built on the member and reader roles."


def _old(name: str, check_str: str) -> oslo_policy.DeprecatedRule:
    return oslo_policy.DeprecatedRule(
        name=name,
        check_str=check_str,
        deprecated_reason=_DEPRECATED_REASON,
        deprecated_since=_DEPRECATED_SINCE,
    )


def _api(
    name: str,
    check_str: str,
    description: str,
    method: str,
    path: str,
    *,
    old: str | None = None,
    scoped: bool = True,
) -> oslo_policy.DocumentedRuleDefault:
    """A rule guarding one REST route; ``path`` is below ``/v1/{tenant_id}``."""
    return oslo_policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{"path": "/v1/{tenant_id}" + path, "method": method}],
        scope_types=PROJECT_SCOPE if scoped else None,
        deprecated_rule=_old(name, old) if old is not None else None,
    )


def _plain(
    name: str, check_str: str, description: str, *, old: str | None = None
) -> oslo_policy.RuleDefault:
    """A project-scoped rule without documented operations (as Heat declares it)."""
    return oslo_policy.RuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        scope_types=PROJECT_SCOPE,
        deprecated_rule=_old(name, old) if old is not None else None,
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
    _api(f"actions:{name}", check, text, "POST", _ACTIONS_PATH, old=RULE_DENY_STACK_USER)
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
    _api(
        "build_info:build_info",
        PROJECT_READER,
        "Read the service's build information.",
        "GET",
        "/build_info",
        old=RULE_DENY_STACK_USER,
    )
]

CLOUDFORMATION_RULES = [
    _plain(f"cloudformation:{name}", check, text, old=old)
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
    _api(
        "events:index",
        PROJECT_READER,
        "List the events of a stack or of one of its resources.",
        "GET",
        _STACK + "/events",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "events:show",
        PROJECT_READER,
        "Read one event.",
        "GET",
        _STACK + "/resources/{resource_name}/events/{event_id}",
        old=RULE_DENY_STACK_USER,
    ),
]

RESOURCE_RULES = [
    _api(
        "resource:index",
        PROJECT_READER,
        "List the resources of a stack.",
        "GET",
        _STACK + "/resources",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "resource:metadata",
        PROJECT_READER_OR_STACK_USER,
        "Read a resource's metadata (stack users too, for in-instance agents).",
        "GET",
        _STACK + "/resources/{resource_name}/metadata",
        old=RULE_ALLOW_EVERYBODY,
    ),
    _api(
        "resource:signal",
        PROJECT_READER_OR_STACK_USER,
        "Send a signal to a resource (stack users too, e.g. wait conditions).",
        "POST",
        _STACK + "/resources/{resource_name}/signal",
        old=RULE_ALLOW_EVERYBODY,
    ),
    _api(
        "resource:mark_unhealthy",
        PROJECT_MEMBER,
        "Mark a resource unhealthy (or healthy again).",
        "PATCH",
        _STACK + "/resources/{resource_name_or_physical_id}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
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
    _plain(
        "service:index",
        PROJECT_ADMIN,
        "List the engine services.",
        old=RULE_CONTEXT_IS_ADMIN,
    )
]

SOFTWARE_CONFIGS_RULES = [
    _api(
        "software_configs:global_index",
        RULE_DENY_EVERYBODY,
        "List the software configs of every project.",
        "GET",
        "/software_configs",
        scoped=False,
    ),
    _api(
        "software_configs:index",
        PROJECT_READER,
        "List software configs.",
        "GET",
        "/software_configs",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_configs:create",
        PROJECT_MEMBER,
        "Create a software config.",
        "POST",
        "/software_configs",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_configs:show",
        PROJECT_READER,
        "Read a software config.",
        "GET",
        "/software_configs/{config_id}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
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
    _api(
        "software_deployments:index",
        PROJECT_READER,
        "List software deployments.",
        "GET",
        "/software_deployments",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_deployments:create",
        PROJECT_MEMBER,
        "Create a software deployment.",
        "POST",
        "/software_deployments",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_deployments:show",
        PROJECT_READER,
        "Read a software deployment.",
        "GET",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_deployments:update",
        PROJECT_MEMBER,
        "Update a software deployment.",
        "PUT",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_deployments:delete",
        PROJECT_MEMBER,
        "Delete a software deployment.",
        "DELETE",
        _DEPLOYMENT,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "software_deployments:metadata",
        PROJECT_READER_OR_STACK_USER,
        "Read the deployment metadata of a server (stack users too).",
        "GET",
        "/software_deployments/metadata/{server_id}",
    ),
]

STACKS_RULES = [
    _api(
        "stacks:abandon",
        PROJECT_MEMBER,
        "Abandon a stack.",
        "DELETE",
        _STACK + "/abandon",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:create",
        PROJECT_MEMBER,
        "Create a stack.",
        "POST",
        "/stacks",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:delete",
        PROJECT_MEMBER,
        "Delete a stack.",
        "DELETE",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:detail",
        PROJECT_READER,
        "List stacks with details.",
        "GET",
        "/stacks",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:export",
        PROJECT_MEMBER,
        "Export a stack's data.",
        "GET",
        _STACK + "/export",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
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
    _api(
        "stacks:global_index",
        RULE_CONTEXT_IS_ADMIN,
        "List the stacks of every project.",
        "GET",
        "/stacks",
        scoped=False,
    ),
    _api(
        "stacks:index", PROJECT_READER, "List stacks.", "GET", "/stacks", old=RULE_DENY_STACK_USER
    ),
    _api(
        "stacks:list_resource_types",
        PROJECT_READER,
        "List resource types.",
        "GET",
        "/resource_types",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:list_template_versions",
        PROJECT_READER,
        "List template versions.",
        "GET",
        "/template_versions",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:list_template_functions",
        PROJECT_READER,
        "List the functions of a template version.",
        "GET",
        "/template_versions/{template_version}/functions",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:lookup",
        PROJECT_READER_OR_STACK_USER,
        "Find a stack by name or ARN (a redirect; stack users too).",
        "GET",
        "/stacks/{stack_identity}",
        old=RULE_ALLOW_EVERYBODY,
    ),
    _api(
        "stacks:preview",
        PROJECT_READER,
        "Preview a stack create.",
        "POST",
        "/stacks/preview",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:resource_schema",
        PROJECT_READER,
        "Read a resource type's schema.",
        "GET",
        "/resource_types/{type_name}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:show",
        PROJECT_READER,
        "Read a stack.",
        "GET",
        "/stacks/{stack_identity}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:template",
        PROJECT_READER,
        "Read a stack's template.",
        "GET",
        _STACK + "/template",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:environment",
        PROJECT_READER,
        "Read a stack's environment.",
        "GET",
        _STACK + "/environment",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:files",
        PROJECT_READER,
        "Read a stack's files.",
        "GET",
        _STACK + "/files",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:update",
        PROJECT_MEMBER,
        "Update a stack (replace).",
        "PUT",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:update_patch",
        PROJECT_MEMBER,
        "Update a stack (patch).",
        "PATCH",
        _STACK,
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:update_no_change",
        "rule:stacks:update_patch",
        "Patch-update a stack without changing anything (re-run).",
        "PATCH",
        _STACK,
    ),
    _api(
        "stacks:preview_update",
        PROJECT_MEMBER,
        "Preview a stack update (replace).",
        "PUT",
        _STACK + "/preview",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:preview_update_patch",
        PROJECT_MEMBER,
        "Preview a stack update (patch).",
        "PATCH",
        _STACK + "/preview",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:validate_template",
        PROJECT_MEMBER,
        "Validate a template.",
        "POST",
        "/validate",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:snapshot",
        PROJECT_MEMBER,
        "Snapshot a stack.",
        "POST",
        _STACK + "/snapshots",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:show_snapshot",
        PROJECT_READER,
        "Read a snapshot.",
        "GET",
        _STACK + "/snapshots/{snapshot_id}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:delete_snapshot",
        PROJECT_MEMBER,
        "Delete a snapshot.",
        "DELETE",
        _STACK + "/snapshots/{snapshot_id}",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:list_snapshots",
        PROJECT_READER,
        "List a stack's snapshots.",
        "GET",
        _STACK + "/snapshots",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:restore_snapshot",
        PROJECT_MEMBER,
        "Restore a stack from a snapshot.",
        "POST",
        _STACK + "/snapshots/{snapshot_id}/restore",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
        "stacks:list_outputs",
        PROJECT_READER,
        "List a stack's outputs.",
        "GET",
        _STACK + "/outputs",
        old=RULE_DENY_STACK_USER,
    ),
    _api(
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


# --- Credentials ----------------------------------------------------------------------------


def credentials(ctx: RequestContext) -> dict[str, Any]:
    """The credentials oslo.policy checks, as oslo.context builds them plus Heat's extra keys.

    Our context carries no scope information yet; optional attributes are read when present
    (``is_admin_project``, ``system_scope``, ``domain_id``, ``user_domain_id``,
    ``project_domain_id``) and otherwise take oslo.context's defaults: a project-scoped token
    whose project counts as the admin project (``is_admin_project`` True, which is what
    keystonemiddleware reports unless Keystone's ``admin_project_name`` is configured).
    """
    return {
        "user_id": ctx.user_id or None,
        "user_domain_id": getattr(ctx, "user_domain_id", None),
        "system_scope": getattr(ctx, "system_scope", None),
        "domain_id": getattr(ctx, "domain_id", None),
        "project_id": ctx.project_id or None,
        "project_domain_id": getattr(ctx, "project_domain_id", None),
        "roles": list(ctx.roles),
        "is_admin_project": bool(getattr(ctx, "is_admin_project", True)),
        "service_user_id": None,
        "service_user_domain_id": None,
        "service_project_id": None,
        "service_project_domain_id": None,
        "service_roles": [],
        # Older names Heat still passes, for policy files written against them.
        "user": ctx.user_id or None,
        "tenant": ctx.project_id or None,
        "is_admin": ctx.is_admin,
    }


# --- Enforcement ----------------------------------------------------------------------------

# A name no rule defines falls back to "deny" (oslo.policy's default rule would be "default").
_DENY = oslo_policy.Rules.from_dict({"default": "!"})["default"]


class Policy:
    """The API's authorization, reading ``[oslo_policy]`` from ``conf``.

    ``conf`` must have been parsed (``conf(args=...)``) before the first check: the policy file
    is looked up next to the config files. It is re-read when it changes on disk.
    """

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.enforcer = oslo_policy.Enforcer(conf, default_rule=_DENY)
        # Each deprecated default would warn once per process otherwise, as in Heat.
        self.enforcer.suppress_deprecation_warnings = True
        self.enforcer.register_defaults(list_rules())

    def is_admin(self, creds: Mapping[str, Any] | RequestContext) -> bool:
        """Whether ``context_is_admin`` holds for these credentials (or this context)."""
        values = credentials(creds) if isinstance(creds, RequestContext) else dict(creds)
        try:
            return bool(self.enforcer.authorize("context_is_admin", {}, values, do_raise=False))
        except oslo_policy.InvalidScope:
            return False

    def allowed(
        self, ctx: RequestContext, rule: str, target: Mapping[str, Any] | None = None
    ) -> bool:
        """``authorize`` without raising."""
        try:
            self.authorize(ctx, rule, target)
        except Forbidden:
            return False
        return True

    def authorize(
        self, ctx: RequestContext, rule: str, target: Mapping[str, Any] | None = None
    ) -> None:
        """Raise ``Forbidden`` unless the registered ``rule`` allows ``ctx`` on ``target``.

        The target defaults to the caller's project, which is what Heat checks once the URL's
        tenant matched the token (an admin addressing another project's URL is checked
        against the admin's own project). A rule that was never registered is a programming
        error and raises ``oslo_policy.policy.PolicyNotRegistered``.
        """
        values = credentials(ctx)
        checked = dict(target) if target is not None else {"project_id": ctx.project_id}
        try:
            self.enforcer.authorize(
                rule, checked, values, do_raise=True, exc=Forbidden, action=rule
            )
        except oslo_policy.InvalidScope:
            raise Forbidden(rule) from None

    def authorize_resource_type(self, ctx: RequestContext, type_name: str) -> None:
        """Raise ``Forbidden`` if ``ctx`` may not use resources of ``type_name``.

        Heat checks ``resource_types:<type>`` and then ``resource_types:<namespace>::*`` (so
        ``OS::Keystone::*`` covers every Keystone type), with an empty target; a type with no
        registered rule is allowed. Rules only in a policy file are not consulted (Heat
        enforces registered names only).
        """
        self._authorize_type(ctx, type_name)
        wildcard = "::".join([*type_name.split("::")[:-1], "*"])
        try:
            self._authorize_type(ctx, wildcard)
        except Forbidden:
            raise Forbidden(type_name) from None

    def type_allowed(self, ctx: RequestContext, type_name: str) -> bool:
        try:
            self.authorize_resource_type(ctx, type_name)
        except Forbidden:
            return False
        return True

    def _authorize_type(self, ctx: RequestContext, type_name: str) -> None:
        rule = f"resource_types:{type_name}"
        if rule not in self.enforcer.registered_rules:
            return
        try:
            self.enforcer.authorize(
                rule, {}, credentials(ctx), do_raise=True, exc=Forbidden, action=type_name
            )
        except oslo_policy.InvalidScope:
            raise Forbidden(type_name) from None


def get_policy_enforcer() -> oslo_policy.Enforcer:
    """An enforcer over the default config locations (entry point ``oslo.policy.enforcer``)."""
    conf = cfg.ConfigOpts()
    conf(args=[], project="hearth")
    return Policy(conf).enforcer
