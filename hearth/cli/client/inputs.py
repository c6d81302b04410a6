"""Templates, environment files and parameters from the command line into request fields,
read the way python-heatclient reads them (get_file, provider templates and the environment
files' own files included)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from heatclient.common import template_utils
from heatclient.common import utils as heat_utils

from hearth.cli.client.command import UsageError


def add_template_arguments(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "-t", "--template", metavar="FILE_OR_URL", required=required,
        help="the template (a path or a URL)" + ("" if required else
                                                  "; without it --existing keeps the "
                                                  "stack's template"),
    )
    add_environment_arguments(parser)


def add_environment_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-e", "--environment", action="append", default=[], metavar="FILE",
        help="environment file (repeatable; later files win)",
    )
    parser.add_argument(
        "--parameter", action="append", default=[], metavar="KEY=VALUE",
        help="parameter value (repeatable; a single --parameter may hold several, separated "
        "by ';', as with the openstack client)",
    )
    parser.add_argument(
        "--parameter-file", action="append", default=[], metavar="KEY=FILE",
        help="parameter value read from a file (repeatable)",
    )


def environment_fields(args: argparse.Namespace) -> dict[str, Any]:
    """``environment``, ``files`` (those the environments name), ``environment_files`` and
    ``parameters``."""
    tracker: list[str] = []
    try:
        files, env = template_utils.process_multiple_environments_and_files(
            env_paths=args.environment or None, env_list_tracker=tracker
        )
    except ValueError as exc:
        raise UsageError(f"environment file: {exc}") from exc
    base = args.template if getattr(args, "template", None) else str(Path.cwd() / "-")
    fields: dict[str, Any] = {
        "environment": env,
        "files": files,
        "parameters": heat_utils.format_all_parameters(
            args.parameter, args.parameter_file, base
        ),
    }
    if tracker:
        fields["environment_files"] = tracker
    return fields


def template_fields(args: argparse.Namespace, *, existing: bool = False) -> dict[str, Any]:
    """The request fields for a template, its environments and parameters."""
    if not args.template and not existing:
        raise UsageError("a template is needed (-t FILE_OR_URL)")
    files, template = template_utils.get_template_contents(
        template_file=args.template, existing=existing
    )
    fields = environment_fields(args)
    fields["files"] = {**files, **fields["files"]}
    if template is not None:
        fields["template"] = template
    return fields
