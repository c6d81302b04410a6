"""Hypothesis strategies for what users send: templates, environments, parameters, bodies.

Templates are drawn from Hearth's own tables (every template version with its sections and
functions, every resource type with its property schema), so a function or type added later is
fuzzed without touching this file. Most templates are valid-ish (the right sections, names that
refer to each other, properties of about the right type) so that they reach deep code; the rest
are hostile: deep nesting, huge numbers, odd types, functions given anything, YAML tags,
unicode.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from hypothesis import strategies as st

from hearth.resources.builtin import resource_mapping
from hearth.resources.schema import PropertySchema
from hearth.template.versions import ALL_VERSIONS, TemplateVersion
from tests.fuzz.harness import RawJSON

RESOURCE_TYPES = resource_mapping()
TYPE_NAMES = sorted(RESOURCE_TYPES)
PARAM_TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")
CFN_RESOURCE_KEYS = {"type": "Type", "properties": "Properties", "depends_on": "DependsOn",
                     "metadata": "Metadata", "condition": "Condition",
                     "deletion_policy": "DeletionPolicy", "update_policy": "UpdatePolicy"}
BILLION_LAUGHS = "l0: &l0 [x, x, x, x, x, x, x, x]\n" + "".join(
    f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 8)}]\n" for n in range(1, 7))
# Names the pieces of a template refer to one another by.
NAMES = ("a", "b", "c", "r0", "p0", "out", "x y", "ü", "")
NUMBERS = (0, 1, -1, 2**31, 2**63, 2**70, 10**9, 1e308, 0.5, float("inf"), float("nan"))
ODD_STRINGS = ("", " ", "\x00", "\u202e", "%s", "{}", "$x", "%(x)s", "../../etc/passwd",
               "a" * 2000, "\ud800", "null", "1e999", "[", "ö" * 50)

def sometimes(percent: int) -> st.SearchStrategy[bool]:
    """True about ``percent`` times in a hundred (False is what a failing case shrinks to)."""
    return st.sampled_from([False] * (100 - percent) + [True] * percent)


def mostly(good: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` about nine times in ten, else ``odd`` (a value of the wrong kind, say)."""
    return sometimes(10).flatmap(lambda is_odd: odd if is_odd else good)


names = st.sampled_from(NAMES) | st.text(max_size=8)
odd_numbers = st.sampled_from(NUMBERS) | st.integers() | st.floats()
strings = st.sampled_from(ODD_STRINGS) | st.text(max_size=30)
scalars = st.none() | st.booleans() | odd_numbers | strings


def plain_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON-like data without functions."""
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=4),
        max_leaves=max_leaves,
    )


def deep_nesting() -> st.SearchStrategy[RawJSON]:
    """Lists, maps or a function nested hundreds deep (past the YAML loader's limit)."""
    shapes = {
        "list": ("[", "]"),
        "map": ('{"k": ', "}"),
        "if": ('{"if": [{"equals": [1, 1]}, ', ', "no"]}'),
        "Fn::If": ('{"Fn::If": ["c", ', ', "no"]}'),
    }

    def build(args: tuple[int, str]) -> RawJSON:
        depth, kind = args
        before, after = shapes[kind]
        return RawJSON(before * depth + '"leaf"' + after * depth, f"{kind} x{depth}")

    return st.tuples(st.integers(50, 1500), st.sampled_from(sorted(shapes))).map(build)


@st.composite
def function_call(draw: st.DrawFn, version: TemplateVersion, inner: st.SearchStrategy[Any]) -> Any:
    """One function of ``version`` (or a stranger), with arguments right, nearly or wholly wrong."""
    known = sorted(version.function_keys)
    if version.condition_function_keys:
        known += sorted(version.condition_function_keys)
    name = draw(st.sampled_from(known) | st.sampled_from(["Fn::Nope", "get_params", "yaql"]))
    args = draw(st.one_of(
        _shaped_arguments(name, inner),
        inner,
        st.lists(inner, max_size=4),
        st.dictionaries(names, inner, max_size=3),
    ))
    return {name: args}


def _shaped_arguments(name: str, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Arguments of about the shape the function wants, so it gets past its first check."""
    ref = st.sampled_from(NAMES)
    shapes: dict[str, st.SearchStrategy[Any]] = {
        "get_param": ref | st.lists(ref | st.integers(-2, 3), min_size=1, max_size=3),
        "Ref": ref,
        "get_resource": ref,
        "get_attr": st.lists(ref | inner, min_size=1, max_size=4),
        "Fn::GetAtt": st.lists(ref, min_size=2, max_size=2),
        "str_replace": st.fixed_dictionaries(
            {"template": strings | inner, "params": st.dictionaries(strings, inner, max_size=3)}),
        "str_replace_strict": st.fixed_dictionaries(
            {"template": strings, "params": st.dictionaries(strings, inner, max_size=3)}),
        "list_join": st.tuples(strings, st.lists(inner, max_size=4)).map(list),
        "Fn::Join": st.tuples(strings, st.lists(inner, max_size=4)).map(list),
        "Fn::Select": st.tuples(odd_numbers | strings, inner).map(list),
        "Fn::Split": st.tuples(strings, strings).map(list),
        "str_split": st.lists(strings | odd_numbers, min_size=2, max_size=3),
        "repeat": st.fixed_dictionaries(
            {"for_each": st.dictionaries(strings, st.lists(inner, max_size=4), max_size=3),
             "template": inner}, optional={"permutations": st.booleans()}),
        "digest": st.tuples(st.sampled_from(["md5", "sha512", "nope", ""]), strings).map(list),
        "map_merge": st.lists(inner, max_size=3),
        "map_replace": st.tuples(inner, st.fixed_dictionaries(
            {}, optional={"keys": inner, "values": inner})).map(list),
        "yaql": st.fixed_dictionaries(
            {"expression": st.sampled_from(
                ["$.data", "$.data.x.len()", "regex('(a+)+$').matches('aaaaaaaaaaaaaaaaaaab')",
                 "pow(10, 100000)", "range(100000000).sum()", "let(x => $.data) -> $x",
                 "dict($.data)", "'a' * 100000000", "$"]) | strings,
             "data": inner}),
        "if": st.lists(inner, min_size=3, max_size=3),
        "Fn::If": st.lists(inner, min_size=3, max_size=3),
        "equals": st.lists(inner, min_size=2, max_size=2),
        "Fn::Equals": st.lists(inner, min_size=2, max_size=2),
        "contains": st.tuples(inner, st.lists(inner, max_size=3)).map(list),
        "filter": st.tuples(st.lists(inner, max_size=3), st.lists(inner, max_size=3)).map(list),
        "make_url": st.dictionaries(
            st.sampled_from(["scheme", "host", "port", "path", "query", "fragment", "x"]),
            inner, max_size=6),
        "list_concat": st.lists(st.lists(inner, max_size=3) | inner, max_size=3),
        "list_concat_unique": st.lists(st.lists(inner, max_size=3) | inner, max_size=3),
        "get_file": st.sampled_from(["f.yaml", "missing", "file:///etc/passwd", ""]),
        "Fn::FindInMap": st.lists(ref, min_size=3, max_size=3),
        "Fn::Base64": strings,
        "Fn::MemberListToMap": st.tuples(strings, strings, st.lists(strings, max_size=3)).map(
            list),
    }
    return shapes.get(name, inner)


def values(version: TemplateVersion, max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Template values: data and function calls of ``version``, nested a little."""
    return st.recursive(
        scalars,
        lambda inner: (st.lists(inner, max_size=3)
                       | st.dictionaries(names, inner, max_size=3)
                       | function_call(version, inner)),
        max_leaves=max_leaves,
    )


def property_value(schema: PropertySchema, version: TemplateVersion) -> st.SearchStrategy[Any]:
    """Mostly of the schema's type (with its edge values), sometimes anything at all."""
    typed: dict[str, st.SearchStrategy[Any]] = {
        "Integer": st.integers(-3, 5) | odd_numbers,
        "Number": st.integers(-3, 5) | odd_numbers,
        "String": strings,
        "Boolean": st.booleans() | st.sampled_from(["yes", "false", "maybe"]),
        "List": st.lists(scalars, max_size=3),
        "Map": st.dictionaries(names, scalars, max_size=3),
        "Json": plain_values(6),
        "Any": plain_values(6),
    }
    if schema.type == "Map" and schema.map_schema:
        typed["Map"] = st.fixed_dictionaries({}, optional={
            key: property_value(sub, version) for key, sub in schema.map_schema.items()})
    if schema.type == "List" and schema.item_schema is not None:
        typed["List"] = st.lists(property_value(schema.item_schema, version), max_size=3)
    return st.one_of(typed.get(schema.type, scalars), values(version, 6))


@st.composite
def resource(draw: st.DrawFn, version: TemplateVersion, resource_names: list[str]) -> Any:
    type_name = draw(st.sampled_from(TYPE_NAMES) | strings)
    cls = RESOURCE_TYPES.get(type_name)
    if cls is not None and draw(st.booleans()):
        schema = cls.properties_schema
        chosen = draw(st.lists(st.sampled_from(sorted(schema)), max_size=4, unique=True)) \
            if schema else []
        properties: Any = {key: draw(property_value(schema[key], version)) for key in chosen}
    else:
        properties = draw(st.dictionaries(names, values(version, 6), max_size=3) | scalars)
    body: dict[str, Any] = {"type": type_name, "properties": properties}
    optional: dict[str, st.SearchStrategy[Any]] = {
        "depends_on": mostly(st.sampled_from(resource_names), st.lists(names, max_size=2)
                             | scalars) if resource_names else names,
        "metadata": values(version, 4),
        "deletion_policy": mostly(st.sampled_from(list(version.deletion_policies)),
                                  st.just("nope")),
        "update_policy": plain_values(4),
    }
    if version.supports_conditions or draw(sometimes(5)):
        optional["condition"] = names | st.booleans() | values(version, 3)
        optional["external_id"] = strings
    body.update(draw(st.fixed_dictionaries({}, optional=optional)))
    if version.kind == "hot":
        return body
    return {CFN_RESOURCE_KEYS.get(key, key): value for key, value in body.items()}


def parameter(version: TemplateVersion) -> st.SearchStrategy[Any]:
    constraint = st.one_of(
        st.fixed_dictionaries({"length": st.fixed_dictionaries(
            {}, optional={"min": odd_numbers, "max": odd_numbers})}),
        st.fixed_dictionaries({"range": st.fixed_dictionaries(
            {}, optional={"min": odd_numbers, "max": odd_numbers})}),
        st.fixed_dictionaries({"allowed_values": st.lists(scalars, max_size=3) | scalars}),
        st.fixed_dictionaries({"allowed_pattern": st.sampled_from(
            ["(a+)+$", "[a-z]*", "(", "\\", ".*" * 50, "(x|x|x)*y"]) | strings}),
        st.fixed_dictionaries({"modulo": st.fixed_dictionaries(
            {}, optional={"step": odd_numbers, "offset": odd_numbers})}),
        st.fixed_dictionaries({"custom_constraint": strings}),
        plain_values(3),
    )
    hot = version.kind == "hot"
    return st.fixed_dictionaries(
        {("type" if hot else "Type"): st.sampled_from((*PARAM_TYPES, "String", "Number"))
         | strings},
        optional={
            ("default" if hot else "Default"): plain_values(4) | st.just("a" * 40 + "!"),
            ("constraints" if hot else "AllowedPattern"): st.lists(constraint, max_size=3)
            | scalars,
            ("hidden" if hot else "NoEcho"): st.booleans() | strings,
            ("label" if hot else "Description"): strings,
            ("immutable" if hot else "MinLength"): st.booleans() | odd_numbers,
        },
    )


@st.composite
def template_of(draw: st.DrawFn, version: TemplateVersion) -> dict[str, Any]:
    """A template of ``version``: sections it knows (and sometimes not), cross-referencing."""
    resource_names = draw(st.lists(st.sampled_from(NAMES) | names, max_size=4, unique=True))
    param_names = draw(st.lists(st.sampled_from(NAMES) | names, max_size=3, unique=True))
    hot = version.kind == "hot"
    tmpl: dict[str, Any] = {version.key: draw(
        mostly(st.just(version.value), st.sampled_from(["2099-01-01", 2013, None])))}
    sections = {
        ("parameters" if hot else "Parameters"): {
            n: draw(mostly(parameter(version), scalars)) for n in param_names},
        ("resources" if hot else "Resources"): {
            n: draw(mostly(resource(version, resource_names), scalars))
            for n in resource_names},
        ("outputs" if hot else "Outputs"): draw(st.dictionaries(names, st.fixed_dictionaries(
            {("value" if hot else "Value"): values(version)},
            optional={("condition" if hot else "Condition"): names | values(version, 3)})
            | scalars, max_size=3)),
    }
    if version.supports_conditions:
        sections["conditions" if hot else "Conditions"] = draw(
            st.dictionaries(names, values(version, 5), max_size=3))
    if not hot:
        sections["Mappings"] = draw(st.dictionaries(names, plain_values(5), max_size=2))
    if hot and draw(st.booleans()):
        sections["parameter_groups"] = draw(plain_values(5))
    for key, value in sections.items():
        # leave a section out, keep it, or make it a thing of the wrong kind
        if draw(sometimes(5)):
            continue
        tmpl[key] = draw(scalars | st.lists(scalars, max_size=2)) if draw(sometimes(5)) else value
    if draw(sometimes(5)):
        tmpl[draw(names)] = draw(plain_values(3))
    return tmpl


versions = st.sampled_from(ALL_VERSIONS)
templates = versions.flatmap(template_of)

# YAML that a loader must refuse or bound: tags of every sort, aliases, bombs, broken syntax.
HOSTILE_YAML = (
    "heat_template_version: 2018-08-31\nresources: !!binary aGVsbG8=\n",
    "heat_template_version: 2018-08-31\nresources: !!set {a, b}\n",
    "heat_template_version: 2018-08-31\nresources: !!python/object/apply:os.system ['true']\n",
    "heat_template_version: !!timestamp 2018-08-31\n",
    "heat_template_version: 2018-08-31\nparameters: !!omap [a: 1]\n",
    "heat_template_version: 2018-08-31\nresources: {a: &a [*a]}\n",
    # a billion laughs: six levels of aliases, each eight times the one below
    BILLION_LAUGHS,
    "heat_template_version: 2018-08-31\noutputs: {o: {value: *l6}}\n" + BILLION_LAUGHS,
    "heat_template_version: 2018-08-31\nresources: {r: {type: OS::Heat::None}\n",
    "heat_template_version: 2018-08-31\n\tresources: {}\n",
    "--- a\n--- b\n",
    "heat_template_version: 2018-08-31\nresources:\n  r: !<tag:yaml.org,2002:str> x\n",
    "heat_template_version: 2018-08-31\nresources: !Ref x\n",
    "heat_template_version: 2018-08-31\nresources: {? [a, b] : c}\n",
    "heat_template_version: 2018-08-31\nresources: {1.5: {type: OS::Heat::None}}\n",
    "heat_template_version: 2018-08-31\ndescription: \"\\ud800\"\n",
    "\ufeffheat_template_version: 2018-08-31\n",
    "[" * 2000 + "]" * 2000,
    "{" * 500,
    "",
    "null",
    "123",
)


def as_yaml(value: Any) -> str:
    """``value`` as YAML text (JSON, which YAML reads, for what YAML cannot represent)."""
    try:
        return yaml.safe_dump(value, allow_unicode=True)
    except yaml.YAMLError:
        return json.dumps(value)


hostile_templates: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(HOSTILE_YAML),
    deep_nesting().map(lambda d: {"heat_template_version": "2018-08-31",
                                  "outputs": {"o": {"value": d}}}),
    deep_nesting().map(lambda d: {"heat_template_version": "2018-08-31", "resources": {
        "r": {"type": "OS::Heat::Value", "properties": {"value": d}}}}),
    deep_nesting(),
    plain_values(20),
    templates.map(as_yaml),
    st.text(max_size=200),
)
# Most templates are generated ones (valid-ish); one in ten is hostile.
any_template = mostly(templates, hostile_templates)


def environments() -> st.SearchStrategy[Any]:
    registry = st.dictionaries(
        st.sampled_from(["OS::Fuzz::Thing", "My::Type", "resources", "*", "OS::Heat::None"])
        | strings,
        st.sampled_from([*TYPE_NAMES, "f.yaml", "http://127.0.0.1:1/x.yaml", "missing.yaml"])
        | plain_values(4),
        max_size=3)
    env = st.fixed_dictionaries({}, optional={
        "parameters": st.dictionaries(names, plain_values(3), max_size=3),
        "parameter_defaults": st.dictionaries(names, plain_values(3), max_size=3),
        "resource_registry": registry,
        "event_sinks": plain_values(3),
        "encrypted_param_names": plain_values(2),
        "parameter_merge_strategies": st.dictionaries(
            names, st.sampled_from(["merge", "deep_merge", "overwrite", "x"]), max_size=2),
    }) | st.fixed_dictionaries({"junk": plain_values(3)})
    return mostly(env | env.map(as_yaml), scalars)


files = mostly(st.dictionaries(
    st.sampled_from(["f.yaml", "nested.yaml", "a/b.txt", ""]) | strings,
    templates.map(as_yaml) | strings | plain_values(3),
    max_size=3,
), scalars)

parameters = mostly(st.dictionaries(names, plain_values(3), max_size=4), scalars)


@st.composite
def stack_bodies(draw: st.DrawFn, *, named: bool) -> dict[str, Any]:
    """A create/preview/validate/update body; now and then with a part of the wrong type."""
    body: dict[str, Any] = {"template": draw(any_template)}
    if named:
        body["stack_name"] = draw(st.sampled_from(["fuzz"]) | st.from_regex(
            r"\Afz[a-z0-9]{1,8}\Z") | strings)
    # (part, its strategy, how often in a hundred bodies)
    parts: tuple[tuple[str, st.SearchStrategy[Any], int], ...] = (
        ("environment", environments(), 40),
        ("files", files, 25),
        ("parameters", parameters, 40),
        ("timeout_mins", odd_numbers | strings, 5),
        ("disable_rollback", st.booleans() | strings, 10),
        ("tags", strings | st.lists(strings, max_size=3), 10),
        ("environment_files", st.lists(strings, max_size=2) | scalars, 3),
        ("adopt_stack_data", plain_values(4), 2),
        ("template_url", st.sampled_from(
            ["http://127.0.0.1:1/t.yaml", "http://[::1]/t", "file:///etc/passwd", "ftp://x/",
             "http://169.254.169.254/latest/meta-data", "not a url", ""]) | scalars, 3),
    )
    for key, strategy, percent in parts:
        if draw(sometimes(percent)):
            body[key] = draw(strategy)
    if draw(sometimes(5)):
        body[draw(strings)] = draw(plain_values(2))
    return body


# Templates meant to be valid, so that a lifecycle case gets past validation and exercises the
# engine: create, update (in place and replacing), actions, snapshot and delete of real stacks.
VALID_VERSIONS = [v for v in ALL_VERSIONS if v.kind == "hot"]
# Names that stay put across a stack's create and its update, so an update changes and replaces
# (parameters and resources may not share a name).
STABLE_NAMES = ("a", "b", "c", "d")
PARAM_NAMES = ("p0", "p1", "x y", "ü")
short_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)


def _valid_value(version: TemplateVersion, params: list[str],
                 earlier: list[str]) -> st.SearchStrategy[Any]:
    """A string-valued expression: data, or a function of ``version`` over names that exist."""
    options: list[st.SearchStrategy[Any]] = [short_text]
    if params:
        options.append(st.sampled_from(params).map(lambda p: {"get_param": p}))
    if earlier and "get_resource" in version.function_keys:
        options.append(st.sampled_from(earlier).map(lambda r: {"get_resource": r}))
    if "str_replace" in version.function_keys:
        options.append(st.builds(lambda t, v: {"str_replace": {"template": f"<{t}>x", "params": {
            "x": v}}}, short_text, short_text))
    if "list_join" in version.function_keys:
        options.append(st.lists(short_text, max_size=3).map(lambda xs: {"list_join": ["-", xs]}))
    return st.one_of(options)


def _valid_resource(version: TemplateVersion, params: list[str],
                    earlier: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    value = _valid_value(version, params, earlier)
    member = st.sampled_from([{"type": "OS::Heat::None"},
                              {"type": "OS::Heat::Value", "properties": {"value": "m%index%"}}])
    kinds: list[st.SearchStrategy[dict[str, Any]]] = [
        st.builds(lambda p: {"type": "OS::Heat::None", "properties": p},
                  st.dictionaries(st.sampled_from(NAMES), value, max_size=2)),
        st.builds(lambda v: {"type": "OS::Heat::Value", "properties": {"value": v}}, value),
        st.builds(lambda n, s: {"type": "OS::Heat::RandomString",
                                "properties": {"length": n, "salt": s}},
                  st.integers(1, 64), value),
        st.builds(lambda v, fail, replace: {"type": "OS::Heat::TestResource", "properties": {
            "value": v, "fail": fail, "update_replace": replace}},
            value, sometimes(10), st.booleans()),
        st.builds(lambda n, d: {"type": "OS::Heat::ResourceGroup",
                                "properties": {"count": n, "resource_def": d}},
                  st.integers(0, 4), member),
        st.builds(lambda c: {"type": "OS::Heat::SoftwareConfig",
                             "properties": {"group": "script", "config": c}}, value),
    ]
    if earlier:
        kinds.append(st.builds(lambda r: {"type": "OS::Heat::None", "depends_on": r},
                               st.sampled_from(earlier)))
    return st.one_of(kinds)


@st.composite
def valid_template_of(draw: st.DrawFn, version: TemplateVersion) -> dict[str, Any]:
    """A HOT template of ``version`` that validates: its parameters have defaults of their
    type, its resources are OS::Heat types with properties of theirs, references resolve."""
    params = draw(st.lists(st.sampled_from(PARAM_NAMES), max_size=3, unique=True))
    parameters_section = {name: {"type": "string", "default": draw(short_text)}
                          for name in params}
    resources: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(STABLE_NAMES), min_size=1, unique=True)):
        resources[name] = draw(_valid_resource(version, params, list(resources)))
    outputs = {f"o_{name}": {"value": {"get_resource": name}} for name in resources}
    if "get_attr" in version.function_keys:
        outputs["show"] = {"value": {"get_attr": [next(iter(resources)), "show"]}}
    return {"heat_template_version": version.value, "parameters": parameters_section,
            "resources": resources, "outputs": outputs}


valid_templates = st.sampled_from(VALID_VERSIONS).flatmap(valid_template_of)


@st.composite
def lifecycle_bodies(draw: st.DrawFn, *, named: bool) -> dict[str, Any]:
    """A body for a stack that is meant to be created: most are valid, some are anything."""
    if draw(sometimes(20)):
        return draw(stack_bodies(named=named))
    body: dict[str, Any] = {"template": draw(valid_templates)}
    if named:
        body["stack_name"] = draw(st.from_regex(r"\Afz[a-z0-9]{1,8}\Z"))
    if draw(sometimes(30)):
        body["parameters"] = draw(parameters)
    if draw(sometimes(20)):
        body["environment"] = draw(environments())
    return body
