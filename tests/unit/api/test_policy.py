"""Authorization: Heat 27's policy defaults, scope checks and policy-file overrides."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden, HearthError
from hearth.common.policy import Policy, credentials, get_policy_enforcer
from hearth.common.policy_rules import list_rules

PROJECT = "7b0a5ba1c2c84b6c9f4e1f1e5a0d7e11"


def make_conf(tmp_path: Path, config_text: str | None = None) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    files = []
    if config_text is not None:
        path = tmp_path / "hearth.conf"
        path.write_text(config_text)
        files.append(str(path))
    conf(args=[], project="hearth", default_config_files=files, default_config_dirs=[])
    return conf


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    return Policy(make_conf(tmp_path))


# Roles as a Keystone token lists them (implied roles included): admin => member => reader.
PERSONAS = {
    "admin": ("admin", "member", "reader"),
    "member": ("member", "reader"),
    "reader": ("reader",),
    "stack_user": ("heat_stack_user",),
    "nobody": ("foobar",),
}


def ctx(persona: str, project: str = PROJECT) -> RequestContext:
    return RequestContext(project_id=project, user_id=f"{persona}-id", roles=PERSONAS[persona])


ALL = set(PERSONAS)
ADMIN = {"admin"}
MEMBERS = {"admin", "member"}
READERS = {"admin", "member", "reader"}

EXPECTED = {
    "stacks:create": MEMBERS,
    "stacks:update": MEMBERS,
    "stacks:update_patch": MEMBERS,
    "stacks:update_no_change": MEMBERS,
    "stacks:delete": MEMBERS,
    "stacks:abandon": MEMBERS,
    "stacks:validate_template": MEMBERS,
    "stacks:index": READERS,
    "stacks:detail": READERS,
    "stacks:show": READERS,
    "stacks:preview": READERS,
    "stacks:list_outputs": READERS,
    "stacks:lookup": READERS | {"stack_user"},
    "stacks:global_index": ADMIN,  # Hearth's deviation: Heat 27 denies everybody
    "actions:suspend": MEMBERS,
    "actions:check": READERS,
    "events:index": READERS,
    "resource:index": READERS,
    "resource:signal": READERS | {"stack_user"},
    "resource:metadata": READERS | {"stack_user"},
    "resource:mark_unhealthy": MEMBERS,
    "service:index": ADMIN,
    "software_configs:global_index": set(),
    "software_configs:create": MEMBERS,
    "software_configs:show": READERS,
    "software_deployments:metadata": READERS | {"stack_user"},
    "build_info:build_info": READERS,
    "resource_types:OS::Nova::Flavor": ADMIN,
    "resource_types:OS::Keystone::*": ADMIN,
    "cloudformation:DescribeStackResource": READERS | {"stack_user"},
    "cloudformation:CreateStack": MEMBERS,
}


@pytest.mark.parametrize("rule", sorted(EXPECTED))
def test_default_outcomes_per_persona(policy: Policy, rule: str) -> None:
    allowed = {persona for persona in PERSONAS if policy.allowed(ctx(persona), rule)}
    assert allowed == EXPECTED[rule]


def test_denial_is_heats_forbidden(policy: Policy) -> None:
    with pytest.raises(Forbidden) as caught:
        policy.authorize(ctx("reader"), "stacks:create")
    err = caught.value
    assert isinstance(err, HearthError)
    assert err.http_status == 403
    assert err.heat_type == "Forbidden"
    assert str(err) == "You are not authorized to use stacks:create."


def test_target_defaults_to_the_callers_project(policy: Policy) -> None:
    policy.authorize(ctx("member"), "stacks:create")
    policy.authorize(ctx("member"), "stacks:create", {"project_id": PROJECT})


def test_project_mismatch_in_target_is_denied(policy: Policy) -> None:
    for persona in ("member", "admin"):
        with pytest.raises(Forbidden, match=r"^You are not authorized to use stacks:show\.$"):
            policy.authorize(ctx(persona), "stacks:show", {"project_id": "someone-else"})
    with pytest.raises(Forbidden):
        policy.authorize(ctx("stack_user"), "resource:signal", {"project_id": "someone-else"})


def test_roles_are_not_implied(policy: Policy) -> None:
    # Like Heat, no role implication: a noauth context with only "member" cannot read.
    only_member = dataclasses.replace(ctx("member"), roles=("member",))
    assert policy.allowed(only_member, "stacks:create")
    assert not policy.allowed(only_member, "stacks:index")
    only_admin = dataclasses.replace(ctx("admin"), roles=("admin",))
    assert policy.is_admin(only_admin)
    assert not policy.allowed(only_admin, "stacks:create")


def test_is_admin(policy: Policy) -> None:
    assert policy.is_admin(ctx("admin"))
    assert policy.is_admin(credentials(ctx("admin")))
    assert not policy.is_admin(ctx("member"))
    assert not policy.is_admin(ctx("stack_user"))
    not_admin_project = {**credentials(ctx("admin")), "is_admin_project": False}
    assert not policy.is_admin(not_admin_project)


@dataclasses.dataclass(frozen=True)
class SystemScopedContext(RequestContext):
    system_scope: str | None = "all"


def test_system_scoped_token_is_refused_project_rules(policy: Policy) -> None:
    # The project matches, so only the scope check can refuse.
    system_admin = SystemScopedContext(project_id=PROJECT, roles=PERSONAS["admin"])
    assert credentials(system_admin)["system_scope"] == "all"
    with pytest.raises(Forbidden, match=r"^You are not authorized to use stacks:index\.$"):
        policy.authorize(system_admin, "stacks:index")
    assert not policy.allowed(system_admin, "service:index")
    assert policy.allowed(ctx("admin"), "service:index")
    # Rules without scope types (as in Heat) accept any scope.
    assert policy.allowed(system_admin, "stacks:global_index")


def test_credentials_shape() -> None:
    creds = credentials(ctx("member"))
    assert creds["project_id"] == PROJECT
    assert creds["user_id"] == "member-id"
    assert creds["roles"] == ["member", "reader"]
    assert creds["is_admin_project"] is True
    assert creds["system_scope"] is None
    assert creds["domain_id"] is None
    assert creds["tenant"] == PROJECT
    assert creds["is_admin"] is False


def test_policy_file_overrides_defaults(tmp_path: Path) -> None:
    rules = tmp_path / "overrides.yaml"
    rules.write_text(
        '"stacks:create": "role:admin and project_id:%(project_id)s"\n'
        '"stacks:global_index": "!"\n'
        '"stacks:update_patch": "role:reader"\n'
        '"software_configs:global_index": "rule:context_is_admin"\n'
    )
    overridden = Policy(make_conf(tmp_path, f"[oslo_policy]\npolicy_file = {rules}\n"))
    member, admin, reader = ctx("member"), ctx("admin"), ctx("reader")
    assert not overridden.allowed(member, "stacks:create")
    assert overridden.allowed(admin, "stacks:create")
    assert not overridden.allowed(admin, "stacks:global_index")
    assert overridden.allowed(admin, "software_configs:global_index")
    # update_no_change follows update_patch, whatever that says.
    assert overridden.allowed(reader, "stacks:update_no_change")
    # Untouched rules keep their defaults.
    assert overridden.allowed(member, "stacks:delete")
    assert not overridden.allowed(reader, "stacks:delete")


def test_policy_file_found_next_to_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text('"stacks:index": "!"\n')
    overridden = Policy(make_conf(tmp_path, "[DEFAULT]\n"))
    assert not overridden.allowed(ctx("admin"), "stacks:index")


def test_old_defaults_apply_when_new_defaults_are_off(tmp_path: Path) -> None:
    conf = make_conf(tmp_path, "[oslo_policy]\nenforce_new_defaults = false\n")
    legacy = Policy(conf)
    anyone = ctx("nobody")
    # Heat's pre-Wallaby defaults (deny_stack_user, allow_everybody) are OR'd in.
    assert legacy.allowed(anyone, "stacks:create")
    assert not legacy.allowed(ctx("stack_user"), "stacks:create")
    assert legacy.allowed(anyone, "resource:signal")
    assert not legacy.allowed(anyone, "service:index")
    # With the new defaults (oslo.policy 6's default) the same caller gets nothing.
    assert not Policy(make_conf(tmp_path)).allowed(anyone, "stacks:create")


def test_resource_type_rules(policy: Policy) -> None:
    member, admin = ctx("member"), ctx("admin")
    with pytest.raises(Forbidden) as caught:
        policy.authorize_resource_type(member, "OS::Nova::Flavor")
    assert str(caught.value) == "You are not authorized to use OS::Nova::Flavor."
    with pytest.raises(Forbidden) as caught:
        policy.authorize_resource_type(member, "OS::Keystone::Project")
    assert str(caught.value) == "You are not authorized to use OS::Keystone::Project."
    policy.authorize_resource_type(member, "OS::Heat::RandomString")  # no rule: allowed
    policy.authorize_resource_type(admin, "OS::Nova::Flavor")
    policy.authorize_resource_type(admin, "OS::Keystone::Project")


def test_unregistered_rule_is_an_error(policy: Policy) -> None:
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        policy.authorize(ctx("admin"), "stacks:no_such_rule")


def test_every_rule_is_registered_once_with_heats_names() -> None:
    names = [rule.name for rule in list_rules()]
    assert len(names) == len(set(names)) == 100
    for name in (
        "context_is_admin",
        "project_admin",
        "deny_stack_user",
        "deny_everybody",
        "allow_everybody",
        "stacks:update_no_change",
        "software_deployments:metadata",
        "cloudformation:ListStackResources",
        "resource_types:OS::Octavia::Quota",
    ):
        assert name in names
    by_name = {rule.name: rule for rule in list_rules()}
    assert by_name["stacks:global_index"].check_str == "rule:context_is_admin"
    assert by_name["stacks:global_index"].scope_types is None
    assert by_name["stacks:create"].scope_types == ["project"]
    deprecated = by_name["stacks:create"].deprecated_rule
    assert deprecated is not None and deprecated.check_str == "rule:deny_stack_user"


def test_enforcer_entry_point() -> None:
    enforcer = get_policy_enforcer()
    assert "stacks:create" in enforcer.registered_rules
