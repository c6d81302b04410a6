"""Where a Hearth stack action spent its time, per resource type, from the events the engine
stored (read straight from its SQLite file): how many, how long each took (IN_PROGRESS to
COMPLETE or FAILED) and when the first began and the last ended, in seconds from the action's
first event. Shows the cloud benchmark's critical path (e.g. servers, then their ports)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

Timeline = dict[str, dict[str, float]]


def _when(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(str(value)).timestamp()


def timeline(db: Path, stack_id: str, action: str) -> Timeline:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT resource_name, resource_type, resource_status, created_at FROM event "
            "WHERE stack_id = ? AND resource_action = ? ORDER BY id", (stack_id, action),
        ).fetchall()
    finally:
        conn.close()
    starts: dict[str, float] = {}
    spans: dict[str, list[tuple[float, float]]] = {}
    for name, rtype, status, created in rows:
        when = _when(created)
        if status == "IN_PROGRESS":
            starts[name] = when
        elif name in starts:
            spans.setdefault(rtype or "?", []).append((starts.pop(name), when))
    if not spans:
        return {}
    origin = min(start for found in spans.values() for start, _ in found)
    out: Timeline = {}
    for rtype, found in sorted(spans.items()):
        took = [end - start for start, end in found]
        out[rtype] = {
            "count": len(found),
            "mean_s": sum(took) / len(took),
            "max_s": max(took),
            "first_start_s": min(start for start, _ in found) - origin,
            "last_end_s": max(end for _, end in found) - origin,
        }
    return out


def format_timeline(title: str, found: Timeline) -> list[str]:
    if not found:
        return []
    lines = [f"{title} (seconds; from the action's first event):",
             f"  {'type':34} {'count':>5} {'mean':>7} {'max':>7} {'first':>7} {'last end':>8}"]
    for rtype, t in sorted(found.items(), key=lambda item: item[1]["last_end_s"]):
        lines.append(f"  {rtype:34} {int(t['count']):5d} {t['mean_s']:7.1f} {t['max_s']:7.1f} "
                     f"{t['first_start_s']:7.1f} {t['last_end_s']:8.1f}")
    return lines
