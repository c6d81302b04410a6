"""Logging for Hearth's server processes: text lines, or one JSON object a line
(``[DEFAULT] use_json``), with the request and stack being worked on when known.

The API binds each request's id (``bind_request``) and the engine each stack action's stack
(``bind_stack``) in context variables: a log call made within carries them, at the cost of a
context variable read per line. Work handed to worker threads does not carry them.
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar, Token
from typing import IO

from oslo_config import cfg
from pythonjsonlogger.json import JsonFormatter

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
# Servers of several worker processes (hearth api, hearth engine) say which one speaks.
TEXT_FORMAT_WITH_PID = "%(asctime)s %(process)d %(levelname)s %(name)s %(message)s"

_request_id: ContextVar[str | None] = ContextVar("hearth_request_id", default=None)
_stack_id: ContextVar[str | None] = ContextVar("hearth_stack_id", default=None)


def bind_request(request_id: str) -> Token[str | None]:
    """Log lines from here on (in this context) carry ``request_id``; undo with
    ``unbind_request(token)``."""
    return _request_id.set(request_id)


def unbind_request(token: Token[str | None]) -> None:
    _request_id.reset(token)


def bind_stack(stack_id: str) -> None:
    """Log lines of the current task (and tasks it starts) carry ``stack_id``."""
    _stack_id.set(stack_id)


class ContextFilter(logging.Filter):
    """Adds ``request_id`` and ``stack_id`` to a record when they are known (and the call
    did not give its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = _request_id.get()
        if request_id is not None and not hasattr(record, "request_id"):
            record.request_id = request_id
        stack_id = _stack_id.get()
        if stack_id is not None and not hasattr(record, "stack_id"):
            record.stack_id = stack_id
        return True


def json_formatter() -> logging.Formatter:
    """time (ISO 8601, UTC), level, logger, message, process (the worker's pid), then any
    extra fields of the record (request_id, stack_id, exc_info...)."""
    return JsonFormatter(
        "{levelname}{name}{message}{process}", style="{",
        rename_fields={"levelname": "level", "name": "logger"}, timestamp="time",
    )


class _HearthHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler ``setup_logging`` installs (and replaces when called again)."""


def setup_logging(
    conf: cfg.ConfigOpts, stream: IO[str] | None = None, *, text_format: str = TEXT_FORMAT
) -> logging.Handler:
    """Send INFO and above of every logger to ``stream`` (standard error by default), as
    text (``text_format``) or JSON according to ``[DEFAULT] use_json``. Called once at a
    server process's start; calling it again replaces what it installed before."""
    handler = _HearthHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(json_formatter() if conf.use_json else logging.Formatter(text_format))
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _HearthHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler
