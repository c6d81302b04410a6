"""Server logs as text or as JSON lines (``[DEFAULT] use_json``), with request and stack ids."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
from collections.abc import Iterator

import pytest

from hearth.common import logs
from hearth.common.config import load_config


@pytest.fixture()
def root_logging() -> Iterator[None]:
    """What setup_logging changes on the root logger, put back after the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_json_lines_carry_time_level_logger_message(root_logging: None) -> None:
    out = io.StringIO()
    logs.setup_logging(load_config(overrides=[("use_json", None, True)]), out)
    logging.getLogger("hearth.test").warning("disk %s is full", "/var")
    record = json.loads(lines(out)[-1])
    assert record["level"] == "WARNING"
    assert record["logger"] == "hearth.test"
    assert record["message"] == "disk /var is full"
    assert record["time"].startswith("20") and "T" in record["time"]
    assert record["process"] == os.getpid()
    assert "request_id" not in record and "stack_id" not in record


def test_json_lines_carry_the_request_and_the_stack_when_known(root_logging: None) -> None:
    out = io.StringIO()
    logs.setup_logging(load_config(overrides=[("use_json", None, True)]), out)
    log = logging.getLogger("hearth.test")

    async def action() -> None:
        logs.bind_stack("stack-1")
        log.info("in the action")

    token = logs.bind_request("req-1")
    try:
        log.info("in the request")
        asyncio.run(action())
    finally:
        logs.unbind_request(token)
    log.info("after")
    request, in_action, after = (json.loads(line) for line in lines(out)[-3:])
    assert request["request_id"] == "req-1" and "stack_id" not in request
    assert in_action["stack_id"] == "stack-1" and in_action["request_id"] == "req-1"
    assert "request_id" not in after and "stack_id" not in after


def test_exceptions_are_part_of_the_json_line(root_logging: None) -> None:
    out = io.StringIO()
    logs.setup_logging(load_config(overrides=[("use_json", None, True)]), out)
    try:
        raise ValueError("bad value")
    except ValueError:
        logging.getLogger("hearth.test").exception("failed")
    (line,) = lines(out)
    record = json.loads(line)
    assert record["message"] == "failed" and "ValueError: bad value" in record["exc_info"]


def test_text_by_default_and_one_handler_however_often_it_is_set_up(
    root_logging: None,
) -> None:
    out = io.StringIO()
    conf = load_config()
    logs.setup_logging(conf, out)
    logs.setup_logging(conf, out)
    logging.getLogger("hearth.test").info("started")
    (line,) = lines(out)
    assert line.endswith(" INFO hearth.test started")
