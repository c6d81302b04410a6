"""deploy/: the systemd units' commands with the shipped hearth.conf start a working cluster
(3 engines, 2 API workers), with only the database, bus, ports and key pointed at the test's."""

from __future__ import annotations

import configparser
import shlex
import time
from pathlib import Path

import psutil
import requests

from tests.integration.cluster.cluster_process import (
    RABBIT_URL,
    delete_queues,
    require_rabbitmq,
)
from tests.integration.conftest import DatabaseFactory
from tests.integration.serve_process import REPO, LoggedProcess, StackApi, free_port

DEPLOY = REPO / "deploy"


def _exec_start(unit: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read(DEPLOY / "systemd" / unit)
    return shlex.split(parser["Service"]["ExecStart"])


def _test_config(tmp_path: Path, db_url: str, port: int) -> Path:
    """The shipped file with what must differ on a test machine changed, nothing else."""
    shipped = configparser.ConfigParser(interpolation=None)
    shipped.read(DEPLOY / "hearth.conf")
    shipped["DEFAULT"]["transport_url"] = RABBIT_URL
    shipped["DEFAULT"]["engine_topic"] = f"hearth-deploy-{port}"
    shipped["DEFAULT"]["auth_encryption_key"] = "k" * 43
    shipped["DEFAULT"]["data_dir"] = str(tmp_path)
    shipped["DEFAULT"]["heartbeat_interval"] = "0.5"
    shipped["database"]["connection"] = db_url
    shipped["api"]["bind_host"] = "127.0.0.1"
    shipped["api"]["bind_port"] = str(port)
    shipped["api"]["public_url"] = f"http://127.0.0.1:{port}"
    shipped["api"]["noauth_roles"] = "member,reader,admin"
    shipped["cfn_api"]["bind"] = f"127.0.0.1:{free_port()}"
    path = tmp_path / "hearth.conf"
    with path.open("w") as out:
        shipped.write(out)
    return path


def _as_run_here(command: list[str], config: Path) -> list[str]:
    """The unit's command with this checkout's hearth and the test's config file."""
    assert command[0] == "/opt/hearth/bin/hearth"
    args = command[1:]
    args[args.index("/etc/hearth/hearth.conf")] = str(config)
    return args


def test_units_start_two_apis_and_three_engines(
    tmp_path: Path, database_factory: DatabaseFactory
) -> None:
    require_rabbitmq()
    db_url = database_factory.new("postgresql")
    port = free_port()
    config = _test_config(tmp_path, db_url, port)
    engine = LoggedProcess(_as_run_here(_exec_start("hearth-engine.service"), config),
                           tmp_path / "engine.log")
    api = LoggedProcess(_as_run_here(_exec_start("hearth-api.service"), config),
                        tmp_path / "api.log")
    endpoint = f"http://127.0.0.1:{port}/v1/demo"
    engines: list[dict[str, str]] = []
    try:
        engine.start()
        api.start()
        deadline = time.monotonic() + 90
        apis: list[dict[str, str]] = []
        while len(engines) < 3 or len(apis) < 2:
            assert engine.running and api.running, engine.log() + api.log()
            assert time.monotonic() < deadline, engine.log() + api.log()
            time.sleep(0.5)
            try:
                answer = requests.get(f"{endpoint}/services", timeout=10)
            except requests.RequestException:
                continue
            if answer.status_code == 200:
                up = [s for s in answer.json()["services"] if s["status"] == "up"]
                engines = [s for s in up if s["binary"] == "hearth-engine"]
                apis = [s for s in up if s["binary"] == "hearth-api"]
        assert api.proc is not None and engine.proc is not None
        assert len(psutil.Process(api.proc.pid).children()) == 2
        assert len(psutil.Process(engine.proc.pid).children()) == 3

        stacks = StackApi(endpoint)
        template = {"heat_template_version": "2018-08-31",
                    "resources": {f"r{i}": {"type": "OS::Heat::RandomString"}
                                  for i in range(5)}}
        ids = [stacks.create(f"deployed-{i}", template, {}) for i in range(3)]
        for stack_id in ids:
            assert stacks.wait(stack_id)[0] == "CREATE_COMPLETE"
        # SIGTERM (systemctl stop) ends every worker and the parents cleanly.
        assert api.terminate() == 0
        assert engine.terminate() == 0
    finally:
        api.close()
        engine.close()
        delete_queues(f"hearth-deploy-{port}", [s["engine_id"] for s in engines])
        database_factory.discard(db_url)
