"""Combining environments the way Heat's engine does.

* :func:`request_environment`: the environment a create/update/validate request stands for
  (the inline ``environment`` unless ``environment_files`` are given, with the request's
  ``parameters`` seeded into it);
* :func:`merge_environments`: the ``environment_files`` taken from ``files`` in order and merged
  in, with per-parameter merge strategies;
* :func:`patch_environment`: a PATCH update's environment, from the stored one.

Parameter types are given as a mapping from parameter name to type (HOT names ``string``,
``number``, ``comma_delimited_list``, ``json``, ``boolean`` or the CFN ones); its keys are the
names declared by the template and its nested templates. Values of undeclared parameters are
ignored while merging (but, as in Heat, a section that was still empty is taken whole).

Heat performs some of these merges with plain Python operations on whatever values it was
given, so a few odd combinations fail in Heat with an internal error message (or give odd
results, such as two number strings being concatenated). The same combinations give the same
results and messages here; errors are raised as :class:`InvalidEnvironment`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from typing import Any

from hearth.common.errors import (
    ConflictingMergeStrategyForParam,
    InvalidEnvironment,
    InvalidMergeStrategyForParam,
)
from hearth.template.environment import (
    PARAMETER_DEFAULTS,
    PARAMETER_MERGE_STRATEGIES,
    PARAMETERS,
    Environment,
    default_for_missing,
    parse_environment,
    validate_environment,
)

__all__ = [
    "DEEP_MERGE",
    "MERGE",
    "MERGE_STRATEGIES",
    "OVERWRITE",
    "get_param_merge_strategy",
    "merge_environments",
    "merge_parameters",
    "normalise_param_type",
    "patch_environment",
    "request_environment",
]

OVERWRITE = "overwrite"
MERGE = "merge"
DEEP_MERGE = "deep_merge"
MERGE_STRATEGIES: tuple[str, ...] = (OVERWRITE, MERGE, DEEP_MERGE)

_STRING, _NUMBER, _LIST, _JSON, _BOOLEAN = (
    "string",
    "number",
    "comma_delimited_list",
    "json",
    "boolean",
)

_TYPE_NAMES: dict[str, str] = {
    "string": _STRING,
    "String": _STRING,
    "number": _NUMBER,
    "Number": _NUMBER,
    "comma_delimited_list": _LIST,
    "CommaDelimitedList": _LIST,
    "json": _JSON,
    "Json": _JSON,
    "boolean": _BOOLEAN,
    "Boolean": _BOOLEAN,
}

Loader = Callable[[str | bytes], Any]


def normalise_param_type(type_name: str) -> str:
    """The HOT name of a parameter type given by its HOT or CFN name (unknown: ``string``)."""
    return _TYPE_NAMES.get(type_name, _STRING)


def get_param_merge_strategy(
    strategies_in_file: Mapping[str, Any] | None,
    param: str,
    known: Mapping[str, str] | None = None,
) -> str:
    """The strategy for ``param`` in one file.

    The file's own entry for the parameter wins, then a strategy already fixed for it by an
    earlier file, then the file's ``default`` (``overwrite`` if none). An unknown strategy name
    falls back to the file's default.
    """
    if strategies_in_file is None:
        return OVERWRITE
    file_default = strategies_in_file.get("default", OVERWRITE)
    chosen = strategies_in_file.get(param, (known or {}).get(param, file_default))
    return str(chosen) if chosen in MERGE_STRATEGIES else str(file_default)


def _python_failure(exc: Exception) -> InvalidEnvironment:
    return InvalidEnvironment(str(exc))


def _checked_value(value: Any, param_type: str) -> Any:
    """A value about to be merged into another, as Heat accepts it."""
    if param_type == _JSON:
        try:
            text = value if isinstance(value, str) else json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise InvalidEnvironment(f"Invalid parameter in environment {exc}.") from None
        if not text:
            return text
        try:
            return json.loads(text)
        except ValueError as exc:
            raise InvalidEnvironment(f"Invalid parameter in environment {exc}.") from None
    if not isinstance(value, Sequence):
        raise InvalidEnvironment("Invalid parameter in environment .")
    return value


def _merge_lists(old: Any, new: Any) -> Any:
    """Extend a list, or join comma-delimited strings."""
    if not old:
        return new
    if isinstance(new, list):
        old.extend(new)
        return old
    return ",".join([old, new])


def _merge_maps(old: Any, new: Any, deep: bool = False) -> Any:
    """Put ``new``'s non-null items into ``old`` (recursively for ``deep``)."""
    if not old:
        return new
    for key, value in new.items():
        if value is None:
            continue
        if not deep:
            old[key] = value
        elif isinstance(value, Mapping):
            previous = old.get(key)
            old[key] = _merge_maps(previous, value, True) if previous else value
        elif isinstance(value, Sequence) and not isinstance(value, str):
            previous = old.get(key)
            old[key] = _merge_lists(previous, value) if previous else value
        elif isinstance(value, str):
            old[key] = "".join([old.get(key, ""), value])
        else:
            old[key] = value
    return old


def _merge_one(
    current: dict[str, Any], name: str, value: Any, param_type: str, deep: bool
) -> None:
    value = _checked_value(value, param_type)
    if param_type == _JSON:
        current[name] = _merge_maps(current.get(name, {}), value, deep)
    elif param_type == _LIST:
        current[name] = _merge_lists(current.get(name), value)
    elif param_type == _STRING:
        current[name] = "".join([current.get(name, ""), value])
    elif param_type == _NUMBER:
        current[name] = current.get(name, 0) + value
    else:
        raise InvalidMergeStrategyForParam(MERGE, name)


def merge_parameters(
    current: Any,
    new: Any,
    param_types: Mapping[str, str],
    strategies_in_file: Mapping[str, Any] | None,
    known_strategies: dict[str, str],
    env_file: str,
) -> Any:
    """Merge one file's ``parameters`` (or ``parameter_defaults``) into the current ones.

    ``known_strategies`` carries the strategy fixed for each parameter by earlier files (and is
    updated); a file that asks for a different one for the same parameter is refused. Returns
    the merged section (``new`` itself when nothing was there yet).
    """
    try:
        items = list(new.items())
    except AttributeError as exc:
        raise _python_failure(exc) from None
    if strategies_in_file is not None and not isinstance(strategies_in_file, Mapping):
        raise InvalidEnvironment(
            f"'{type(strategies_in_file).__name__}' object has no attribute 'get'"
        )

    for name, value in items:
        if name not in param_types or value is None:
            continue
        strategy = get_param_merge_strategy(strategies_in_file, name, known_strategies)
        if name not in known_strategies:
            known_strategies[name] = strategy
        elif strategy != known_strategies[name]:
            raise ConflictingMergeStrategyForParam(strategy, name, env_file)

    if not current:
        return new

    for name, value in items:
        if name not in param_types or value is None:
            continue
        strategy = known_strategies[name]
        if strategy in (MERGE, DEEP_MERGE):
            param_type = normalise_param_type(param_types[name])
            try:
                _merge_one(current, name, value, param_type, strategy == DEEP_MERGE)
            except (TypeError, AttributeError) as exc:
                raise _python_failure(exc) from None
        else:
            current[name] = value
    return current


def _load_file(name: str, files: Mapping[str, Any], load: Loader | None) -> dict[str, Any]:
    if name not in files:
        raise InvalidEnvironment(f'Environment file "{name}" is not in the files map')
    content = files[name]
    if isinstance(content, Mapping):
        return validate_environment(content)
    if content is not None and not isinstance(content, (str, bytes)):
        raise InvalidEnvironment(f'Environment file "{name}" is not text')
    return parse_environment(content, load)


def merge_environments(
    environment_files: Sequence[str] | None,
    files: Mapping[str, Any],
    env: dict[str, Any],
    param_types: Mapping[str, str],
    load: Loader | None = None,
) -> dict[str, Any]:
    """Merge the ``environment_files`` (keys of ``files``, in order) into ``env``.

    ``env`` is the request's environment (see :func:`request_environment`) and is changed in
    place (and returned). ``parameters`` and ``parameter_defaults`` merge per parameter with
    each file's ``parameter_merge_strategies``; any other section of a later file replaces the
    earlier one key by key (null values are skipped). Empty sections are skipped. File contents
    are text (read with ``load``, by default Hearth's environment loader) or loaded mappings.
    """
    if not environment_files:
        return env
    default_for_missing(env)
    known_strategies: dict[str, str] = {}
    for name in environment_files:
        doc = _load_file(name, files, load)
        strategies = doc.pop(PARAMETER_MERGE_STRATEGIES, {})
        for section, value in doc.items():
            if not value:
                continue
            if section in (PARAMETERS, PARAMETER_DEFAULTS):
                env[section] = merge_parameters(
                    env.get(section), value, param_types, strategies, known_strategies, name
                )
            else:
                try:
                    env[section] = _merge_maps(env.get(section), value)
                except (TypeError, AttributeError) as exc:
                    raise _python_failure(exc) from None
    return env


def request_environment(
    environment: Mapping[str, Any] | str | bytes | None = None,
    parameters: Mapping[str, Any] | None = None,
    environment_files: Sequence[str] | None = None,
    load: Loader | None = None,
) -> dict[str, Any]:
    """The environment document of a request, before ``environment_files`` are merged.

    The inline ``environment`` (a mapping, or text) is used only when no
    ``environment_files`` are given; missing sections are filled in and the request's
    top-level ``parameters`` are put into ``parameters`` (winning over the environment's).
    A bad environment raises InvalidEnvironment with Heat's reason (the API prefixes it with
    "Environment not in valid format: ").
    """
    env: dict[str, Any] = {}
    if environment is not None and not environment_files:
        if isinstance(environment, Mapping):
            env = validate_environment(environment)
        else:
            env = parse_environment(environment, load)
    default_for_missing(env)
    if parameters:
        params = env.get(PARAMETERS)
        if not isinstance(params, dict):
            raise InvalidEnvironment('environment section "parameters" must be a mapping')
        env[PARAMETERS] = {**params, **parameters}
    return env


def patch_environment(
    existing: Mapping[str, Any],
    new: Mapping[str, Any],
    template_params: Container[str] | Iterable[str],
    clear_parameters: Iterable[str] = (),
    *,
    global_env: Environment | None = None,
) -> Environment:
    """The environment of a PATCH update (``existing: true``).

    Starts from the stack's stored environment without the ``clear_parameters`` values, layers
    the request's environment ``new`` (already merged with its environment files) on top
    (registry entries added or removed with null, parameters and parameter defaults updated,
    event sinks appended) and drops parameters the (new) template does not declare.
    """
    names: Container[str] = (
        template_params if isinstance(template_params, Container) else set(template_params)
    )
    cleared = set(clear_parameters)
    stored = dict(existing)
    stored_params = stored.get(PARAMETERS) or {}
    stored[PARAMETERS] = {k: v for k, v in stored_params.items() if k not in cleared}
    env = Environment(stored, global_env=global_env)
    env.load(new)
    for key in list(env.params):
        if key not in names:
            del env.params[key]
    return env
