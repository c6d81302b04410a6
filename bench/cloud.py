"""``python -m bench.cloud``: one stack of real cloud objects (networks, subnets, ports, routers
with interfaces and floating IPs, servers with ports and volumes; bench.cloud_template) created
then deleted in the devcloud by Hearth, then by Heat 27 in the same run, each in the same
temporary project, with wall times and the API calls each engine makes to the cloud."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import machine
from bench.api_calls import CallCounter, install
from bench.cloud_hearth import run_hearth
from bench.cloud_project import (
    ADMIN_CLOUD,
    HEAT_TRUSTEE,
    BenchProject,
    bench_project,
    connect,
    leftovers,
    purge,
)
from bench.cloud_report import format_report
from bench.cloud_template import FULL, SMALL, CloudShape, build_template
from bench.heat import anchor_dir, heat_python
from bench.results import Result, append_results

RESULTS_DIR = machine.REPO / "bench" / "results"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench.cloud",
        description="Create then delete one stack of real cloud objects in the devcloud with "
        "Hearth, then with Heat 27 (in-process, the same template, user and project): wall "
        "times and API calls to the cloud (per service, per method, polls).",
    )
    p.add_argument("--small", action="store_true",
                   help=f"the small shape ({SMALL.networks} networks, {SMALL.ports} ports, "
                   f"{SMALL.routers} routers, {SMALL.servers} servers) instead of the full one "
                   f"({FULL.networks}, {FULL.ports}, {FULL.routers}, {FULL.servers})")
    for count in ("networks", "ports", "routers", "servers"):
        p.add_argument(f"--{count}", type=int, help=f"override the shape's {count}")
    p.add_argument("--heat-sleep", choices=("on", "off", "both"), default="on",
                   help="Heat's legacy engine with its real 1 s pauses between steps (on, what "
                   "heat-engine does), without them (off, as bench_heat.py --no-sleep), or "
                   "both one after the other (default %(default)s)")
    p.add_argument("--detail", action="store_true",
                   help="also print each engine's most frequent kinds of request")
    p.add_argument("--service-requests", type=int,
                   help="Hearth's [clients] service_requests (default: Hearth's default)")
    p.add_argument("--service-concurrency", type=int,
                   help="Hearth's [clients] service_concurrency (default: Hearth's default)")
    p.add_argument("--no-heat", action="store_true", help="run Hearth only")
    p.add_argument("--no-hearth", action="store_true", help="run Heat only")
    p.add_argument("--json", action="store_true",
                   help="end the output with one line of JSON with every figure")
    p.add_argument("--out", type=Path,
                   help="JSON file the run is appended to (default bench/results/<time>.json)")
    p.add_argument("--no-save", action="store_true", help="write no results file")
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds a create or a delete may take (default %(default)s)")
    return p


def shape_of(args: argparse.Namespace) -> CloudShape:
    base = SMALL if args.small else FULL
    return CloudShape(
        networks=args.networks if args.networks is not None else base.networks,
        ports=args.ports if args.ports is not None else base.ports,
        routers=args.routers if args.routers is not None else base.routers,
        servers=args.servers if args.servers is not None else base.servers,
    )


def hearth_clients(args: argparse.Namespace) -> dict[str, int]:
    """The ``[clients]`` options the run sets for Hearth (none: its defaults)."""
    chosen = {"service_requests": args.service_requests,
              "service_concurrency": args.service_concurrency}
    return {name: value for name, value in chosen.items() if value is not None}


def run_heat_side(
    project: BenchProject, template: dict[str, Any], stack_name: str, *, sleep: bool,
    timeout: float,
) -> Result:
    """Heat 27 in the anchor's venv (bench.heat_cloud) on the same template, user, project."""
    anchor = anchor_dir()
    if anchor is None:
        return {"skipped": "no ../shared/anchor"}
    python = heat_python(anchor)
    spec = {"template": template, "stack_name": stack_name, "auth": project.auth(),
            "trustee": HEAT_TRUSTEE, "sleep": sleep,
            "timeout_mins": max(1, int(timeout // 60))}
    with tempfile.TemporaryDirectory(prefix="hearth-bench-heat-cloud-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        spec_path.chmod(0o600)
        started = time.perf_counter()
        proc = subprocess.run([python, "-m", "bench.heat_cloud", str(spec_path)],
                              capture_output=True, text=True, cwd=str(machine.REPO),
                              timeout=3 * timeout, check=False)
    lines = proc.stdout.strip().splitlines()
    try:
        found = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        return {"error": f"heat_cloud failed (exit {proc.returncode}): " + " | ".join(tail)}
    if not isinstance(found, dict):
        return {"error": f"heat_cloud printed {lines[-1][:200]}"}
    found["wall_s"] = time.perf_counter() - started
    return found


def check_empty(admin: Any, project: BenchProject, result: Result) -> None:
    """What the engine's delete left in the project (listed as admin); purged so that the next
    engine starts from an empty project."""
    left = leftovers(admin, project.project_id)
    result["left_after_delete"] = left
    if left:
        purge(admin, project.project_id)


def interim(name: str, result: Result) -> None:
    """One engine's figures as soon as it is done (a later failure keeps them)."""
    brief = {k: result.get(k) for k in ("create_s", "create_state", "delete_s", "delete_state",
                                         "left_after_delete", "error")}
    for phase in ("create", "delete"):
        calls = (result.get("calls") or {}).get(phase) or {}
        brief[f"{phase}_calls"] = calls.get("total")
        brief[f"{phase}_polls"] = calls.get("polls")
    print(f"   {name}: {json.dumps(brief, default=str)}", flush=True)


def run(args: argparse.Namespace, counter: CallCounter) -> Result:
    shape = shape_of(args)
    template = build_template(shape)
    out: Result = {"shape": shape.as_dict(), "hearth": None, "heat": {}}
    admin = connect(ADMIN_CLOUD)
    counter.phase("harness")
    with bench_project(admin) as project, tempfile.TemporaryDirectory() as tmp:
        out["project"] = project.name
        clouds_file = project.write_clouds_file(Path(tmp) / "clouds.yaml")
        if not args.no_hearth:
            print(f"== Hearth: {shape.resources} resources in project {project.name}",
                  flush=True)
            try:
                hearth = run_hearth(template, stack_name=f"{project.name}-hearth",
                                    cloud=project.cloud_name, clouds_file=clouds_file,
                                    project_id=project.project_id, counter=counter,
                                    timeout=args.timeout, clients=hearth_clients(args))
            except Exception as exc:  # e.g. a timeout: Heat still runs, the project is purged
                hearth = {"error": f"{type(exc).__name__}: {exc}"}
            check_empty(admin, project, hearth)
            out["hearth"] = hearth
            interim("Hearth", hearth)
        if not args.no_heat:
            modes = {"on": [True], "off": [False], "both": [True, False]}[args.heat_sleep]
            for sleep in modes:
                label = f"sleep {'on' if sleep else 'off'}"
                print(f"== Heat 27 ({label}): {shape.resources} resources", flush=True)
                try:
                    heat = run_heat_side(project, template, f"{project.name}-heat",
                                         sleep=sleep, timeout=args.timeout)
                except (OSError, subprocess.SubprocessError) as exc:
                    heat = {"error": f"{type(exc).__name__}: {exc}"}
                check_empty(admin, project, heat)
                out["heat"][label] = heat
                interim(f"Heat 27 ({label})", heat)
    out["project_removed"] = True
    return out


def ok(result: Result | None) -> bool:
    return (result is not None
            and result.get("create_state") == "CREATE_COMPLETE"
            and result.get("delete_state") == "DELETE_COMPLETE"
            and not result.get("left_after_delete"))


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    started = datetime.now(UTC)
    host = machine.describe()  # before the run: its load average is the other work's
    counter = CallCounter()
    uninstall = install(counter)
    try:
        result = run(args, counter)
    finally:
        uninstall()
    result["load_avg_after"] = list(os.getloadavg())
    print()
    print(format_report(result, host, detail=args.detail))
    if not args.no_save:
        path = args.out or RESULTS_DIR / f"{started.strftime('%Y%m%dT%H%M%SZ')}.json"
        append_results(path, {
            "started": started.isoformat(timespec="seconds"),
            "machine": host,
            "argv": list(sys.argv[1:] if argv is None else argv),
            "cases": [{"shape": "cloud", **result}],
        })
        print(f"results appended to {path}", flush=True)
    if args.json:
        print(json.dumps(result, sort_keys=True, default=str))
    runs = [result["hearth"]] if not args.no_hearth else []
    runs += list(result["heat"].values())
    return 0 if runs and all(ok(r) for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
