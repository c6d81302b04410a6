"""Merging environment files, request environments and PATCH environments.

Every expectation here was checked against Heat 27's ``merge_environments`` with the same
inputs (where Heat fails with an internal Python error, the message is the same here).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from hearth.common.errors import (
    ConflictingMergeStrategyForParam,
    InvalidEnvironment,
    InvalidMergeStrategyForParam,
)
from hearth.template.env_merge import (
    get_param_merge_strategy,
    merge_environments,
    patch_environment,
    request_environment,
)
from hearth.template.environment import Environment, make_global_environment

TYPES = {
    "s": "string",
    "n": "number",
    "l": "comma_delimited_list",
    "j": "json",
    "b": "boolean",
    "cs": "String",
    "cl": "CommaDelimitedList",
}


def merge(docs: list[Any], params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Merge documents (as YAML text files f0, f1, ...) into a request environment."""
    files = {
        f"f{i}": doc if isinstance(doc, str) else yaml.safe_dump(doc) for i, doc in enumerate(docs)
    }
    env = request_environment(None, params, environment_files=list(files))
    return merge_environments(list(files), files, env, TYPES, load=yaml.safe_load)


def merged_params(docs: list[Any], params: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = merge(docs, params)["parameters"]
    return result


def two(key: str, a: Any, b: Any, strategy: str = "merge") -> dict[str, Any]:
    """First file sets ``key`` with a strategy, the second adds to it."""
    return merged_params(
        [
            {"parameters": {key: a}, "parameter_merge_strategies": {key: strategy}},
            {"parameters": {key: b}},
        ]
    )


class TestStrategies:
    def test_get_strategy(self) -> None:
        assert get_param_merge_strategy(None, "x") == "overwrite"
        assert get_param_merge_strategy({}, "x") == "overwrite"
        assert get_param_merge_strategy({"default": "merge"}, "x") == "merge"
        assert get_param_merge_strategy({"default": "merge", "x": "deep_merge"}, "x") == (
            "deep_merge"
        )
        assert get_param_merge_strategy({"default": "merge", "x": "bogus"}, "x") == "merge"
        # An earlier file's choice comes before this file's default.
        assert get_param_merge_strategy({"default": "merge"}, "x", {"x": "overwrite"}) == (
            "overwrite"
        )

    def test_overwrite_is_default(self) -> None:
        assert merged_params([{"parameters": {"s": "a"}}, {"parameters": {"s": "b"}}]) == {
            "s": "b"
        }

    def test_strategy_fixed_by_first_file_default(self) -> None:
        assert merged_params(
            [
                {"parameters": {"s": "a"}, "parameter_merge_strategies": {"default": "merge"}},
                {"parameters": {"s": "b"}},
            ]
        ) == {"s": "ab"}

    def test_later_default_does_not_change_fixed_strategy(self) -> None:
        assert merged_params(
            [
                {"parameters": {"s": "a", "n": 1}},
                {
                    "parameters": {"s": "b", "n": 2},
                    "parameter_merge_strategies": {"default": "merge"},
                },
            ]
        ) == {"s": "b", "n": 2}

    def test_three_files(self) -> None:
        assert merged_params(
            [
                {"parameters": {"s": "a"}, "parameter_merge_strategies": {"s": "merge"}},
                {"parameters": {"s": "b"}, "parameter_merge_strategies": {"s": "merge"}},
                {"parameters": {"s": "c"}, "parameter_merge_strategies": {"default": "overwrite"}},
            ]
        ) == {"s": "abc"}

    def test_conflict(self) -> None:
        with pytest.raises(ConflictingMergeStrategyForParam) as exc:
            merged_params(
                [
                    {"parameters": {"s": "a"}, "parameter_merge_strategies": {"s": "merge"}},
                    {"parameters": {"s": "b"}, "parameter_merge_strategies": {"s": "overwrite"}},
                ]
            )
        assert str(exc.value) == (
            "Conflicting merge strategy 'overwrite' for parameter 's' in file 'f1'."
        )

    def test_conflict_with_implicit_overwrite(self) -> None:
        with pytest.raises(ConflictingMergeStrategyForParam) as exc:
            merged_params(
                [
                    {"parameters": {"l": "a"}},
                    {"parameters": {"l": "c"}, "parameter_merge_strategies": {"l": "merge"}},
                ]
            )
        assert str(exc.value) == (
            "Conflicting merge strategy 'merge' for parameter 'l' in file 'f1'."
        )

    def test_strategies_shared_between_parameters_and_defaults(self) -> None:
        with pytest.raises(ConflictingMergeStrategyForParam):
            merge(
                [
                    {"parameters": {"s": "a"}},
                    {
                        "parameter_defaults": {"s": "b"},
                        "parameter_merge_strategies": {"s": "merge"},
                    },
                ]
            )

    def test_null_value_is_not_checked(self) -> None:
        assert merged_params(
            [
                {"parameters": {"s": "a"}, "parameter_merge_strategies": {"s": "merge"}},
                {"parameters": {"s": None}, "parameter_merge_strategies": {"s": "overwrite"}},
            ]
        ) == {"s": "a"}

    def test_unknown_strategy_falls_back_to_default(self) -> None:
        assert merged_params(
            [
                {"parameters": {"s": "a"}, "parameter_merge_strategies": {"s": "bogus"}},
                {"parameters": {"s": "b"}, "parameter_merge_strategies": {"default": "merge"}},
            ]
        ) == {"s": "b"}


class TestMergeByType:
    def test_string(self) -> None:
        assert two("s", "a", "b") == {"s": "ab"}
        assert two("s", "a", "b", "deep_merge") == {"s": "ab"}
        assert two("s", "", "b") == {"s": "b"}
        assert two("cs", "a", "b") == {"cs": "ab"}

    def test_list(self) -> None:
        assert two("l", "a,b", "c") == {"l": "a,b,c"}
        assert two("l", ["a", "b"], ["c"]) == {"l": ["a", "b", "c"]}
        assert two("l", "", "c") == {"l": "c"}
        assert two("l", [], ["c"]) == {"l": ["c"]}
        assert two("cl", "a", "b") == {"cl": "a,b"}

    def test_json_shallow(self) -> None:
        assert two(
            "j",
            {"a": {"x": 1, "l": [1]}, "s": "p", "e": ""},
            {"a": {"y": 2, "l": [2]}, "s": "q", "n": None, "t": "z"},
        ) == {"j": {"a": {"y": 2, "l": [2]}, "s": "q", "e": "", "t": "z"}}

    def test_json_deep(self) -> None:
        assert two(
            "j",
            {"a": {"x": 1, "l": [1]}, "s": "p", "e": ""},
            {"a": {"y": 2, "l": [2]}, "s": "q", "n": None, "t": "z", "e": "w", "k": 3, "a2": {}},
            "deep_merge",
        ) == {
            "j": {
                "a": {"x": 1, "y": 2, "l": [1, 2]},
                "s": "pq",
                "e": "w",
                "t": "z",
                "k": 3,
                "a2": {},
            }
        }

    def test_json_deep_in_parameter_defaults(self) -> None:
        assert merge(
            [
                {
                    "parameter_defaults": {"s": "a", "j": {"a": 1}},
                    "parameter_merge_strategies": {"j": "deep_merge"},
                },
                {"parameter_defaults": {"j": {"b": 2}, "s": "c"}},
            ]
        )["parameter_defaults"] == {"s": "c", "j": {"a": 1, "b": 2}}

    def test_json_string_parsed(self) -> None:
        assert two("j", {"a": 1}, '{"b": 2}') == {"j": {"a": 1, "b": 2}}

    def test_json_bad_string(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            two("j", {"a": 1}, "notjson")
        assert str(exc.value) == (
            "Invalid parameter in environment Expecting value: line 1 column 1 (char 0)."
        )

    def test_number_strings_concatenate_like_heat(self) -> None:
        assert two("n", "1", "2") == {"n": "12"}

    def test_number_values_refused_like_heat(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            two("n", 1, 2)
        assert str(exc.value) == "Invalid parameter in environment ."

    def test_boolean_merge_refused(self) -> None:
        with pytest.raises(InvalidMergeStrategyForParam) as exc:
            two("b", "true", "false")
        assert str(exc.value) == "Invalid merge strategy 'merge' for parameter 'b'."
        with pytest.raises(InvalidMergeStrategyForParam):
            two("b", "true", "false", "deep_merge")

    def test_boolean_value_refused_before_strategy(self) -> None:
        with pytest.raises(InvalidEnvironment, match="Invalid parameter in environment"):
            two("b", True, False)

    def test_boolean_overwrite(self) -> None:
        assert merged_params(
            [
                {"parameters": {"b": "a"}},
                {
                    "parameters": {"b": "b"},
                    "parameter_merge_strategies": {"b": "overwrite", "default": "merge"},
                },
            ]
        ) == {"b": "b"}

    @pytest.mark.parametrize(
        ("key", "a", "b", "message"),
        [
            ("l", "a,b", ["c"], "'str' object has no attribute 'extend'"),
            ("l", ["a"], "c", "sequence item 0: expected str instance, list found"),
            ("j", {"a": 1}, [1, 2], "'list' object has no attribute 'items'"),
            ("s", "a", ["x"], "sequence item 1: expected str instance, list found"),
            ("s", "a", 5, "Invalid parameter in environment ."),
            ("s", "a", {"x": 1}, "Invalid parameter in environment ."),
        ],
    )
    def test_mismatched_values(self, key: str, a: Any, b: Any, message: str) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            two(key, a, b)
        assert str(exc.value) == message


class TestSections:
    def test_first_section_taken_whole(self) -> None:
        # Nothing merged yet: the section is taken as it is, undeclared and null values too.
        assert merged_params([{"parameters": {"s": "a", "zz": 1, "n": None}}]) == {
            "s": "a",
            "zz": 1,
            "n": None,
        }
        assert merged_params([{"parameters": {}}, {"parameters": {"zz": "b", "s": None}}]) == {
            "zz": "b",
            "s": None,
        }

    def test_undeclared_and_null_ignored_later(self) -> None:
        assert merged_params(
            [{"parameters": {"s": "a"}}, {"parameters": {"s": "b", "zz": 1, "n": None}}]
        ) == {"s": "b"}
        assert merged_params([{"parameters": {"s": "a"}}, {"parameters": {"zz": "b"}}]) == {
            "s": "a"
        }

    def test_request_parameters_seeded_first(self) -> None:
        assert merged_params([{"parameters": {"s": "a"}}], {"s": "req", "zz": 3}) == {
            "s": "a",
            "zz": 3,
        }
        assert merged_params(
            [{"parameters": {"s": "a"}, "parameter_merge_strategies": {"default": "merge"}}],
            {"s": "req"},
        ) == {"s": "reqa"}

    def test_registry_replaced_key_by_key(self) -> None:
        env = merge(
            [
                {"resource_registry": {"A": "B", "resources": {"x": {"hooks": "pre-create"}}}},
                {"resource_registry": {"C": "D", "A": None, "resources": {"y": {}}}},
            ]
        )
        assert env["resource_registry"] == {"A": "B", "C": "D", "resources": {"y": {}}}

    def test_result_has_every_section(self) -> None:
        assert merge([{"encrypted_param_names": ["a"]}]) == {
            "parameters": {},
            "resource_registry": {},
            "parameter_defaults": {},
            "encrypted_param_names": ["a"],
            "event_sinks": [],
        }

    def test_two_files_with_event_sinks_fail_like_heat(self) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            merge(
                [
                    {"event_sinks": [{"type": "zaqar-queue", "target": "q"}]},
                    {"event_sinks": [{"type": "zaqar-queue", "target": "r"}]},
                ]
            )
        assert str(exc.value) == "'list' object has no attribute 'items'"

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("foo: 1", 'environment has wrong section "foo"'),
            ("parameters:", 'environment has empty section "parameters"'),
            ("- 1", "The environment is not a valid YAML mapping data type."),
            (
                "parameter_merge_strategies:",
                'environment has empty section "parameter_merge_strategies"',
            ),
        ],
    )
    def test_bad_files(self, text: str, message: str) -> None:
        with pytest.raises(InvalidEnvironment) as exc:
            merge([text])
        assert str(exc.value) == message

    def test_empty_file(self) -> None:
        assert merged_params([""]) == {}

    def test_missing_file(self) -> None:
        with pytest.raises(InvalidEnvironment):
            merge_environments(["nope.yaml"], {}, request_environment(), TYPES)

    def test_default_loader_and_loaded_mappings(self) -> None:
        files = {"a.yaml": "parameters:\n  s: a\n", "b.yaml": {"parameters": {"s": "b"}}}
        env = merge_environments(["a.yaml", "b.yaml"], files, request_environment(), TYPES)
        assert env["parameters"] == {"s": "b"}

    def test_no_environment_files(self) -> None:
        env = request_environment({"parameters": {"s": "x"}})
        assert merge_environments([], {}, env, TYPES) is env
        assert env["parameters"] == {"s": "x"}


class TestRequestEnvironment:
    def test_inline_environment_and_parameters(self) -> None:
        env = request_environment(
            {"parameters": {"a": 1, "b": 2}, "resource_registry": {"X": "Y"}}, {"b": 3}
        )
        assert env == {
            "parameters": {"a": 1, "b": 3},
            "resource_registry": {"X": "Y"},
            "parameter_defaults": {},
            "encrypted_param_names": [],
            "event_sinks": [],
        }

    def test_text_environment(self) -> None:
        env = request_environment("parameters: {a: 1}", load=yaml.safe_load)
        assert env["parameters"] == {"a": 1}

    def test_inline_ignored_with_environment_files(self) -> None:
        env = request_environment({"parameters": {"a": 1}}, {"b": 2}, ["f.yaml"])
        assert env["parameters"] == {"b": 2}

    def test_bad_inline_environment(self) -> None:
        with pytest.raises(InvalidEnvironment, match='wrong section "foo"'):
            request_environment({"foo": {}})


class TestPatch:
    @pytest.fixture()
    def global_env(self) -> Environment:
        return make_global_environment({"OS::Heat::None": 1, "OS::Nova::Server": 2})

    def test_layering(self, global_env: Environment) -> None:
        stored = {
            "parameters": {"a": 1, "b": 2, "c": 3, "gone": 4},
            "parameter_defaults": {"d": 1},
            "resource_registry": {"X::A": "OS::Heat::None", "X::B": "b.yaml", "resources": {}},
            "event_sinks": [],
            "encrypted_param_names": [],
        }
        new = request_environment(
            {
                "parameters": {"b": 20},
                "parameter_defaults": {"e": 2},
                "resource_registry": {"X::B": None, "X::C": "OS::Nova::Server"},
            }
        )
        env = patch_environment(stored, new, {"a", "b", "c"}, ["c"], global_env=global_env)
        assert env.params == {"a": 1, "b": 20}
        assert env.param_defaults == {"d": 1, "e": 2}
        assert env.user_env_as_dict()["resource_registry"] == {
            "X::A": "OS::Heat::None",
            "X::C": "OS::Nova::Server",
            "resources": {},
        }
        # The stored document is left alone.
        assert stored["parameters"] == {"a": 1, "b": 2, "c": 3, "gone": 4}

    def test_parameter_defaults_kept_for_undeclared(self, global_env: Environment) -> None:
        stored = {"parameters": {}, "parameter_defaults": {"nested_only": 1}}
        env = patch_environment(stored, request_environment(), ["a"], global_env=global_env)
        assert env.param_defaults == {"nested_only": 1}
