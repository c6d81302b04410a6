"""Heat 27 on the same case, through ../shared/anchor/bench_heat.py (when that folder exists).

Hearth's figures never depend on this: without the anchor, or for a case it cannot run, the
comparison is left out with the reason. By default Heat runs its legacy engine in-process on
SQLite with its 1 s sleeps off (``--mode stack --no-sleep``): Heat's fastest configuration on
this machine and the same database as Hearth's embedded mode. ``--heat-args`` picks another one
(e.g. ``--mode service --engine convergence --db-url mysql+pymysql://...``).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.machine import REPO
from bench.results import rate
from bench.templates import Case

DEFAULT_HEAT_ARGS = "--mode stack --engine legacy --no-sleep"
# Heat's legacy engine grows faster than linearly (1,000 independent: about 60 s to create);
# cases above this many resources are left out unless --heat-max-n says otherwise.
DEFAULT_HEAT_MAX_N = 1000


def anchor_dir() -> Path | None:
    """The anchor folder: $HEARTH_ANCHOR_DIR, else ../shared/anchor beside the repo."""
    configured = os.environ.get("HEARTH_ANCHOR_DIR")
    folder = Path(configured) if configured else REPO.parent / "shared" / "anchor"
    return folder if (folder / "bench_heat.py").is_file() else None


def unsupported(case: Case, max_n: int) -> str | None:
    """Why bench_heat.py cannot run this case (None: it can)."""
    if case.shape not in ("independent", "chain"):
        return f"bench_heat.py has no {case.shape} shape"
    if case.kind != "none":
        return "bench_heat.py runs OS::Heat::None and TestResource only"
    if case.n > max_n:
        return f"n > --heat-max-n {max_n} (Heat's legacy engine is superlinear; raise it to run)"
    return None


def heat_python(anchor: Path) -> str:
    """The anchor venv's python (setup.sh installs Heat 27 once, then only prints the path)."""
    out = subprocess.run(
        ["bash", str(anchor / "setup.sh")], capture_output=True, text=True, check=True,
        timeout=1800,
    )
    return out.stdout.strip().splitlines()[-1]


def heat_command(
    python: str, anchor: Path, case: Case, extra: str, db: Path | None
) -> list[str]:
    args = shlex.split(extra)
    command = [python, str(anchor / "bench_heat.py"), "-n", str(case.n), "--shape", case.shape,
               "--json", *args]
    if db is not None and "--db-url" not in args and "--db" not in args:
        command += ["--db", str(db)]
    return command


def parse_heat_output(stdout: str, n: int) -> dict[str, Any]:
    """bench_heat.py's last JSON line as our figures. Its stack mode times validate + store
    (``prepare_s``) apart from create; Hearth's create_s includes both, so Heat's does too."""
    line = stdout.strip().splitlines()[-1]
    raw = json.loads(line)
    create_s = float(raw["create_s"]) + float(raw.get("prepare_s") or 0.0)
    delete_s = float(raw["delete_s"])
    ok = raw.get("create_state") == "CREATE_COMPLETE" and raw.get(
        "delete_state") == "DELETE_COMPLETE"
    return {
        "create_s": create_s,
        "delete_s": delete_s,
        "create_res_per_s": rate(n, create_s),
        "delete_res_per_s": rate(n, delete_s),
        "create_state": raw.get("create_state"),
        "delete_state": raw.get("delete_state"),
        "ok": ok,
        "label": f"{raw.get('engine')} engine, {raw.get('mode')} mode, "
                 f"sleep {'on' if raw.get('sleep') else 'off'}",
        "raw": raw,
    }


def run_heat(
    case: Case, *, extra: str = DEFAULT_HEAT_ARGS, max_n: int = DEFAULT_HEAT_MAX_N
) -> tuple[dict[str, Any] | None, str | None]:
    """(Heat's figures, None) or (None, why there are none)."""
    anchor = anchor_dir()
    if anchor is None:
        return None, "no ../shared/anchor/bench_heat.py"
    reason = unsupported(case, max_n)
    if reason:
        return None, reason
    try:
        python = heat_python(anchor)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"anchor setup failed: {exc}"
    with tempfile.TemporaryDirectory(prefix="hearth-bench-heat-") as tmp:
        command = heat_command(python, anchor, case, extra, Path(tmp) / "heat.sqlite")
        out_path = Path(tmp) / "out.txt"
        started = time.perf_counter()
        with out_path.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=tmp)
            try:
                # wait4: the child's own rusage, so its peak RSS as the kernel saw it
                _, status, usage = os.wait4(proc.pid, 0)
            except ChildProcessError:
                proc.wait()
                status, usage = 0, None
            else:
                proc.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - started
        stdout = out_path.read_text(errors="replace")
        try:
            figures = parse_heat_output(stdout, case.resources)
        except (ValueError, KeyError, IndexError):
            tail = " | ".join(stdout.strip().splitlines()[-3:])
            return None, f"bench_heat.py failed (exit {proc.returncode}): {tail}"
    figures["peak_rss_bytes"] = int(usage.ru_maxrss) * 1024 if usage is not None else None
    figures["wall_s"] = elapsed
    figures["args"] = extra
    return figures, None
