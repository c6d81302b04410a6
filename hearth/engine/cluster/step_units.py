"""A resource step as a value that can travel to another engine, and how it ended.

A unit names what is stored, not what is in memory: the engine that takes it loads the
stack's template and the rows it needs from the database (``step_worker``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hearth.engine.running.traversal import Node, node_from_json, node_to_json


@dataclass(frozen=True)
class StepUnit:
    stack_id: str
    traversal_id: str
    # A resource of the template, or a row to clean up.
    node: Node
    resource_id: int
    # The resource action the step runs (CREATE, DELETE, ...).
    action: str
    # The engine holding the stack's lock: it waits for the outcome, and fences the writes.
    coordinator: str
    # Place on the critical path (requests to a busy service go longest first).
    priority: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "stack_id": self.stack_id, "traversal_id": self.traversal_id,
            "node": node_to_json(self.node), "resource_id": self.resource_id,
            "action": self.action, "coordinator": self.coordinator, "priority": self.priority,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StepUnit:
        return cls(
            stack_id=str(data["stack_id"]), traversal_id=str(data["traversal_id"]),
            node=node_from_json(data["node"]),
            resource_id=int(data["resource_id"]), action=str(data["action"]),
            coordinator=str(data["coordinator"]), priority=int(data.get("priority") or 0),
        )

    @property
    def key(self) -> tuple[str, int]:
        return (self.traversal_id, self.resource_id)


class Ending(enum.Enum):
    DONE = "done"
    FAILED = "failed"
    # Never begun: the run was stopping, or the traversal is no longer the stack's.
    NOT_STARTED = "not_started"
    # The coordinator no longer holds the stack's lock (another engine took it over).
    LOCK_LOST = "lock_lost"
    # The engine that ran it stopped (SIGTERM) and left it IN_PROGRESS for another; also said
    # by the coordinator of a step nobody claimed in time, or whose engine died.
    LEFT = "left"
    # Claimed by the coordinator's own engine: its run runs it (never sent on the wire).
    CLAIMED_HERE = "claimed_here"


@dataclass(frozen=True)
class Outcome:
    ending: Ending
    reason: str = ""
    engine_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"ending": self.ending.value, "reason": self.reason, "engine_id": self.engine_id}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(Ending(data["ending"]), str(data.get("reason") or ""),
                   str(data.get("engine_id") or ""))


Reported = tuple[StepUnit, Outcome]


class StepTransport(Protocol):
    """How units and their outcomes travel between engines (``WireTransport``)."""

    def offer(self, units: list[StepUnit]) -> None:
        """To whichever engine takes them first (this one included), together."""

    def stop(self, engine_id: str, unit: StepUnit, why: str) -> None:
        """Ask the engine running ``unit`` to stop it at once."""

    def report(self, coordinator: str, ended: list[Reported]) -> None:
        """Tell a coordinator how some of its units ended."""


class StepWire(Protocol):
    """What carries units as JSON (``hearth.rpc.step_bus.StepBus``)."""

    def offer(self, units: list[dict[str, Any]]) -> None: ...
    def stop(self, engine_id: str, unit: dict[str, Any], why: str) -> None: ...
    def report(self, coordinator: str, ended: list[dict[str, Any]]) -> None: ...


class WireTransport:
    """``StepTransport`` over a ``StepWire``."""

    def __init__(self, wire: StepWire) -> None:
        self._wire = wire

    def offer(self, units: list[StepUnit]) -> None:
        self._wire.offer([unit.to_json() for unit in units])

    def stop(self, engine_id: str, unit: StepUnit, why: str) -> None:
        self._wire.stop(engine_id, unit.to_json(), why)

    def report(self, coordinator: str, ended: list[Reported]) -> None:
        self._wire.report(coordinator, [
            {"unit": unit.to_json(), "outcome": outcome.to_json()} for unit, outcome in ended
        ])


def units_from_json(data: Any) -> list[StepUnit]:
    return [StepUnit.from_json(item) for item in data]


def reported_from_json(data: Any) -> list[Reported]:
    return [(StepUnit.from_json(item["unit"]), Outcome.from_json(item["outcome"]))
            for item in data]
