"""An update whose engine died while it created a resource (a replacement, or one new in the
update) goes on creating that same row: it is not replaced again, and the resource's events
are those of an undisturbed update."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from tests.integration.serve_process import ServeProcess, StackApi

PLUGIN = '''
import os
import signal
from pathlib import Path

from hearth.resources.base import Resource
from hearth.resources.schema import PropertySchema


class CrashOnce(Resource):
    """Its first create of a given size kills the process running it, after leaving a
    marker; the next one (in the engine that takes over) creates."""

    properties_schema = {
        "size": PropertySchema(PropertySchema.STRING, "replaces on change"),
        "crash_size": PropertySchema(PropertySchema.STRING, "the size whose create crashes",
                                     update_allowed=True),
        "marker": PropertySchema(PropertySchema.STRING, "a file: there once crashed",
                                 update_allowed=True),
    }

    def handle_create(self):
        marker = Path(self.properties["marker"])
        if self.properties["size"] == self.properties["crash_size"] and not marker.exists():
            marker.write_text("crashed")
            os.kill(os.getpid(), signal.SIGKILL)
        self.resource_id_set(f"obj-{self.properties['size']}")


def resource_mapping():
    return {"Test::CrashOnce": CrashOnce}
'''


def crash_once(size: str, marker: Path) -> dict[str, Any]:
    return {"type": "Test::CrashOnce",
            "properties": {"size": size, "crash_size": "2", "marker": str(marker)}}


def template(**resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": resources}


def test_an_update_carries_on_the_creates_a_dead_engine_began(tmp_path: Path,
                                                             engine_url: str) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "crash_once_types.py").write_text(PLUGIN)
    server = ServeProcess(tmp_path / "hearth", engine_url, plugin_dirs=str(plugins))
    server.start()
    try:
        stacks = StackApi(server.endpoint)
        replaced, added = tmp_path / "replaced.marker", tmp_path / "added.marker"
        stack_id = stacks.create("s", template(a=crash_once("1", replaced)), {})
        assert stacks.wait(stack_id)[0] == "CREATE_COMPLETE"
        created = len(stacks.events("s", stack_id))

        # `a` is replaced (size 1 -> 2) and `b` is new: each create kills its engine once.
        stacks.update("s", stack_id, template(a=crash_once("2", replaced),
                                              b=crash_once("2", added)), {})
        deaths = server.restart_while_dying(
            lambda: not stacks.status(stack_id)[0].endswith("IN_PROGRESS"), most=2)
        assert deaths >= 1 and replaced.exists()
        assert stacks.wait(stack_id)[0] == "UPDATE_COMPLETE", server.log()

        resources = {r["resource_name"]: r for r in stacks.resources("s", stack_id)}
        assert {name: (r["resource_status"], r["physical_resource_id"])
                for name, r in resources.items()} == {
            "a": ("CREATE_COMPLETE", "obj-2"), "b": ("CREATE_COMPLETE", "obj-2")}
        updated = Counter((e["resource_name"], e["resource_status"], e["resource_status_reason"])
                          for e in stacks.events("s", stack_id)[created:])
        # Once each, as without the kills: `a` replaced once, the old `a` deleted once.
        changed = "state changed"
        assert updated == Counter({
            ("s", "UPDATE_IN_PROGRESS", "Stack UPDATE started"): 1,
            ("a", "UPDATE_COMPLETE", "The Resource a requires replacement."): 1,
            ("a", "CREATE_IN_PROGRESS", changed): 1, ("a", "CREATE_COMPLETE", changed): 1,
            ("b", "CREATE_IN_PROGRESS", changed): 1, ("b", "CREATE_COMPLETE", changed): 1,
            ("a", "DELETE_IN_PROGRESS", changed): 1, ("a", "DELETE_COMPLETE", changed): 1,
            ("s", "UPDATE_COMPLETE", "Stack UPDATE completed successfully"): 1,
        })
        deleted = [e for e in stacks.events("s", stack_id)[created:]
                   if e["resource_status"] == "DELETE_COMPLETE"]
        assert [e["physical_resource_id"] for e in deleted] == ["obj-1"]
    finally:
        server.kill()
        server.close()
