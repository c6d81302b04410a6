"""``hearth template validate --remote``: the same command, answered by an endpoint's
``POST /validate`` instead of the local validator.

Remote mode is on with ``--remote``, or when ``--os-endpoint`` or ``--os-auth-url`` is given
on the command line; the environment variables alone never switch it on, so the command
keeps working offline as before.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from heatclient.common import template_format, template_utils
from heatclient.common import utils as heat_utils

from hearth.cli.client.command import (
    Command,
    Subparsers,
    UsageError,
    run_reporting_errors,
    set_help,
)
from hearth.cli.client.connection import add_connection_arguments, connect


def _template(path: str) -> tuple[dict[str, Any], Any]:
    if path != "-":
        found, template = template_utils.get_template_contents(template_file=path)
        return found, template
    try:
        template = template_format.parse(sys.stdin.read())
    except ValueError as exc:
        raise UsageError(f"Error parsing template from standard input: {exc}") from exc
    files: dict[str, Any] = {}
    base = heat_utils.base_url_for_url(heat_utils.normalise_file_path_to_url(
        str(Path.cwd() / "-")))
    template_utils.resolve_template_get_files(template, files, base)
    return files, template


def remote_validate(args: argparse.Namespace, client: Any) -> int:
    files, template = _template(args.template)
    tracker: list[str] = []
    try:
        env_files, env = template_utils.process_multiple_environments_and_files(
            env_paths=args.environment or None, env_list_tracker=tracker
        )
    except ValueError as exc:
        raise UsageError(f"environment file: {exc}") from exc
    fields: dict[str, Any] = {
        "template": template,
        "files": {**files, **env_files},
        "environment": env,
        "parameters": dict(args.parameter),
    }
    if tracker:
        fields["environment_files"] = tracker
    if args.ignore_errors:
        fields["ignore_errors"] = args.ignore_errors
    if args.show_nested:
        fields["show_nested"] = True
    result = client.stacks.validate(**fields)
    # printed as the local validator prints its document
    if args.format == "yaml":
        sys.stdout.write(yaml.safe_dump(result, default_flow_style=False, sort_keys=True))
    else:
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 0


def _is_remote(args: argparse.Namespace) -> bool:
    return bool(args.remote or args.os_endpoint or args.os_auth_url)


def register(commands: Subparsers) -> None:
    """Give ``hearth template validate`` its remote mode (when the command exists)."""
    template = commands.choices.get("template")
    if template is None:
        return
    validate: argparse.ArgumentParser | None = None
    for action in template._actions:
        if isinstance(action, argparse._SubParsersAction):
            validate = action.choices.get("validate")
    if validate is None:
        return
    local: Command = validate.get_default("func")
    validate.add_argument(
        "--remote", action="store_true",
        help="validate with POST /validate of the endpoint (see connection) instead of "
        "locally; implied by --os-endpoint or --os-auth-url",
    )
    add_connection_arguments(validate)

    def dispatch(args: argparse.Namespace) -> int:
        if _is_remote(args):
            return run_reporting_errors(lambda: remote_validate(args, connect(args)))
        return local(args)

    validate.set_defaults(func=dispatch)
    set_help(commands, "template", "work with templates (locally; `validate --remote` asks an "
             "endpoint)")
