"""Instructions the engine executes for one create and one delete, counted by callgrind.

Wall times on a shared 2-core machine vary by 30% between runs; instruction counts of the
same work agree within a few percent, so they can show a change of 5%. ``python -m
bench.instructions --shape nested -n 2`` starts a child process under ``valgrind
--tool=callgrind --instr-atstart=no`` that runs one warm-up create and delete (imports,
caches and the database's first pages are not counted), then the measured create and delete.
Around each measured phase this process switches counting on and off with
``callgrind_control`` and dumps it; each dump's ``totals:`` line is the phase's count. Valgrind
runs Python about 50 times slower: a nested tree of n = 2 (63 stacks) takes about 40 s.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

from bench.templates import SHAPES, build_case

PHASES = ("create", "delete")
REPO = Path(__file__).resolve().parent.parent
TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)
TRIGGER = re.compile(r"^desc: Trigger: dump (\S+)", re.MULTILINE)


def _child(shape: str, n: int, timeout: float) -> int:
    """Runs under valgrind: a warm-up create and delete, then each phase between two lines
    exchanged with the parent ("ready <phase>" / "go", "done <phase>" / "go")."""
    # The engine is set up here rather than by a helper of ``bench.engine_run``: with
    # ``--code`` these imports come from another (often older) checkout, which has only
    # what ``bench.engine_run`` has long had.
    from bench.engine_run import StatePoller, bench_overrides
    from hearth.common.config import load_config
    from hearth.common.context import RequestContext
    from hearth.engine.engine import Engine

    case = build_case(shape, n)
    ctx = RequestContext(project_id="bench", user_id="bench", username="bench")
    with tempfile.TemporaryDirectory(prefix="hearth-instr-") as tmp:
        db = Path(tmp) / "hearth.sqlite"
        conf = load_config(overrides=[("connection", "database", f"sqlite:///{db}"),
                                      *bench_overrides()])
        engine = Engine.from_config(conf)
        engine.start()
        poller = StatePoller(db)

        def settle(stack_id: str, action: str) -> None:
            # Waits on the engine's own event, not by polling: a poll would be counted, and
            # how many polls fit in a phase depends on how fast valgrind runs that day.
            if not engine.wait_idle(stack_id, timeout):
                raise RuntimeError(f"{action} still running after {timeout:.0f}s")
            state = poller.read(stack_id)
            if state[:2] != (action, "COMPLETE"):
                raise RuntimeError(f"{action} ended {state}")

        def handshake(line: str) -> None:
            print(line, flush=True)
            if sys.stdin.readline().strip() != "go":
                raise RuntimeError("the parent went away")

        try:
            for measured in (False, True):
                if measured:
                    handshake("ready create")
                ident = engine.create_stack(ctx, f"instr-{uuid.uuid4().hex[:8]}",
                                            case.template, files=case.files,
                                            args={"disable_rollback": True})
                settle(ident["stack_id"], "CREATE")
                if measured:
                    handshake("done create")
                    handshake("ready delete")
                engine.delete_stack(ctx, ident)
                settle(ident["stack_id"], "DELETE")
                if measured:
                    handshake("done delete")
        finally:
            poller.close()
            engine.stop()
    return 0


def _control(*args: str) -> None:
    subprocess.run(["callgrind_control", *args], check=True, capture_output=True)


def _expect(stream: IO[str], line: str) -> None:
    got = stream.readline().strip()
    if got != line:
        raise RuntimeError(f"expected {line!r} from the child, got {got!r}")


def count(shape: str, n: int, timeout: float, code: Path | None = None,
          keep: Path | None = None) -> dict[str, int]:
    """Instructions per phase, from a child run under callgrind; with ``code``, the child
    imports Hearth (and the benchmark's templates) from that checkout instead of this one."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise RuntimeError("valgrind (with callgrind_control) is not installed")
    with tempfile.TemporaryDirectory(prefix="hearth-callgrind-") as out:
        child = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}/callgrind.out", f"--log-file={out}/valgrind.log",
             sys.executable, str(Path(__file__).resolve()), "--child", "--shape", shape,
             "-n", str(n), "--timeout", str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str((code or REPO).resolve())},
        )
        assert child.stdin is not None and child.stdout is not None
        try:
            for phase in PHASES:
                _expect(child.stdout, f"ready {phase}")
                _control("-i", "on", str(child.pid))
                child.stdin.write("go\n")
                child.stdin.flush()
                _expect(child.stdout, f"done {phase}")
                _control("-i", "off", str(child.pid))
                _control("-d", phase, str(child.pid))
                child.stdin.write("go\n")
                child.stdin.flush()
            if child.wait(timeout=timeout) != 0:
                raise RuntimeError(f"the child ended with {child.returncode}")
        except Exception as exc:
            log = Path(out, "valgrind.log")
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{exc}; valgrind's log ends:\n{tail}") from exc
        finally:
            if child.poll() is None:
                child.kill()
        dumps = sorted(Path(out).glob("callgrind.out*"))
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for dump in dumps:
                shutil.copy(dump, keep / dump.name)
        counts = phase_counts(dump.read_text(errors="replace") for dump in dumps)
    missing = [phase for phase in PHASES if phase not in counts]
    if missing:
        raise RuntimeError(f"callgrind wrote no dump for {', '.join(missing)}")
    return counts


def phase_counts(dumps: Iterable[str]) -> dict[str, int]:
    """Each phase's instructions, from the texts of callgrind's dump files (those made by
    ``callgrind_control -d <phase>``; the dump at the program's end counts nothing here)."""
    counts: dict[str, int] = {}
    for text in dumps:
        name = TRIGGER.search(text)
        total = TOTALS.search(text)
        if name and total and name.group(1) in PHASES:
            counts[name.group(1)] = int(total.group(1))
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=SHAPES, default="nested")
    parser.add_argument("-n", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--code", type=Path, help="count another checkout's engine (e.g. a "
                        "git worktree of an older commit), for comparing two versions")
    parser.add_argument("--keep", type=Path, help="copy callgrind's dumps into this folder "
                        "(callgrind_annotate or kcachegrind read them: where the "
                        "instructions go, by C function and library)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args.shape, args.n, args.timeout)
    started = time.monotonic()
    counts = count(args.shape, args.n, args.timeout, args.code, args.keep)
    for phase in PHASES:
        print(f"{args.shape} n={args.n} {phase}: {counts[phase] / 1e9:.3f} G instructions")
    print(f"({time.monotonic() - started:.0f} s under valgrind)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
