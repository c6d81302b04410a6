"""The upstream heat-templates corpus through Hearth's validate, against Heat 27's answers.

Each request body is built exactly as ``openstack orchestration template validate
--ignore-errors 99001`` builds it (python-heatclient's template_utils), then validated in
process; the document (or error) must be the one Heat 27 gave for the same request.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hearth.common.errors import HearthError
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS = SHARED / "corpus"
ROOT = CORPUS / "heat-templates"
EXPECTED_FILE = CORPUS / "heat27-validate-ignore-99001.json"

if not EXPECTED_FILE.exists():
    if os.environ.get("CI") == "true":
        raise RuntimeError(f"the shared corpus is missing: {EXPECTED_FILE}")
    pytest.skip(f"shared corpus not found at {CORPUS}", allow_module_level=True)

template_utils = pytest.importorskip("heatclient.common.template_utils")
jsonutils = pytest.importorskip("oslo_serialization.jsonutils")

EXPECTED: dict[str, Any] = json.loads(EXPECTED_FILE.read_text())
PLUGINS = PluginRegistry.load()


def request_body(rel: str, env_rel: str | None) -> dict[str, Any]:
    """The body heatclient sends for this template (and its _env environment)."""
    path = str(ROOT / rel)
    try:
        files, template = template_utils.process_template_path(path)
    except Exception:  # a get_file target absent from the corpus, as the recording tool does
        from heatclient.common import template_format

        files, template = {}, template_format.parse(Path(path).read_text())
    env_list: list[str] = []
    env_files, environment = template_utils.process_multiple_environments_and_files(
        env_paths=[str(ROOT / env_rel)] if env_rel else None, env_list_tracker=env_list
    )
    # Through JSON as heatclient sends it (binary file contents become base64 text).
    return json.loads(
        jsonutils.dumps(
            {
                "template": template,
                "files": {**files, **env_files},
                "environment": environment,
                "environment_files": env_list or None,
            }
        )
    )


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_validate_matches_heat27(rel: str) -> None:
    expected = EXPECTED[rel]
    body = request_body(rel, expected.get("environment"))
    try:
        got: dict[str, Any] = validate_template(
            body["template"],
            files=body["files"],
            environment=body["environment"],
            environment_files=body["environment_files"],
            ignorable_errors=["99001"],
            global_env=PLUGINS.global_environment(),
            type_checker=PLUGINS.type_checker,
        )
        status = 200
    except HearthError as exc:
        got = {"error": {"type": exc.heat_type, "message": str(exc)}}
        status = exc.http_status
    assert status == expected["status"], got
    if status == 200:
        # Heat 27's answers were recorded with the corpus folder written as CORPUS.
        got = json.loads(json.dumps(got).replace(f"file://{CORPUS}", "file://CORPUS"))
        assert got == expected["body"]
    else:
        assert got["error"]["type"] == expected["body"]["error"]["type"]
