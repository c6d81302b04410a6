"""What every client command shares: a parser with the connection options, a client, and
failures reported as one ``ERROR:`` line on standard error (exit 1), never a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.error import URLError

from heatclient import exc as heat_exc
from keystoneauth1 import exceptions as ks_exc

from hearth.cli.client.connection import (
    ConnectionSettingsError,
    add_connection_arguments,
    connect,
)

Handler = Callable[[argparse.Namespace, Any], int]
Command = Callable[[argparse.Namespace], int]
Subparsers = Any  # argparse._SubParsersAction[argparse.ArgumentParser]

INTERRUPTED = 130
CONNECTION_NOTE = (
    "Each command takes the connection options after its name (--os-endpoint URL, or "
    "Keystone's --os-auth-url and friends; see the command's --help). With none, it talks "
    "to $HEARTH_URL/v1/$HEARTH_PROJECT, by default http://127.0.0.1:8004/v1/admin."
)


class UsageError(Exception):
    """The command line asks for something the command cannot do."""


def http_message(exc: heat_exc.HTTPException) -> str:
    """The server's own message from a Heat error body, else heatclient's text."""
    error = getattr(exc, "error", None)
    if isinstance(error, dict):
        inner = error.get("error")
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return str(exc).removeprefix("ERROR: ")


def unreachable(exc: heat_exc.CommunicationError) -> str:
    """No server answered: say where we looked and what to do, not urllib3's retry story."""
    text = str(exc)
    endpoint = text.split("Error communicating with ", 1)[-1].split(" ", 1)[0]
    if "Connection refused" in text:
        why = "connection refused"
    elif "timed out" in text.lower():
        why = "no answer in time"
    elif "Name or service not known" in text or "nodename nor servname" in text:
        why = "unknown host"
    else:
        why = "the connection failed"
    return (f"No orchestration server answers at {endpoint} ({why}). Start one with "
            "`hearth serve`, or point the client elsewhere (--os-endpoint, OS_* variables "
            "or HEARTH_URL).")


def error(message: str) -> int:
    print(f"ERROR: {message}", file=sys.stderr, flush=True)
    return 1


def run_reporting_errors(func: Callable[[], int]) -> int:
    try:
        return func()
    except heat_exc.HTTPException as exc:
        return error(http_message(exc))
    except heat_exc.CommunicationError as exc:
        return error(unreachable(exc))
    except heat_exc.BaseException as exc:  # CommandError, InvalidEndpoint
        return error(str(exc).removeprefix("ERROR: "))
    except ks_exc.ClientException as exc:
        return error(f"Keystone: {exc}")
    except (ConnectionSettingsError, UsageError) as exc:
        return error(str(exc))
    except URLError as exc:
        reason = exc.reason
        if isinstance(reason, OSError) and reason.filename:
            return error(f"{reason.strerror or reason}: {reason.filename}")
        return error(f"could not read: {reason}")
    except KeyboardInterrupt:
        print("\nInterrupted: the stack action, if any, goes on on the server.",
              file=sys.stderr)
        return INTERRUPTED


def client_command(handler: Handler) -> Command:
    """The argparse ``func`` of a client command: connect, run, report failures."""

    @wraps(handler)
    def run(args: argparse.Namespace) -> int:
        return run_reporting_errors(lambda: handler(args, connect(args)))

    return run


def add_command(subparsers: Subparsers, name: str, handler: Handler, help_text: str,
                description: str | None = None) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=description or help_text,
    )
    add_connection_arguments(parser)
    parser.set_defaults(func=client_command(handler))
    return parser


def group(commands: Subparsers, name: str, help_text: str, dest: str) -> Subparsers:
    """The sub-commands of ``hearth NAME``, reusing the group when another module made it
    (``hearth stack`` also holds the operator's ``reset-state``)."""
    existing = commands.choices.get(name)
    if existing is None:
        existing = commands.add_parser(name, help=help_text, description=help_text)
        existing.epilog = CONNECTION_NOTE
        return existing.add_subparsers(dest=dest, required=True, metavar="COMMAND")
    set_help(commands, name, help_text)
    existing.epilog = CONNECTION_NOTE
    for action in existing._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return existing.add_subparsers(dest=dest, required=True, metavar="COMMAND")


def set_help(commands: Subparsers, name: str, help_text: str) -> None:
    """Reword the one-line help of an existing command group."""
    for choice in commands._choices_actions:
        if choice.dest == name:
            choice.help = help_text
    parser = commands.choices.get(name)
    if parser is not None:
        parser.description = help_text


def find_stack(client: Any, name_or_id: str) -> Any:
    """The stack (without resolving outputs), by name, id or name/id."""
    return client.stacks.get(name_or_id, resolve_outputs=False)


def parse_key_values(items: list[str] | None, what: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{what} {item!r} is not of the form KEY=VALUE")
        result[key] = value
    return result
