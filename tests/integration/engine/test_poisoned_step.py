"""A step that kills its engine is carried on at most ``step_takeover_limit`` times; the next
engine fails it instead of dying too (a poisoned stack must not take every restart down)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.serve_process import ServeProcess, StackApi

PLUGIN = '''
import os
import signal

from hearth.resources.base import Resource


class Crash(Resource):
    """Its create kills the process that runs it (as an out-of-memory kill would)."""

    def handle_create(self):
        os.kill(os.getpid(), signal.SIGKILL)


def resource_mapping():
    return {"Test::Crash": Crash}
'''

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "fine": {"type": "OS::Heat::None"},
        "poison": {"type": "Test::Crash", "depends_on": "fine"},
    },
}
LIMIT = 2


def test_a_step_that_kills_its_engine_fails_after_the_limit(tmp_path: Path,
                                                            engine_url: str) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "crash_types.py").write_text(PLUGIN)
    server = ServeProcess(tmp_path / "hearth", engine_url, plugin_dirs=str(plugins),
                          step_takeover_limit=LIMIT)
    server.start()
    try:
        stacks = StackApi(server.endpoint)
        stack_id = stacks.create("poisoned", TEMPLATE, {})
        # Alive for 10 s: the step was failed, not run again.
        deaths = server.restart_while_dying(lambda: True, most=LIMIT + 1, alive_for=10)
        assert deaths == LIMIT + 1
        status, reason = stacks.wait(stack_id)
        assert status == "CREATE_FAILED", (status, reason)
        resources = {r["resource_name"]: r for r in stacks.resources("poisoned", stack_id)}
        assert resources["fine"]["resource_status"] == "CREATE_COMPLETE"
        poison = resources["poison"]
        assert poison["resource_status"] == "CREATE_FAILED"
        assert (f"The engine running this CREATE stopped {LIMIT + 1} times while it was in "
                f"progress; it is not run again (step_takeover_limit is {LIMIT})"
                ) in poison["resource_status_reason"]
        # The server that failed it is up and serves other work.
        other = stacks.create("after", {"heat_template_version": "2021-04-16",
                                        "resources": {"n": {"type": "OS::Heat::None"}}}, {})
        assert stacks.wait(other)[0] == "CREATE_COMPLETE"
    finally:
        server.close()
