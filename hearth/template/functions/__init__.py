"""Intrinsic functions, looked up by the implementation keys of ``hearth.template.versions``."""

from __future__ import annotations

import importlib
from functools import cache

from hearth.template.functions.base import FunctionClass

# Modules that define ``IMPLEMENTATIONS: dict[str, FunctionClass]``.
_MODULES = (
    "hearth.template.functions.references",
    "hearth.template.functions.conditions",
    "hearth.template.functions.strings",
    "hearth.template.functions.collections",
    "hearth.template.functions.yaql_function",
    "hearth.template.functions.cfn",
)


@cache
def all_implementations() -> dict[str, FunctionClass]:
    table: dict[str, FunctionClass] = {}
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        for key, cls in module.IMPLEMENTATIONS.items():
            if key in table:
                raise RuntimeError(f"function implementation {key} defined twice")
            table[key] = cls
    return table


def implementation(key: str) -> FunctionClass:
    return all_implementations()[key]
