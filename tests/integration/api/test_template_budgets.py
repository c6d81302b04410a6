"""Template work over its budgets (CPU time, memory, size of a value) is refused with 413 before
the server works on it, names the budget and the place in the template, stores nothing, and
frees the worker for the next request."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from hearth.cli.serve import RunningServer, serving
from tests.integration.api.conftest import server_conf
from tests.integration.api.util import assert_heat_error, base

CPU_SECONDS = 2
MEMORY_MB = 256
MAX_VALUE_CHARS = 1_000_000

# Each value spins yaql until its own 5 s (wall-clock) limit: thirty of them are far over 2 s
# of CPU, even on a machine so busy that the worker gets a fraction of a core.
SPIN = "range(200).select(range(200).select(range(200).sum()).sum()).sum()"
CPU_BOMB = {
    "heat_template_version": "2021-04-16",
    "resources": {f"spin{i}": {"type": "OS::Heat::Value",
                               "properties": {"value": {"yaql": {"expression": SPIN}}}}
                  for i in range(30)},
}
OUTPUTS_BOMB = {
    "heat_template_version": "2021-04-16",
    "outputs": {f"spin{i}": {"value": {"yaql": {"expression": SPIN}}} for i in range(30)},
}
# 40,000 x 40,000 nested repeats of a kilobyte each: terabytes, far over 256 MiB.
MEMORY_BOMB = {
    "heat_template_version": "2021-04-16",
    "parameters": {"items": {"type": "comma_delimited_list"}},
    "outputs": {"grid": {"value": {"repeat": {
        "template": {"repeat": {"template": "%a%%b%" + "z" * 1000,
                                "for_each": {"%b%": {"get_param": "items"}}}},
        "for_each": {"%a%": {"get_param": "items"}},
    }}}},
}
MANY_ITEMS = ",".join("x" * 40_000)
# 2,000 copies of 1,000 characters joined: a 2 MB value, over the 1 MB limit.
BIG_VALUE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"items": {"type": "comma_delimited_list"}},
    "resources": {"big": {"type": "OS::Heat::Value", "properties": {"value": {"list_join": [
        "", {"repeat": {"template": "y" * 1000, "for_each": {"%v%": {"get_param": "items"}}}},
    ]}}}},
}
FEW = {"heat_template_version": "2021-04-16",
       "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "ok"}}},
       "outputs": {"o": {"value": {"get_attr": ["v", "value"]}}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    conf = server_conf(tmp_path_factory.mktemp("budgets"), template_cpu_seconds=CPU_SECONDS,
                       template_memory_mb=MEMORY_MB, template_max_value_chars=MAX_VALUE_CHARS)
    with serving(conf) as running:
        yield running


def post(server: RunningServer, path: str, body: Any) -> requests.Response:
    return requests.post(f"{base(server.url)}{path}", json=body, timeout=120)


def stack_names(server: RunningServer) -> list[str]:
    stacks = requests.get(f"{base(server.url)}/stacks", timeout=10).json()["stacks"]
    return [s["stack_name"] for s in stacks]


@pytest.mark.parametrize("path", ["/stacks", "/validate", "/stacks/preview"])
def test_cpu_bomb_is_refused_naming_the_budget_and_place(server: RunningServer,
                                                         path: str) -> None:
    resp = post(server, path, {"stack_name": "spin", "template": CPU_BOMB})
    assert_heat_error(resp, 413, f"CPU-time budget of {CPU_SECONDS} s",
                      "template_cpu_seconds", "at resources.spin")
    assert "spin" not in stack_names(server)


def test_outputs_count_where_they_are_resolved(server: RunningServer) -> None:
    # Validate never resolves outputs (as in Heat): no budget is spent on them there.
    resp = post(server, "/validate", {"template": OUTPUTS_BOMB})
    assert resp.status_code == 200, resp.text
    resp = post(server, "/stacks", {"stack_name": "spin_out", "template": OUTPUTS_BOMB})
    assert_heat_error(resp, 413, "template_cpu_seconds", "at outputs.spin")
    assert "spin_out" not in stack_names(server)


def test_memory_bomb_is_refused(server: RunningServer) -> None:
    resp = post(server, "/stacks", {"stack_name": "grid", "template": MEMORY_BOMB,
                                    "parameters": {"items": MANY_ITEMS}})
    assert_heat_error(resp, 413, f"memory budget of {MEMORY_MB} MiB", "template_memory_mb",
                      "at outputs.grid")
    assert "grid" not in stack_names(server)


def test_value_over_the_size_limit_is_refused(server: RunningServer) -> None:
    resp = post(server, "/stacks", {"stack_name": "big", "template": BIG_VALUE,
                                    "parameters": {"items": ",".join(["i"] * 2000)}})
    assert_heat_error(resp, 413, "resources.big.properties",
                      f"more than {MAX_VALUE_CHARS} characters")
    assert "big" not in stack_names(server)
    # The same template with a value under the limit is created.
    resp = post(server, "/stacks", {"stack_name": "small", "template": BIG_VALUE,
                                    "parameters": {"items": ",".join(["i"] * 20)}})
    assert resp.status_code == 201, resp.text


def test_update_with_a_bomb_is_refused_and_changes_nothing(server: RunningServer) -> None:
    resp = post(server, "/stacks", {"stack_name": "steady", "template": FEW})
    assert resp.status_code == 201, resp.text
    url = f"{base(server.url)}/stacks/steady/{resp.json()['stack']['id']}"
    deadline = time.monotonic() + 30
    while requests.get(url, timeout=10).json()["stack"]["stack_status"] != "CREATE_COMPLETE":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    resp = requests.put(url, json={"template": CPU_BOMB}, timeout=120)
    assert_heat_error(resp, 413, "template_cpu_seconds")
    stack = requests.get(url, timeout=10).json()["stack"]
    assert (stack["stack_status"], stack["updated_time"]) == ("CREATE_COMPLETE", None)


def test_workers_recover_after_bombs(server: RunningServer) -> None:
    # Bombs in parallel (more than there are workers), then an honest template at once.
    bombs = [threading.Thread(target=post, args=(server, "/validate", {"template": CPU_BOMB}))
             for _ in range(3)]
    for bomb in bombs:
        bomb.start()
    for bomb in bombs:
        bomb.join()
    resp = post(server, "/validate", {"template": FEW})
    assert resp.status_code == 200, resp.text
    assert resp.json()["Description"] == "No description"


def test_without_workers_the_template_work_runs_unchecked(tmp_path: Path) -> None:
    conf = server_conf(tmp_path, template_workers=0, template_max_value_chars=MAX_VALUE_CHARS)
    with serving(conf) as running:
        resp = post(running, "/validate", {"template": BIG_VALUE})
        assert resp.status_code == 200, resp.text


def test_a_value_known_only_while_running_fails_its_resource(server: RunningServer) -> None:
    # The preflight cannot know "a"'s value; "b", twice it, is over the limit once it is known.
    template = {
        "heat_template_version": "2021-04-16",
        "parameters": {"text": {"type": "string"}},
        "resources": {
            "a": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "text"}}},
            "b": {"type": "OS::Heat::Value", "properties": {"value": {"list_join": [
                "", [{"get_attr": ["a", "value"]}, {"get_attr": ["a", "value"]}]]}}},
        },
        "outputs": {"twice": {"value": {"list_join": [
            "", [{"get_attr": ["a", "value"]}, {"get_attr": ["a", "value"]}]]}}},
    }
    text = "t" * (MAX_VALUE_CHARS * 6 // 10)
    resp = post(server, "/stacks", {"stack_name": "grows", "template": template,
                                    "parameters": {"text": text}})
    assert resp.status_code == 201, resp.text
    url = f"{base(server.url)}/stacks/grows/{resp.json()['stack']['id']}"
    deadline = time.monotonic() + 60
    while (stack := requests.get(url, timeout=10).json()["stack"])["stack_status"].endswith(
            "IN_PROGRESS"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert stack["stack_status"] == "CREATE_FAILED"
    b = requests.get(f"{url}/resources/b", timeout=10).json()["resource"]
    assert b["resource_status"] == "CREATE_FAILED"
    assert (f"resources.b.properties resolves to a value of more than {MAX_VALUE_CHARS} "
            "characters") in b["resource_status_reason"]
    a = requests.get(f"{url}/resources/a", timeout=10).json()["resource"]
    assert a["resource_status"] == "CREATE_COMPLETE"
