"""The building blocks of Heat's policy defaults: its check strings and rule makers."""

from __future__ import annotations

from oslo_policy import policy as oslo_policy

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


def api_rule(
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


def plain_rule(
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
