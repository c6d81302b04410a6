"""Authorization: oslo.policy with Heat 27's rule names, check strings and scope types.

Operators keep their Heat policy files: every rule Heat registers is registered here under the
same name with the same default, and ``[oslo_policy] policy_file`` overrides them exactly as it
does for Heat. oslo.policy's own defaults apply (with 6.x: new defaults enforced and the token
scope always checked), so the deprecated ``deny_stack_user`` era rules below only matter when
an operator sets ``[oslo_policy] enforce_new_defaults = false``.

The single deliberate difference from Heat is ``stacks:global_index`` (see there).

The rules themselves are in ``policy_rules``; ``get_policy_enforcer`` is meant for the
``oslo.policy.enforcer`` entry point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden
from hearth.common.policy_rules import list_rules

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
