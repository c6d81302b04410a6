"""CPU seconds the devcloud's services spend, read from /proc, so that a phase of the cloud
benchmark can say how much work it made the cloud do (per service), beside the engine's own
CPU. On a machine where the cloud runs beside the engine, the cloud's CPU is what bounds a
create once the engine keeps every service busy.

A service's figure is the sum over its live processes of user + system time; a process that
ended between two readings is missed (the devcloud's services and workers live for the whole
run). Stdlib only: Heat's venv imports this module too.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

# A process belongs to the first service whose marker is in its command line.
SERVICE_MARKERS: tuple[tuple[str, str], ...] = (
    ("keystone", "keystone"),
    ("nova-compute", "nova-compute"),
    ("nova-conductor", "nova-conductor"),
    ("nova-scheduler", "nova-scheduler"),
    ("nova-api", "nova"),
    ("placement", "placement"),
    ("neutron", "neutron"),
    ("cinder-volume", "cinder-volume"),
    ("cinder-scheduler", "cinder-scheduler"),
    ("cinder-api", "cinder"),
    ("glance", "glance"),
    ("rabbitmq", "beam.smp"),
    ("mariadb", "mariadbd"),
    ("mariadb", "mysqld"),
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PROC = Path("/proc")


def _service_of(cmdline: str) -> str | None:
    for service, marker in SERVICE_MARKERS:
        if marker in cmdline:
            return service
    return None


def _seconds_of(pid: str) -> float:
    # fields after the command's closing parenthesis: utime and stime are the 12th and 13th
    stat = (PROC / pid / "stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def cloud_cpu_seconds() -> dict[str, float]:
    """CPU seconds used so far by each service's live processes (empty off Linux)."""
    totals: dict[str, float] = {}
    if not PROC.is_dir():
        return totals
    own = str(os.getpid())
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or entry.name == own:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
            service = _service_of(cmdline)
            if service is not None:
                totals[service] = totals.get(service, 0.0) + _seconds_of(entry.name)
        except (OSError, ValueError, IndexError):
            continue  # the process ended while it was read
    return totals


def own_cpu_seconds() -> float:
    """This process's CPU seconds (every thread): the engine's, when it runs in-process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def difference(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    """Seconds spent between two readings, per service, largest first."""
    spent = {name: round(after[name] - before.get(name, 0.0), 1) for name in after}
    return dict(sorted(spent.items(), key=lambda item: -item[1]))
