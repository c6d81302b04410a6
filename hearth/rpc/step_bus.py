"""Resource steps between engines over oslo.messaging: offers, stops and reports are casts.

Offers go to the steps topic, which every engine takes from (RabbitMQ hands each message to
one of them); a stop goes to the engine running the step, a report to the step's
coordinator, each by its server name (the engine id). Nothing waits for an answer: the
database says what happened to a step whose message was lost (``engine.remote_steps``).
What travels is plain JSON (``engine.step_units`` makes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import oslo_messaging

VERSION = "1.0"

Data = Mapping[str, Any]


def steps_topic(engine_topic: str) -> str:
    return f"{engine_topic}-steps"


class StepBus:
    def __init__(self, transport: oslo_messaging.Transport, topic: str) -> None:
        self._client = oslo_messaging.get_rpc_client(
            transport, oslo_messaging.Target(topic=topic, version=VERSION)
        )

    def offer(self, unit: Data) -> None:
        self._client.cast({}, "take", unit=dict(unit))

    def stop(self, engine_id: str, unit: Data, why: str) -> None:
        self._client.prepare(server=engine_id).cast({}, "stop", unit=dict(unit), why=why)

    def report(self, coordinator: str, unit: Data, outcome: Data) -> None:
        self._client.prepare(server=coordinator).cast(
            {}, "reported", unit=dict(unit), outcome=dict(outcome)
        )


class StepHandlers(Protocol):
    def take(self, unit: Data) -> None: ...
    def stop(self, unit: Data, why: str) -> None: ...
    def reported(self, unit: Data, outcome: Data) -> None: ...


class _Endpoint:
    target = oslo_messaging.Target(version=VERSION)

    def __init__(self, handlers: StepHandlers) -> None:
        self._handlers = handlers

    def take(self, ctxt: Any, unit: dict[str, Any]) -> None:
        self._handlers.take(unit)

    def stop(self, ctxt: Any, unit: dict[str, Any], why: str) -> None:
        self._handlers.stop(unit, why)

    def reported(self, ctxt: Any, unit: dict[str, Any], outcome: dict[str, Any]) -> None:
        self._handlers.reported(unit, outcome)


def step_server(
    transport: oslo_messaging.Transport, topic: str, engine_id: str, handlers: StepHandlers
) -> oslo_messaging.MessageHandlingServer:
    """Takes the topic's offers (shared with every engine) and what is sent to this engine."""
    target = oslo_messaging.Target(topic=topic, server=engine_id, version=VERSION)
    return oslo_messaging.get_rpc_server(transport, target, [_Endpoint(handlers)])
