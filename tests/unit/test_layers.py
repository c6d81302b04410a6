"""The layers of DESIGN.md: imports only point downwards, the engine never names a plugin, and
only store/ (and the command line above it) touches SQLAlchemy."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "hearth"

# What each layer may import of Hearth (besides itself).
ALLOWED = {
    "common": set(),
    "store": {"common"},
    "template": {"common"},
    "clients": {"common"},
    "resources": {"template", "clients", "common"},
    "rpc": {"common"},
    "engine": {"template", "resources", "clients", "store", "rpc", "common"},
    "api": {"rpc", "common"},
    "cli": {"api", "rpc", "engine", "resources", "clients", "template", "store", "common"},
}
# Modules that hold concrete plugins: reached only through the plugin registry.
PLUGIN_MODULES = ("hearth.resources.builtin", "hearth.resources.openstack")
# Layers that reach the database only through store/'s functions (or not at all).
NO_SQLALCHEMY = ("engine", "resources", "api", "rpc", "template", "common")


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {n for n in names if n == "hearth" or n.startswith("hearth.")}


def modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_imports_point_downwards(layer: str) -> None:
    wrong = []
    for path in modules(layer):
        for name in imports_of(path):
            target = name.split(".")[1] if "." in name else ""
            if target != layer and target not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert wrong == []


def test_engine_never_imports_a_concrete_plugin() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in modules("engine")
        for name in imports_of(path)
        if name.startswith(PLUGIN_MODULES)
    ]
    assert wrong == []


def test_plugins_never_import_engine_or_store() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in modules("resources")
        for name in imports_of(path)
        if name.startswith(("hearth.engine", "hearth.store"))
    ]
    assert wrong == []


def sqlalchemy_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import sqlalchemy (anywhere: in functions, under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(n == "sqlalchemy" or n.startswith("sqlalchemy.") for n in names):
            lines.append(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize("layer", NO_SQLALCHEMY)
def test_queries_live_in_store(layer: str) -> None:
    """Every query is a function of store/; the layers above name its Session and errors
    through hearth.store.db."""
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line} imports sqlalchemy"
        for path in modules(layer)
        for line in sqlalchemy_imports(path)
    ]
    assert not wrong, "\n".join(wrong)


def test_sqlalchemy_imports_are_found(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import sqlalchemy as sa\n"
        "from sqlalchemy.orm import Session\n"
        "import sqlalchemy_utils\n"
        "def f():\n"
        "    from sqlalchemy import select\n"
    )
    assert sqlalchemy_imports(source) == [1, 2, 5]
