"""The template work of one request, done once where it may be stopped: the preflight.

Before the server works on a template a user sent (validate, create, update, preview), its
costly part runs here in a worker process with CPU-time and memory limits
(``hearth.api.template_sandbox``): parse, parameters with their values, conditions, every
resource's properties and every output resolved as far as a stack that does not exist yet
allows. A template that would run away is stopped there, with the limit it reached and where
in the template it was, and never reaches the server's own threads.

Errors of the template itself are not the preflight's business: the server reports them with
its full checks. The preflight only answers whether the work fits its budgets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common.errors import TemplateBudgetExceeded
from hearth.template.context import Limits
from hearth.template.functions import base
from hearth.template.functions.budget import check_value_size
from hearth.template.validate import load_for_validation


@dataclass(frozen=True)
class PreflightRequest:
    """What a request gives the template layer (everything picklable)."""

    template: Mapping[str, Any] | str
    files: Mapping[str, Any] = field(default_factory=dict)
    environment: Mapping[str, Any] | str | None = None
    environment_files: Sequence[str] | None = None
    parameters: Mapping[str, Any] | None = None
    limits: Limits = field(default_factory=Limits)
    max_resources_per_stack: int = -1
    # Validate and preview never resolve outputs; create and update do.
    resolve_outputs: bool = True


class Progress:
    """Where in the template the preflight is: named by an over-budget answer."""

    place = "the template"


def _check_resolved(snippet: Any, stack: Any, limit: int) -> None:
    """Resolve one snippet and check its size; what fails to resolve, the server reports."""
    try:
        value = base.resolve(snippet, stack)
    except MemoryError:
        raise
    except Exception:
        return
    check_value_size(value, limit, Progress.place)


def _resolve_all(request: PreflightRequest) -> None:
    Progress.place = "the parameters"
    loaded = load_for_validation(
        request.template, dict(request.files), request.environment, request.environment_files,
        request.parameters, None, request.limits, request.max_resources_per_stack)
    loaded.params.validate(validate_value=True)
    stack = loaded.stack
    for name, defn in stack.resource_definitions.items():
        Progress.place = f"resources.{name}.properties"
        _check_resolved(defn.properties, stack, request.limits.max_value_chars)
    if not request.resolve_outputs:
        return
    for name, output in stack.outputs.items():
        Progress.place = f"outputs.{name}"
        _check_resolved(output.value, stack, request.limits.max_value_chars)


def run_preflight(request: PreflightRequest) -> str | None:
    """Do the request's template work; the reason it is over a budget, or None if it fits.

    CPU time and memory are limited by the process this runs in; a value too large is
    refused here.
    """
    Progress.place = "the template"
    try:
        _resolve_all(request)
    except TemplateBudgetExceeded as exc:
        return str(exc)
    except MemoryError:
        raise
    except Exception:  # a fault of the template: the server says what it is
        return None
    return None
