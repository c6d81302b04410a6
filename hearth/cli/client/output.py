"""What the client commands print: rich tables for people, JSON or YAML for programs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table
from rich.text import Text

FORMATS = ("table", "json", "yaml")
# Wide enough that ids and times stay on one line when the output goes to a file or a pipe.
PIPE_WIDTH = 200

Columns = Sequence[tuple[str, str]]  # (key in the API's dict, column title)

STATUS_STYLES = (
    ("IN_PROGRESS", "yellow"),
    ("FAILED", "bold red"),
    ("COMPLETE", "green"),
)


def add_format_argument(parser: argparse.ArgumentParser, default: str = "table",
                        choices: Sequence[str] = FORMATS) -> None:
    parser.add_argument(
        "-f", "--format", choices=tuple(choices), default=default,
        help=f"output format (default {default})",
    )


def console() -> Console:
    """A console on the current standard output (colours only on a terminal)."""
    out = Console(file=sys.stdout, highlight=False, soft_wrap=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = PIPE_WIDTH
    return out


def status_text(status: str) -> Text:
    for part, style in STATUS_STYLES:
        if part in status:
            return Text(status, style=style)
    return Text(status)


def cell(value: Any) -> str:
    """One value as table text: nested data as YAML, nothing for null."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        if not value:
            return json.dumps(value)
        return yaml.safe_dump(value, default_flow_style=False, sort_keys=False).rstrip("\n")
    return str(value)


def _cell_text(key: str, value: Any) -> Text:
    if key.endswith("status") and isinstance(value, str):
        return status_text(value)
    return Text(cell(value))


def dump(data: Any, fmt: str) -> None:
    """JSON (indented) or YAML of ``data`` on standard output."""
    if fmt == "yaml":
        sys.stdout.write(yaml.safe_dump(data, default_flow_style=False, sort_keys=False))
    else:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")


def table(rows: Iterable[Mapping[str, Any]], columns: Columns) -> Table:
    out = Table(show_lines=False, header_style="bold")
    for _, title in columns:
        out.add_column(title, overflow="fold")
    for row in rows:
        out.add_row(*(_cell_text(key, row.get(key)) for key, _ in columns))
    return out


def print_list(rows: Sequence[Mapping[str, Any]], columns: Columns, fmt: str) -> None:
    """A list of items; JSON and YAML carry the same columns, under the API's keys."""
    if fmt == "table":
        console().print(table(rows, columns))
        return
    dump([{key: row.get(key) for key, _ in columns} for row in rows], fmt)


def print_item(item: Mapping[str, Any], fmt: str, fields: Sequence[str] | None = None) -> None:
    """One item as a Field/Value table (or JSON/YAML), optionally only some fields."""
    keys = list(fields) if fields is not None else list(item)
    if fmt != "table":
        dump({key: item.get(key) for key in keys}, fmt)
        return
    out = Table(show_lines=False, header_style="bold")
    out.add_column("Field", no_wrap=True)
    out.add_column("Value", overflow="fold")
    for key in keys:
        out.add_row(Text(key), _cell_text(key, item.get(key)))
    console().print(out)


def say(message: str) -> None:
    """A one-line confirmation for a person."""
    print(message, flush=True)
