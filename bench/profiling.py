"""Sampling profiles of the create and of the delete with py-spy, and their hotspots.

``python -m bench ... --profile DIR`` attaches py-spy to the process that does the work (this
one via engine, the server via api) for the create and again for the delete, writes the
collapsed stacks to DIR/create.txt and DIR/delete.txt (flamegraph.pl or speedscope read them)
and prints the functions that cost the most. ``python -m bench.profiling FILE...`` summarises
saved files again.
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import machine

# "func (path/to/file.py:123)"; --function makes the line the function's first line
FRAME = re.compile(r"^(?P<func>.*) \((?P<where>[^()]*)\)$")


@dataclass(frozen=True)
class Hotspot:
    function: str
    where: str
    self_share: float
    total_share: float


def py_spy_path() -> str | None:
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else shutil.which("py-spy")


@contextmanager
def recording(pid: int, out: Path, *, rate: int = 100, gil: bool = False) -> Iterator[None]:
    """py-spy samples every thread of ``pid`` while the block runs (``gil``: only the thread
    holding the GIL, i.e. where the CPU goes, leaving out threads that wait on locks)."""
    exe = py_spy_path()
    if exe is None:
        raise RuntimeError("py-spy is not installed (pip install -c constraints.txt py-spy)")
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_suffix(".log")
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [exe, "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw",
             "--function", "--output", str(out), *(["--gil"] if gil else [])],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    time.sleep(1.0)  # attached before the work starts
    try:
        yield
    finally:
        machine.stop_process(proc, signal.SIGINT, timeout=120)


@contextmanager
def maybe_recording(
    pid: int, folder: Path | None, phase: str, *, gil: bool = False
) -> Iterator[None]:
    """``recording`` into ``folder/<phase>.txt``, or nothing when there is no folder."""
    if folder is None:
        yield
        return
    with recording(pid, folder / f"{phase}.txt", gil=gil):
        yield


def parse_collapsed(text: str) -> list[tuple[list[str], int]]:
    """py-spy's raw output: one ``frame;frame;... count`` line per distinct stack."""
    stacks: list[tuple[list[str], int]] = []
    for line in text.splitlines():
        head, _, count = line.rstrip().rpartition(" ")
        if not head or not count.isdigit():
            continue
        stacks.append((head.split(";"), int(count)))
    return stacks


def split_frame(frame: str) -> tuple[str, str]:
    found = FRAME.match(frame)
    if found is None:
        return frame, ""
    return found["func"], found["where"]


def hotspots(
    text: str, *, top: int = 15, only: str | None = None
) -> tuple[int, list[Hotspot], list[Hotspot]]:
    """(samples, by self time, by inclusive time); ``only`` keeps frames whose file contains it
    (e.g. "hearth/") in the inclusive list."""
    stacks = parse_collapsed(text)
    total = sum(count for _, count in stacks)
    self_time: Counter[tuple[str, str]] = Counter()
    inclusive: Counter[tuple[str, str]] = Counter()
    for frames, count in stacks:
        if not frames:
            continue
        self_time[split_frame(frames[-1])] += count
        for key in {split_frame(f) for f in frames}:
            inclusive[key] += count
    if total == 0:
        return 0, [], []

    def rows(counter: Counter[tuple[str, str]], keep: str | None) -> list[Hotspot]:
        picked = [
            (key, n) for key, n in counter.most_common()
            if keep is None or keep in key[1]
        ][:top]
        return [
            Hotspot(func, where, self_time[(func, where)] / total, inclusive[(func, where)] / total)
            for (func, where), n in picked
        ]

    return total, rows(self_time, None), rows(inclusive, only)


def format_hotspots(title: str, text: str, *, top: int = 15) -> str:
    samples, by_self, by_total = hotspots(text, top=top, only="hearth/")
    lines = [f"{title}: {samples} samples"]
    lines.append("  by own time (all code):")
    lines += [f"    {h.self_share:6.1%} self {h.total_share:6.1%} total  {h.function} "
              f"({h.where})" for h in by_self]
    lines.append("  by inclusive time (Hearth's code):")
    lines += [f"    {h.total_share:6.1%} total {h.self_share:6.1%} self  {h.function} "
              f"({h.where})" for h in by_total]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.profiling",
                                description="Summarise py-spy raw (collapsed) profiles.")
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--top", type=int, default=15)
    args = p.parse_args(argv)
    for path in args.files:
        print(format_hotspots(str(path), path.read_text(), top=args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
