"""Generated templates through Hearth, against Heat 27's recorded answers (``corpus/``).

For every case (see ``generator.py``; Heat's answers come from ``record.py``):

- ``validate``: what ``POST /validate`` answers: the status, the error type and the message,
  or the parameters document.
- ``create``: for a template Heat validates, a stack create with the case's environment: the
  create-time error, or the stack's final status and reason.
- ``outputs``: the outputs of that stack, as ``GET stack`` shows them (value or error).

Status, error type and message are compared whole (unlike test_corpus_validate, which compares
only the type of an error), after ``normalise``: uuids and physical resource names, which differ
per run, become placeholders, line breaks spaces, and two texts that name internals rather than
the template are cut to their first words (a dependency cycle, which Heat prints as its graph's
plugin objects; the digest algorithms of the local OpenSSL). Random strings are compared by
length. A case may differ from Heat only where ``deliberate.yaml`` says so and why; such a case
must then still differ there, so the list never outlives the difference.

Re-record (after changing the generator) with ``record.py``; the corpus must stay what the
generator makes (``test_corpus_is_what_the_generator_makes``).
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from hearth.common.context import RequestContext
from hearth.common.errors import HearthError
from hearth.engine.engine import Engine
from hearth.resources.registry import PluginRegistry
from hearth.template.validate import validate_template
from hearth.template.versions import VERSION_KEYS
from tests.differential.generator import generate, stack_name
from tests.integration.engine.conftest import make_engine

HERE = Path(__file__).resolve().parent
CASES: list[dict[str, Any]] = [
    json.loads(line)
    for path in sorted((HERE / "corpus").glob("*.jsonl"))
    for line in path.read_text().splitlines()
]
ASPECTS = ("validate", "create", "outputs")
PLUGINS = PluginRegistry.load()


def deliberate_differences(*, timing: bool) -> dict[tuple[str, str], str]:
    """(case id, aspect) -> why Hearth answers differently there; with ``timing``, the entries
    whose difference depends on timing (``timing: true``), which may also agree."""
    out: dict[tuple[str, str], str] = {}
    for entry in yaml.safe_load((HERE / "deliberate.yaml").read_text()) or []:
        assert entry["aspect"] in ASPECTS, entry
        if bool(entry.get("timing")) != timing:
            continue
        for case_id in entry["cases"]:
            out[(case_id, entry["aspect"])] = entry["reason"]
    return out


DELIBERATE = deliberate_differences(timing=False)
MAY_DIFFER = deliberate_differences(timing=True)

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Text that names internals rather than the template: Heat prints its dependency graph's
# objects (plugin class names) for a cycle, and the digest algorithms the local OpenSSL has,
# as an unordered set.
INTERNALS = [
    (re.compile(r"^(Circular Dependency Found): .*", re.S), r"\1: <the cycle>"),
    (re.compile(r"(Algorithm must be one of) \{.*?\}"), r"\1 <algorithms>"),
]
# Heat's answers were recorded with its test context's project (heatlib.dummy_context).
CTX = RequestContext(project_id="test_tenant_id", user_id="user-a", username="alice")


def normalise(value: Any, case_id: str) -> Any:
    """A value or message with what differs per run replaced: ids, physical names."""
    if isinstance(value, dict):
        return {k: normalise(v, case_id) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, case_id) for v in value]
    if not isinstance(value, str):
        return value
    text = UUID.sub("<uuid>", value)
    for pattern, replacement in INTERNALS:
        text = pattern.sub(replacement, text)
    text = re.sub(rf"\b{re.escape(stack_name(case_id))}-(\w+)-[a-z0-9]{{12}}\b",
                  r"<name of \1>", text)
    return " ".join(text.split()) if "\n" in text else text


def error_answer(exc: HearthError) -> dict[str, Any]:
    return {"status": exc.http_status, "type": exc.heat_type, "message": str(exc)}


def hearth_validate(case: dict[str, Any]) -> dict[str, Any]:
    try:
        result = validate_template(
            json.loads(json.dumps(case["template"])),
            files=case["files"],
            environment=case["environment"],
            global_env=PLUGINS.global_environment(),
            type_checker=PLUGINS.type_checker,
            plugin_attributes=PLUGINS.attribute_names,
        )
    except HearthError as exc:
        return error_answer(exc)
    return {"status": 200, "parameters": result["Parameters"]}


def wait_done(engine: Engine, identity: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        shown = engine.show_stack(CTX, identity)[0]
        if shown["stack_status"] != "IN_PROGRESS" and engine.actions.get(
            identity["stack_id"]
        ) is None:
            return shown
        assert time.monotonic() < deadline, f"still {shown['stack_status']}"
        time.sleep(0.002)


def hearth_create(engine: Engine, case: dict[str, Any]) -> dict[str, Any]:
    try:
        identity = engine.create_stack(
            CTX, stack_name(case["id"]), json.loads(json.dumps(case["template"])),
            files=case["files"], environment=case["environment"],
        )
    except HearthError as exc:
        return {"error": error_answer(exc)}
    shown = wait_done(engine, identity)
    outputs: dict[str, Any] = {}
    for out in shown.get("outputs") or []:
        outputs[out["output_key"]] = {"value": out.get("output_value")}
        if "output_error" in out:
            outputs[out["output_key"]]["error"] = out["output_error"]
    return {"status": f"{shown['stack_action']}_{shown['stack_status']}",
            "reason": shown["stack_status_reason"],
            "outputs": outputs}


def random_lengths(outputs: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """Random strings compared by length: the values cannot match."""
    out = dict(outputs)
    for name in names:
        value = out.get(name, {}).get("value")
        if isinstance(value, str):
            out[name] = {**out[name], "value": f"<{len(value)} random characters>"}
    return out


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with tempfile.TemporaryDirectory() as tmp:
        # One stack per case, all in one project.
        eng = make_engine(f"sqlite:///{tmp}/differential.sqlite", max_stacks_per_tenant=10**6)
        yield eng
        eng.stop()


def check(case_id: str, aspect: str, got: Any, expected: Any) -> None:
    got, expected = normalise(got, case_id), normalise(expected, case_id)
    if (case_id, aspect) in MAY_DIFFER:
        return  # which resources ran before the failure stopped the rest is a race
    reason = DELIBERATE.get((case_id, aspect))
    if reason is None:
        assert got == expected, f"{aspect} differs from Heat 27"
    else:
        assert got != expected, f"listed in deliberate.yaml ({reason}) but agrees with Heat"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_matches_heat27(case: dict[str, Any], engine: Engine) -> None:
    heat = case["heat"]
    check(case["id"], "validate", hearth_validate(case), heat["validate"])
    if "create" not in heat:
        return
    created = hearth_create(engine, case)
    expected = heat["create"]
    check(case["id"], "create",
          {k: created.get(k) for k in ("error", "status", "reason")},
          {k: expected.get(k) for k in ("error", "status", "reason")})
    if "outputs" in expected:
        check(case["id"], "outputs",
              random_lengths(created.get("outputs", {}), case["random_outputs"]),
              random_lengths(expected["outputs"], case["random_outputs"]))


def test_corpus_covers_every_version() -> None:
    versions = {(k, v) for c in CASES for k, v in c["template"].items() if k in VERSION_KEYS}
    assert len(CASES) >= 2000
    assert len(versions) == 19, sorted(versions)


def test_corpus_is_what_the_generator_makes() -> None:
    """The recorded cases are the committed generator's, so re-recording changes answers only."""
    made = {c["id"]: c for c in generate()}
    assert sorted(made) == sorted(c["id"] for c in CASES)
    for case in CASES:
        fresh = made[case["id"]]
        assert json.dumps(case["template"]) == json.dumps(fresh["template"]), case["id"]
        assert (case["files"], case["environment"]) == (fresh["files"], fresh["environment"])
