"""``hearth stack create|update|delete|list|show|preview|abandon|adopt``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml
from heatclient.common import utils as heat_utils

from hearth.cli.client.command import (
    Subparsers,
    UsageError,
    add_command,
    find_stack,
    parse_key_values,
)
from hearth.cli.client.inputs import (
    add_environment_arguments,
    add_template_arguments,
    environment_fields,
    template_fields,
)
from hearth.cli.client.output import add_format_argument, dump, print_item, print_list, say
from hearth.cli.client.progress import (
    NEW_STACK,
    Expect,
    Pace,
    add_wait_arguments,
    baseline,
    stack_ident,
    wait,
)

SHORT_FIELDS = (
    "id", "stack_name", "description", "creation_time", "updated_time", "stack_status",
    "stack_status_reason",
)
LIST_COLUMNS = (
    ("id", "ID"),
    ("stack_name", "Stack Name"),
    ("stack_status", "Stack Status"),
    ("creation_time", "Creation Time"),
    ("updated_time", "Updated Time"),
)
PREVIEW_COLUMNS = (
    ("resource_name", "Resource"),
    ("resource_type", "Type"),
    ("required_by", "Required By"),
)
CHANGE_COLUMNS = (
    ("change", "Change"),
    ("resource_name", "Resource"),
    ("resource_type", "Type"),
)
TAG_MODES = {"all": "tags", "any": "tags_any", "not": "not_tags", "not-any": "not_tags_any"}


def _rollback_arguments(parser: argparse.ArgumentParser, default_help: str) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--enable-rollback", dest="rollback", action="store_const", const=True,
                      help="roll back when the action fails")
    mode.add_argument("--disable-rollback", dest="rollback", action="store_const", const=False,
                      help=f"leave a failed stack as it is ({default_help})")


def _stack_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=int, metavar="MINUTES", help="stack action timeout")
    parser.add_argument("--tags", metavar="TAG[,TAG...]", help="stack tags")


def _optional_fields(args: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if args.timeout:
        fields["timeout_mins"] = args.timeout
    if args.tags:
        fields["tags"] = args.tags
    return fields


def _show_short(client: Any, ident: str, fmt: str) -> None:
    print_item(find_stack(client, ident).to_dict(), fmt, SHORT_FIELDS)


def cmd_create(args: argparse.Namespace, client: Any) -> int:
    fields = template_fields(args)
    rollback = bool(args.rollback)
    fields.update(_optional_fields(args), stack_name=args.name, disable_rollback=not rollback)
    created = client.stacks.create(**fields)["stack"]
    stack = find_stack(client, f"{args.name}/{created['id']}")
    if args.wait:
        return wait(client, stack, Expect.of("CREATE", rollback=rollback), NEW_STACK,
                    Pace.of(args))
    print_item(stack.to_dict(), args.format, SHORT_FIELDS)
    return 0


def _print_changes(changes: dict[str, Any], fmt: str) -> None:
    if fmt != "table":
        dump(changes, fmt)
        return
    rows = [
        {"change": change, **item}
        for change in sorted(changes)
        for item in changes[change] or ()
        if isinstance(item, dict)
    ]
    print_list(rows, CHANGE_COLUMNS, fmt)


def cmd_update(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    ident = stack_ident(stack)
    fields = template_fields(args, existing=args.existing)
    fields.update(_optional_fields(args))
    if args.existing:
        fields["existing"] = True
    if args.clear_parameter:
        fields["clear_parameters"] = list(args.clear_parameter)
    if args.rollback is not None:
        fields["disable_rollback"] = not args.rollback
    if args.dry_run:
        changes = client.stacks.preview_update(ident, **fields)
        _print_changes(changes.get("resource_changes") or {}, args.format)
        return 0
    base = baseline(client, stack) if args.wait else None
    client.stacks.update(ident, **fields)
    if base is not None:
        rollback = args.rollback if args.rollback is not None else not stack.disable_rollback
        return wait(client, stack, Expect.of("UPDATE", rollback=rollback), base,
                    Pace.of(args))
    _show_short(client, ident, args.format)
    return 0


def cmd_delete(args: argparse.Namespace, client: Any) -> int:
    stacks = [find_stack(client, name) for name in args.stacks]
    bases = [baseline(client, stack) if args.wait else NEW_STACK for stack in stacks]
    for stack in stacks:
        client.stacks.delete(stack_ident(stack))
        if not args.wait:
            say(f"Delete of stack {stack.stack_name} ({stack.id}) requested.")
    code = 0
    if args.wait:
        for stack, base in zip(stacks, bases, strict=True):
            code = max(code, wait(client, stack, Expect.of("DELETE"), base, Pace.of(args)))
    return code


def cmd_list(args: argparse.Namespace, client: Any) -> int:
    kwargs: dict[str, Any] = {}
    filters = parse_key_values(args.filter, "--filter")
    if filters:
        kwargs["filters"] = filters
    if args.tags:
        kwargs[TAG_MODES[args.tag_mode]] = args.tags
    for flag in ("show_deleted", "show_nested", "show_hidden"):
        if getattr(args, flag):
            kwargs[flag] = True
    if args.all_projects:
        kwargs["global_tenant"] = True
    if args.limit:
        kwargs["limit"] = args.limit
    if args.sort:
        key, _, direction = args.sort.partition(":")
        kwargs["sort_keys"] = key
        if direction:
            kwargs["sort_dir"] = direction
    stacks = [s.to_dict() for s in client.stacks.list(**kwargs)]
    columns = list(LIST_COLUMNS)
    if args.all_projects:
        columns.insert(1, ("project", "Project"))
    print_list(stacks, columns, args.format)
    return 0


def cmd_show(args: argparse.Namespace, client: Any) -> int:
    stack = client.stacks.get(args.stack, resolve_outputs=not args.no_resolve_outputs)
    print_item(stack.to_dict(), args.format)
    return 0


def _flatten(resources: Any) -> list[dict[str, Any]]:
    """A preview's resources: nested stacks come as nested lists."""
    out: list[dict[str, Any]] = []
    for item in resources or ():
        if isinstance(item, list):
            out += _flatten(item)
        elif isinstance(item, dict):
            out.append(item)
    return out


def cmd_preview(args: argparse.Namespace, client: Any) -> int:
    fields = template_fields(args)
    fields.update(_optional_fields(args), stack_name=args.name, disable_rollback=True)
    preview = client.stacks.preview(**fields).to_dict()
    if args.format != "table":
        dump(preview, args.format)
        return 0
    print_list(_flatten(preview.get("resources")), PREVIEW_COLUMNS, args.format)
    return 0


def cmd_abandon(args: argparse.Namespace, client: Any) -> int:
    stack = find_stack(client, args.stack)
    data = client.stacks.abandon(stack_ident(stack))
    if args.output_file:
        Path(args.output_file).write_text(json.dumps(data, indent=2) + "\n")
        say(f"Abandoned stack {stack.stack_name}: its data is in {args.output_file} "
            "(hearth stack adopt NAME --adopt-file FILE takes it back).")
        return 0
    dump(data, args.format)
    return 0


def cmd_adopt(args: argparse.Namespace, client: Any) -> int:
    url = heat_utils.normalise_file_path_to_url(args.adopt_file)
    raw = heat_utils.read_url_content(url)
    text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw or "")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"{args.adopt_file} is not abandon data: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{args.adopt_file} is not abandon data (a JSON or YAML mapping)")
    args.template = None
    fields = environment_fields(args)
    rollback = bool(args.rollback)
    fields.update(
        stack_name=args.name,
        adopt_stack_data=json.dumps(data),
        disable_rollback=not rollback,
        files={**(data.get("files") or {}), **fields["files"]},
    )
    if args.timeout:
        fields["timeout_mins"] = args.timeout
    created = client.stacks.create(**fields)["stack"]
    stack = find_stack(client, f"{args.name}/{created['id']}")
    if args.wait:
        return wait(client, stack, Expect.of("ADOPT", rollback=rollback), NEW_STACK,
                    Pace.of(args))
    print_item(stack.to_dict(), args.format, SHORT_FIELDS)
    return 0


def register(stack_cmds: Subparsers) -> None:
    create = add_command(stack_cmds, "create", cmd_create, "create a stack")
    create.add_argument("name", help="stack name")
    add_template_arguments(create, required=True)
    _stack_options(create)
    _rollback_arguments(create, "the default, as in Heat")
    add_wait_arguments(create, "create")
    add_format_argument(create)

    update = add_command(
        stack_cmds, "update", cmd_update, "update a stack (PUT; PATCH with --existing)",
        "Update a stack with a new template, environment or parameters. With --existing "
        "(PATCH) what is not given is kept: the template, the environment and the "
        "parameters not named. --dry-run shows what would change and changes nothing.",
    )
    update.add_argument("stack", help="stack name or ID")
    add_template_arguments(update, required=False)
    update.add_argument("--existing", action="store_true",
                        help="PATCH: keep the stack's template, environment and parameters "
                        "where none are given")
    update.add_argument("--clear-parameter", action="append", default=[], metavar="NAME",
                        help="drop a parameter value kept from before (repeatable)")
    _stack_options(update)
    _rollback_arguments(update, "by default the stack's setting is kept")
    update.add_argument("--dry-run", action="store_true",
                        help="show the changes the update would make (preview)")
    add_wait_arguments(update, "update")
    add_format_argument(update)

    delete = add_command(stack_cmds, "delete", cmd_delete,
                         "delete stacks (never asks for confirmation)")
    delete.add_argument("stacks", nargs="+", metavar="STACK", help="stack name or ID")
    delete.add_argument("-y", "--yes", action="store_true",
                        help="accepted for scripts written for `openstack stack delete`")
    add_wait_arguments(delete, "delete")

    listing = add_command(stack_cmds, "list", cmd_list, "list stacks")
    listing.add_argument("--filter", action="append", default=[], metavar="KEY=VALUE",
                         help="e.g. status=CREATE_COMPLETE or name=web (repeatable)")
    listing.add_argument("--tags", metavar="TAG[,TAG...]", help="only stacks with these tags")
    listing.add_argument("--tag-mode", choices=tuple(TAG_MODES), default="all",
                         help="how --tags matches (default all)")
    listing.add_argument("--show-deleted", action="store_true")
    listing.add_argument("--show-nested", action="store_true")
    listing.add_argument("--show-hidden", action="store_true")
    listing.add_argument("--all-projects", action="store_true",
                         help="stacks of every project (admin)")
    listing.add_argument("--limit", type=int, metavar="N")
    listing.add_argument("--sort", metavar="KEY[:asc|desc]", help="e.g. creation_time:desc")
    add_format_argument(listing)

    show = add_command(stack_cmds, "show", cmd_show, "show a stack")
    show.add_argument("stack", help="stack name or ID")
    show.add_argument("--no-resolve-outputs", action="store_true",
                      help="do not compute the outputs")
    add_format_argument(show)

    preview = add_command(stack_cmds, "preview", cmd_preview,
                          "preview the resources a create would make")
    preview.add_argument("name", help="stack name")
    add_template_arguments(preview, required=True)
    _stack_options(preview)
    add_format_argument(preview)

    abandon = add_command(
        stack_cmds, "abandon", cmd_abandon,
        "delete a stack's record but keep its resources; print the data to adopt them",
    )
    abandon.add_argument("stack", help="stack name or ID")
    abandon.add_argument("--output-file", metavar="FILE", help="write the data (JSON) here")
    add_format_argument(abandon, default="json", choices=("json", "yaml"))

    adopt = add_command(stack_cmds, "adopt", cmd_adopt,
                        "create a stack from the resources of abandon data")
    adopt.add_argument("name", help="stack name")
    adopt.add_argument("--adopt-file", required=True, metavar="FILE_OR_URL",
                       help="the data `hearth stack abandon` wrote")
    add_environment_arguments(adopt)
    adopt.add_argument("--timeout", type=int, metavar="MINUTES", help="adopt timeout")
    _rollback_arguments(adopt, "the default")
    add_wait_arguments(adopt, "adopt")
    add_format_argument(adopt)
