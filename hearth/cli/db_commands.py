"""Database administration commands: ``hearth db ...`` and ``hearth stack reset-state``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import timedelta
from functools import wraps

from hearth.common.errors import HearthError

# SQLAlchemy, Alembic and the store are imported by the commands that use them, so that the
# other ``hearth`` commands start without loading them.

GRANULARITIES = ("days", "hours", "minutes", "seconds")

Command = Callable[[argparse.Namespace], int]


class DatabaseCommandFailed(HearthError):
    """A database administration command could not complete."""


def _db_errors(func: Command) -> Command:
    """Report database and migration failures as one clear line, never a traceback."""

    @wraps(func)
    def run(args: argparse.Namespace) -> int:
        from alembic.util import CommandError
        from oslo_config import cfg
        from sqlalchemy.exc import SQLAlchemyError

        try:
            return func(args)
        except (cfg.Error, CommandError, TimeoutError) as exc:
            raise DatabaseCommandFailed(str(exc)) from exc
        except SQLAlchemyError as exc:
            # The driver's own message, without SQLAlchemy's statement dump and links.
            detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise DatabaseCommandFailed(f"database error: {detail}") from exc

    return run


def _url(args: argparse.Namespace) -> str:
    from hearth.common.config import database_url, load_config

    return database_url(load_config(args.config_file))


def _current_schema(url: str) -> None:
    from hearth.store import migrate

    current, head = migrate.current_revision(url), migrate.head_revision()
    if current != head:
        raise DatabaseCommandFailed(
            f"The database schema is at revision {current or 'none'}, not {head}: "
            "run 'hearth db upgrade' first"
        )


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


@_db_errors
def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from hearth.store import migrate

    url = _url(args)
    migrate.upgrade(url, args.revision)
    print(f"Database schema is at revision {migrate.current_revision(url)}")
    return 0


@_db_errors
def cmd_db_version(args: argparse.Namespace) -> int:
    from hearth.store import migrate

    current, head = migrate.current_revision(_url(args)), migrate.head_revision()
    if current == head:
        print(f"{current} (head)")
    else:
        print(f"{current or 'none'} (head is {head}: run 'hearth db upgrade')")
    return 0


@_db_errors
def cmd_db_purge_deleted(args: argparse.Namespace) -> int:
    from hearth.store import maintenance
    from hearth.store.db import Database

    url = _url(args)
    _current_schema(url)
    age = timedelta(**{args.granularity: args.age})
    db = Database(url)
    try:
        count = maintenance.purge_deleted(
            db, age, project_id=args.project_id, batch_size=args.batch_size
        )
    finally:
        db.dispose()
    print(f"Purged {count} deleted stack(s)")
    return 0


def _confirmed(question: str) -> bool:
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


@_db_errors
def cmd_stack_reset_state(args: argparse.Namespace) -> int:
    from hearth.store import maintenance
    from hearth.store.db import Database

    url = _url(args)
    _current_schema(url)
    if not args.yes and not _confirmed(
        f"Mark stack {args.stack_id} and its IN_PROGRESS resources FAILED and drop its lock? "
        "Only do this when no engine is working on it."
    ):
        print("Aborted.", file=sys.stderr)
        return 1
    db = Database(url)
    try:
        reset = maintenance.reset_stack_state(db, args.stack_id)
    finally:
        db.dispose()
    if not reset:
        print(f"Stack {args.stack_id} is not IN_PROGRESS; nothing was changed.", file=sys.stderr)
        return 1
    print(f"Stack {args.stack_id} is now FAILED.")
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` and ``stack`` command groups to the top-level subparsers."""
    db = commands.add_parser("db", help="manage the database")
    db_cmds = db.add_subparsers(dest="db_command", required=True)

    upgrade = db_cmds.add_parser("upgrade", help="migrate the schema to a revision")
    upgrade.add_argument("revision", nargs="?", default="head", help="default: head")
    upgrade.set_defaults(func=cmd_db_upgrade)

    version = db_cmds.add_parser("version", help="show the schema revision")
    version.set_defaults(func=cmd_db_version)

    purge = db_cmds.add_parser(
        "purge-deleted", help="remove stacks deleted more than AGE ago, for good"
    )
    purge.add_argument("age", type=_non_negative, help="age in units of --granularity")
    purge.add_argument("--granularity", choices=GRANULARITIES, default="days")
    purge.add_argument("--project-id", help="only stacks of this project")
    purge.add_argument(
        "--batch-size", type=_positive, default=20, help="stacks purged per transaction"
    )
    purge.set_defaults(func=cmd_db_purge_deleted)

    stack = commands.add_parser("stack", help="operator actions on stacks")
    stack_cmds = stack.add_subparsers(dest="stack_command", required=True)
    reset = stack_cmds.add_parser(
        "reset-state", help="mark a stack stuck IN_PROGRESS as FAILED and unlock it"
    )
    reset.add_argument("stack_id")
    reset.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    reset.set_defaults(func=cmd_stack_reset_state)
