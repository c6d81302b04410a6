"""The ``hearth`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from hearth.cli import client, cluster, config_commands, db_commands, serve
from hearth.cli.template_files import collect_environment_files, collect_files
from hearth.common.errors import HearthError
from hearth.template.context import Limits
from hearth.template.loader import load_environment_text, load_template_text
from hearth.template.versions import find_version, list_functions, list_versions


def _print(data: Any, fmt: str) -> None:
    if fmt == "yaml":
        sys.stdout.write(yaml.safe_dump(data, default_flow_style=False, sort_keys=True))
    else:
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")


def _parse_param(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"parameter {text!r} is not of the form key=value")
    return key, value


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    return Path(path).read_text()


def cmd_validate(args: argparse.Namespace) -> int:
    from hearth.resources.registry import PluginRegistry
    from hearth.template.validate import validate_template

    limits = Limits()
    plugins = PluginRegistry.load()
    template_text = _read(args.template)
    template = load_template_text(template_text, limits)
    base_dir = Path(args.template).resolve().parent if args.template != "-" else Path.cwd()
    files: dict[str, str] = {}
    collect_files(template, base_dir, files, lambda t: load_template_text(t, limits))
    env_keys: list[str] = []
    for env_path in args.environment:
        text = _read(env_path)
        env = load_environment_text(text)
        collect_environment_files(
            env, Path(env_path).resolve().parent, files, lambda t: load_template_text(t, limits)
        )
        files[env_path] = text
        env_keys.append(env_path)
    result = validate_template(
        template,
        files=files,
        environment={"parameters": dict(args.parameter)},
        environment_files=env_keys or None,
        ignorable_errors=[c for c in args.ignore_errors.split(",") if c]
        if args.ignore_errors
        else None,
        show_nested=args.show_nested,
        global_env=plugins.global_environment(),
        type_checker=plugins.type_checker,
    )
    _print(result, args.format)
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    _print(list_versions(), args.format)
    return 0


def cmd_functions(args: argparse.Namespace) -> int:
    name = args.version
    if "." not in name:
        name = f"heat_template_version.{name}"
    version = find_version(name)
    if version is None:
        raise HearthError(f"Template with version {args.version} not found")
    _print(list_functions(version, args.with_condition_functions), args.format)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hearth", description="Heat-compatible orchestration")
    parser.add_argument(
        "--config-file", action="append", default=[], help="Hearth config file (repeatable)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve.register(commands)
    cluster.register(commands)
    db_commands.register(commands)
    config_commands.register(commands)

    template = commands.add_parser("template", help="work with templates locally")
    template_cmds = template.add_subparsers(dest="template_command", required=True)

    validate = template_cmds.add_parser(
        "validate", help="validate a template as POST /validate does"
    )
    validate.add_argument("template", help="template file ('-' for standard input)")
    validate.add_argument(
        "-e", "--environment", action="append", default=[], help="environment file (repeatable)"
    )
    validate.add_argument(
        "-P", "--parameter", action="append", default=[], type=_parse_param,
        help="parameter value key=value (repeatable)",
    )
    validate.add_argument(
        "--ignore-errors", default="",
        help="comma-separated error codes to ignore, e.g. 99001 (resource type unavailable)",
    )
    validate.add_argument("--show-nested", action="store_true")
    validate.add_argument("--format", choices=("json", "yaml"), default="yaml")
    validate.set_defaults(func=cmd_validate)

    versions = template_cmds.add_parser("versions", help="list the template versions")
    versions.add_argument("--format", choices=("json", "yaml"), default="yaml")
    versions.set_defaults(func=cmd_versions)

    functions = template_cmds.add_parser(
        "functions", help="list the functions of a template version"
    )
    functions.add_argument("version", help="e.g. 2021-04-16, wallaby or "
                           "AWSTemplateFormatVersion.2010-09-09")
    functions.add_argument("--with-condition-functions", action="store_true")
    functions.add_argument("--format", choices=("json", "yaml"), default="yaml")
    functions.set_defaults(func=cmd_functions)
    client.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except HearthError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"ERROR: {exc.strerror or exc}: {getattr(exc, 'filename', '')}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
