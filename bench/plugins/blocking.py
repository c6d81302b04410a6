"""Bench::Blocking: a resource whose create and delete handlers block for 200 ms each, as a
call to a cloud API does, for the latency-bound benchmark (`python -m bench --type blocking`).
Loaded through `[DEFAULT] plugin_dirs` by the benchmark only."""

from __future__ import annotations

import time
import uuid

from hearth.resources.base import Resource

BLOCKED_SECONDS = 0.2


class Blocking(Resource):
    def handle_create(self) -> None:
        time.sleep(BLOCKED_SECONDS)
        self.resource_id_set(str(uuid.uuid4()))

    def handle_delete(self) -> None:
        time.sleep(BLOCKED_SECONDS)


def resource_mapping() -> dict[str, type[Resource]]:
    return {"Bench::Blocking": Blocking}
