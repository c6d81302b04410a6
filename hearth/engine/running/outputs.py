"""Stack outputs: resolved once when an action ends, stored, and shown from storage."""

from __future__ import annotations

from typing import Any

from hearth.common.errors import HearthError
from hearth.engine.stack_builder import BoundStack
from hearth.store.types import strict_json_dumps
from hearth.template.functions import base
from hearth.template.functions.budget import check_value_size


def _check_storable(value: Any, name: str) -> None:
    """Outputs are stored as JSON when the action ends: a value that cannot be (a yaql
    regex object, NaN, which PostgreSQL refuses) is that output's error, not a stack left
    IN_PROGRESS because its final write failed."""
    try:
        strict_json_dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The value of output {name} cannot be stored: {exc}") from None


def resolve_outputs(bound: BoundStack) -> list[dict[str, Any]]:
    """Every output with its value, or with ``output_error`` when it cannot be resolved."""
    out: list[dict[str, Any]] = []
    try:
        outputs = bound.definition.outputs
    except HearthError as exc:
        return [{"output_key": "", "output_value": None, "description": "",
                 "output_error": str(exc)}]
    for name, output in outputs.items():
        entry: dict[str, Any] = {
            "output_key": name,
            "description": output.description if output.description is not None
            else "No description given",
        }
        try:
            value = base.resolve(output.value, bound.definition) if output.enabled else None
            check_value_size(value, bound.definition.limits.max_value_chars, f"outputs.{name}")
            _check_storable(value, name)
            entry["output_value"] = value
        except Exception as exc:
            entry["output_value"] = None
            entry["output_error"] = str(exc)
        out.append(entry)
    return out
