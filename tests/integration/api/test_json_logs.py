"""``hearth serve`` with ``[DEFAULT] use_json = true``: every log line is a JSON object that
a log shipper can read as it is."""

from __future__ import annotations

import json
from pathlib import Path

import requests

from tests.integration.serve_process import ServeProcess


def test_every_log_line_of_the_server_is_json_with_its_fields(tmp_path: Path) -> None:
    data = tmp_path / "hearth"
    server = ServeProcess(data, f"sqlite:///{data / 'hearth.sqlite'}", use_json="true")
    try:
        server.start()
        assert requests.get(f"{server.url}/healthcheck", timeout=30).status_code == 200
        assert server.terminate() == 0
    finally:
        server.close()
    lines = [line for line in server.log().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    assert records
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys()
    started = next(r for r in records if r["message"].startswith("Hearth API on "))
    assert (started["level"], started["logger"]) == ("INFO", "hearth.serve")
    assert any(r["message"] == "Stopping (signal 15)" for r in records)
