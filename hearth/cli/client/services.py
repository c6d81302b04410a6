"""``hearth service list``: the engines of the deployment, as `openstack orchestration
service list` shows them."""

from __future__ import annotations

import argparse
from typing import Any

from hearth.cli.client.command import Subparsers, add_command, group
from hearth.cli.client.output import add_format_argument, print_list

SERVICE_COLUMNS = (
    ("hostname", "Hostname"),
    ("binary", "Binary"),
    ("engine_id", "Engine ID"),
    ("host", "Host"),
    ("topic", "Topic"),
    ("updated_at", "Updated At"),
    ("status", "Status"),
)


def register(commands: Subparsers) -> None:
    service_cmds = group(commands, "service", "the deployment's engines (admin)",
                         "service_command")
    listing = add_command(
        service_cmds, "list", cmd_service_list, "list the engines and their heartbeats",
        "List every engine of the deployment with its host, its last heartbeat and whether "
        "it is up (it reported within two heartbeat intervals). Needs the admin role.",
    )
    add_format_argument(listing)


def cmd_service_list(args: argparse.Namespace, client: Any) -> int:
    rows = [service.to_dict() for service in client.services.list()]
    print_list(rows, SERVICE_COLUMNS, args.format)
    return 0
