"""The ``hearth`` command as a user runs it: a real process, real files."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def hearth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearth.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        timeout=60,
    )


def test_validate_example_prints_the_document() -> None:
    out = hearth("template", "validate", "examples/hello.yaml", "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["Description"] == "A first template for Hearth"
    assert doc["Parameters"]["names"]["Type"] == "CommaDelimitedList"


def test_validate_with_environment_files_and_get_file(tmp_path: Path) -> None:
    (tmp_path / "script.sh").write_text("echo hi\n")
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2021-04-16\n"
        "parameters:\n  n: {type: comma_delimited_list}\n"
        "outputs:\n  o: {value: {get_file: script.sh}}\n"
    )
    # Both files declare the strategy: a different one in a later file is a conflict.
    strategy = "parameter_merge_strategies: {n: merge}\n"
    (tmp_path / "e1.yaml").write_text(strategy + "parameters: {n: 'a,b'}\n")
    (tmp_path / "e2.yaml").write_text(strategy + "parameters: {n: c}\n")
    out = hearth("template", "validate", "t.yaml", "-e", "e1.yaml", "-e", "e2.yaml", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = yaml.safe_load(out.stdout)
    assert doc["Environment"]["parameters"] == {"n": "a,b,c"}
    assert doc["Parameters"]["n"]["Value"] == "a,b,c"


def test_validate_error_is_one_line_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "heat_template_version: 2021-04-16\n"
        "resources:\n  two:\n    type: OS::Heat::Value\n"
        "    properties:\n      value: {get_param: missing}\n"
    )
    out = hearth("template", "validate", "t.yaml", "--ignore-errors", "99001", cwd=tmp_path)
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr == (
        "ERROR: Property error: resources.two.properties.value: "
        "The Parameter (missing) was not provided.\n"
    )


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    out = hearth("template", "validate", "nope.yaml", cwd=tmp_path)
    assert out.returncode == 1
    assert "No such file or directory" in out.stderr
    assert "Traceback" not in out.stderr


def test_versions_and_functions() -> None:
    out = hearth("template", "versions", "--format", "json")
    versions = json.loads(out.stdout)
    assert {"version": "heat_template_version.2016-10-14", "type": "hot",
            "aliases": ["heat_template_version.newton"]} in versions
    assert len(versions) == 13
    out = hearth("template", "functions", "2013-05-23", "--format", "json")
    names = {f["functions"] for f in json.loads(out.stdout)}
    assert "Fn::GetAZs" in names and "repeat" not in names
    out = hearth("template", "functions", "ocata", "--format", "json")
    names = {f["functions"] for f in json.loads(out.stdout)}
    assert "filter" in names and "Fn::Select" not in names and "equals" not in names
    out = hearth("template", "functions", "pike", "--with-condition-functions")
    assert "equals" in out.stdout
    out = hearth("template", "functions", "1999-01-01")
    assert out.returncode == 1 and "not found" in out.stderr


def test_serve_on_a_taken_port_says_so_before_doing_anything(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        data = tmp_path / "data"
        done = hearth("serve", "--bind", f"127.0.0.1:{port}", "--cfn-bind", "127.0.0.1:0",
                      "--data-dir", str(data))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"ERROR: The API ([api] bind_host/bind_port) cannot listen on 127.0.0.1:{port}: "
        "Address already in use (is another server running there?)")
    # No database was made, no engine registered.
    assert not data.exists() or not any(data.iterdir())

