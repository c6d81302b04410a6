"""``--wait``: follow a stack action to its end.

On a terminal, a table of the stack's resources updates in place (rich Live); elsewhere each
state change (each new event) is one plain line. Either way a summary line ends it: the
stack's final status and reason, the time it took and how many resources are in each state.
A server that stops answering meanwhile (a restart) is asked again for a while (``contact``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from heatclient import exc as heat_exc
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from hearth.cli.client.contact import DEFAULT_LOST_AFTER, LOST_CONTACT, Contact, lost_contact
from hearth.cli.client.output import console, status_text

FIRST_POLL = 0.2  # seconds; the interval then grows to --poll
ROLLBACK_GRACE = 3.0  # seconds a *_FAILED stack gets to start the rollback its settings ask for
RESOURCE_COLUMNS = (
    ("resource_name", "Resource"),
    ("resource_type", "Type"),
    ("resource_status", "Status"),
    ("resource_status_reason", "Reason"),
    ("updated_time", "Updated"),
)


@dataclass(frozen=True)
class Expect:
    """What the action should end in."""

    action: str  # CREATE, UPDATE, DELETE, ... (the summary's wording)
    success: tuple[str, ...]  # final stack statuses that mean it worked
    rollback: bool = False  # a failure is followed by a rollback, worth waiting for
    gone_ok: bool = False  # the stack may disappear (delete)

    @classmethod
    def of(cls, action: str, *, rollback: bool = False) -> Expect:
        done = f"{action}_COMPLETE"
        return cls(action, (done,), rollback=rollback, gone_ok=action == "DELETE")


@dataclass(frozen=True)
class Baseline:
    """The stack just before the action: its state and its newest event (None for a new
    stack). Against Heat the new state may show only a moment after the request returns; a
    new event or a changed state says the action has begun."""

    state: tuple[str, str | None] | None
    marker: str | None


NEW_STACK = Baseline(None, None)


def baseline(client: Any, stack: Any) -> Baseline:
    ident = stack_ident(stack)
    newest = client.events.list(ident, sort_dir="desc", limit=1)
    return Baseline(
        (str(stack.stack_status), getattr(stack, "updated_time", None)),
        newest[0].id if newest else None,
    )


def stack_ident(stack: Any) -> str:
    return f"{stack.stack_name}/{stack.id}"


@dataclass
class Observed:
    status: str
    reason: str
    updated: str | None = None
    resources: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    gone: bool = False


class Watcher:
    """Polls one stack: its state, its resources, the events since the last poll."""

    def __init__(self, client: Any, ident: str, expect: Expect, base: Baseline) -> None:
        self.client = client
        self.ident = ident
        self.expect = expect
        self.base = base
        self.marker = base.marker
        self.started = base.state is None
        self.failed_at: float | None = None
        self.resources: list[dict[str, Any]] = []

    def poll(self) -> Observed:
        try:
            stack = self.client.stacks.get(self.ident, resolve_outputs=False)
        except heat_exc.HTTPNotFound:
            if not self.expect.gone_ok:
                raise
            return Observed("DELETE_COMPLETE", "Stack deleted", gone=True)
        events = self._new_events()
        try:
            self.resources = [r.to_dict() for r in self.client.resources.list(self.ident)]
        except heat_exc.HTTPNotFound:
            pass
        return Observed(str(stack.stack_status), str(stack.stack_status_reason or ""),
                        getattr(stack, "updated_time", None), self.resources, events)

    def _new_events(self) -> list[dict[str, Any]]:
        args: dict[str, Any] = {"sort_dir": "asc"}
        if self.marker:
            args["marker"] = self.marker
        try:
            events = [e.to_dict() for e in self.client.events.list(self.ident, **args)]
        except heat_exc.HTTPNotFound:
            return []
        if events:
            self.marker = events[-1].get("id") or self.marker
        return events

    def finished(self, seen: Observed, now: float) -> bool:
        if seen.gone:
            return True
        if seen.status.endswith("IN_PROGRESS"):
            self.started = True
            return False
        if not self.started:
            if not seen.events and (seen.status, seen.updated) == self.base.state:
                return False
            self.started = True
        rolling = self.expect.rollback and not seen.status.startswith("ROLLBACK")
        if rolling and seen.status.endswith("_FAILED"):
            if self.failed_at is None:
                self.failed_at = now
            return now - self.failed_at >= ROLLBACK_GRACE
        return True


def event_line(event: Mapping[str, Any], stack_name: str) -> str:
    name = event.get("resource_name") or stack_name
    when = str(event.get("event_time") or "").replace("T", " ")
    reason = event.get("resource_status_reason") or ""
    return f"{when} [{name}]: {event.get('resource_status', '')}  {reason}".rstrip()


class LineView:
    """One line per state change, for a pipe or a file."""

    def __init__(self, stack_name: str) -> None:
        self.stack_name = stack_name

    def __enter__(self) -> LineView:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None

    def show(self, seen: Observed, elapsed: float) -> None:
        for event in seen.events:
            print(event_line(event, self.stack_name), flush=True)

    def note(self, text: str) -> None:
        print(text, flush=True)


class LiveView:
    """The resources table, redrawn in place on a terminal."""

    def __init__(self, out: Console, stack_name: str) -> None:
        self.stack_name = stack_name
        self.live = Live(console=out, refresh_per_second=8, transient=False)

    def __enter__(self) -> LiveView:
        self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.live.__exit__(kind, value, tb)

    def show(self, seen: Observed, elapsed: float) -> None:
        head = Text.assemble(
            (f"Stack {self.stack_name} ", "bold"), status_text(seen.status),
            f"  {elapsed:.1f}s  ", (seen.reason, "dim"),
        )
        grid = Table(header_style="bold", expand=False)
        for _, title in RESOURCE_COLUMNS:
            grid.add_column(title, overflow="fold")
        for res in sorted(seen.resources, key=lambda r: str(r.get("resource_name"))):
            grid.add_row(*(
                status_text(str(res.get(key) or "")) if key == "resource_status"
                else Text(str(res.get(key) or ""))
                for key, _ in RESOURCE_COLUMNS
            ))
        self.live.update(Group(head, grid), refresh=True)

    def note(self, text: str) -> None:
        self.live.console.print(Text(text, style="yellow"))


def summary(stack_name: str, seen: Observed, elapsed: float) -> str:
    counts = Counter(str(r.get("resource_status")) for r in seen.resources)
    states = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none"
    reason = f": {seen.reason}" if seen.reason else ""
    return (f"Stack {stack_name} {seen.status}{reason} ({elapsed:.1f}s; "
            f"resources: {states})")


@dataclass(frozen=True)
class Pace:
    """How ``--wait`` polls: the longest interval, and how long a server that does not
    answer is asked again (``--poll``, ``--lost-after``)."""

    poll: float
    lost_after: float = DEFAULT_LOST_AFTER

    @classmethod
    def of(cls, args: Any) -> Pace:
        return cls(float(args.poll), float(args.lost_after))


def wait(client: Any, stack: Any, expect: Expect, base: Baseline, pace: Pace) -> int:
    """Follow the action to its end; 0 when the stack ends in a state of ``expect.success``,
    1 when it ends otherwise, ``LOST_CONTACT`` when the server stopped answering for longer
    than ``pace.lost_after`` seconds."""
    poll, lost_after = pace.poll, pace.lost_after
    ident = stack_ident(stack)
    out = console()
    view: LineView | LiveView = (
        LiveView(out, stack.stack_name) if out.is_terminal
        else LineView(stack.stack_name)
    )
    watcher = Watcher(client, ident, expect, base)
    contact = Contact(lost_after)
    start = time.monotonic()
    interval = FIRST_POLL
    seen: Observed | None = None
    with view:
        while True:
            try:
                latest = watcher.poll()
            except Exception as exc:
                if not lost_contact(exc):
                    raise
                now = time.monotonic()
                if contact.lose(now):
                    view.note(f"Lost contact with the server; asking again for up to "
                              f"{lost_after:.0f}s (it may be restarting)")
                if contact.given_up(now):
                    break
                time.sleep(interval)
                interval = min(max(poll, FIRST_POLL), interval * 1.5)
                continue
            seen = latest
            now = time.monotonic()
            gap = contact.regain(now)
            if gap is not None:
                view.note(f"In contact again after {gap:.1f}s")
            view.show(seen, now - start)
            if watcher.finished(seen, now):
                break
            time.sleep(interval)
            interval = FIRST_POLL if seen.events else min(max(poll, FIRST_POLL), interval * 1.5)
    elapsed = time.monotonic() - start
    if contact.lost_since is not None:
        last = f"; it was {seen.status} when last seen" if seen is not None else ""
        out.print(Text(
            f"Stack {stack.stack_name}: lost contact with the server for {lost_after:.0f}s"
            f"{last} and may still be going on ({elapsed:.1f}s)", style="bold yellow",
        ), soft_wrap=True)
        return LOST_CONTACT
    assert seen is not None
    line = summary(stack.stack_name, seen, elapsed)
    ok = seen.status in expect.success
    out.print(Text(line, style="green" if ok else "bold red"), soft_wrap=True)
    return 0 if ok else 1


def add_wait_arguments(parser: Any, what: str) -> None:
    parser.add_argument(
        "--wait", action="store_true",
        help=f"follow the {what} to its end: a live table of resources on a terminal, one "
        "line per state change otherwise, then a summary; exit 1 unless the stack ends "
        f"*_COMPLETE as asked, {LOST_CONTACT} when the server stops answering for longer "
        "than --lost-after (the stack's end is then unknown)",
    )
    parser.add_argument(
        "--poll", type=float, default=2.0, metavar="SECONDS",
        help="longest interval between polls while waiting (default 2)",
    )
    parser.add_argument(
        "--lost-after", type=float, default=DEFAULT_LOST_AFTER, metavar="SECONDS",
        help="while waiting, how long a server that does not answer (restarting) is asked "
        f"again before giving up (default {DEFAULT_LOST_AFTER:.0f})",
    )
