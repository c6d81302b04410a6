"""``hearth event list [--follow]`` and ``hearth event show``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from typing import Any

import yaml
from heatclient import exc as heat_exc
from heatclient.common import event_utils

from hearth.cli.client.command import Subparsers, add_command, find_stack, group
from hearth.cli.client.output import add_format_argument, print_item, print_list
from hearth.cli.client.progress import event_line, stack_ident

EVENT_COLUMNS = (
    ("event_time", "Time"),
    ("resource_name", "Resource"),
    ("resource_status", "Status"),
    ("resource_status_reason", "Reason"),
)
EVENT_DATA = (
    "id", "event_time", "resource_name", "physical_resource_id", "resource_status",
    "resource_status_reason",
)


def _event_args(args: argparse.Namespace) -> dict[str, Any]:
    event_args: dict[str, Any] = {"sort_dir": args.sort_dir}
    if args.resource:
        event_args["resource_name"] = args.resource
    return event_args


def _fetch(client: Any, ident: str, args: argparse.Namespace, marker: str | None = None,
           limit: int | None = None) -> list[dict[str, Any]]:
    events = event_utils.get_events(client, ident, _event_args(args),
                                    nested_depth=args.nested_depth, marker=marker, limit=limit)
    rows = []
    for event in events:
        row = event.to_dict()
        if args.nested_depth:
            row["stack_name"] = getattr(event, "stack_name", None)
        rows.append(row)
    return rows


def _emit(event: Mapping[str, Any], fmt: str, stack_name: str) -> None:
    """One event as it comes: a log line, a JSON line, or one item of a YAML list."""
    if fmt == "json":
        line = json.dumps({k: event.get(k) for k in EVENT_DATA})
    elif fmt == "yaml":
        line = yaml.safe_dump([{k: event.get(k) for k in EVENT_DATA}], sort_keys=False).rstrip()
    else:
        line = event_line(event, stack_name)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _follow(client: Any, stack: Any, args: argparse.Namespace) -> int:
    ident = stack_ident(stack)
    args.sort_dir = "asc"
    events = _fetch(client, ident, args, limit=args.limit)
    marker = events[-1]["id"] if events else None
    for event in events:
        _emit(event, args.format, stack.stack_name)
    while True:
        try:
            status = str(client.stacks.get(ident, resolve_outputs=False).stack_status)
        except heat_exc.HTTPNotFound:
            return 0  # deleted
        events = _fetch(client, ident, args, marker=marker)
        for event in events:
            _emit(event, args.format, stack.stack_name)
        if events:
            marker = events[-1]["id"]
        if not status.endswith("IN_PROGRESS"):
            return 0
        time.sleep(args.poll)


def cmd_event_list(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    if args.follow:
        return _follow(client, stack, args)
    rows = _fetch(client, stack_ident(stack), args, limit=args.limit)
    columns = list(EVENT_COLUMNS)
    if args.nested_depth:
        columns.insert(1, ("stack_name", "Stack"))
    if args.format == "table":
        print_list(rows, columns, args.format)
    else:
        print_list(rows, [(k, k) for k in EVENT_DATA], args.format)
    return 0


def cmd_event_show(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    event = client.events.get(stack_ident(stack), args.resource, args.event)
    print_item(event.to_dict(), args.format)
    return 0


def register(commands: Subparsers) -> None:
    event_cmds = group(commands, "event", "the events of a stack", "event_command")
    listing = add_command(
        event_cmds, "list", cmd_event_list, "list a stack's events",
        "List a stack's events, oldest first. --follow prints them as they come (a log "
        "line each; with -f json one JSON object a line, with -f yaml one list item each) "
        "until the stack is no longer IN_PROGRESS, or Ctrl-C.",
    )
    listing.add_argument("stack", help="stack name or ID")
    listing.add_argument("--resource", metavar="NAME", help="only this resource's events")
    listing.add_argument("--nested-depth", type=int, default=0, metavar="N",
                         help="include events of nested stacks N levels down")
    listing.add_argument("--limit", type=int, metavar="N", help="at most N events")
    listing.add_argument("--sort-dir", choices=("asc", "desc"), default="asc",
                         help="oldest (asc, the default) or newest (desc) first")
    listing.add_argument("--follow", action="store_true",
                         help="keep printing new events while the stack is IN_PROGRESS")
    listing.add_argument("--poll", type=float, default=1.0, metavar="SECONDS",
                         help="interval between polls with --follow (default 1)")
    add_format_argument(listing)

    show = add_command(event_cmds, "show", cmd_event_show, "show an event")
    show.add_argument("stack", help="stack name or ID")
    show.add_argument("resource", help="resource name (the stack's name for stack events)")
    show.add_argument("event", help="event ID")
    add_format_argument(show)
