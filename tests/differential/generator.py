"""Seeded generator of HOT and CFN templates, valid and invalid, for differential testing.

Each case is one template (with files and an environment) that exercises a few of a version's
functions, parameter types and constraints, conditions and the OS::Heat types that need no
cloud. Snippets are drawn from pools that mix right and wrong shapes on purpose: whether a case
is valid is Heat 27's verdict (recorded by ``record.py``), not the generator's opinion.

Pure standard library, so that it runs under Hearth's Python and under the Heat anchor's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SEED = 18
# Cases per template version; HOT aliases share the dated versions' functions.
CASES_PER_VERSION = 110
# And per version, stacks built to validate, for what a create leaves (build_lifecycle).
LIFECYCLE_CASES_PER_VERSION = 12

HOT_DATES = [
    "2013-05-23", "2014-10-16", "2015-04-30", "2015-10-15", "2016-04-08", "2016-10-14",
    "2017-02-24", "2017-09-01", "2018-03-02", "2018-08-31", "2021-04-16",
]
HOT_ALIASES = {
    "newton": "2016-10-14", "ocata": "2017-02-24", "pike": "2017-09-01", "queens": "2018-03-02",
    "rocky": "2018-08-31", "wallaby": "2021-04-16",
}
CFN_VERSIONS = [("AWSTemplateFormatVersion", "2010-09-09"),
                ("HeatTemplateFormatVersion", "2012-12-12")]

# The HOT functions in the order Heat added them; a case mostly uses its version's own and
# sometimes a later one (Heat must refuse it).
HOT_FUNCTIONS_SINCE = {
    "2013-05-23": ["get_param", "get_attr", "get_resource", "str_replace", "list_join",
                   "get_file", "Fn::Select", "Fn::Join", "Fn::Split", "Fn::Replace",
                   "Fn::Base64", "Fn::MemberListToMap", "Ref"],
    "2015-04-30": ["repeat", "digest"],
    "2015-10-15": ["str_split", "get_attr_all"],
    "2016-04-08": ["map_merge"],
    "2016-10-14": ["yaql", "map_replace", "if", "conditions"],
    "2017-02-24": ["filter", "str_replace_strict", "modulo"],
    "2017-09-01": ["make_url", "list_concat", "list_concat_unique", "str_replace_vstrict",
                   "contains", "repeat_permutations"],
    "2018-03-02": ["tags"],
    "2021-04-16": ["if_null"],
}


def version_date(value: str) -> str:
    return HOT_ALIASES.get(value, value)


def hot_features(value: str) -> list[str]:
    date = version_date(value)
    return [name for since, names in HOT_FUNCTIONS_SINCE.items() if since <= date
            for name in names]


def later_features(value: str) -> list[str]:
    date = version_date(value)
    return [name for since, names in HOT_FUNCTIONS_SINCE.items() if since > date
            for name in names]


@dataclass
class Case:
    """A template under construction, and the request around it."""

    rng: random.Random
    key: str
    version: str
    parameters: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    conditions: dict[str, Any] = field(default_factory=dict)
    mappings: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    env_params: dict[str, Any] = field(default_factory=dict)
    extra_sections: dict[str, Any] = field(default_factory=dict)
    random_outputs: list[str] = field(default_factory=list)
    counter: int = 0

    @property
    def cfn(self) -> bool:
        return self.key != "heat_template_version"

    def s(self, hot: str) -> str:
        """A section or key name in this format's spelling."""
        if not self.cfn:
            return hot
        return {"type": "Type", "properties": "Properties", "value": "Value",
                "default": "Default", "description": "Description",
                "depends_on": "DependsOn", "condition": "Condition",
                "metadata": "Metadata", "deletion_policy": "DeletionPolicy"}.get(hot, hot)

    def name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def add_resource(self, rtype: str, props: dict[str, Any] | None = None,
                     **keys: Any) -> str:
        name = self.name("r")
        body: dict[str, Any] = {self.s("type"): rtype}
        if props is not None:
            body[self.s("properties")] = props
        for k, v in keys.items():
            body[self.s(k)] = v
        self.resources[name] = body
        return name

    def add_output(self, value: Any, *, random_value: bool = False) -> str:
        name = self.name("o")
        self.outputs[name] = {self.s("value"): value}
        if random_value:
            self.random_outputs.append(name)
        return name

    def get_attr(self, res: str, *path: Any) -> dict[str, Any]:
        if self.cfn:
            return {"Fn::GetAtt": [res, *path]}
        return {"get_attr": [res, *path]}

    def get_param(self, name: str, *path: Any) -> Any:
        if self.cfn:
            return {"Ref": name}
        return {"get_param": [name, *path] if path else name}

    def use(self, snippet: Any) -> None:
        """Put a snippet where Heat evaluates it: a Value's property (validated before create)
        read back through an output, or directly in an output."""
        if self.rng.random() < 0.7:
            res = self.add_resource("OS::Heat::Value", {"value": snippet})
            self.add_output(self.get_attr(res, "value"))
        else:
            self.add_output(snippet)

    def template(self) -> dict[str, Any]:
        data: dict[str, Any] = {self.key: self.version}
        if self.cfn:
            sections = [("Description", "generated"), ("Parameters", self.parameters),
                        ("Mappings", self.mappings), ("Conditions", self.conditions),
                        ("Resources", self.resources), ("Outputs", self.outputs)]
        else:
            sections = [("description", "generated"), ("parameters", self.parameters),
                        ("conditions", self.conditions), ("resources", self.resources),
                        ("outputs", self.outputs)]
        for section, value in sections:
            if value:
                data[section] = value
        data.update(self.extra_sections)
        return data


# ---- values that functions take, right and wrong ----------------------------------------

WORDS = ["alpha", "beta", "gamma", "x y", "", "a,b", "%s", "$v", "ü", "0", "42", "true"]


def scalar(rng: random.Random) -> Any:
    return rng.choice([*WORDS, 0, 7, -3, 2.5, True, False, None])


def string_list(rng: random.Random, size: int | None = None) -> list[Any]:
    return [rng.choice(WORDS) for _ in range(rng.randint(0, 4) if size is None else size)]


def small_map(rng: random.Random) -> dict[str, Any]:
    return {rng.choice(["a", "b", "c", "d"]): scalar(rng) for _ in range(rng.randint(0, 3))}


def any_value(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.5:
        return scalar(rng)
    if pick < 0.75:
        return string_list(rng)
    return small_map(rng)


def maybe_wrong(rng: random.Random, right: Callable[[], Any], wrong_rate: float = 0.2) -> Any:
    """The right shape mostly; sometimes something else of any shape."""
    return any_value(rng) if rng.random() < wrong_rate else right()


# ---- parameters ---------------------------------------------------------------------------

HOT_TYPES = ["string", "number", "json", "comma_delimited_list", "boolean"]
CFN_TYPES = ["String", "Number", "Json", "CommaDelimitedList", "Boolean"]


def param_default(rng: random.Random, ptype: str) -> Any:
    t = ptype.lower()
    options: dict[str, list[Any]] = {
        "string": ["abc", "hello world", "", "Ab1", 12, "aaaaaaaaaaaa"],
        "number": [0, 3, "7", 2.5, -1, "x", 100],
        "json": [{"a": 1, "b": [1, 2]}, '{"k": "v"}', [1, 2], "not json", {}],
        "comma_delimited_list": ["a,b,c", ["x", "y"], "", "one", [1, 2]],
        "commadelimitedlist": ["a,b,c", ["x", "y"], "", "one"],
        "boolean": [True, False, "yes", "off", "maybe", 1, "TRUE"],
    }
    return rng.choice(options[t])


def hot_constraints(rng: random.Random, ptype: str, modulo_ok: bool) -> list[dict[str, Any]]:
    pool: list[dict[str, Any]] = []
    if ptype == "string":
        pool = [{"length": {"min": 1, "max": 8}}, {"length": {"min": 20}},
                {"allowed_pattern": "[a-z ]*"}, {"allowed_pattern": "[A-Z].*",
                                                 "description": "starts upper"},
                {"allowed_values": ["abc", "hello world", "x"]}, {"length": "bad"},
                {"allowed_pattern": "("}, {"range": {"min": 1}}]
    elif ptype == "number":
        pool = [{"range": {"min": 0, "max": 10}}, {"range": {"max": -5}},
                {"allowed_values": [0, 3, 7]}, {"range": {"min": "a"}},
                {"length": {"min": 1}}]
        if modulo_ok or rng.random() < 0.3:
            pool.append({"modulo": {"step": 2, "offset": rng.choice([0, 1])}})
    elif ptype == "json":
        pool = [{"length": {"max": 1}}, {"allowed_values": [{"a": 1}]}]
    elif ptype == "comma_delimited_list":
        pool = [{"length": {"min": 2}}, {"allowed_values": ["a", "b", "c", "x", "y"]}]
    elif ptype == "boolean":
        pool = [{"allowed_values": [True]}, {"length": {"min": 1}}]
    return rng.sample(pool, k=min(len(pool), rng.randint(0, 2)))


def add_parameter(case: Case, *, with_value: bool = True) -> tuple[str, str]:
    rng = case.rng
    name = case.name("p")
    if case.cfn:
        ptype = rng.choice(CFN_TYPES)
        body: dict[str, Any] = {"Type": ptype}
        if rng.random() < 0.7:
            body["Default"] = param_default(rng, ptype)
        cons = {"String": [("MinLength", 1), ("MaxLength", 5), ("AllowedPattern", "[a-z]*"),
                           ("AllowedValues", ["abc", "x"])],
                "Number": [("MinValue", 0), ("MaxValue", 10), ("AllowedValues", [0, 3])]}
        for key, value in rng.sample(cons.get(ptype, []), k=min(2, len(cons.get(ptype, [])))):
            if rng.random() < 0.5:
                body[key] = value
        if rng.random() < 0.1:
            body["NoEcho"] = "true"
    else:
        ptype = rng.choice([*HOT_TYPES, "str"] if rng.random() < 0.05 else HOT_TYPES)
        body = {"type": ptype}
        if rng.random() < 0.7:
            body["default"] = param_default(rng, ptype if ptype in HOT_TYPES else "string")
        if ptype in HOT_TYPES:
            modulo_ok = version_date(case.version) >= "2017-02-24"
            cons = hot_constraints(rng, ptype, modulo_ok)
            if cons:
                body["constraints"] = cons
        for key, value in [("label", "L"), ("description", "D"), ("hidden", True),
                           ("immutable", False), ("tags", ["t1"])]:
            if rng.random() < 0.1:
                body[key] = value
    case.parameters[name] = body
    if with_value and rng.random() < 0.4:
        case.env_params[name] = param_default(rng, ptype if ptype.lower() in
                                              [t.lower() for t in HOT_TYPES + CFN_TYPES]
                                              else "string")
    return name, ptype.lower()


# ---- HOT snippets, one builder per function ---------------------------------------------

def f_get_param(case: Case) -> None:
    rng = case.rng
    name, _ptype = add_parameter(case)
    pick = rng.random()
    if pick < 0.6:
        case.use(case.get_param(name))
    elif pick < 0.8:
        case.use({"get_param": [name, rng.choice([0, 1, "a", "b"])]})
    elif pick < 0.9:
        case.use({"get_param": "undeclared"})
    else:
        case.use({"get_param": maybe_wrong(rng, lambda: [name], 1.0)})


def value_resource(case: Case) -> str:
    rng = case.rng
    props: dict[str, Any] = {"value": any_value(rng)}
    if rng.random() < 0.3:
        props["type"] = rng.choice(["string", "number", "json", "comma_delimited_list",
                                    "boolean", "list"])
        if props["type"] == "number":
            props["value"] = rng.choice([3, "4", "x", 1.5])
    return case.add_resource("OS::Heat::Value", props)


def f_get_attr(case: Case) -> None:
    rng = case.rng
    kind = rng.random()
    if kind < 0.4:
        res = value_resource(case)
        path = rng.choice([[], [0], ["a"], [1, "x"]])
        case.add_output(case.get_attr(res, "value", *path))
    elif kind < 0.6:
        res = random_string(case)
        case.add_output(case.get_attr(res, "value"), random_value=True)
    elif kind < 0.8:
        res = test_resource(case)
        case.add_output(case.get_attr(res, rng.choice(["output", "nope"])))
    elif kind < 0.9:
        case.use({"get_attr": rng.choice([["missing", "value"], [], "r", [{"a": 1}, "v"]])})
    else:
        res = value_resource(case)
        case.use({"get_attr": [res, "value"]})


def f_get_attr_all(case: Case) -> None:
    res = value_resource(case) if case.rng.random() < 0.5 else test_resource(case)
    case.add_output({"get_attr": [res]})


def f_get_resource(case: Case) -> None:
    rng = case.rng
    target = rng.choice([case.add_resource("OS::Heat::None"), "missing",
                         case.add_resource("OS::Heat::Value", {"value": "v"})])
    # A reference id names the physical resource: compared after normalising (see the test).
    case.use({"get_resource": target} if rng.random() < 0.9 else {"get_resource": [target]})


def f_str_replace(case: Case, fname: str = "str_replace") -> None:
    rng = case.rng
    params = {rng.choice(["$a", "b", "%x%", "ab"]): maybe_wrong(rng, lambda: rng.choice(
        [*WORDS, 5, 2.5, [1, "a"], {"k": "v"}, None]), 0.1) for _ in range(rng.randint(0, 3))}
    template = rng.choice(["$a and b", "%x% ab", "nothing", "", "$a$a", 12])
    body: Any = {"template": template, "params": params}
    if rng.random() < 0.15:
        body = rng.choice([[template, params], {"template": template},
                           {"params": params}, {"template": template, "params": "x"},
                           {"template": template, "params": params, "extra": 1}])
    case.use({fname: body})


def f_str_replace_strict(case: Case) -> None:
    f_str_replace(case, "str_replace_strict")


def f_str_replace_vstrict(case: Case) -> None:
    f_str_replace(case, "str_replace_vstrict")


def f_list_join(case: Case) -> None:
    rng = case.rng
    lists = [maybe_wrong(rng, lambda: string_list(rng), 0.15) for _ in range(rng.randint(1, 3))]
    delim = maybe_wrong(rng, lambda: rng.choice([",", " ", "", "--"]), 0.1)
    case.use({"list_join": [delim, *lists]} if rng.random() < 0.9 else {"list_join": delim})


def f_repeat(case: Case, permutations: bool = False) -> None:
    rng = case.rng
    for_each = {"%x%": maybe_wrong(rng, lambda: string_list(rng, rng.randint(0, 3)), 0.1)}
    if rng.random() < 0.4:
        for_each["%y%"] = string_list(rng, rng.randint(1, 2))
    template = rng.choice(["item-%x%", "%x%/%y%", {"k": "%x%"}, ["%x%", "%y%"]])
    body: dict[str, Any] = {"for_each": for_each, "template": template}
    if permutations:
        body["permutations"] = rng.choice([False, True, "no"])
    if rng.random() < 0.1:
        body = rng.choice([{"for_each": for_each}, {"template": template, "for_each": "x"}])
    case.use({"repeat": body})


def f_repeat_permutations(case: Case) -> None:
    f_repeat(case, permutations=True)


def f_digest(case: Case) -> None:
    rng = case.rng
    algo = rng.choice(["md5", "sha1", "sha256", "sha512", "crc32", 5])
    value = maybe_wrong(rng, lambda: rng.choice(WORDS), 0.15)
    case.use({"digest": [algo, value] if rng.random() < 0.9 else [algo]})


def f_str_split(case: Case) -> None:
    rng = case.rng
    args: list[Any] = [rng.choice([",", " ", "", "-"]),
                       maybe_wrong(rng, lambda: rng.choice(["a,b,c", "x y", "a-b", ""]), 0.1)]
    if rng.random() < 0.4:
        args.append(rng.choice([0, 1, 2, 5, "1", "x"]))
    case.use({"str_split": args})


def f_map_merge(case: Case) -> None:
    rng = case.rng
    maps = [maybe_wrong(rng, lambda: small_map(rng), 0.15) for _ in range(rng.randint(1, 3))]
    case.use({"map_merge": maps if rng.random() < 0.9 else small_map(rng)})


def f_map_replace(case: Case) -> None:
    rng = case.rng
    base = {"a": "x", "b": "y", "c": "a"}
    spec: dict[str, Any] = {}
    if rng.random() < 0.7:
        spec["keys"] = maybe_wrong(rng, lambda: {"a": rng.choice(["k", "b", "c"])}, 0.1)
    if rng.random() < 0.7:
        spec["values"] = maybe_wrong(rng, lambda: {"x": rng.choice(["X", "y"])}, 0.1)
    if rng.random() < 0.1:
        spec["other"] = {}
    case.use({"map_replace": [maybe_wrong(rng, lambda: base, 0.1), spec]})


YAQL_EXPRESSIONS = [
    "$.data.l.select($ * 2)", "$.data.s.toUpper()", "$.data.l.sum()", "$.data.m.keys()",
    "$.data.l.where($ > 1)", "$.data.s + '!'", "len($.data.l)", "$.data.missing",
    "$.data.l[0]", "1 +", "$.data.m.a", "dict($.data.m.items().orderBy($[0]))",
    "$.data.l.distinct()", "str($.data.n)", "$.data.n * 3",
]


def f_yaql(case: Case) -> None:
    rng = case.rng
    data = {"l": [1, 2, 3], "s": rng.choice(["ab", "x y"]), "m": {"a": 1, "b": 2},
            "n": rng.choice([4, 2.5])}
    body: Any = {"expression": rng.choice(YAQL_EXPRESSIONS), "data": data}
    if rng.random() < 0.1:
        body = rng.choice([{"expression": 5, "data": {}}, {"data": data}, "x",
                           {"expression": "$.data", "data": data, "extra": 1}])
    case.use({"yaql": body})


def condition_expr(case: Case, depth: int = 0) -> Any:
    rng = case.rng
    version = version_date(case.version) if not case.cfn else ""
    leaves: list[Callable[[], Any]] = [
        lambda: {"equals": [rng.choice(["a", 1, "b"]), rng.choice(["a", 1, "c"])]},
        lambda: rng.choice([True, False]),
    ]
    if case.parameters:
        pname = rng.choice(list(case.parameters))
        leaves.append(lambda: {"equals": [{"get_param": pname}, rng.choice(["abc", 3, ""])]})
    if version >= "2017-09-01" or rng.random() < 0.2:
        leaves.append(lambda: {"contains": [rng.choice(["a", "z"]), ["a", "b"]]})
    if case.conditions and rng.random() < 0.3:
        leaves.append(lambda: rng.choice(list(case.conditions)))
    if rng.random() < 0.05:
        leaves.append(lambda: {"get_attr": ["r", "value"]})
    if depth < 2 and rng.random() < 0.4:
        op = rng.choice(["not", "and", "or"])
        if op == "not":
            return {"not": condition_expr(case, depth + 1)}
        items = [condition_expr(case, depth + 1) for _ in range(rng.randint(1, 3))]
        return {op: items if rng.random() < 0.9 else items[0]}
    return rng.choice(leaves)()


def cfn_condition(expr: Any) -> Any:
    """A HOT condition expression in CFN's spelling."""
    names = {"equals": "Fn::Equals", "not": "Fn::Not", "and": "Fn::And", "or": "Fn::Or",
             "get_param": "Ref", "contains": "Fn::Contains", "get_attr": "Fn::GetAtt"}
    if isinstance(expr, dict) and len(expr) == 1:
        (fn, args), = expr.items()
        if fn == "not":
            args = [args]
        return {names.get(fn, fn): cfn_condition(args)}
    if isinstance(expr, list):
        return [cfn_condition(x) for x in expr]
    if isinstance(expr, str) and expr.startswith("c"):
        return {"Condition": expr}
    return expr


def f_conditions(case: Case) -> None:
    rng = case.rng
    if not case.parameters and rng.random() < 0.6:
        add_parameter(case)
    name = case.name("c")
    expr = condition_expr(case)
    case.conditions[name] = cfn_condition(expr) if case.cfn else expr
    target = rng.random()
    cond_ref: Any = name if rng.random() < 0.9 else rng.choice(["nope", {"not": name}])
    if target < 0.5:
        res = case.add_resource("OS::Heat::Value", {"value": "on"}, condition=cond_ref)
        case.add_output(case.get_attr(res, "value"))
    elif target < 0.8:
        res = case.add_resource("OS::Heat::Value", {"value": "on"}, condition=cond_ref)
        out = case.add_output(case.get_attr(res, "value"))
        case.outputs[out][case.s("condition")] = cond_ref
    else:
        out = case.add_output("shown")
        case.outputs[out][case.s("condition")] = cond_ref


def f_if(case: Case, null_branch: bool = False) -> None:
    rng = case.rng
    name = case.name("c")
    case.conditions[name] = condition_expr(case)
    cond: Any = name if rng.random() < 0.8 else condition_expr(case)
    branches = [any_value(rng), any_value(rng)]
    if null_branch:
        branches = [rng.choice(["yes", any_value(rng)])]
    args: Any = [cond, *branches]
    if rng.random() < 0.1:
        args = rng.choice([[cond], [cond, 1, 2, 3], cond])
    if rng.random() < 0.3:
        props = {"value": "v", "type": {"if": args}}
        res = case.add_resource("OS::Heat::Value", props)
        case.add_output(case.get_attr(res, "value"))
    else:
        case.use({"if": args})


def f_if_null(case: Case) -> None:
    f_if(case, null_branch=True)


def f_contains(case: Case) -> None:
    rng = case.rng
    case.use({"contains": [scalar(rng), maybe_wrong(rng, lambda: string_list(rng), 0.2)]})


def f_filter(case: Case) -> None:
    rng = case.rng
    case.use({"filter": [maybe_wrong(rng, lambda: [None, "a", ""], 0.15),
                         maybe_wrong(rng, lambda: [*string_list(rng), None, "a"], 0.15)]})


def f_make_url(case: Case) -> None:
    rng = case.rng
    body: dict[str, Any] = {}
    for key, values in [("scheme", ["http", "https", "ftp"]), ("host", ["example.com",
                        "::1", "a b"]), ("port", [80, "8080", "x", 70000]),
                        ("path", ["/p", "p q", ""]), ("query", [{"a": "1", "b": "x y"}]),
                        ("fragment", ["f", "#g"]), ("username", ["u"]), ("password", ["p@"])]:
        if rng.random() < 0.6:
            body[key] = rng.choice(values)
    if rng.random() < 0.1:
        body["nope"] = 1
    case.use({"make_url": body if rng.random() < 0.95 else ["x"]})


def f_list_concat(case: Case, fname: str = "list_concat") -> None:
    rng = case.rng
    lists = [maybe_wrong(rng, lambda: string_list(rng), 0.15) for _ in range(rng.randint(0, 3))]
    case.use({fname: lists})


def f_list_concat_unique(case: Case) -> None:
    f_list_concat(case, "list_concat_unique")


def f_get_file(case: Case) -> None:
    rng = case.rng
    key = rng.choice(["files/a.txt", "http://example.com/b.txt"])
    case.files[key] = rng.choice(["hello\n", "{\"a\": 1}", ""])
    target = key if rng.random() < 0.8 else rng.choice(["missing.txt", 5])
    case.use({"get_file": target})


def f_modulo(case: Case) -> None:
    name = case.name("p")
    rng = case.rng
    case.parameters[name] = {
        "type": "number", "default": rng.choice([4, 5, 7]),
        "constraints": [{"modulo": rng.choice([{"step": 2, "offset": 1}, {"step": 3},
                                               {"step": 0, "offset": 0}])}]}
    case.use({"get_param": name})


def f_tags(case: Case) -> None:
    name = case.name("p")
    case.parameters[name] = {"type": "string", "default": "t",
                             "tags": case.rng.choice([["a", "b"], "a", []])}
    case.use({"get_param": name})


def f_cfn_in_hot(case: Case, fname: str) -> None:
    rng = case.rng
    args: dict[str, Any] = {
        "Fn::Select": [rng.choice([0, 1, "1", 9]), ["a", "b"]],
        "Fn::Join": [",", string_list(rng)],
        "Fn::Split": [",", "a,b"],
        "Fn::Replace": [{"$x": "y"}, "a $x"],
        "Fn::Base64": "text",
        "Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=a", ".member.0.Value=b"]],
        "Ref": "missing",
    }
    case.use({fname: args[fname]})


HOT_BUILDERS: dict[str, Callable[[Case], None]] = {
    "get_param": f_get_param, "get_attr": f_get_attr, "get_attr_all": f_get_attr_all,
    "get_resource": f_get_resource, "str_replace": f_str_replace,
    "str_replace_strict": f_str_replace_strict, "str_replace_vstrict": f_str_replace_vstrict,
    "list_join": f_list_join, "repeat": f_repeat, "repeat_permutations": f_repeat_permutations,
    "digest": f_digest, "str_split": f_str_split, "map_merge": f_map_merge,
    "map_replace": f_map_replace, "yaql": f_yaql, "conditions": f_conditions, "if": f_if,
    "if_null": f_if_null, "contains": f_contains, "filter": f_filter,
    "make_url": f_make_url, "list_concat": f_list_concat,
    "list_concat_unique": f_list_concat_unique, "get_file": f_get_file, "modulo": f_modulo,
    "tags": f_tags,
    **{fn: (lambda case, fn=fn: f_cfn_in_hot(case, fn))  # type: ignore[misc]
       for fn in ["Fn::Select", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
                  "Fn::MemberListToMap", "Ref"]},
}


# ---- OS::Heat types -------------------------------------------------------------------------

def random_string(case: Case) -> str:
    rng = case.rng
    props: dict[str, Any] = {}
    if rng.random() < 0.6:
        props["length"] = rng.choice([1, 8, 32, 0, "12", 513])
    if rng.random() < 0.3:
        props["character_classes"] = rng.choice([
            [{"class": "digits", "min": 1}], [{"class": "lowercase"}, {"class": "uppercase"}],
            [{"class": "nope"}], [{"class": "digits", "min": 40}]])
    if rng.random() < 0.2:
        props["character_sequences"] = [{"sequence": rng.choice(["ab", "!?"]),
                                         "min": rng.choice([1, 2])}]
    if rng.random() < 0.1:
        props["sequence"] = "lettersdigits"
    if rng.random() < 0.1:
        props["salt"] = "s"
    return case.add_resource("OS::Heat::RandomString", props or None)


def test_resource(case: Case) -> str:
    rng = case.rng
    props: dict[str, Any] = {}
    if rng.random() < 0.8:
        props["value"] = rng.choice(["v", "", 5, ["a"]])
    if rng.random() < 0.15:
        props["fail"] = rng.choice([True, False, "yes"])
    if rng.random() < 0.1:
        props["wait_secs"] = rng.choice([0, "x"])
    if rng.random() < 0.05:
        props["unknown"] = 1
    return case.add_resource("OS::Heat::TestResource", props or None)


def f_resources(case: Case) -> None:
    """Resource-level keys: depends_on, deletion_policy, metadata, unknown keys and types."""
    rng = case.rng
    first = case.add_resource("OS::Heat::None")
    keys: dict[str, Any] = {}
    pick = rng.random()
    if pick < 0.3:
        keys["depends_on"] = rng.choice([first, [first], "ghost", [first, first], 5])
    elif pick < 0.45:
        keys["deletion_policy"] = rng.choice(["Delete", "Retain", "delete", "Snapshot", "Keep"])
    elif pick < 0.6:
        keys["metadata"] = rng.choice([{"k": "v"}, "x", {"k": case.get_attr(first, "x")}])
    elif pick < 0.7:
        keys["update_policy"] = rng.choice([{}, "x"])
    elif pick < 0.75:
        keys["description"] = "d"
    rtype = rng.choice(["OS::Heat::None", "OS::Heat::None", "OS::Nope::Thing", 5])
    res = case.add_resource(rtype, rng.choice([None, {}, {"any": 1}]), **keys)
    if rng.random() < 0.05:
        case.resources[res]["bogus_key"] = 1
    if rng.random() < 0.1 and not case.cfn:
        # Two resources that need each other.
        case.resources[first]["depends_on"] = res
        case.resources[res]["depends_on"] = first
    case.add_output({"get_resource": res} if not case.cfn else {"Ref": res})


def f_structure(case: Case) -> None:
    """Faults in the template's shape: sections and outputs."""
    rng = case.rng
    pick = rng.random()
    if pick < 0.25:
        wrong_case = "Resources" if not case.cfn else "resources"
        case.extra_sections[rng.choice(["bogus", wrong_case])] = {}
    elif pick < 0.5:
        case.outputs[case.name("o")] = rng.choice([{"description": "no value"}, "x",
                                                   {"value": 1, "extra": 2}])
    elif pick < 0.7:
        case.parameters[case.name("p")] = rng.choice([{"type": "nope"}, "x", {},
                                                      {"type": "string", "bogus": 1}])
    else:
        name = case.name("d")
        case.parameters[name] = {"type": "string", "default": "a"}
        case.resources[name] = {case.s("type"): "OS::Heat::None"}


# ---- CFN snippets ---------------------------------------------------------------------------

def cfn_snippet(case: Case) -> Any:
    rng = case.rng
    fn = rng.choice(["Fn::Join", "Fn::Select", "Fn::Split", "Fn::Replace", "Fn::Base64",
                     "Fn::MemberListToMap", "Ref", "Fn::GetAtt", "Fn::FindInMap", "Fn::If",
                     "str_replace", "Fn::Equals"])
    if fn == "Fn::Join":
        return {fn: maybe_wrong(rng, lambda: [rng.choice([",", ""]), string_list(rng)], 0.15)}
    if fn == "Fn::Select":
        return {fn: maybe_wrong(rng, lambda: [rng.choice([0, 1, "1", 7]),
                                              rng.choice([["a", "b"], {"a": "x"}, "a,b"])],
                                0.15)}
    if fn == "Fn::Split":
        return {fn: maybe_wrong(rng, lambda: [",", rng.choice(["a,b", "", "x"])], 0.15)}
    if fn == "Fn::Replace":
        return {fn: maybe_wrong(rng, lambda: [{"$x": rng.choice(["y", 5])}, "a $x $x"],
                                0.15)}
    if fn == "Fn::Base64":
        return {fn: maybe_wrong(rng, lambda: "text", 0.2)}
    if fn == "Fn::MemberListToMap":
        return {fn: maybe_wrong(rng, lambda: ["Key", "Value", [
            ".member.0.Key=a", ".member.0.Value=b", ".member.1.Key=c", ".member.1.Value=d"]],
            0.2)}
    if fn == "Ref":
        if case.parameters and rng.random() < 0.6:
            return {fn: rng.choice(list(case.parameters))}
        return {fn: rng.choice(["AWS::StackName", "AWS::Region", "AWS::StackId", "missing"])}
    if fn == "Fn::GetAtt":
        res = value_resource(case)
        return {fn: rng.choice([[res, "value"], [res], [res, "nope"], ["ghost", "value"]])}
    if fn == "Fn::FindInMap":
        case.mappings["M"] = {"k1": {"a": "one", "b": ["x"]}, "k2": {"a": "two"}}
        return {fn: maybe_wrong(rng, lambda: ["M", rng.choice(["k1", "k2", "k3"]),
                                              rng.choice(["a", "b"])], 0.1)}
    # Functions CFN does not have.
    return {fn: ["a", "b"]}


def build_cfn(case: Case) -> None:
    rng = case.rng
    for _ in range(rng.randint(0, 2)):
        add_parameter(case)
    for _ in range(rng.randint(1, 3)):
        pick = rng.random()
        if pick < 0.6:
            case.use(cfn_snippet(case))
        elif pick < 0.7:
            f_conditions(case)
        elif pick < 0.8:
            case.add_output(case.get_attr(random_string(case), "value"), random_value=True)
        elif pick < 0.9:
            f_resources(case)
        else:
            f_structure(case)


def build_hot(case: Case) -> None:
    rng = case.rng
    own = hot_features(case.version)
    later = later_features(case.version)
    for _ in range(rng.randint(1, 3)):
        pick = rng.random()
        if pick < 0.08 and later:
            feature = rng.choice(later)
        elif pick < 0.12:
            f_structure(case)
            continue
        elif pick < 0.2:
            f_resources(case)
            continue
        else:
            feature = rng.choice(own)
        HOT_BUILDERS[feature](case)


def build_lifecycle(case: Case) -> None:
    """A stack that validates, to compare what a create leaves: a chain of resources (some
    TestResources told to fail), reading each other's attributes, and outputs over them."""
    rng = case.rng
    previous: tuple[str, str] | None = None  # a resource and the attribute it offers
    # One failure at most: which of two failing resources fails first is a race.
    failing = False
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        keys: dict[str, Any] = {}
        if previous is not None and rng.random() < 0.5:
            keys["depends_on"] = previous[0]
        read = case.get_attr(*previous) if previous and rng.random() < 0.5 else None
        if kind < 0.35:
            props: dict[str, Any] = {"value": read or rng.choice(["v", "", "w x"])}
            if rng.random() < 0.3 and not failing:
                props["fail"] = failing = True
            res = case.add_resource("OS::Heat::TestResource", props, **keys)
            case.add_output(case.get_attr(res, "output"))
            previous = (res, "output")
        elif kind < 0.7:
            value = {"prev": read} if read else rng.choice(["x", ["a", "b"], {"k": 1}, 3])
            res = case.add_resource("OS::Heat::Value", {"value": value}, **keys)
            case.add_output(case.get_attr(res, "value"))
            previous = (res, "value")
        elif kind < 0.85:
            res = case.add_resource("OS::Heat::RandomString",
                                    {"length": rng.choice([4, 16])}, **keys)
            case.add_output(case.get_attr(res, "value"), random_value=True)
        else:
            res = case.add_resource("OS::Heat::None", None, **keys)
            case.add_output({"get_resource": res} if not case.cfn else {"Ref": res})


def all_versions() -> list[tuple[str, str]]:
    hot = [("heat_template_version", v) for v in [*HOT_DATES, *HOT_ALIASES]]
    return hot + CFN_VERSIONS


def stack_name(case_id: str) -> str:
    """The stack each case is created as (unique: both services refuse a name twice)."""
    return f"s{case_id}"


def case_prefix(key: str, version: str) -> str:
    return {"AWSTemplateFormatVersion": "cfn", "HeatTemplateFormatVersion": "heatcfn"}.get(
        key, version)


def generate(seed: int = SEED, per_version: int = CASES_PER_VERSION) -> list[dict[str, Any]]:
    """Every case, in a fixed order: ``id``, ``template``, ``files``, ``environment`` and the
    outputs whose values are random (compared by length)."""
    cases: list[dict[str, Any]] = []
    for key, version in all_versions():
        count = per_version if key == "heat_template_version" or per_version < 10 \
            else per_version * 2
        for index in range(count):
            rng = random.Random(f"{seed}/{key}/{version}/{index}")
            case = Case(rng, key, version)
            (build_cfn if case.cfn else build_hot)(case)
            cases.append(as_case(f"{case_prefix(key, version)}-{index:03d}", case))
        for index in range(LIFECYCLE_CASES_PER_VERSION):
            rng = random.Random(f"{seed}/lifecycle/{key}/{version}/{index}")
            case = Case(rng, key, version)
            build_lifecycle(case)
            cases.append(as_case(f"{case_prefix(key, version)}-L{index:02d}", case))
    return cases


def as_case(case_id: str, case: Case) -> dict[str, Any]:
    return {
        "id": case_id,
        "template": case.template(),
        "files": case.files,
        "environment": {"parameters": case.env_params} if case.env_params else {},
        "random_outputs": case.random_outputs,
    }
