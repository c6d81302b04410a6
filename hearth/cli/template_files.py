"""Gather what a local template refers to, as a client does before sending it to the server.

The server never reads its own disk for a template: ``get_file`` targets and provider templates
travel in the request's ``files`` map. This is the client side of that: it reads the files named
(relative to the template that names them) and keys them by the name as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

TEMPLATE_SUFFIXES = (".yaml", ".template", ".yml", ".json")


def _get_file_targets(snippet: Any) -> Iterator[str]:
    if isinstance(snippet, Mapping):
        if len(snippet) == 1 and "get_file" in snippet:
            target = snippet["get_file"]
            if isinstance(target, str):
                yield target
                return
        for value in snippet.values():
            yield from _get_file_targets(value)
    elif isinstance(snippet, list):
        for value in snippet:
            yield from _get_file_targets(value)


def _provider_types(template: Mapping[str, Any]) -> Iterator[str]:
    resources = template.get("resources") or template.get("Resources") or {}
    if not isinstance(resources, Mapping):
        return
    for body in resources.values():
        if isinstance(body, Mapping):
            rtype = body.get("type", body.get("Type"))
            if isinstance(rtype, str) and rtype.endswith(TEMPLATE_SUFFIXES):
                yield rtype


def _registry_templates(registry: Any) -> Iterator[str]:
    if not isinstance(registry, Mapping):
        return
    for key, value in registry.items():
        if key == "resources" and isinstance(value, Mapping):
            for entry in value.values():
                yield from _registry_templates(entry)
        elif isinstance(value, str) and value.endswith(TEMPLATE_SUFFIXES):
            yield value


def collect_files(
    template: Mapping[str, Any],
    base_dir: Path,
    files: dict[str, str],
    load: Any,
    depth: int = 0,
) -> None:
    """Add every file the template reads to ``files`` (provider templates recursively)."""
    if depth > 10:
        return
    for name in _get_file_targets(template):
        _read_into(name, base_dir, files)
    for name in _provider_types(template):
        if _read_into(name, base_dir, files):
            nested = load(files[name])
            if isinstance(nested, Mapping):
                collect_files(nested, (base_dir / name).parent, files, load, depth + 1)


def collect_environment_files(
    environment: Mapping[str, Any], base_dir: Path, files: dict[str, str], load: Any
) -> None:
    for name in _registry_templates(environment.get("resource_registry")):
        if _read_into(name, base_dir, files):
            nested = load(files[name])
            if isinstance(nested, Mapping):
                collect_files(nested, (base_dir / name).parent, files, load, 1)


def _read_into(name: str, base_dir: Path, files: dict[str, str]) -> bool:
    if name in files:
        return True
    if "://" in name and not name.startswith("file://"):
        return False  # left for the server to refuse or fetch
    path = Path(name.removeprefix("file://"))
    path = path if path.is_absolute() else base_dir / path
    try:
        files[name] = path.read_text()
    except (OSError, UnicodeDecodeError):
        return False
    return True
