"""The registry's remembered answers and glob index: a change after a lookup is always seen."""

from __future__ import annotations

from typing import Any

import pytest

from hearth.template.environment import Environment, make_global_environment
from hearth.template.registry import EntryKind, RegistryEntry

PLUGINS = ["OS::Heat::None", "OS::Nova::Server", "OS::Neutron::Net", "OS::Aodh::Alarm"]
GLOBAL_DOC = {
    "resource_registry": {
        "OS::Quantum*": "OS::Neutron*",
        "OS::Ceilometer::Alarm": "OS::Aodh::Alarm",
    }
}


@pytest.fixture()
def global_env() -> Environment:
    return make_global_environment({name: f"<{name}>" for name in PLUGINS}, [GLOBAL_DOC])


def answer(env: Environment, rtype: str, name: str | None = None) -> str | None:
    entry = env.get_resource_info(rtype, name)
    if entry is None:
        return None
    return f"template:{entry.template_name}" if entry.kind == "template" else entry.name


def test_user_registry_change_after_lookup(global_env: Environment) -> None:
    env = Environment(global_env=global_env)
    assert answer(env, "My::T", "r") is None
    env.registry.load({"My::T": "OS::Heat::None"})
    assert answer(env, "My::T", "r") == "OS::Heat::None"
    env.registry.load({"My::T": None})
    assert answer(env, "My::T", "r") is None


def test_global_registry_change_after_lookup(global_env: Environment) -> None:
    env = Environment(global_env=global_env)
    assert answer(env, "New::T") is None
    global_env.register_plugin("New::T", "<New::T>")
    assert answer(env, "New::T") == "New::T"


def test_glob_entries_added_and_removed(global_env: Environment) -> None:
    env = Environment(global_env=global_env)
    assert answer(env, "Foo::Server") is None
    env.registry.load({"Foo::*": "OS::Nova::*"})
    assert answer(env, "Foo::Server") == "OS::Nova::Server"
    env.registry.load({"Foo::*": None})
    assert answer(env, "Foo::Server") is None


def test_per_resource_entry_after_lookup(global_env: Environment) -> None:
    env = Environment(global_env=global_env)
    assert answer(env, "OS::Nova::Server", "web") == "OS::Nova::Server"
    env.registry.load({"resources": {"web": {"OS::Nova::Server": "web.yaml"}}})
    assert answer(env, "OS::Nova::Server", "web") == "template:web.yaml"
    assert answer(env, "OS::Nova::Server", "db") == "OS::Nova::Server"
    env.registry.remove_resources_except("db")
    assert answer(env, "OS::Nova::Server", "web") == "OS::Nova::Server"


def test_lookup_that_changes_the_registry(global_env: Environment) -> None:
    # A per-resource alias answered once leaks to every resource (Heat 27 does the same):
    # an answer remembered before that must not be given afterwards.
    env = Environment(
        {"resource_registry": {"resources": {"x": {"OS::Nova::Server": "OS::Ceilometer::Alarm"}}}},
        global_env=global_env,
    )
    assert answer(env, "OS::Nova::Server", "y") == "OS::Nova::Server"
    assert answer(env, "OS::Nova::Server", "x") == "OS::Aodh::Alarm"
    assert answer(env, "OS::Nova::Server", "y") == "OS::Aodh::Alarm"


def test_removed_template_entry(global_env: Environment) -> None:
    env = Environment({"resource_registry": {"My::T": "t.yaml"}}, global_env=global_env)
    entry = env.get_resource_info("My::T")
    assert entry is not None and entry.kind == "template"
    env.registry.remove_item(entry)
    assert answer(env, "My::T") is None


DOCS: list[dict[str, Any]] = [
    {},
    {"resource_registry": {"OS::*": "OS::Heat::None", "My::A": "OS::Ceilometer::Alarm"}},
    {
        "resource_registry": {
            "Foo::*": "OS::Nova::*",
            "OS::Nova::Server": "all.yaml",
            "resources": {
                "web": {"OS::Nova::Server": "web.yaml"},
                "db": {"My::B": "OS::Quantum::Net"},
            },
        }
    },
]
LOOKUPS = [
    ("OS::Nova::Server", "web"),
    ("OS::Nova::Server", "db"),
    ("My::B", "db"),
    ("My::B", "web"),
    ("OS::Quantum::Net", None),
    ("My::A", "r"),
    ("Foo::Server", "r"),
    ("x/y.yaml", "r"),
    ("OS::Heat::None", "r"),
    ("Nope::Nope", "r"),
]
KINDS: tuple[EntryKind | None, ...] = (None, "plugin", "template")


def _shown(entry: RegistryEntry | None) -> Any:
    return None if entry is None else (entry.kind, entry.path, entry.value, entry.user)


@pytest.mark.parametrize("doc", DOCS)
def test_same_answers_as_uncached_lookups(doc: dict[str, Any]) -> None:
    cached = Environment(doc, global_env=make_global_environment(
        {name: name for name in PLUGINS}, [GLOBAL_DOC]))
    plain = Environment(doc, global_env=make_global_environment(
        {name: name for name in PLUGINS}, [GLOBAL_DOC]))
    for _ in range(2):
        for rtype, name in [*LOOKUPS, *reversed(LOOKUPS)]:
            for kind in KINDS:
                got = cached.registry.get_resource_info(rtype, name, kind)
                want = plain.registry._resolve(rtype, name, kind, None)
                assert _shown(got) == _shown(want), (rtype, name, kind)
                assert cached.env_as_dict() == plain.env_as_dict()
