"""Figures of one case and their presentation: rates, ratios, text, tables, the results file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

Result = dict[str, Any]

MB = 1024 * 1024


def rate(count: int, seconds: float | None) -> float | None:
    """Resources per second (None when there is no time to divide by)."""
    if seconds is None or seconds <= 0:
        return None
    return count / seconds


def ratio(hearth: float | None, heat: float | None) -> float | None:
    """Hearth's seconds over Heat's (below 1: Hearth is faster)."""
    if hearth is None or heat is None or heat <= 0:
        return None
    return hearth / heat


def with_rates(result: Result) -> Result:
    count = int(result.get("resources") or 0)
    result["create_res_per_s"] = rate(count, result.get("create_s"))
    result["delete_res_per_s"] = rate(count, result.get("delete_s"))
    return result


def add_heat(result: Result, heat: Mapping[str, Any] | None, skipped: str | None = None) -> Result:
    """Attach Heat's figures of the same case (or why there are none) and the ratios."""
    if heat is None:
        result["heat"] = None
        result["heat_skipped"] = skipped
        result["create_ratio"] = result["delete_ratio"] = None
        return result
    result["heat"] = dict(heat)
    result["heat_skipped"] = None
    result["create_ratio"] = ratio(result.get("create_s"), heat.get("create_s"))
    result["delete_ratio"] = ratio(result.get("delete_s"), heat.get("delete_s"))
    return result


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _int(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value / MB:,.1f}"


def _times(ratio_value: float | None) -> str:
    """A Hearth/Heat time ratio as text: '0.021 (47x faster)'."""
    if ratio_value is None:
        return "-"
    if ratio_value <= 0:
        return f"{ratio_value:.3f}"
    speed = 1 / ratio_value
    word = "faster" if speed >= 1 else "slower"
    factor = speed if speed >= 1 else ratio_value
    return f"{ratio_value:.3f} ({factor:,.1f}x {word})"


def case_name(result: Mapping[str, Any]) -> str:
    return f"{result.get('shape')} n={result.get('n')} {result.get('type_key', '')}".strip()


def format_case(result: Mapping[str, Any]) -> str:
    """The human summary of one case (several lines)."""
    head = f"{case_name(result)} via {result.get('via')}"
    if result.get("skipped"):
        return f"{head}: skipped ({result['skipped']})"
    lines = [
        f"{head}: {result.get('resources')} resources, {result.get('stacks')} stack(s), "
        f"{result.get('edges')} edges",
        f"  create: {_num(result.get('create_s'), 3)} s "
        f"({_int(result.get('create_res_per_s'))} res/s) -> {result.get('create_state')}",
        f"  delete: {_num(result.get('delete_s'), 3)} s "
        f"({_int(result.get('delete_res_per_s'))} res/s) -> {result.get('delete_state')}",
        f"  peak RSS {_mb(result.get('peak_rss_bytes'))} MB (after create "
        f"{_mb(result.get('rss_after_create_bytes'))} MB), database after create "
        f"{_mb(result.get('db_bytes'))} MB",
    ]
    if result.get("create_cpu_s") is not None:
        lines.append(
            f"  CPU of the engine's process (all threads): create "
            f"{_num(result.get('create_cpu_s'), 3)} s, "
            f"delete {_num(result.get('delete_cpu_s'), 3)} s"
        )
    if result.get("create_statements") is not None:
        lines.append(
            f"  SQL through SQLAlchemy: create {_int(result.get('create_statements'))} "
            f"statements / {_int(result.get('create_commits'))} commits, delete "
            f"{_int(result.get('delete_statements'))} / {_int(result.get('delete_commits'))}"
        )
    if result.get("create_reason") and result.get("create_state") != "CREATE_COMPLETE":
        lines.append(f"  reason: {result['create_reason']}")
    heat = result.get("heat")
    if heat:
        lines.append(
            f"  Heat 27 ({heat.get('label', '')}): create {_num(heat.get('create_s'), 3)} s "
            f"({_int(heat.get('create_res_per_s'))} res/s), delete "
            f"{_num(heat.get('delete_s'), 3)} s ({_int(heat.get('delete_res_per_s'))} res/s), "
            f"peak RSS {_mb(heat.get('peak_rss_bytes'))} MB"
        )
        lines.append(
            f"  Hearth/Heat time: create {_times(result.get('create_ratio'))}, "
            f"delete {_times(result.get('delete_ratio'))}"
        )
    elif result.get("heat_skipped"):
        lines.append(f"  Heat 27: not run ({result['heat_skipped']})")
    return "\n".join(lines)


TABLE_HEADER = (
    "case", "via", "resources", "create s", "create res/s", "delete s", "delete res/s",
    "peak RSS MB", "DB MB", "Heat create / delete s", "Hearth/Heat create", "Hearth/Heat delete",
)


def table_row(result: Mapping[str, Any]) -> list[str]:
    name = case_name(result)
    if result.get("skipped"):
        return [name, str(result.get("via")), "-", f"skipped: {result['skipped']}"] + ["-"] * (
            len(TABLE_HEADER) - 4
        )
    heat = result.get("heat")
    heat_cell = (
        f"{_num(heat.get('create_s'))} / {_num(heat.get('delete_s'))}" if heat else "-"
    )
    state_note = "" if result.get("ok", True) else " (FAILED)"
    return [
        name + state_note,
        str(result.get("via")),
        _int(result.get("resources")),
        _num(result.get("create_s"), 3),
        _int(result.get("create_res_per_s")),
        _num(result.get("delete_s"), 3),
        _int(result.get("delete_res_per_s")),
        _mb(result.get("peak_rss_bytes")),
        _mb(result.get("db_bytes")),
        heat_cell,
        _times(result.get("create_ratio")),
        _times(result.get("delete_ratio")),
    ]


def format_table(results: Iterable[Mapping[str, Any]]) -> str:
    """A Markdown table of the cases (pastes into the README as it is)."""
    rows = [list(TABLE_HEADER)] + [table_row(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_HEADER))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [line(rows[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows[1:]]
    return "\n".join(out)


def append_results(path: Path, run: Mapping[str, Any]) -> None:
    """Add one run (machine, time, cases) to the JSON list in ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    runs: list[Any] = []
    if path.exists():
        try:
            loaded = json.loads(path.read_text())
            runs = loaded if isinstance(loaded, list) else [loaded]
        except ValueError:
            runs = []
    runs.append(dict(run))
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def json_line(result: Mapping[str, Any]) -> str:
    """The one-line JSON object that ends ``--json`` output."""
    return json.dumps(dict(result), sort_keys=True, default=str)
