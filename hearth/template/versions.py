"""Every template format Heat accepts, with exactly the sections and functions of each.

Functions are named here by *implementation key* (``get_attr@all``): one key per distinct
behaviour, so that the matrix below reads like the one in Heat's documentation and the classes
live in ``hearth.template.functions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hearth.template.functions.base import FunctionClass

HOT_KEY = "heat_template_version"
CFN_KEY = "AWSTemplateFormatVersion"
HEAT_CFN_KEY = "HeatTemplateFormatVersion"
VERSION_KEYS = (HOT_KEY, CFN_KEY, HEAT_CFN_KEY)

# Implementation keys for functions that exist only to fail.
REMOVED = "removed"
INVALID_IN_CONDITION = "invalid"


@dataclass(frozen=True)
class TemplateVersion:
    key: str
    value: str
    kind: str  # "hot" or "cfn"
    sections: tuple[str, ...]
    resource_keys: tuple[str, ...]
    function_keys: Mapping[str, str]
    condition_function_keys: Mapping[str, str] | None
    deletion_policies: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    # Parameter schema features
    param_modulo: bool = False
    param_tags: bool = False
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.key}.{self.value}"

    @property
    def supports_conditions(self) -> bool:
        return self.condition_function_keys is not None

    @cached_property
    def functions(self) -> Mapping[str, FunctionClass]:

        from hearth.template.functions import implementation

        return {name: implementation(key) for name, key in self.function_keys.items()}

    @cached_property
    def condition_functions(self) -> Mapping[str, FunctionClass]:
        """The functions valid inside conditions; other names fail as Heat makes them fail."""
        from hearth.template.functions import implementation

        if self.condition_function_keys is None:
            return {}
        keys: dict[str, str] = {}
        for name, key in self.function_keys.items():
            keys[name] = REMOVED if key == REMOVED else INVALID_IN_CONDITION
        keys.update(self.condition_function_keys)
        return {name: implementation(key) for name, key in keys.items()}


# --- HOT ------------------------------------------------------------------------------------

_HOT_SECTIONS = (
    "heat_template_version",
    "description",
    "parameter_groups",
    "parameters",
    "resources",
    "outputs",
)
_HOT_RESOURCE_KEYS = (
    "type",
    "properties",
    "metadata",
    "depends_on",
    "deletion_policy",
    "update_policy",
    "description",
)
_POLICIES = ("Delete", "Retain", "Snapshot")

_CFN_IN_HOT_REMOVED = {
    name: REMOVED
    for name in (
        "Fn::GetAZs",
        "Fn::Join",
        "Fn::Split",
        "Fn::Replace",
        "Fn::Base64",
        "Fn::MemberListToMap",
        "Fn::ResourceFacade",
        "Ref",
    )
}

_HOT_2013 = {
    "Fn::GetAZs": "Fn::GetAZs",
    "get_param": "get_param",
    "get_resource": "get_resource",
    "Ref": "Ref",
    "get_attr": "get_attr@then_select",
    "Fn::Select": "Fn::Select",
    "Fn::Join": "Fn::Join",
    "list_join": "list_join@single",
    "Fn::Split": "Fn::Split",
    "str_replace": "str_replace@scalar",
    "Fn::Replace": "Fn::Replace",
    "Fn::Base64": "Fn::Base64",
    "Fn::MemberListToMap": "Fn::MemberListToMap",
    "resource_facade": "resource_facade",
    "Fn::ResourceFacade": "Fn::ResourceFacade",
    "get_file": "get_file",
}
_HOT_2014 = {
    "get_attr": "get_attr@path",
    "get_file": "get_file",
    "get_param": "get_param",
    "get_resource": "get_resource",
    "list_join": "list_join@single",
    "resource_facade": "resource_facade",
    "str_replace": "str_replace@scalar",
    "Fn::Select": "Fn::Select",
    **_CFN_IN_HOT_REMOVED,
}
_HOT_2015_04 = {**_HOT_2014, "repeat": "repeat@lists", "digest": "digest"}
_HOT_2015_10 = {
    **_HOT_2015_04,
    "get_attr": "get_attr@all",
    "list_join": "list_join@multi",
    "str_replace": "str_replace@json",
    "str_split": "str_split",
    "Fn::Select": REMOVED,
}
_HOT_2016_04 = {**_HOT_2015_10, "map_merge": "map_merge"}
_HOT_2016_10 = {
    **_HOT_2016_04,
    "repeat": "repeat@maps",
    "yaql": "yaql",
    "map_replace": "map_replace",
    "if": "if",
}
_HOT_2017_02 = {**_HOT_2016_10, "filter": "filter", "str_replace_strict": "str_replace@strict"}
_HOT_2017_09 = {
    **_HOT_2017_02,
    "repeat": "repeat@permutations",
    "make_url": "make_url",
    "list_concat": "list_concat",
    "str_replace_vstrict": "str_replace@vstrict",
    "list_concat_unique": "list_concat_unique",
    "contains": "contains",
}
_HOT_2021_04 = {**_HOT_2017_09, "if": "if@nullable"}

_COND_2016 = {
    "get_param": "get_param",
    "equals": "equals",
    "not": "not",
    "and": "and",
    "or": "or",
}
_COND_2017_09 = {**_COND_2016, "yaql": "yaql", "contains": "contains"}


def _hot(
    value: str,
    functions: Mapping[str, str],
    conditions: Mapping[str, str] | None = None,
    alias: str | None = None,
    *,
    modulo: bool = False,
    tags: bool = False,
) -> TemplateVersion:
    newton_plus = conditions is not None
    return TemplateVersion(
        key=HOT_KEY,
        value=value,
        kind="hot",
        sections=_HOT_SECTIONS + (("conditions",) if newton_plus else ()),
        resource_keys=_HOT_RESOURCE_KEYS + (("external_id", "condition") if newton_plus else ()),
        function_keys=dict(functions),
        condition_function_keys=dict(conditions) if conditions is not None else None,
        deletion_policies=_POLICIES + (("delete", "retain", "snapshot") if newton_plus else ()),
        aliases=(alias,) if alias else (),
        param_modulo=modulo,
        param_tags=tags,
    )


HOT_VERSIONS = (
    _hot("2013-05-23", _HOT_2013),
    _hot("2014-10-16", _HOT_2014),
    _hot("2015-04-30", _HOT_2015_04),
    _hot("2015-10-15", _HOT_2015_10),
    _hot("2016-04-08", _HOT_2016_04),
    _hot("2016-10-14", _HOT_2016_10, _COND_2016, "newton"),
    _hot("2017-02-24", _HOT_2017_02, _COND_2016, "ocata", modulo=True),
    _hot("2017-09-01", _HOT_2017_09, _COND_2017_09, "pike", modulo=True),
    _hot("2018-03-02", _HOT_2017_09, _COND_2017_09, "queens", modulo=True, tags=True),
    _hot("2018-08-31", _HOT_2017_09, _COND_2017_09, "rocky", modulo=True, tags=True),
    _hot("2021-04-16", _HOT_2021_04, _COND_2017_09, "wallaby", modulo=True, tags=True),
)

# --- CFN ------------------------------------------------------------------------------------

_CFN_FUNCTIONS = {
    "Fn::FindInMap": "Fn::FindInMap",
    "Fn::GetAZs": "Fn::GetAZs",
    "Ref": "Ref",
    "Fn::GetAtt": "Fn::GetAtt",
    "Fn::Select": "Fn::Select",
    "Fn::Join": "Fn::Join",
    "Fn::Split": "Fn::Split",
    "Fn::Replace": "Fn::Replace",
    "Fn::Base64": "Fn::Base64",
    "Fn::MemberListToMap": "Fn::MemberListToMap",
    "Fn::ResourceFacade": "Fn::ResourceFacade",
}
_CFN_CONDITIONS = {
    "Fn::Equals": "Fn::Equals",
    "Fn::Not": "Fn::Not",
    "Fn::And": "Fn::And",
    "Fn::Or": "Fn::Or",
    "Ref": "Ref@param",
    "Fn::FindInMap": "Fn::FindInMap",
}
_CFN_SECTIONS = ("Description", "Mappings", "Parameters", "Resources", "Outputs")
_CFN_RESOURCE_KEYS = (
    "Type",
    "Properties",
    "Metadata",
    "DependsOn",
    "DeletionPolicy",
    "UpdatePolicy",
    "Description",
)

CFN_VERSIONS = (
    TemplateVersion(
        key=CFN_KEY,
        value="2010-09-09",
        kind="cfn",
        sections=(CFN_KEY, *_CFN_SECTIONS, "Conditions"),
        resource_keys=(*_CFN_RESOURCE_KEYS, "Condition"),
        function_keys={**_CFN_FUNCTIONS, "Fn::If": "Fn::If"},
        condition_function_keys=_CFN_CONDITIONS,
        deletion_policies=_POLICIES,
    ),
    TemplateVersion(
        key=HEAT_CFN_KEY,
        value="2012-12-12",
        kind="cfn",
        sections=(HEAT_CFN_KEY, *_CFN_SECTIONS),
        resource_keys=_CFN_RESOURCE_KEYS,
        function_keys=_CFN_FUNCTIONS,
        condition_function_keys=None,
        deletion_policies=_POLICIES,
    ),
)

ALL_VERSIONS: tuple[TemplateVersion, ...] = CFN_VERSIONS + HOT_VERSIONS


def _index() -> dict[tuple[str, str], TemplateVersion]:
    index: dict[tuple[str, str], TemplateVersion] = {}
    for v in ALL_VERSIONS:
        index[(v.key, v.value)] = v
        for alias in v.aliases:
            index[(v.key, alias)] = v
    return index


VERSION_INDEX = _index()


def accepted_values(key: str) -> list[str]:
    return sorted(value for (k, value) in VERSION_INDEX if k == key)


def list_versions() -> list[dict[str, object]]:
    """What GET /template_versions serves: each dated version once, with its aliases."""
    out: list[dict[str, object]] = []
    for v in ALL_VERSIONS:
        out.append(
            {
                "version": v.name,
                "type": v.kind,
                "aliases": [f"{v.key}.{a}" for a in v.aliases],
            }
        )
    return out


def find_version(name: str) -> TemplateVersion | None:
    """Look a version up by ``key.value`` (aliases accepted), as the API names them."""
    key, _, value = name.partition(".")
    return VERSION_INDEX.get((key, value))


def list_functions(version: TemplateVersion, with_condition: bool = False) -> list[dict[str, str]]:
    """What GET /template_versions/{v}/functions serves: each usable function, described."""
    from hearth.template.function_descriptions import API_DESCRIPTIONS
    from hearth.template.functions import implementation

    keys = dict(version.function_keys)
    if with_condition and version.condition_function_keys:
        keys.update(version.condition_function_keys)
    out = []
    for name, key in keys.items():
        if key in (REMOVED, INVALID_IN_CONDITION):
            continue
        description = API_DESCRIPTIONS.get(key)
        if description is None:
            doc = (implementation(key).__doc__ or "").strip()
            description = doc.split("\n\n")[0].replace("\n", " ")
        out.append({"functions": name, "description": description})
    return out
