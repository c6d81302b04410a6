"""Environment documents, the resource registry, hooks and child environments.

Expectations marked "Heat 27" were checked against the real Heat 27 engine code.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from hearth.common.errors import (
    InvalidBreakPointHook,
    InvalidEnvironment,
    InvalidRestrictedAction,
    ResourceTypeNotFound,
    StackValidationFailed,
)
from hearth.template.environment import (
    Environment,
    default_for_missing,
    get_child_environment,
    make_global_environment,
    mask_hidden_parameters,
    parse_environment,
    validate_environment,
)

# Heat's default /etc/heat/environment.d/default.yaml.
GLOBAL_DOC = yaml.safe_load(
    """
resource_registry:
    "OS::Quantum*": "OS::Neutron*"
    "AWS::CloudWatch::Alarm": "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml"
    "OS::Metering::Alarm": "OS::Aodh::Alarm"
    "AWS::RDS::DBInstance": "file:///etc/heat/templates/AWS_RDS_DBInstance.yaml"
    "OS::Ceilometer::Alarm": "OS::Aodh::Alarm"
"""
)

PLUGINS = [
    "OS::Heat::None",
    "OS::Heat::RandomString",
    "OS::Nova::Server",
    "OS::Neutron::Net",
    "OS::Neutron::Port",
    "OS::Aodh::Alarm",
]


@pytest.fixture()
def global_env() -> Environment:
    return make_global_environment({name: f"<{name}>" for name in PLUGINS}, [GLOBAL_DOC])


def user_env(global_env: Environment, doc: Any) -> Environment:
    if isinstance(doc, str):
        doc = yaml.safe_load(doc)
    return Environment(doc, global_env=global_env)


def resolved(env: Environment, type_name: str, resource: str | None = None) -> str:
    """What a type resolves to: the plugin type name or 'template:<name>'."""
    entry = env.get_resource_info(type_name, resource)
    assert entry is not None, type_name
    if entry.kind == "template":
        return f"template:{entry.template_name}"
    assert entry.kind == "plugin"
    return entry.name


# --- the document -----------------------------------------------------------------------------


class TestDocument:
    def test_wrong_section(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            validate_environment({"parameters": {}, "foo": 1})
        assert str(exc.value) == 'environment has wrong section "foo"'

    def test_empty_section(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            validate_environment({"parameters": None})
        assert str(exc.value) == 'environment has empty section "parameters"'

    def test_not_a_mapping(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            validate_environment([1, 2])
        assert str(exc.value) == "The environment is not a valid YAML mapping data type."

    def test_parse_text_with_given_loader(self) -> None:
        assert parse_environment("parameters: {a: 1}", yaml.safe_load) == {
            "parameters": {"a": 1}
        }
        assert parse_environment(None, yaml.safe_load) == {}
        assert parse_environment("", yaml.safe_load) == {}
        with pytest.raises(InvalidEnvironment, match='wrong section "foo"'):
            parse_environment("foo: 1", yaml.safe_load)
        with pytest.raises(InvalidEnvironment, match='empty section "parameters"'):
            parse_environment("parameters:", yaml.safe_load)

    def test_parse_text_loader_error_becomes_invalid_environment(self) -> None:
        with pytest.raises(InvalidEnvironment):
            parse_environment("a: [1", yaml.safe_load)

    def test_parse_bad_yaml_with_default_loader(self) -> None:
        with pytest.raises(InvalidEnvironment):
            parse_environment("a: [1")

    def test_parse_with_default_loader(self) -> None:
        assert parse_environment("parameter_defaults:\n  x: 1\n") == {
            "parameter_defaults": {"x": 1}
        }

    def test_default_for_missing(self) -> None:
        assert default_for_missing({"parameters": {"a": 1}}) == {
            "parameters": {"a": 1},
            "resource_registry": {},
            "parameter_defaults": {},
            "encrypted_param_names": [],
            "event_sinks": [],
        }

    def test_all_sections_accepted(self) -> None:
        doc: dict[str, Any] = {
            "parameters": {},
            "parameter_defaults": {},
            "resource_registry": {},
            "event_sinks": [],
            "encrypted_param_names": [],
            "parameter_merge_strategies": {},
        }
        assert validate_environment(doc) == doc


# --- user_env_as_dict -------------------------------------------------------------------------


class TestAsDict:
    def test_empty_environment(self, global_env: Environment) -> None:
        # Heat 27's validate "Environment" for a request without an environment.
        env = Environment(global_env=global_env)
        assert env.user_env_as_dict() == {
            "event_sinks": [],
            "parameter_defaults": {},
            "parameters": {},
            "resource_registry": {"resources": {}},
        }

    def test_sections_round_trip(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
parameters: {a: 1}
parameter_defaults: {b: x}
event_sinks: [{type: zaqar-queue, target: q}]
encrypted_param_names: [a]
parameter_merge_strategies: {a: merge}
resource_registry:
  My::T: a.yaml
  x.yaml: OS::Nova::Server
  resources:
    s: {hooks: pre-create, OS::Nova::Server: b.template}
""",
        )
        # Heat 27: a key that is a template file name maps to itself; merge strategies and
        # encrypted_param_names are not part of the user environment.
        assert env.user_env_as_dict() == {
            "parameters": {"a": 1},
            "parameter_defaults": {"b": "x"},
            "event_sinks": [{"type": "zaqar-queue", "target": "q"}],
            "resource_registry": {
                "My::T": "a.yaml",
                "x.yaml": "x.yaml",
                "resources": {"s": {"hooks": "pre-create", "OS::Nova::Server": "b.template"}},
            },
        }
        assert env.env_as_dict()["encrypted_param_names"] == ["a"]

    def test_flat_environment_is_parameters(self, global_env: Environment) -> None:
        env = Environment({"a": 1, "b": 2}, global_env=global_env)
        assert env.params == {"a": 1, "b": 2}
        assert env.user_env_as_dict()["resource_registry"] == {"resources": {}}

    def test_flat_environment_keeps_merge_strategies_as_a_parameter(
        self, global_env: Environment
    ) -> None:
        # Heat 27: only the other sections are excluded from a flat environment's parameters.
        env = Environment(
            {"a": 1, "parameter_merge_strategies": {"x": "merge"}, "encrypted_param_names": ["z"]},
            global_env=global_env,
        )
        assert env.params == {"a": 1, "parameter_merge_strategies": {"x": "merge"}}
        assert env.encrypted_param_names == ["z"]

    def test_null_removes_only_user_entries(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
resource_registry:
  "OS::Ceilometer::Alarm": null
  "OS::Quantum*": null
  resources:
    s: {"OS::Nova::Server": null}
""",
        )
        assert env.user_env_as_dict()["resource_registry"] == {"resources": {"s": {}}}
        # The global mapping is still there.
        assert resolved(env, "OS::Ceilometer::Alarm") == "OS::Aodh::Alarm"

    def test_null_removes_earlier_user_entries_on_load(self, global_env: Environment) -> None:
        env = user_env(
            global_env, {"resource_registry": {"A::B": "OS::Heat::None", "OS::X": "a.yaml"}}
        )
        env.load({"resource_registry": {"A::B": None}})
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {},
            "OS::X": "a.yaml",
        }

    def test_wildcard_null_removes_prefix(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            {"resource_registry": {"OS::A": "OS::Heat::None", "OS::B": "x.yaml", "X::C": "y.yaml"}},
        )
        env.load({"resource_registry": {"OS::*": None}})
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {},
            "X::C": "y.yaml",
        }

    def test_bad_registry_values(self, global_env: Environment) -> None:
        with pytest.raises(InvalidEnvironment):
            user_env(global_env, {"resource_registry": {"My::T": 5}})
        with pytest.raises(InvalidEnvironment):
            user_env(global_env, {"resource_registry": "x"})

    def test_unknown_event_sink_type(self, global_env: Environment) -> None:
        with pytest.raises(InvalidEnvironment):
            user_env(global_env, {"event_sinks": [{"type": "nope"}]})

    def test_load_appends_event_sinks(self, global_env: Environment) -> None:
        env = user_env(global_env, {"event_sinks": [{"type": "zaqar-queue", "target": "a"}]})
        env.load({"event_sinks": [{"type": "zaqar-queue", "target": "b"}]})
        assert [s["target"] for s in env.event_sinks] == ["a", "b"]

    def test_mask_hidden(self) -> None:
        stored: dict[str, Any] = {
            "parameters": {"pw": "secret", "x": 1},
            "parameter_defaults": {"pw": "s2"},
            "resource_registry": {"resources": {}},
        }
        masked = mask_hidden_parameters(stored, lambda name: name == "pw")
        assert masked["parameters"] == {"pw": "******", "x": 1}
        assert masked["parameter_defaults"] == {"pw": "******"}
        assert stored["parameters"]["pw"] == "secret"


# --- lookups ----------------------------------------------------------------------------------


class TestLookup:
    def test_plugin_type(self, global_env: Environment) -> None:
        env = Environment(global_env=global_env)
        assert resolved(env, "OS::Nova::Server") == "OS::Nova::Server"
        assert env.get_resource_info("OS::Nova::Server") is not None

    def test_unknown_type(self, global_env: Environment) -> None:
        env = Environment(global_env=global_env)
        assert env.get_resource_info("OS::Nope") is None
        with pytest.raises(ResourceTypeNotFound) as exc:
            env.resolve_type("OS::Nope", "r")
        assert str(exc.value) == "The Resource Type (OS::Nope) could not be found."
        assert exc.value.heat_type == "StackValidationFailed"

    @pytest.mark.parametrize(
        ("rtype", "message"),
        [
            ("", 'Resource "r" has no type'),
            (None, 'Non-empty resource type is required for resource "r"'),
            (5, 'Resource "r" type is not a string'),
        ],
    )
    def test_bad_type_values(self, global_env: Environment, rtype: Any, message: str) -> None:
        env = Environment(global_env=global_env)
        with pytest.raises(StackValidationFailed) as exc:
            env.resolve_type(rtype, "r")
        assert str(exc.value) == message

    def test_alias(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"My::Server": "OS::Nova::Server"}})
        assert resolved(env, "My::Server") == "OS::Nova::Server"

    def test_alias_chain(self, global_env: Environment) -> None:
        env = user_env(
            global_env, {"resource_registry": {"A::A": "B::B", "B::B": "OS::Heat::None"}}
        )
        assert resolved(env, "A::A") == "OS::Heat::None"

    def test_alias_to_unknown_is_not_found(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"A::A": "Nope::Nope"}})
        assert env.get_resource_info("A::A") is None

    def test_alias_cycle_is_not_found(self, global_env: Environment) -> None:
        # Heat 27 recurses until RecursionError; Hearth reports the type as not found.
        env = user_env(global_env, {"resource_registry": {"A::A": "B::B", "B::B": "A::A"}})
        with pytest.raises(ResourceTypeNotFound):
            env.resolve_type("A::A", "r")

    def test_user_overrides_plugin(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"OS::Nova::Server": "server.yaml"}})
        assert resolved(env, "OS::Nova::Server") == "template:server.yaml"

    def test_wildcard_prefix_mapping(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"OS::Networking::*": "OS::Neutron::*"}})
        assert resolved(env, "OS::Networking::Net") == "OS::Neutron::Net"
        assert resolved(env, "OS::Networking::Port") == "OS::Neutron::Port"

    def test_global_wildcard(self, global_env: Environment) -> None:
        env = Environment(global_env=global_env)
        assert resolved(env, "OS::Quantum::Net") == "OS::Neutron::Net"

    def test_many_to_one_wildcard_does_not_recurse(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"OS::*": "OS::Heat::None"}})
        assert resolved(env, "OS::Nova::Server") == "OS::Heat::None"
        assert resolved(env, "OS::Heat::None") == "OS::Heat::None"

    def test_wildcard_sorts_before_exact_entry_in_same_environment(
        self, global_env: Environment
    ) -> None:
        # "OS::*" < "OS::Nova::Server" lexicographically, so the wildcard wins.
        env = user_env(
            global_env,
            {"resource_registry": {"OS::Nova::Server": "a.yaml", "OS::*": "OS::Heat::None"}},
        )
        assert resolved(env, "OS::Nova::Server") == "OS::Heat::None"

    def test_user_entry_before_global_entry(self, global_env: Environment) -> None:
        env = user_env(
            global_env, {"resource_registry": {"OS::Ceilometer::Alarm": "OS::Heat::None"}}
        )
        assert resolved(env, "OS::Ceilometer::Alarm") == "OS::Heat::None"

    def test_per_resource_entry(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            {"resource_registry": {"resources": {"web": {"OS::Nova::Server": "web.yaml"}}}},
        )
        assert resolved(env, "OS::Nova::Server", "web") == "template:web.yaml"
        assert resolved(env, "OS::Nova::Server", "db") == "OS::Nova::Server"

    def test_per_resource_entry_before_type_entry(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            {
                "resource_registry": {
                    "OS::Nova::Server": "all.yaml",
                    "resources": {"web": {"OS::Nova::Server": "web.yaml"}},
                }
            },
        )
        assert resolved(env, "OS::Nova::Server", "web") == "template:web.yaml"
        assert resolved(env, "OS::Nova::Server", "db") == "template:all.yaml"

    def test_per_resource_entries_do_not_use_patterns(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            {"resource_registry": {"resources": {"web*": {"OS::Nova::Server": "web.yaml"}}}},
        )
        assert resolved(env, "OS::Nova::Server", "web1") == "OS::Nova::Server"

    def test_template_as_type(self, global_env: Environment) -> None:
        env = Environment(global_env=global_env)
        assert resolved(env, "foo/bar.yaml") == "template:foo/bar.yaml"
        # Heat 27 records a template used as a type in the user registry.
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {},
            "foo/bar.yaml": "foo/bar.yaml",
        }

    def test_global_template_not_recorded_by_lookup(self, global_env: Environment) -> None:
        env = Environment(global_env=global_env)
        entry = env.get_resource_info("AWS::CloudWatch::Alarm")
        assert entry is not None and entry.kind == "template" and not entry.user
        assert entry.template_name == "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml"
        assert env.user_env_as_dict()["resource_registry"] == {"resources": {}}
        # The caller records it when the template is used (as Heat's TemplateResource does);
        # Heat 27 validate then shows it.
        env.registry.register(entry.path, entry.template_name or "")
        assert env.user_env_as_dict()["resource_registry"] == {
            "AWS::CloudWatch::Alarm": "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml",
            "resources": {},
        }

    def test_global_alias_recorded_in_user_environment(self, global_env: Environment) -> None:
        # Heat 27 validate of a template using OS::Ceilometer::Alarm shows the alias.
        env = Environment(global_env=global_env)
        assert resolved(env, "OS::Ceilometer::Alarm") == "OS::Aodh::Alarm"
        assert resolved(env, "OS::Quantum::Net") == "OS::Neutron::Net"
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {},
            "OS::Ceilometer::Alarm": "OS::Aodh::Alarm",
            "OS::Quantum::Net": "OS::Neutron*",
        }
        # Looking up again still works and the global registry is unchanged.
        assert resolved(env, "OS::Quantum::Net") == "OS::Neutron::Net"
        assert Environment(global_env=global_env).user_env_as_dict()["resource_registry"] == {
            "resources": {}
        }

    def test_user_aliases_to_global_types_recorded(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            {
                "resource_registry": {
                    "My::A": "OS::Ceilometer::Alarm",
                    "OS::*": "OS::Heat::None",
                    "Foo::*": "OS::Heat::*",
                }
            },
        )
        assert resolved(env, "My::A") == "OS::Heat::None"
        assert resolved(env, "OS::Nova::Server") == "OS::Heat::None"
        assert resolved(env, "Foo::RandomString") == "OS::Heat::None"
        # Same registry as Heat 27 ends up with after these three lookups.
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {},
            "My::A": "OS::Ceilometer::Alarm",
            "OS::*": "OS::Heat::None",
            "Foo::*": "OS::Heat::*",
            "OS::Ceilometer::Alarm": "OS::Heat::None",
            "OS::Nova::Server": "OS::Heat::None",
            "OS::Heat::RandomString": "OS::Heat::None",
            "Foo::RandomString": "OS::Heat::*",
        }

    def test_per_resource_alias_to_plugin_leaks_like_heat(self, global_env: Environment) -> None:
        # Heat 27 records the per-resource alias at the top level once it has been used.
        env = user_env(
            global_env,
            {"resource_registry": {"resources": {"x": {"OS::Nova::Server": "OS::Heat::None"}}}},
        )
        assert resolved(env, "OS::Nova::Server", "x") == "OS::Heat::None"
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {"x": {"OS::Nova::Server": "OS::Heat::None"}},
            "OS::Nova::Server": "OS::Heat::None",
        }
        assert resolved(env, "OS::Nova::Server", "y") == "OS::Heat::None"

    def test_kind_and_ignore_filters(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"OS::Nova::Server": "server.yaml"}})
        tmpl = env.get_resource_info("OS::Nova::Server", "s", kind="template")
        assert tmpl is not None and tmpl.template_name == "server.yaml"
        facade = env.get_resource_info("OS::Nova::Server", "s", ignore=tmpl)
        assert facade is not None and facade.kind == "plugin"
        assert facade.plugin == "<OS::Nova::Server>"
        assert env.get_resource_info("OS::Heat::None", kind="template") is None

    def test_global_documents_in_order(self) -> None:
        genv = make_global_environment(
            {"OS::Heat::None": 1, "OS::Nova::Server": 2},
            [
                {"resource_registry": {"A::A": "OS::Nova::Server", "B::B": "OS::Nova::Server"}},
                {"resource_registry": {"A::A": "OS::Heat::None", "B::B": None}},
            ],
        )
        env = Environment(global_env=genv)
        assert resolved(env, "A::A") == "OS::Heat::None"
        assert env.get_resource_info("B::B") is None

    def test_global_type_names(self, global_env: Environment) -> None:
        names = global_env.registry.type_names()
        assert "OS::Nova::Server" in names
        assert "AWS::CloudWatch::Alarm" in names
        assert "OS::Ceilometer::Alarm" not in names


# --- hooks and restricted actions -------------------------------------------------------------


class TestHooks:
    def test_plain_and_list(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
resource_registry:
  resources:
    a: {hooks: pre-create}
    b: {hooks: [pre-update, post-delete]}
""",
        )
        assert env.matches_hook("a", "pre-create")
        assert not env.matches_hook("a", "pre-update")
        assert env.matches_hook("b", "pre-update")
        assert env.matches_hook("b", "post-delete")
        assert not env.matches_hook("c", "pre-create")

    def test_wildcards(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
resource_registry:
  resources:
    "web_*": {hooks: pre-delete}
    "*_db": {hooks: pre-create}
""",
        )
        assert env.matches_hook("web_1", "pre-delete")
        assert env.matches_hook("main_db", "pre-create")
        assert not env.matches_hook("Web_1", "pre-delete")  # case-sensitive

    @pytest.mark.parametrize(
        ("value", "shown"),
        [
            ("bad", "bad"),
            (["pre-create", "x"], "['pre-create', 'x']"),
            ({"a": 1}, "{'a': 1}"),
            (5, "5"),
        ],
    )
    def test_invalid_hook(self, global_env: Environment, value: Any, shown: str) -> None:
        with pytest.raises(InvalidBreakPointHook) as exc:
            user_env(global_env, {"resource_registry": {"resources": {"s": {"hooks": value}}}})
        assert str(exc.value) == (
            f'Invalid hook type "{shown}" for resource breakpoint, acceptable hook types are: '
            "('pre-create', 'pre-update', 'pre-delete', 'post-create', 'post-update', "
            "'post-delete')"
        )

    def test_empty_hook_list_is_valid(self, global_env: Environment) -> None:
        env = user_env(global_env, {"resource_registry": {"resources": {"s": {"hooks": []}}}})
        assert env.user_env_as_dict()["resource_registry"] == {
            "resources": {"s": {"hooks": []}}
        }
        assert not env.matches_hook("s", "pre-create")

    def test_nested_path(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
resource_registry:
  resources:
    group:
      "0":
        server: {hooks: pre-create}
      "*":
        port: {hooks: pre-update}
    "*_nested":
      inner: {hooks: post-create}
""",
        )
        assert env.matches_hook_path(["group", "0", "server"], "pre-create")
        assert not env.matches_hook_path(["group", "1", "server"], "pre-create")
        assert env.matches_hook_path(["group", "1", "port"], "pre-update")
        assert env.matches_hook_path(["a_nested", "inner"], "post-create")
        assert not env.matches_hook_path(["group"], "pre-create")
        assert not env.matches_hook_path([], "pre-create")

    def test_restricted_actions(self, global_env: Environment) -> None:
        env = user_env(
            global_env,
            """
resource_registry:
  resources:
    a: {restricted_actions: update}
    "a*": {restricted_actions: [replace]}
    grp:
      child: {restricted_actions: [update, replace]}
""",
        )
        assert env.restricted_actions("a") == {"update", "replace"}
        assert env.restricted_actions("ab") == {"replace"}
        assert env.restricted_actions("z") == set()
        assert env.restricted_actions_for_path(["grp", "child"]) == {"update", "replace"}

    @pytest.mark.parametrize(
        ("value", "shown"),
        [("bad", "bad"), (["update", "x"], "['update', 'x']"), (5, "5")],
    )
    def test_invalid_restricted_action(
        self, global_env: Environment, value: Any, shown: str
    ) -> None:
        with pytest.raises(InvalidRestrictedAction) as exc:
            user_env(
                global_env,
                {"resource_registry": {"resources": {"s": {"restricted_actions": value}}}},
            )
        assert str(exc.value) == (
            f'Invalid restricted_action type "{shown}" for resource, acceptable '
            "restricted_action types are: ('update', 'replace')"
        )


# --- child environments -----------------------------------------------------------------------


class TestChild:
    def test_flat_params_replace_parent_params(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            {
                "parameters": {"p": 1},
                "parameter_defaults": {"d": 2},
                "event_sinks": [{"type": "zaqar-queue", "target": "q"}],
                "resource_registry": {"My::T": "OS::Heat::None"},
            },
        )
        child = get_child_environment(parent, {"c": 3})
        assert child.user_env_as_dict() == {
            "parameters": {"c": 3},
            "parameter_defaults": {"d": 2},
            "event_sinks": [{"type": "zaqar-queue", "target": "q"}],
            "resource_registry": {"My::T": "OS::Heat::None", "resources": {}},
        }
        assert resolved(child, "My::T") == "OS::Heat::None"
        assert resolved(child, "OS::Quantum::Net") == "OS::Neutron::Net"

    def test_full_document_layered_on_top(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            {"parameters": {"p": 1}, "resource_registry": {"A::A": "OS::Heat::None"}},
        )
        child = get_child_environment(
            parent,
            {"parameters": {"c": 3}, "resource_registry": {"A::A": "OS::Nova::Server"}},
        )
        assert child.params == {"c": 3}
        assert resolved(child, "A::A") == "OS::Nova::Server"

    def test_no_params(self, global_env: Environment) -> None:
        parent = user_env(global_env, {"parameters": {"p": 1}})
        assert get_child_environment(parent, None).params == {}

    def test_item_to_remove(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            {"resource_registry": {"OS::Nova::Server": "server.yaml", "X::Y": "x.yaml"}},
        )
        entry = parent.get_resource_info("OS::Nova::Server", "s")
        assert entry is not None
        child = get_child_environment(parent, {}, item_to_remove=entry)
        assert child.user_env_as_dict()["resource_registry"] == {
            "X::Y": "x.yaml",
            "resources": {},
        }
        assert resolved(child, "OS::Nova::Server") == "OS::Nova::Server"

    def test_item_to_remove_per_resource(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            {"resource_registry": {"resources": {"s": {"OS::Nova::Server": "server.yaml"}}}},
        )
        entry = parent.get_resource_info("OS::Nova::Server", "s")
        assert entry is not None
        child = get_child_environment(parent, {}, item_to_remove=entry)
        assert child.user_env_as_dict()["resource_registry"] == {"resources": {"s": {}}}

    def test_drill_down_to_child_resource(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            """
resource_registry:
  resources:
    group:
      hooks: pre-create
      member: {hooks: pre-update}
      OS::Nova::Server: member.yaml
    other:
      x: {hooks: pre-delete}
    "gr*":
      wild: {hooks: post-create}
""",
        )
        child = get_child_environment(parent, {}, child_resource_name="group")
        assert child.user_env_as_dict()["resource_registry"]["resources"] == {
            "hooks": "pre-create",
            "member": {"hooks": "pre-update"},
            "OS::Nova::Server": "member.yaml",
            "wild": {"hooks": "post-create"},
        }
        assert child.matches_hook("member", "pre-update")
        assert child.matches_hook("wild", "post-create")
        assert not child.matches_hook("x", "pre-delete")

    def test_drill_down_prefers_exact_match(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            """
resource_registry:
  resources:
    "*":
      a: {hooks: pre-create}
    grp:
      a: {hooks: pre-update}
""",
        )
        child = get_child_environment(parent, {}, child_resource_name="grp")
        assert child.matches_hook("a", "pre-update")
        assert not child.matches_hook("a", "pre-create")

    def test_drill_down_non_matching(self, global_env: Environment) -> None:
        parent = user_env(
            global_env,
            {"resource_registry": {"resources": {"x*": {"a": {"hooks": "pre-create"}}}}},
        )
        child = get_child_environment(parent, {}, child_resource_name="grp")
        assert child.user_env_as_dict()["resource_registry"]["resources"] == {}

    def test_child_does_not_change_parent(self, global_env: Environment) -> None:
        parent = user_env(global_env, {"parameter_defaults": {"d": 1}})
        child = parent.child({"c": 1})
        child.load({"parameter_defaults": {"d": 2}})
        assert parent.param_defaults == {"d": 1}


@pytest.mark.parametrize("names", [float("inf"), 3, "abc", {"a": 1}, True])
def test_encrypted_param_names_must_be_a_list(names: Any) -> None:
    """Anything else was an unexpected TypeError (a 500 in preview) or a list of letters."""
    with pytest.raises(InvalidEnvironment, match="encrypted_param_names must be a list"):
        Environment({"encrypted_param_names": names})
