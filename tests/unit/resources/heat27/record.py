"""Record Heat 27's answers that tests/unit/resources compare Hearth with.

Run with the Python of the Heat 27 anchor (not Hearth's venv)::

    py=$(../shared/anchor/setup.sh | tail -n 1)
    $py tests/unit/resources/heat27/record.py

It rewrites ``heat27.json`` next to this file. Each section pairs the inputs with what Heat
answered, so the tests need nothing but the JSON.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

ANCHOR = Path(__file__).resolve().parents[5] / "shared" / "anchor"
OUT = Path(__file__).resolve().parent / "heat27.json"
BUILTIN = [
    "OS::Heat::None",
    "OS::Heat::Value",
    "OS::Heat::RandomString",
    "OS::Heat::Delay",
    "OS::Heat::TestResource",
    "OS::Heat::Stack",
    "AWS::CloudFormation::Stack",
    "OS::Heat::WaitCondition",
    "OS::Heat::WaitConditionHandle",
    "OS::Heat::UpdateWaitConditionHandle",
    "AWS::CloudFormation::WaitCondition",
    "AWS::CloudFormation::WaitConditionHandle",
    "OS::Heat::AutoScalingGroup",
    "OS::Heat::ScalingPolicy",
    "OS::Heat::InstanceGroup",
    "AWS::AutoScaling::AutoScalingGroup",
    "AWS::AutoScaling::LaunchConfiguration",
    "AWS::AutoScaling::ScalingPolicy",
    "OS::Heat::ResourceGroup",
    "OS::Heat::ResourceChain",
    "OS::Heat::SoftwareConfig",
    "OS::Heat::StructuredConfig",
    "OS::Heat::MultipartMime",
    "OS::Heat::CloudConfig",
    "OS::Heat::SoftwareComponent",
    "OS::Heat::SoftwareDeployment",
    "OS::Heat::StructuredDeployment",
    "OS::Heat::SoftwareDeploymentGroup",
    "OS::Heat::StructuredDeploymentGroup",
    "OS::Heat::DeployedServer",
    "AWS::IAM::User",
    "AWS::IAM::AccessKey",
    "OS::Heat::AccessPolicy",
]

# One resource ``r`` per case (plus ``other`` resources it may reference). ``unresolved``
# lists the properties whose values come from resources not created yet.
PROPERTY_CASES: list[dict[str, Any]] = [
    {"type": "OS::Heat::TestResource", "properties": {"wait_secs": "abc", "nope": 1}},
    {"type": "OS::Heat::TestResource", "properties": {"wait_secs": "abc"}},
    {"type": "OS::Heat::TestResource", "update_policy": {"foo": 1}},
    {"type": "OS::Heat::TestResource", "deletion_policy": "Snapshot"},
    {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"foo": 1}}},
    {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": [1]}},
    {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"create": "x"}}},
    {"type": "OS::Heat::TestResource", "properties": {"action_wait_secs": {"delete": 2}}},
    {"type": "OS::Heat::TestResource", "properties": {"fail": "yes"}},
    {"type": "OS::Heat::TestResource", "properties": {"fail": 1}},
    {"type": "OS::Heat::TestResource", "properties": {"fail": "TRUE"}},
    {"type": "OS::Heat::TestResource", "properties": {"value": 1.5}},
    {"type": "OS::Heat::TestResource", "properties": {"value": True}},
    {"type": "OS::Heat::TestResource", "properties": {"value": 7}},
    {"type": "OS::Heat::TestResource", "properties": {"value": ["a"]}},
    {"type": "OS::Heat::TestResource",
     "properties": {"value": None, "wait_secs": None, "fail": None, "client_name": None}},
    {"type": "OS::Heat::TestResource",
     "properties": {"wait_secs": "1.5", "constraint_prop_secs": -1}},
    {"type": "OS::Heat::TestResource", "properties": {"constraint_prop_secs": "0.01"}},
    {"type": "OS::Heat::TestResource", "properties": {"wait_secs": [1]}},
    {"type": "OS::Heat::RandomString", "properties": {"length": "12"}},
    {"type": "OS::Heat::RandomString", "properties": {"length": "1.5"}},
    {"type": "OS::Heat::RandomString", "properties": {"length": 1.5}},
    {"type": "OS::Heat::RandomString", "properties": {"length": 0}},
    {"type": "OS::Heat::RandomString", "properties": {"length": True}},
    {"type": "OS::Heat::RandomString", "properties": {"length": {"a": 1}}},
    {"type": "OS::Heat::RandomString",
     "properties": {"length": 3, "character_classes": [
         {"class": "digits", "min": 2}, {"class": "letters", "min": 2}]}},
    {"type": "OS::Heat::RandomString",
     "properties": {"length": 3, "character_sequences": [{"sequence": "ab", "min": 4}]}},
    {"type": "OS::Heat::RandomString", "properties": {"character_sequences": [{"min": 2}]}},
    {"type": "OS::Heat::RandomString", "properties": {"sequence": "digits"}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": "letters"}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": [{"class": "nope"}]}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": ["letters"]}},
    {"type": "OS::Heat::RandomString",
     "properties": {"character_classes": [{"klass": "letters"}]}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": None}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": []}},
    {"type": "OS::Heat::RandomString", "properties": {"character_classes": [None]}},
    {"type": "OS::Heat::RandomString",
     "properties": {"character_classes": [{"class": "digits", "min": 0}]}},
    {"type": "OS::Heat::RandomString", "properties": {"salt": {"a": 1}}},
    {"type": "OS::Heat::Value", "properties": {}},
    {"type": "OS::Heat::Value", "properties": {"value": None}},
    {"type": "OS::Heat::Value", "properties": {"value": "3", "type": "number"}},
    {"type": "OS::Heat::Value", "properties": {"value": "abc", "type": "number"}},
    {"type": "OS::Heat::Value", "properties": {"value": "a,b", "type": "comma_delimited_list"}},
    {"type": "OS::Heat::Value",
     "properties": {"value": ["a", 1], "type": "comma_delimited_list"}},
    {"type": "OS::Heat::Value", "properties": {"value": '{"a":1}', "type": "json"}},
    {"type": "OS::Heat::Value", "properties": {"value": {"a": 1}, "type": "json"}},
    {"type": "OS::Heat::Value", "properties": {"value": [1], "type": "json"}},
    {"type": "OS::Heat::Value", "properties": {"value": "true", "type": "boolean"}},
    {"type": "OS::Heat::Value", "properties": {"value": "yes", "type": "boolean"}},
    {"type": "OS::Heat::Value", "properties": {"value": 5, "type": "string"}},
    {"type": "OS::Heat::Value", "properties": {"value": 5.5, "type": "string"}},
    {"type": "OS::Heat::Value", "properties": {"value": None, "type": "string"}},
    {"type": "OS::Heat::Value", "properties": {"value": 5, "type": "foo"}},
    {"type": "OS::Heat::Value", "properties": {"value": {"x": [1, 2]}}},
    {"type": "OS::Heat::Delay", "properties": {"actions": ["CREATE", "UPDATE"]}},
    {"type": "OS::Heat::Delay", "properties": {"actions": "CREATE"}},
    {"type": "OS::Heat::Delay", "properties": {"min_wait": -1}},
    {"type": "OS::Heat::Delay",
     "properties": {"min_wait": 3000, "max_jitter": 600, "jitter_multiplier": 1}},
    {"type": "OS::Heat::Delay",
     "properties": {"min_wait": "5", "max_jitter": "2", "jitter_multiplier": "0.5"}},
    {"type": "OS::Heat::None",
     "properties": {"anything": {"x": 1}, "b": [1]}, "update_policy": {"x": 1}},
    {"type": "OS::Heat::None", "deletion_policy": "Snapshot"},
    {"type": "OS::Heat::TestResource",
     "properties": {"value": {"get_resource": "other"},
                    "wait_secs": {"get_attr": ["other", "output"]}},
     "unresolved": ["value", "wait_secs"]},
    {"type": "OS::Heat::Value",
     "properties": {"type": {"get_attr": ["other", "output"]}, "value": "x"},
     "unresolved": ["type"]},
    {"type": "OS::Heat::Value",
     "properties": {"value": {"get_attr": ["other", "output"]}}, "unresolved": ["value"]},
    {"type": "OS::Heat::RandomString",
     "properties": {"length": {"get_attr": ["other", "output"]},
                    "character_classes": [{"class": "digits", "min": 40}]},
     "unresolved": ["length"]},
]
OTHER = {"other": {"type": "OS::Heat::TestResource"}}

# A stack with ``r`` is created from ``before`` and updated to ``after``.
UPDATE_CASES: list[dict[str, Any]] = [
    {"type": "OS::Heat::TestResource", "before": {"value": "a"}, "after": {"value": "b"}},
    {"type": "OS::Heat::TestResource", "before": {"value": "a"}, "after": {"value": "a"}},
    {"type": "OS::Heat::TestResource", "before": {}, "after": {"value": "test_string"}},
    {"type": "OS::Heat::TestResource",
     "before": {"value": "a", "update_replace": True},
     "after": {"value": "b", "update_replace": True}},
    {"type": "OS::Heat::TestResource",
     "before": {"value": "a"}, "after": {"value": "b", "update_replace": True}},
    {"type": "OS::Heat::TestResource",
     "before": {"update_replace_value": "a"}, "after": {"update_replace_value": "b"}},
    {"type": "OS::Heat::TestResource", "before": {"wait_secs": 0}, "after": {"wait_secs": "0"}},
    {"type": "OS::Heat::Delay", "before": {}, "after": {"min_wait": 0.01}},
    {"type": "OS::Heat::Value", "before": {"value": 1}, "after": {"value": 2}},
    {"type": "OS::Heat::Value",
     "before": {"value": "1", "type": "number"}, "after": {"value": 1, "type": "number"}},
    {"type": "OS::Heat::RandomString", "before": {}, "after": {"salt": "x"}},
    {"type": "OS::Heat::None", "before": {"a": 1}, "after": {"a": 2}},
    {"type": "Hearth::Test::Immutable", "before": {"fixed": "a"}, "after": {"fixed": "b"}},
]

LIFECYCLE_CASES: list[dict[str, Any]] = [
    {"resources": {"r": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}}},
    {"resources": {"r": {"type": "OS::Heat::TestResource", "properties": {"value": "a"}}},
     "update": {"r": {"type": "OS::Heat::TestResource",
                      "properties": {"value": "b", "fail": True}}}},
    {"resources": {"d": {"type": "OS::Heat::Delay"}, "n": {"type": "OS::Heat::None"}},
     "check": True},
    # A value only known once ``o`` exists is checked when ``r`` is created.
    {"resources": {"o": {"type": "OS::Heat::TestResource", "properties": {"value": "x"}},
                   "r": {"type": "OS::Heat::TestResource",
                         "properties": {"wait_secs": {"get_attr": ["o", "output"]}}}}},
    {"resources": {"r": {"type": "OS::Heat::TestResource"},
                   "v": {"type": "OS::Heat::Value", "properties": {"value": [1, 2]}},
                   "s": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}}},
]

SHORT_ID_UUIDS = [
    "a1b2c3d4-e5f6-4789-8abc-def012345678",
    "00000000-0000-4000-8000-000000000000",
    "ffffffff-ffff-4fff-bfff-ffffffffffff",
    "6f8f57b4-1c6e-4d4c-9b60-0123456789ab",
]


def err(exc: BaseException) -> dict[str, Any]:
    return {"exc": type(exc).__name__, "msg": str(exc)}


def jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def main() -> None:
    sys.path.insert(0, str(ANCHOR))
    import heatlib

    heatlib.setup("sqlite://", log_level="CRITICAL", sleep=False)
    from heat.common import short_id
    from heat.engine import environment, properties, resource, resources, service
    from heat.engine import stack as stack_mod
    from heat.engine import template as template_mod

    class Immutable(resource.Resource):
        properties_schema = {
            "fixed": properties.Schema(properties.Schema.STRING, immutable=True),
        }

        def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> None:
            return None

    resources.global_env().register_class("Hearth::Test::Immutable", Immutable)
    ctx = heatlib.dummy_context()
    svc = service.EngineService("host", "topic")

    def call(func: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return func(ctx, *args, **kwargs)
        except Exception as exc:
            return {"error": err(exc)}

    types = {
        name: {
            "schema": call(svc.resource_schema, name),
            "schema_with_description": call(svc.resource_schema, name, with_description=True),
            "template_cfn": call(svc.generate_template, name, "cfn"),
            "template_hot": call(svc.generate_template, name, "hot"),
        }
        for name in BUILTIN
    }
    lookups = {
        "schema_unknown": call(svc.resource_schema, "My::Unknown"),
        "schema_hidden": call(svc.resource_schema, "OS::Heat::HARestarter"),
        "template_hidden": call(svc.generate_template, "OS::Heat::HARestarter", "hot"),
        "list_invalid_status": call(svc.list_resource_types, support_status="BOGUS"),
    }
    queries = [
        {"type_name": "OS::Heat::(None|Value|RandomString|Delay|TestResource)$"},
        {"type_name": "OS::Heat::(None|Value|RandomString|Delay|TestResource)$",
         "heat_version": "5.0.0"},
        {"type_name": "OS::Heat::(None|Value|RandomString|Delay|TestResource)$",
         "support_status": "SUPPORTED"},
        {"type_name": "OS::Heat::(None|Value)$", "with_description": True},
        {"type_name": "("},
        {"type_name": "OS::Heat::(None|Value|RandomString|Delay|TestResource)$",
         "support_status": "DEPRECATED"},
    ]
    for query in queries:
        query["answer"] = call(svc.list_resource_types, **query)

    def stack_of(resources_section: dict[str, Any], strict: bool = True) -> Any:
        tmpl = template_mod.Template(
            {"heat_template_version": "2021-04-16", "resources": resources_section},
            env=environment.Environment({}),
        )
        return stack_mod.Stack(ctx, "probe", tmpl, strict_validate=strict)

    for case in PROPERTY_CASES:
        body = {k: v for k, v in case.items() if k != "unresolved"}
        section = {"r": body, **(OTHER if case.get("unresolved") else {})}
        for strict, key in ((True, "strict"), (False, "template_only")):
            try:
                stack_of(section, strict).validate(validate_res_tmpl_only=not strict)
                case[key] = None
            except Exception as exc:
                case[key] = err(exc)
        res = stack_of(section)["r"]
        try:
            res.properties.validate()
            case["properties_validate"] = None
        except Exception as exc:
            case["properties_validate"] = err(exc)
        values = {}
        for key in res.properties:
            try:
                values[key] = {"value": jsonable(res.properties[key])}
            except Exception as exc:
                values[key] = {"error": err(exc)}
        case["values"] = values

    for i, case in enumerate(UPDATE_CASES):
        def snippet(props: dict[str, Any], case: dict[str, Any] = case) -> dict[str, Any]:
            return {"r": {"type": case["type"], "properties": props}}

        stk = heatlib.parse_stack(
            {"heat_template_version": "2021-04-16", "resources": snippet(case["before"])},
            stack_name=f"u{i}",
        )
        stk.create()
        before = stk["r"]
        old = (before.uuid, before.action, before.status)
        new = stack_of(snippet(case["after"]))
        stk.update(new)
        after = stk["r"]
        if after.status == "FAILED":
            case["outcome"] = {"failed": after.status_reason}
        elif after.uuid != old[0]:
            case["outcome"] = "replace"
        elif (after.action, after.status) == old[1:]:
            case["outcome"] = "unchanged"
        else:
            case["outcome"] = "update"

    for i, case in enumerate(LIFECYCLE_CASES):
        stk = heatlib.parse_stack(
            {"heat_template_version": "2021-04-16", "resources": case["resources"]},
            stack_name=f"life{i}",
        )
        stk.create()
        case["create"] = {
            "stack": stk.status_reason,
            "resources": {
                n: {"state": f"{r.action}_{r.status}", "reason": r.status_reason,
                    "has_id": r.resource_id is not None,
                    "refid_is_id": r.FnGetRefId() == r.resource_id,
                    "show": jsonable(r.FnGetAtt("show"))}
                for n, r in stk.resources.items()
            },
        }
        if "update" in case:
            stk.update(stack_of(case["update"]))
            case["update_result"] = {
                "stack": stk.status_reason,
                "resources": {n: r.status_reason for n, r in stk.resources.items()},
            }
        if case.get("check"):
            stk.check()
            case["check_result"] = {
                "stack": stk.status_reason,
                "resources": {n: r.status_reason for n, r in stk.resources.items()},
            }

    short_ids = {u: short_id.get_id(uuid.UUID(u)) for u in SHORT_ID_UUIDS}
    reduced = {
        str(limit): resource.Resource.reduce_physical_resource_name(
            "stack-" + "abcdefghij" * 30, limit
        )
        for limit in (4, 10, 255)
    }
    OUT.write_text(
        json.dumps(
            {
                "types": types,
                "lookups": lookups,
                "list_queries": queries,
                "properties": PROPERTY_CASES,
                "updates": UPDATE_CASES,
                "lifecycle": LIFECYCLE_CASES,
                "short_ids": short_ids,
                "reduced_names": reduced,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
