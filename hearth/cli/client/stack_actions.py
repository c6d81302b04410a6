"""``hearth stack suspend|resume|check|cancel|restore`` and ``hearth stack snapshot ...``."""

from __future__ import annotations

import argparse
from typing import Any

from hearth.cli.client.command import Handler, Subparsers, add_command, find_stack
from hearth.cli.client.output import add_format_argument, print_item, print_list, say
from hearth.cli.client.progress import (
    Expect,
    Pace,
    add_wait_arguments,
    baseline,
    stack_ident,
    wait,
)

SNAPSHOT_FIELDS = ("id", "name", "status", "status_reason", "creation_time")
SNAPSHOT_COLUMNS = (
    ("id", "ID"),
    ("name", "Name"),
    ("status", "Status"),
    ("status_reason", "Status Reason"),
    ("creation_time", "Created"),
)


def _stack_action(action: str) -> Handler:
    """suspend, resume or check: one POST to the stack's actions."""

    def run(args: argparse.Namespace, client: Any) -> int:
        stack = find_stack(client, args.stack)
        base = baseline(client, stack) if args.wait else None
        getattr(client.actions, action)(stack_ident(stack))
        if base is not None:
            return wait(client, stack, Expect.of(action.upper()), base, Pace.of(args))
        say(f"{action.capitalize()} of stack {stack.stack_name} requested.")
        return 0

    return run


def cmd_cancel(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    base = baseline(client, stack) if args.wait else None
    ident = stack_ident(stack)
    if args.no_rollback:
        client.actions.cancel_without_rollback(ident)
    else:
        client.actions.cancel_update(ident)
    if base is not None:
        expect = (
            Expect("UPDATE", ("UPDATE_FAILED",)) if args.no_rollback
            else Expect("ROLLBACK", ("ROLLBACK_COMPLETE",), rollback=True)
        )
        return wait(client, stack, expect, base, Pace.of(args))
    say(f"Cancel of the update of stack {stack.stack_name} requested.")
    return 0


def cmd_restore(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    base = baseline(client, stack) if args.wait else None
    client.stacks.restore(stack_ident(stack), args.snapshot)
    if base is not None:
        return wait(client, stack, Expect.of("RESTORE"), base, Pace.of(args))
    say(f"Restore of stack {stack.stack_name} from snapshot {args.snapshot} requested.")
    return 0


def cmd_snapshot_create(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    ident = stack_ident(stack)
    base = baseline(client, stack) if args.wait else None
    snap = client.stacks.snapshot(ident, args.name)
    code = 0
    if base is not None:
        code = wait(client, stack, Expect.of("SNAPSHOT"), base, Pace.of(args))
        snap = client.stacks.snapshot_show(ident, snap["id"])["snapshot"]
    print_item(snap, args.format, SNAPSHOT_FIELDS)
    return code


def cmd_snapshot_list(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    snaps = client.stacks.snapshot_list(stack_ident(stack)).get("snapshots") or []
    print_list(snaps, SNAPSHOT_COLUMNS, args.format)
    return 0


def cmd_snapshot_show(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    snap = client.stacks.snapshot_show(stack_ident(stack), args.snapshot)["snapshot"]
    print_item(snap, args.format)
    return 0


def cmd_snapshot_delete(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    client.stacks.snapshot_delete(stack_ident(stack), args.snapshot)
    say(f"Snapshot {args.snapshot} of stack {stack.stack_name} deleted.")
    return 0


def _with_stack(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("stack", help="stack name or ID")
    return parser


def register(stack_cmds: Subparsers) -> None:
    actions: tuple[tuple[str, str], ...] = (
        ("suspend", "suspend a stack's resources"),
        ("resume", "resume a suspended stack"),
        ("check", "check that a stack's resources are as recorded"),
    )
    for action, help_text in actions:
        parser = _with_stack(add_command(stack_cmds, action, _stack_action(action), help_text))
        add_wait_arguments(parser, action)

    cancel = _with_stack(add_command(
        stack_cmds, "cancel", cmd_cancel, "cancel a stack update in progress",
        "Cancel the update in progress and roll the stack back (--no-rollback: stop where "
        "it is). With --wait the exit status is 0 when the stack ends ROLLBACK_COMPLETE, or "
        "UPDATE_FAILED (the update cancelled) with --no-rollback.",
    ))
    cancel.add_argument("--no-rollback", action="store_true",
                        help="stop the update without rolling back")
    add_wait_arguments(cancel, "cancel")

    restore = _with_stack(add_command(stack_cmds, "restore", cmd_restore,
                                      "restore a stack from one of its snapshots"))
    restore.add_argument("snapshot", help="snapshot ID")
    add_wait_arguments(restore, "restore")

    snapshot = stack_cmds.add_parser(
        "snapshot", help="snapshots of a stack: create, list, show, delete",
        description="Snapshots of a stack (restore one with `hearth stack restore`).",
    )
    snapshot_cmds = snapshot.add_subparsers(dest="snapshot_command", required=True,
                                            metavar="COMMAND")
    create = _with_stack(add_command(snapshot_cmds, "create", cmd_snapshot_create,
                                     "snapshot a stack"))
    create.add_argument("--name", help="snapshot name")
    add_wait_arguments(create, "snapshot")
    add_format_argument(create)

    listing = _with_stack(add_command(snapshot_cmds, "list", cmd_snapshot_list,
                                      "list a stack's snapshots"))
    add_format_argument(listing)

    for name, handler, help_text in (
        ("show", cmd_snapshot_show, "show a snapshot (with its data)"),
        ("delete", cmd_snapshot_delete, "delete a snapshot"),
    ):
        parser = _with_stack(add_command(snapshot_cmds, name, handler, help_text))
        parser.add_argument("snapshot", help="snapshot ID")
        if name == "show":
            add_format_argument(parser)
