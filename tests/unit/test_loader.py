"""Reading template and environment text: Heat's rules, plus Hearth's safety bounds.

Expected messages were checked against Heat 27's ``template_format`` / ``environment_format``.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from hearth.common.errors import InvalidEnvironment, RequestLimitExceeded, TemplateParseError
from hearth.template import loader
from hearth.template.context import Limits
from hearth.template.loader import (
    check_environment_sections,
    check_template_size,
    load_environment_text,
    load_template_text,
    parse_template_text,
)

HOT = "heat_template_version: 2013-05-23\n"


def _parse_error(text: str, **kwargs: Any) -> str:
    with pytest.raises(TemplateParseError) as info:
        load_template_text(text, **kwargs)
    return str(info.value)


# --- formats ------------------------------------------------------------------------------------


def test_json_template() -> None:
    text = '{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"a": {"Type": "T"}}}'
    assert load_template_text(text) == {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"a": {"Type": "T"}},
    }


def test_json_duplicate_keys_last_wins_and_nan_accepted() -> None:
    data = load_template_text('{"heat_template_version": "2013-05-23", "a": 1, "a": NaN}')
    assert data["a"] != data["a"]  # NaN


def test_yaml_template() -> None:
    data = load_template_text(HOT + "resources:\n  r:\n    type: OS::Heat::None\n")
    assert data == {
        "heat_template_version": "2013-05-23",
        "resources": {"r": {"type": "OS::Heat::None"}},
    }


def test_yaml_timestamps_stay_strings() -> None:
    data = load_template_text(
        HOT
        + "d: 2013-05-23\n"
        + "e: 2001-12-14 21:59:43.10 -5\n"
        + "x: !!timestamp 2001-12-14t21:59:43.10-05:00\n"
    )
    assert data["heat_template_version"] == "2013-05-23"
    assert data["d"] == "2013-05-23"
    assert data["e"] == "2001-12-14 21:59:43.10 -5"
    assert data["x"] == "2001-12-14t21:59:43.10-05:00"


def test_timestamps_dropped_by_the_resolver_not_post_processing() -> None:
    for cls in (loader._FastLoader, loader._PureLoader):
        tags = {tag for entries in cls.yaml_implicit_resolvers.values() for tag, _ in entries}
        assert "tag:yaml.org,2002:timestamp" not in tags
        assert "tag:yaml.org,2002:int" in tags


def test_fast_loader_uses_libyaml_when_available() -> None:
    import yaml

    if hasattr(yaml, "CSafeLoader"):
        assert issubclass(loader._FastLoader, yaml.CSafeLoader)


def test_yaml_1_1_scalars_as_heat_reads_them() -> None:
    data = load_template_text(
        HOT + "f: yes\ng: 0o17\nh: 1_000\ni: 0x1f\nj: .inf\nk: 1:20\nl: !!binary aGVsbG8=\nn: ~\n"
    )
    assert data["f"] is True
    assert data["g"] == "0o17"
    assert data["h"] == 1000
    assert data["i"] == 31
    assert data["j"] == float("inf")
    assert data["k"] == 80
    assert data["l"] == b"hello"
    assert data["n"] is None


def test_anchors_aliases_and_merge_keys() -> None:
    data = load_template_text(
        HOT + "base: &b {x: 1}\nc:\n  <<: *b\n  y: 2\nd: [&a 1, *a]\ne: *b\n"
    )
    assert data["c"] == {"x": 1, "y": 2}
    assert data["d"] == [1, 1]
    assert data["e"] == {"x": 1}


def test_utf8_bom_and_bytes() -> None:
    assert load_template_text("\ufeff" + HOT) == {"heat_template_version": "2013-05-23"}
    assert load_template_text(HOT.encode()) == {"heat_template_version": "2013-05-23"}
    assert "Error parsing template" in _parse_error(b"\xff\xfe")  # type: ignore[arg-type]


# --- shape --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["null", "[1]", "123", '"str"', "[1, 2]\n", "- a\n"])
def test_not_a_mapping(text: str) -> None:
    assert _parse_error(text) == "The template is not a JSON object or YAML mapping."


@pytest.mark.parametrize("text", ["", "~", "---\n", "a: b", "{1: 2}"])
def test_version_missing(text: str) -> None:
    # An empty YAML document is an empty mapping (but JSON null is not a mapping).
    assert _parse_error(text) == "Template format version not found."


def test_version_keys_any_value() -> None:
    for key in ("heat_template_version", "AWSTemplateFormatVersion", "HeatTemplateFormatVersion"):
        assert load_template_text(f"{key}: 1\n") == {key: 1}


def test_version_check_optional_and_simple_parse() -> None:
    assert load_template_text("a: 1", require_version=False) == {"a": 1}
    assert parse_template_text("") == {}
    assert parse_template_text("a: 1") == {"a": 1}
    with pytest.raises(TemplateParseError, match="not a JSON object or YAML mapping"):
        parse_template_text("[1]")


# --- size ---------------------------------------------------------------------------------------


def test_size_limit_exact_heat_message() -> None:
    with pytest.raises(RequestLimitExceeded) as info:
        load_template_text("x" * 524289)
    assert str(info.value) == (
        "Request limit exceeded: Template size (524289 bytes) exceeds maximum allowed size "
        "(524288 bytes)."
    )
    assert info.value.http_status == 400
    # Exactly the limit is allowed (then it fails on its shape).
    assert _parse_error("x" * 524288) == "The template is not a JSON object or YAML mapping."


def test_size_limit_configurable_counts_characters() -> None:
    limits = Limits(max_template_size=40)
    load_template_text(HOT, limits)
    with pytest.raises(RequestLimitExceeded, match=r"\(41 bytes\).*\(40 bytes\)"):
        load_template_text(HOT + "a: " + "x" * 4, limits)
    check_template_size("é" * 40, limits)  # characters, not UTF-8 bytes, as Heat counts


# --- syntax errors (Heat's text, from PyYAML's pure loader) --------------------------------------


def test_syntax_error_names_line_and_column() -> None:
    assert _parse_error("a: [1, 2\nb: c") == (
        "Error parsing template [root stack] while parsing a flow sequence\n"
        '  in "<unicode string>", line 1, column 4:\n'
        "    a: [1, 2\n"
        "       ^\n"
        "expected ',' or ']', but got ':'\n"
        '  in "<unicode string>", line 2, column 2:\n'
        "    b: c\n"
        "     ^"
    )


def test_syntax_error_names_the_url() -> None:
    message = _parse_error("a: b: c", url="http://x/t.yaml")
    assert message == (
        "Error parsing template http://x/t.yaml mapping values are not allowed here\n"
        '  in "<unicode string>", line 1, column 5:\n'
        "    a: b: c\n"
        "        ^"
    )


def test_tab_error() -> None:
    message = _parse_error("a:\n\tb: 1")
    assert message.startswith(
        "Error parsing template [root stack] while scanning for the next token\n"
        "found character '\\t' that cannot start any token\n"
        '  in "<unicode string>", line 2, column 1:'
    )


def test_composer_errors_like_pyyaml() -> None:
    assert _parse_error("x: *y") == (
        "Error parsing template [root stack] found undefined alias 'y'\n"
        '  in "<unicode string>", line 1, column 4:\n'
        "    x: *y\n"
        "       ^"
    )
    assert _parse_error("x: &y 1\ny: &y 2") == (
        "Error parsing template [root stack] found duplicate anchor 'y'; first occurrence\n"
        '  in "<unicode string>", line 1, column 4:\n'
        "    x: &y 1\n"
        "       ^\n"
        "second occurrence\n"
        '  in "<unicode string>", line 2, column 4:\n'
        "    y: &y 2\n"
        "       ^"
    )
    assert _parse_error("a: 1\n---\nb: 2") == (
        "Error parsing template [root stack] expected a single document in the stream\n"
        '  in "<unicode string>", line 1, column 1:\n'
        "    a: 1\n"
        "    ^\n"
        "but found another document\n"
        '  in "<unicode string>", line 2, column 1:\n'
        "    ---\n"
        "    ^"
    )


def test_constructor_errors() -> None:
    assert _parse_error("a: !foo x") == (
        "Error parsing template [root stack] could not determine a constructor for the tag "
        "'!foo'\n"
        '  in "<unicode string>", line 1, column 4:\n'
        "    a: !foo x\n"
        "       ^"
    )
    assert "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object" in (
        _parse_error("a: !!python/object:os.system x")
    )
    assert "found unhashable key" in _parse_error("? [a]\n: b\n")


def test_control_character() -> None:
    assert _parse_error("a: \x00").startswith(
        "Error parsing template [root stack] unacceptable character #x0000: "
        "special characters are not allowed\n"
        '  in "<unicode string>", position 3'
    )


def test_value_error_while_constructing_is_a_parse_error() -> None:
    # Python refuses to convert an int with this many digits; no traceback, with a location.
    message = _parse_error("a: " + "9" * 5000)
    assert message.startswith("Error parsing template [root stack]: Exceeds the limit")
    assert message.endswith("at line 1, column 4")
    assert "\n" not in message


# --- safety -------------------------------------------------------------------------------------


def _billion_laughs() -> str:
    text = HOT + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    previous = "a"
    for name in "bcdefghi":
        text += f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    return text


def _timed_error(text: str, limits: Limits | None = None) -> str:
    start = time.perf_counter()
    with pytest.raises(TemplateParseError) as info:
        load_template_text(text, limits)
    assert time.perf_counter() - start < 0.5
    return str(info.value)


def test_billion_laughs_refused_fast() -> None:
    message = _timed_error(_billion_laughs())
    assert message == (
        "Error parsing template [root stack]: the document has more than 200000 nodes once "
        "YAML aliases are expanded at line 7, column 11"
    )


def test_billion_laughs_in_environment_refused_fast() -> None:
    text = _billion_laughs().replace(HOT, "parameters:\n").replace("\n", "\n  ")
    start = time.perf_counter()
    with pytest.raises(TemplateParseError, match="once YAML aliases are expanded"):
        load_environment_text(text)
    assert time.perf_counter() - start < 0.5


def test_alias_expansion_counts_against_the_node_limit() -> None:
    text = HOT + "a: &a [1, 2, 3, 4]\nb: [*a, *a, *a]\n"
    # root 1 + version 2 + "a" and its list 1 + 1 + 4, + "b" and its list 1 + 1 + 3 * 5 = 26
    assert load_template_text(text, Limits(max_yaml_nodes=26))["b"] == [[1, 2, 3, 4]] * 3
    with pytest.raises(TemplateParseError, match="more than 25 nodes once YAML aliases"):
        load_template_text(text, Limits(max_yaml_nodes=25))


def test_plain_node_limit() -> None:
    text = HOT + "a: [1, 2, 3]\n"
    # root, 2 keys, version, list, 3 items
    assert load_template_text(text, Limits(max_yaml_nodes=8))
    with pytest.raises(TemplateParseError, match=r"more than 7 nodes at line 2, column 11$"):
        load_template_text(text, Limits(max_yaml_nodes=7))


def test_recursive_alias_refused() -> None:
    assert _timed_error("a: &a [*a]") == (
        "Error parsing template [root stack]: alias *a refers to a node that contains it "
        "at line 1, column 8"
    )
    assert "contains it" in _timed_error("a: &a {b: {c: *a}}")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[" * 100_000 + "]" * 100_000, "line 1, column 65"),
        ("- " * 100_000 + "x", "line 1, column 129"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "line 1, column 321"),
        ('{"a":\n' * 100_000 + "1" + "}" * 100_000, "line 65, column 1"),
    ],
)
def test_deep_nesting_refused_fast(text: str, where: str) -> None:
    # Heat's libyaml composer recurses in C on these (the process crashes).
    message = _timed_error(text, Limits(max_template_size=10**7))
    assert message == (
        "Error parsing template [root stack]: lists and maps are nested more than 64 levels "
        f"deep at {where}"
    )


def test_nesting_limit_boundary_yaml_and_json() -> None:
    ok_yaml = HOT + "a: " + "[" * 63 + "]" * 63
    assert load_template_text(ok_yaml)  # root map + 63 lists = 64 levels
    assert "nested more than 64" in _timed_error(HOT + "a: " + "[" * 64 + "]" * 64)
    ok_json = '{"heat_template_version": 1, "a": ' + "[" * 63 + "]" * 63 + "}"
    assert load_template_text(ok_json)
    bad_json = '{"heat_template_version": 1, "a": ' + "[" * 64 + "]" * 64 + "}"
    assert _timed_error(bad_json) == (
        "Error parsing template [root stack]: lists and maps are nested more than 64 levels "
        "deep at line 1, column 98"
    )


def test_json_nesting_checked_when_not_yaml() -> None:
    # Valid JSON that PyYAML cannot read (a flow key over 1024 characters), nested too
    # deeply: still refused, without a location.
    text = '{"heat_template_version": 1, "' + "k" * 1100 + '": ' + "[" * 70 + "]" * 70 + "}"
    assert _timed_error(text) == (
        "Error parsing template [root stack]: lists and maps are nested more than 64 levels deep"
    )


def test_nesting_through_aliases_counts() -> None:
    text = HOT + "a: &a [[[1]]]\nb: [[*a]]\n"
    assert load_template_text(text, Limits(max_nesting_depth=6))["b"] == [[[[[1]]]]]
    with pytest.raises(TemplateParseError, match="more than 5 levels deep \\(through an alias\\)"):
        load_template_text(text, Limits(max_nesting_depth=5))


def test_alias_chain_nesting_refused() -> None:
    lines = [HOT, "a0: &a0 [x]\n"]
    for i in range(1, 200):
        lines.append(f"a{i}: &a{i} [*a{i - 1}]\n")
    assert "levels deep (through an alias)" in _timed_error("".join(lines))


def test_large_ordinary_template_loads() -> None:
    parts = [HOT, "resources:\n"]
    for i in range(1500):
        parts.append(
            f"  server_{i}:\n    type: OS::Nova::Server\n    properties:\n"
            f"      name: {{get_param: p}}\n      networks: [{{port: {{get_resource: p{i}}}}}]\n"
        )
    data = load_template_text("".join(parts))
    assert len(data["resources"]) == 1500


# --- environments -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, "", "~", "---\n"])
def test_empty_environment(text: str | None) -> None:
    assert load_environment_text(text) == {}


def test_environment_sections() -> None:
    text = (
        "parameters: {a: 1}\n"
        "parameter_defaults: {d: 2013-05-23}\n"
        "resource_registry: {}\n"
        "event_sinks: []\n"
        "encrypted_param_names: []\n"
        "parameter_merge_strategies: {}\n"
    )
    assert load_environment_text(text) == {
        "parameters": {"a": 1},
        "parameter_defaults": {"d": "2013-05-23"},
        "resource_registry": {},
        "event_sinks": [],
        "encrypted_param_names": [],
        "parameter_merge_strategies": {},
    }
    assert load_environment_text('{"parameters": {"a": 1}}') == {"parameters": {"a": 1}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "The environment is not a valid YAML mapping data type."),
        ('"str"', "The environment is not a valid YAML mapping data type."),
        ("parameters:\n", 'environment has empty section "parameters"'),
        ("foo: 1", 'environment has wrong section "foo"'),
        ("1: 2", 'environment has wrong section "1"'),
        ("parameters: {}\nfoo: ~", 'environment has wrong section "foo"'),
        ("foo: ~\nparameters: ~", 'environment has wrong section "foo"'),
        ("parameters: ~\nfoo: 1", 'environment has empty section "parameters"'),
    ],
)
def test_environment_shape_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidEnvironment) as info:
        load_environment_text(text)
    assert str(info.value) == message


def test_environment_syntax_error_is_pyyaml_text() -> None:
    with pytest.raises(TemplateParseError) as info:
        load_environment_text("parameters: [1\n")
    assert str(info.value) == (
        "while parsing a flow sequence\n"
        '  in "<unicode string>", line 1, column 13:\n'
        "    parameters: [1\n"
        "                ^\n"
        "expected ',' or ']', but got '<stream end>'\n"
        '  in "<unicode string>", line 2, column 1:\n'
        "    \n"
        "    ^"
    )
    with pytest.raises(TemplateParseError, match="expected a single document"):
        load_environment_text("a: 1\n---\nb: 2")


def test_environment_nesting_refused() -> None:
    with pytest.raises(TemplateParseError) as info:
        load_environment_text("parameters: " + "[" * 100_000 + "]" * 100_000)
    assert str(info.value) == (
        "Error parsing environment: lists and maps are nested more than 64 levels deep "
        "at line 1, column 76"
    )


def test_check_environment_sections_for_dicts() -> None:
    assert check_environment_sections({"parameters": {}}) == {"parameters": {}}
    with pytest.raises(InvalidEnvironment, match='wrong section "x"'):
        check_environment_sections({"x": 1})


def test_merge_key_bomb_refused_fast() -> None:
    text = HOT + "a: &a {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v}\n"
    previous = "a"
    for name in "bcdefghij":
        text += f"{name}: &{name} {{<<: [" + ", ".join([f"*{previous}"] * 9) + "]}\n"
        previous = name
    assert "once YAML aliases are expanded" in _timed_error(text)
