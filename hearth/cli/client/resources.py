"""``hearth resource list|show|metadata|signal|mark-unhealthy`` and ``hearth output list|show``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from heatclient.common import utils as heat_utils

from hearth.cli.client.command import (
    Subparsers,
    UsageError,
    add_command,
    error,
    find_stack,
    group,
    parse_key_values,
)
from hearth.cli.client.output import add_format_argument, dump, print_item, print_list, say
from hearth.cli.client.progress import stack_ident

RESOURCE_COLUMNS = (
    ("resource_name", "Resource Name"),
    ("physical_resource_id", "Physical ID"),
    ("resource_type", "Type"),
    ("resource_status", "Status"),
    ("updated_time", "Updated Time"),
)
OUTPUT_COLUMNS = (("output_key", "Output Key"), ("description", "Description"))
OUTPUT_FIELDS = ("output_key", "output_value", "description", "output_error")


def cmd_resource_list(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    kwargs: dict[str, Any] = {}
    filters = parse_key_values(args.filter, "--filter")
    if filters:
        kwargs["filters"] = filters
    if args.nested_depth:
        kwargs["nested_depth"] = args.nested_depth
    resources = client.resources.list(stack_ident(stack), **kwargs)
    rows = []
    for res in resources:
        row = res.to_dict()
        if args.nested_depth:
            row["stack_name"] = res.stack_name
        rows.append(row)
    columns = list(RESOURCE_COLUMNS)
    if args.nested_depth:
        columns.append(("stack_name", "Stack Name"))
    print_list(rows, columns, args.format)
    return 0


def cmd_resource_show(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    res = client.resources.get(stack_ident(stack), args.resource,
                               with_attr=args.with_attr or None)
    print_item(res.to_dict(), args.format)
    return 0


def cmd_resource_metadata(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    dump(client.resources.metadata(stack_ident(stack), args.resource), args.format)
    return 0


def _signal_data(args: argparse.Namespace) -> Any:
    if args.data is not None and args.data_file is not None:
        raise UsageError("give the signal data with --data or --data-file, not both")
    text = args.data
    if args.data_file is not None:
        raw = heat_utils.read_url_content(heat_utils.normalise_file_path_to_url(args.data_file))
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw or "")
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the signal data is not JSON: {exc}") from exc


def cmd_resource_signal(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    data = _signal_data(args)
    client.resources.signal(stack_ident(stack), args.resource, data=data)
    say(f"Signalled resource {args.resource} of stack {stack.stack_name}.")
    return 0


def cmd_resource_mark_unhealthy(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    client.resources.mark_unhealthy(stack_ident(stack), args.resource, not args.reset,
                                    args.reason or "")
    state = "healthy again" if args.reset else "unhealthy"
    say(f"Resource {args.resource} of stack {stack.stack_name} marked {state}.")
    return 0


def cmd_output_list(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    outputs = client.stacks.output_list(stack_ident(stack)).get("outputs") or []
    print_list(outputs, OUTPUT_COLUMNS, args.format)
    return 0


def cmd_output_show(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    output = client.stacks.output_show(stack_ident(stack), args.output)["output"]
    if output.get("output_error"):
        return error(f"Output {args.output}: {output['output_error']}")
    if args.value:
        value = output.get("output_value")
        sys.stdout.write((value if isinstance(value, str) else json.dumps(value)) + "\n")
        return 0
    print_item(output, args.format, [k for k in OUTPUT_FIELDS if k in output])
    return 0


def _stack_and_resource(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("stack", help="stack name or ID")
    parser.add_argument("resource", help="resource name")
    return parser


def register(commands: Subparsers) -> None:
    resource_cmds = group(commands, "resource", "the resources of a stack", "resource_command")
    listing = add_command(resource_cmds, "list", cmd_resource_list, "list a stack's resources")
    listing.add_argument("stack", help="stack name or ID")
    listing.add_argument("--nested-depth", type=int, default=0, metavar="N",
                         help="include resources of nested stacks N levels down")
    listing.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                         help="e.g. status=FAILED or type=OS::Heat::Value (repeatable)")
    add_format_argument(listing)

    show = _stack_and_resource(add_command(resource_cmds, "show", cmd_resource_show,
                                           "show a resource"))
    show.add_argument("--with-attr", action="append", default=[], metavar="ATTRIBUTE",
                      help="also show this attribute (repeatable)")
    add_format_argument(show)

    metadata = _stack_and_resource(add_command(resource_cmds, "metadata",
                                               cmd_resource_metadata,
                                               "show a resource's metadata"))
    add_format_argument(metadata, default="json", choices=("json", "yaml"))

    signal = _stack_and_resource(add_command(
        resource_cmds, "signal", cmd_resource_signal, "signal a resource",
        "Signal a resource, e.g. to clear a hook: --data '{\"unset_hook\": \"pre-create\"}'.",
    ))
    signal.add_argument("-D", "--data", metavar="JSON", help="signal data (JSON)")
    signal.add_argument("--data-file", metavar="FILE", help="signal data (JSON) from a file")

    mark = _stack_and_resource(add_command(
        resource_cmds, "mark-unhealthy", cmd_resource_mark_unhealthy,
        "mark a resource unhealthy (the next update replaces or fixes it)",
    ))
    mark.add_argument("reason", nargs="?", help="why (recorded as the status reason)")
    mark.add_argument("--reset", action="store_true", help="mark it healthy again")

    output_cmds = group(commands, "output", "the outputs of a stack", "output_command")
    out_list = add_command(output_cmds, "list", cmd_output_list, "list a stack's outputs")
    out_list.add_argument("stack", help="stack name or ID")
    add_format_argument(out_list)
    out_show = add_command(output_cmds, "show", cmd_output_show,
                           "show an output and its value")
    out_show.add_argument("stack", help="stack name or ID")
    out_show.add_argument("output", help="output name")
    out_show.add_argument("--value", action="store_true",
                          help="print only the value (strings as they are, the rest as JSON)")
    add_format_argument(out_show)
