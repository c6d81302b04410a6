"""Record Heat 27's answers to every generated case (not run in CI; needs the Heat anchor).

Run with the Python of the Heat 27 anchor (not Hearth's venv)::

    py=$(../shared/anchor/setup.sh | tail -n 1)
    $py tests/differential/record.py [--only ID_PREFIX]

Heat is imported once and every case runs in this one process: ``validate`` is what
``POST /validate`` answers (the engine service's answer, mapped to a status and error type as
Heat's API fault middleware maps it); for a template that validates, ``create`` is what a stack
create with the case's environment gives: the create-time validation error, or the stack's
final status and its outputs as ``GET stack`` formats them.

It rewrites ``corpus/<version>.jsonl`` next to this file: one compact JSON line per case (all
of them in about 40 s; with ``--only``, the other cases are kept as recorded). It runs with
string hashing fixed (it restarts itself so), which makes Heat's answers repeatable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ANCHOR = HERE.parents[2] / "shared" / "anchor"
CORPUS = HERE / "corpus"
sys.path[:0] = [str(ANCHOR), str(HERE)]

if os.environ.get("PYTHONHASHSEED") != "0":
    # Heat checks independent resources in the order of a set of names: with string hashing
    # fixed, a re-recording gives the same answers (and deliberate.yaml still holds).
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

import heatlib  # noqa: E402
from generator import generate, stack_name  # noqa: E402

heatlib.setup("sqlite://", log_level="CRITICAL", sleep=False)

from heat.api.middleware.fault import FaultWrapper  # noqa: E402
from heat.common import exception  # noqa: E402
from heat.engine import api as heat_api  # noqa: E402
from heat.engine import environment, service  # noqa: E402
from heat.engine import stack as stack_mod  # noqa: E402
from heat.engine import template as template_mod  # noqa: E402
from oslo_messaging.rpc.dispatcher import ExpectedException  # noqa: E402

SERVICE = service.EngineService("recorder", "engine")
VALIDATE = service.EngineService.validate_template.__wrapped__  # type: ignore[attr-defined]
FAULTS = FaultWrapper(None)


def jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        if isinstance(value, dict):
            return {str(k): jsonable(v) for k, v in value.items()}
        if isinstance(value, (list, tuple, set)):
            return [jsonable(v) for v in value]
        return repr(value)


def error(exc: BaseException) -> dict[str, Any]:
    """An exception as Heat's API would answer it: status, error type and message."""
    if isinstance(exc, ExpectedException):  # the engine's RPC wrapper around its own errors
        exc = exc.exc_info[1]
    status = FAULTS._map_exception_to_error(type(exc)).code
    message = exc.message if isinstance(exc, exception.HeatException) else str(exc)
    return {"status": status, "type": type(exc).__name__, "message": str(message)}


def validate(case: dict[str, Any]) -> dict[str, Any]:
    ctx = heatlib.dummy_context()
    try:
        result = VALIDATE(SERVICE, ctx, json.loads(json.dumps(case["template"])),
                          json.loads(json.dumps(case["environment"])),
                          files=dict(case["files"]))
    except Exception as exc:
        return error(exc)
    if "Error" in result:
        return {"status": 400, "type": "HTTPBadRequest", "message": result["Error"]}
    return {"status": 200, "parameters": jsonable(result.get("Parameters"))}


def create(case: dict[str, Any]) -> dict[str, Any]:
    ctx = heatlib.dummy_context()
    try:
        tmpl = template_mod.Template(json.loads(json.dumps(case["template"])),
                                     files=dict(case["files"]),
                                     env=environment.Environment(
                                         json.loads(json.dumps(case["environment"]))))
        stk = stack_mod.Stack(ctx, stack_name(case["id"]), tmpl, disable_rollback=True)
        stk.validate()
    except Exception as exc:
        return {"error": error(exc)}
    stk.store()
    stk.create()
    out: dict[str, Any] = {"status": f"{stk.action}_{stk.status}",
                           "reason": stk.status_reason}
    stk = stack_mod.Stack.load(ctx, stack_id=stk.id)
    stk._update_all_resource_data(for_resources=True, for_outputs=True)
    outputs: dict[str, Any] = {}
    for key in sorted(stk.outputs):
        shown = heat_api.format_stack_output(stk.outputs[key])
        outputs[key] = {"value": jsonable(shown.get("output_value"))}
        if "output_error" in shown:
            outputs[key]["error"] = shown["output_error"]
    out["outputs"] = outputs
    return out


def record(case: dict[str, Any]) -> dict[str, Any]:
    answer = {"validate": validate(case)}
    if answer["validate"]["status"] == 200:
        answer["create"] = create(case)
    return {**case, "heat": answer}


def recorded_before() -> dict[str, dict[str, Any]]:
    """The corpus as it stands, by case id."""
    out: dict[str, dict[str, Any]] = {}
    for path in CORPUS.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            case = json.loads(line)
            out[case["id"]] = case
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", help="record again only the cases whose id starts with this")
    args = ap.parse_args()
    kept = recorded_before() if args.only else {}
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    count = 0
    for case in generate():
        if args.only and not case["id"].startswith(args.only):
            if case["id"] in kept:
                by_file[case["id"].rsplit("-", 1)[0]].append(kept[case["id"]])
            continue
        by_file[case["id"].rsplit("-", 1)[0]].append(record(case))
        count += 1
    CORPUS.mkdir(exist_ok=True)
    for name, cases in by_file.items():
        # Key order kept: Heat reports the first fault in template order.
        lines = [json.dumps(c, separators=(",", ":")) for c in cases]
        (CORPUS / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    print(count, "cases recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
