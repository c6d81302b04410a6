"""``python -m bench``: one case, or the whole suite of issue 6, with Heat 27 beside it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import machine
from bench.heat import DEFAULT_HEAT_ARGS, DEFAULT_HEAT_MAX_N, run_heat
from bench.profiling import format_hotspots
from bench.results import (
    Result,
    add_heat,
    append_results,
    format_case,
    format_table,
    json_line,
    with_rates,
)
from bench.templates import DEFAULT_N, SHAPES, TYPES, Case, build_case

RESULTS_DIR = machine.REPO / "bench" / "results"


@dataclass(frozen=True)
class SuiteCase:
    shape: str
    n: int
    via: str = "engine"


# Issue 6's table. tree: fan-out 10 at depth 4 (1,111 resources); nested: fan-out 3 at depth 5
# (364 stacks, 1,092 resources).
SUITE: tuple[SuiteCase, ...] = (
    SuiteCase("independent", 100),
    SuiteCase("independent", 1000),
    SuiteCase("independent", 10000),
    SuiteCase("chain", 100),
    SuiteCase("chain", 1000),
    SuiteCase("tree", 10),
    SuiteCase("group", 1000),
    SuiteCase("nested", 3),
    SuiteCase("independent", 1000, "api"),
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Create then delete a stack of OS::Heat::None (or RandomString) of a given "
        "shape and size, through Hearth's engine in-process or its API, and the same case "
        "through Heat 27 when ../shared/anchor/bench_heat.py is there.",
        epilog="Shapes and -n: independent N resources; chain N, each depending on the "
        "previous; tree: fan-in tree of depth 4, -n is the fan-out (1+n+n^2+n^3 resources); "
        "group: one OS::Heat::ResourceGroup of N members; nested: provider templates of depth "
        "5 through files, -n is the fan-out (n+...+n^6 resources in 1+n+...+n^5 stacks).",
    )
    p.add_argument("--shape", choices=SHAPES, default="independent")
    p.add_argument("-n", type=int, help="size (default per shape: " + ", ".join(
        f"{k} {v}" for k, v in DEFAULT_N.items()) + ")")
    p.add_argument("--via", choices=("engine", "api", "cluster"), default="engine",
                   help="engine: an in-process Engine on a fresh SQLite file; api: `hearth "
                   "serve` in a subprocess driven with python-heatclient; cluster: `hearth "
                   "api` and --engines `hearth engine` processes on this machine's RabbitMQ "
                   "and a fresh PostgreSQL database")
    p.add_argument("--engines", type=int, default=2,
                   help="engine processes with --via cluster (default %(default)s)")
    p.add_argument("--no-spread", dest="spread", action="store_false",
                   help="with --via cluster: [DEFAULT] spread_steps = false (each stack's "
                   "steps on the engine holding its lock)")
    p.add_argument("--spread-nested", action="store_true",
                   help="with --via cluster: [DEFAULT] spread_nested_steps = true (steps of "
                   "resources owning a child stack are offered to every engine too)")
    p.add_argument("--type", dest="kind", choices=tuple(TYPES), default="none",
                   help="none: OS::Heat::None; random: OS::Heat::RandomString; blocking: "
                   "Bench::Blocking, 200 ms blocked in each create and delete handler")
    p.add_argument("--json", action="store_true",
                   help="end the output with one line of JSON with every figure")
    p.add_argument("--suite", action="store_true",
                   help="run issue 6's table (each case in its own process) and print it")
    p.add_argument("--out", type=Path,
                   help="JSON file the run is appended to (default bench/results/<time>.json)")
    p.add_argument("--no-save", action="store_true", help="write no results file")
    p.add_argument("--no-heat", action="store_true", help="skip the Heat 27 comparison")
    p.add_argument("--heat-args", default=DEFAULT_HEAT_ARGS,
                   help="options for bench_heat.py, given with '=' since they start with "
                   f"dashes: --heat-args='--mode service ...' (default: {DEFAULT_HEAT_ARGS!r})")
    p.add_argument("--heat-max-n", type=int, default=DEFAULT_HEAT_MAX_N,
                   help="largest -n run through Heat (default %(default)s)")
    p.add_argument("--poll", type=float,
                   help="seconds between stack status polls (default 0.02 engine, 0.05 api)")
    p.add_argument("--profile", type=Path, metavar="DIR",
                   help="sample the create and the delete with py-spy into DIR/create.txt "
                   "and DIR/delete.txt and print the hotspots (slows the run a little)")
    p.add_argument("--profile-gil", action="store_true",
                   help="with --profile: sample only the thread holding the GIL (where the "
                   "CPU goes) instead of every thread that is not idle")
    p.add_argument("--timeout", type=float, default=3600.0,
                   help="seconds a create or a delete may take (default %(default)s)")
    return p


def case_meta(case: Case) -> Result:
    return {
        "shape": case.shape,
        "n": case.n,
        "type_key": case.kind,
        "type": case.resource_type,
        "resources": case.resources,
        "stacks": case.stacks,
        "edges": case.edges,
    }


def finish(result: Result) -> Result:
    """Rates and the overall verdict of a measured (or skipped) case."""
    with_rates(result)
    result["ok"] = bool(result.get("skipped")) or (
        result.get("create_state") == "CREATE_COMPLETE"
        and result.get("delete_state") == "DELETE_COMPLETE"
    )
    return result


def run_case(case: Case, args: argparse.Namespace) -> Result:
    from bench.api_run import run_api
    from bench.engine_run import run_engine

    if args.via in ("api", "cluster"):
        measured = run_api(case, poll=args.poll or 0.05, timeout=args.timeout,
                           profile=args.profile, profile_gil=args.profile_gil,
                           engines=args.engines if args.via == "cluster" else 0,
                           spread=args.spread, spread_nested=args.spread_nested)
    else:
        measured = run_engine(case, poll=args.poll or 0.02, timeout=args.timeout,
                              profile=args.profile, profile_gil=args.profile_gil)
    result = case_meta(case)
    result.update(measured)
    finish(result)
    if result.get("skipped"):
        return result
    if args.no_heat:
        add_heat(result, None, "--no-heat")
    else:
        heat, reason = run_heat(case, extra=args.heat_args, max_n=args.heat_max_n)
        add_heat(result, heat, reason)
    return result


def suite_command(item: SuiteCase, args: argparse.Namespace) -> list[str]:
    """One case of the suite in its own process (a clean heap for its RSS); Heat is run by the
    suite itself, once per distinct case."""
    command = [sys.executable, "-m", "bench", "--shape", item.shape, "-n", str(item.n),
               "--via", item.via, "--type", args.kind, "--json", "--no-save", "--no-heat",
               "--timeout", str(args.timeout)]
    if args.poll:
        command += ["--poll", str(args.poll)]
    return command


def last_json(stdout: str) -> Result | None:
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    try:
        found = json.loads(lines[-1])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def run_suite(args: argparse.Namespace) -> list[Result]:
    results: list[Result] = []
    heat_cache: dict[tuple[str, int, str], tuple[dict[str, Any] | None, str | None]] = {}
    for item in SUITE:
        print(f"== {item.shape} n={item.n} via {item.via}", flush=True)
        proc = subprocess.run(suite_command(item, args), capture_output=True, text=True,
                              cwd=str(machine.REPO))
        found = last_json(proc.stdout)
        if found is None:
            found = {"shape": item.shape, "n": item.n, "via": item.via, "type_key": args.kind,
                     "ok": False, "error": (proc.stderr or proc.stdout).strip()[-2000:]}
            print(f"  failed (exit {proc.returncode}):\n{found['error']}", flush=True)
        elif not found.get("skipped"):
            if args.no_heat:
                add_heat(found, None, "--no-heat")
            else:
                key = (item.shape, item.n, args.kind)
                if key not in heat_cache:
                    heat_cache[key] = run_heat(build_case(item.shape, item.n, args.kind),
                                               extra=args.heat_args, max_n=args.heat_max_n)
                add_heat(found, *heat_cache[key])
        if "error" not in found:
            print(format_case(found), flush=True)
        results.append(found)
    return results


def save(
    args: argparse.Namespace, started: datetime, host: dict[str, Any], cases: list[Result]
) -> Path | None:
    if args.no_save:
        return None
    path = args.out or RESULTS_DIR / f"{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    run: dict[str, Any] = {
        "started": started.isoformat(timespec="seconds"),
        "machine": host,
        "argv": args.argv,
        "cases": cases,
    }
    append_results(path, run)
    return Path(path)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    started = datetime.now(UTC)
    host = machine.describe()  # before the run: its load average is the other work's
    if args.suite:
        cases = run_suite(args)
        print()
        print(format_table(cases))
    else:
        try:
            case = build_case(args.shape, args.n, args.kind)
        except ValueError as exc:
            parser().error(str(exc))
        cases = [run_case(case, args)]
        print(format_case(cases[0]), flush=True)
        if args.profile is not None:
            for phase in ("create", "delete"):
                path = args.profile / f"{phase}.txt"
                if path.exists():
                    print(format_hotspots(f"{phase} profile ({path})", path.read_text()),
                          flush=True)
    path = save(args, started, host, cases)
    if path is not None:
        print(f"results appended to {path}", flush=True)
    if args.json:
        if args.suite:
            print(json.dumps({"cases": cases}, sort_keys=True, default=str))
        else:
            print(json_line(cases[0]))
    return 0 if all(c.get("ok") for c in cases) else 1
