"""The cloud benchmark's figures as text: one Markdown row per engine and phase (seconds, API
calls by method and by service, polls), then Hearth's figures over each Heat run's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.cloud_timeline import format_timeline
from bench.results import _times

SERVICES = ("keystone", "nova", "neutron", "glance", "cinder")
METHODS = ("GET", "POST", "PUT", "DELETE")
HEADER = ("engine", "phase", "seconds", "state", "calls", "polls", "in calls s",
          "cloud cpu s", "engine cpu s", *METHODS, *SERVICES)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def calls_of(result: Mapping[str, Any], phase: str) -> Mapping[str, Any]:
    return (result.get("calls") or {}).get(phase) or {}


def total_calls(result: Mapping[str, Any], key: str = "total") -> int | None:
    calls = result.get("calls") or {}
    if not calls:
        return None
    return sum(int((calls.get(phase) or {}).get(key, 0)) for phase in ("create", "delete"))


def rows(name: str, result: Mapping[str, Any]) -> list[list[str]]:
    if result.get("skipped") or result.get("error"):
        why = result.get("skipped") or result.get("error")
        return [[name, "-", "-", f"not run: {why}"] + ["-"] * (len(HEADER) - 4)]
    out = []
    for phase in ("create", "delete"):
        calls = calls_of(result, phase)
        services = calls.get("by_service") or {}
        methods = calls.get("by_method") or {}
        extra = sorted(set(services) - set(SERVICES))
        state = str(result.get(f"{phase}_state"))
        if extra:
            state += " (+" + ", ".join(f"{s} {services[s]['total']}" for s in extra) + ")"
        out.append([
            name, phase, _seconds(result.get(f"{phase}_s")), state,
            str(calls.get("total", "-")), str(calls.get("polls", "-")),
            _seconds(calls.get("call_seconds")),
            _seconds((calls.get("cpu") or {}).get("cloud_total_s")),
            _seconds((calls.get("cpu") or {}).get("engine_s")),
            *(str(methods.get(m, 0)) for m in METHODS),
            *(f"{services[s]['total']} ({services[s]['polls']})" if s in services else "0"
              for s in SERVICES),
        ])
    return out


def table(lines: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in lines) for i in range(len(HEADER))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    text = [line(lines[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(text + [line(r) for r in lines[1:]])


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def comparison(hearth: Mapping[str, Any], label: str, heat: Mapping[str, Any]) -> str:
    parts = []
    for phase in ("create", "delete"):
        times = _ratio(hearth.get(f"{phase}_s"), heat.get(f"{phase}_s"))
        parts.append(f"{phase} time {_times(times)}")
    calls = (total_calls(hearth), total_calls(heat))
    polls = (total_calls(hearth, "polls"), total_calls(heat, "polls"))
    ratio = _ratio(calls[0], calls[1])
    parts.append(f"API calls {calls[0]} vs {calls[1]}"
                 + (f" ({ratio:.2f})" if ratio is not None else ""))
    parts.append(f"polls {polls[0]} vs {polls[1]}")
    return f"Hearth / Heat 27 ({label}): " + "; ".join(parts)


def cpu_detail(name: str, result: Mapping[str, Any]) -> list[str]:
    """Where the cloud's CPU went in each phase, per service (largest first)."""
    out = []
    for phase in ("create", "delete"):
        spent: Mapping[str, float] = (calls_of(result, phase).get("cpu") or {}).get(
            "cloud_s") or {}
        if spent:
            out.append(f"{name} {phase}, cloud CPU s: " + ", ".join(
                f"{service} {seconds:,.1f}" for service, seconds in spent.items() if seconds))
    return out


def requests_detail(name: str, result: Mapping[str, Any], limit: int = 25) -> list[str]:
    """The most frequent kinds of request of each phase (ids as *)."""
    out = []
    for phase in ("create", "delete"):
        found: Mapping[str, int] = calls_of(result, phase).get("by_request") or {}
        if found:
            out.append(f"{name} {phase}, most frequent requests:")
            ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
            out += [f"  {count:5d}  {what}" for what, count in ranked[:limit]]
    return out


def format_report(result: Mapping[str, Any], host: Mapping[str, Any],
                  detail: bool = False) -> str:
    shape = result.get("shape") or {}
    head = ("Cloud stack: " + ", ".join(f"{k} {v}" for k, v in shape.items())
            + f"; project {result.get('project')}; load average at start "
            + " ".join(f"{x:.2f}" for x in host.get("load_avg") or [])
            + ", at end " + " ".join(f"{x:.2f}" for x in result.get("load_avg_after") or []))
    lines: list[list[str]] = [list(HEADER)]
    hearth = result.get("hearth")
    if hearth:
        lines += rows("Hearth", hearth)
    heats: Mapping[str, Mapping[str, Any]] = result.get("heat") or {}
    for label, heat in heats.items():
        lines += rows(f"Heat 27 ({label})", heat)
    text = [head, "", "calls: per phase; per service: total (polls of it); in calls s: seconds "
            "spent inside API calls, summed over threads; cloud cpu s: CPU seconds of the "
            "devcloud's services (and their database and broker); engine cpu s: the engine "
            "process's own", "",
            table(lines), ""]
    for name, found in [("Hearth", hearth or {})] + [(f"Heat 27 ({k})", v)
                                                     for k, v in heats.items()]:
        if found.get("left_after_delete"):
            text.append(f"{name}: LEFT AFTER DELETE {found['left_after_delete']}")
        for phase in ("create", "delete"):
            state = found.get(f"{phase}_state")
            if state and not str(state).endswith("COMPLETE"):
                text.append(f"{name} {phase}: {found.get(f'{phase}_reason')}")
    if hearth and not hearth.get("error"):
        for label, heat in heats.items():
            if not heat.get("error") and not heat.get("skipped"):
                text.append(comparison(hearth, label, heat))
    if detail:
        for name, found in [("Hearth", hearth or {})] + [(f"Heat 27 ({k})", v)
                                                         for k, v in heats.items()]:
            text += cpu_detail(name, found) + requests_detail(name, found)
        for phase, found_timeline in ((hearth or {}).get("timeline") or {}).items():
            text += format_timeline(f"Hearth {phase}, per resource type", found_timeline)
    return "\n".join(text)
