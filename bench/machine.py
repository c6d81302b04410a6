"""What the figures were measured on, and memory readings of a process."""

from __future__ import annotations

import os
import platform
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parent.parent


def parse_cpu_model(cpuinfo: str) -> str:
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "model name":
            return value.strip()
    return platform.processor() or platform.machine()


def parse_vm_hwm(status: str) -> int | None:
    """Peak resident set size in bytes from /proc/<pid>/status (``VmHWM:  1234 kB``)."""
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            parts = line.split()
            return int(parts[1]) * 1024
    return None


def cpu_model() -> str:
    try:
        return parse_cpu_model(Path("/proc/cpuinfo").read_text())
    except OSError:
        return platform.processor() or platform.machine()


def git_revision() -> str | None:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=REPO, capture_output=True, text=True, timeout=10, check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def describe() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "ram_bytes": psutil.virtual_memory().total,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "revision": git_revision(),
        # Other work on the machine skews the figures: the load when the run started.
        "load_avg": list(os.getloadavg()),
    }


def peak_rss(pid: int | None = None) -> int | None:
    """Peak RSS in bytes of a live process (this one by default)."""
    path = Path(f"/proc/{pid or os.getpid()}/status")
    try:
        found = parse_vm_hwm(path.read_text())
    except OSError:
        found = None
    if found is None and pid is None:
        # ru_maxrss is in KiB on Linux
        found = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return found


def current_rss(pid: int | None = None) -> int | None:
    try:
        return int(psutil.Process(pid or os.getpid()).memory_info().rss)
    except psutil.Error:
        return None


def sqlite_checkpointed_bytes(path: Path, timeout: float = 10.0) -> int:
    """Size of the database's content: its write-ahead log copied into the main file first
    (``wal_checkpoint(TRUNCATE)``), so that the figure does not depend on when SQLite last
    checkpointed. Falls back to main file + log when the checkpoint cannot finish."""
    try:
        conn = sqlite3.connect(str(path), timeout=timeout)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        pass
    return sqlite_bytes(path)


def sqlite_bytes(path: Path) -> int:
    """Size of an SQLite database on disk, its write-ahead log included."""
    total = 0
    for suffix in ("", "-wal", "-journal"):
        try:
            total += (path.parent / (path.name + suffix)).stat().st_size
        except OSError:
            pass
    return total


def stop_process(process: subprocess.Popen[bytes], signum: int = signal.SIGTERM,
                 timeout: float = 30.0) -> None:
    """Ask a child process to end with ``signum``; kill it when it does not in time."""
    if process.poll() is not None:
        return
    process.send_signal(signum)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
