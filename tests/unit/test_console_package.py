"""The console's files ship in the package: every one matches a package-data pattern (so a
non-editable install serves it), and each vendored library file is the one its manifest names."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

from hearth.api.console.routes import STATIC_DIR

REPO_ROOT = Path(__file__).resolve().parents[2]
VENDOR = STATIC_DIR / "vendor"


def test_every_console_file_is_package_data() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["hearth.api.console"]
    package_dir = STATIC_DIR.parent
    files = [p for p in STATIC_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert files
    missing = [str(p.relative_to(package_dir)) for p in files
               if not any(p.relative_to(package_dir).match(pattern) for pattern in patterns)]
    assert missing == [], f"not in [tool.setuptools.package-data] hearth.api.console: {missing}"


def test_vendored_files_match_their_manifest() -> None:
    manifest = json.loads((VENDOR / "manifest.json").read_text())
    listed = set()
    for package in manifest["packages"]:
        assert package["name"] and package["version"] and package["license"]
        for entry in package["files"]:
            data = (VENDOR / entry["file"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
            listed.add(entry["file"])
    present = {p.name for p in VENDOR.iterdir()} - {"manifest.json"}
    assert present == listed, "vendored files and manifest differ"
    assert any(name.endswith("LICENSE") for name in listed)
