"""Resource steps between engines over oslo.messaging: offers, stops and reports are casts.

Offers go to the steps topic, which every engine takes from (RabbitMQ hands each message to
one of them); a stop goes to the engine running the step, a report to the step's
coordinator, each by its server name (the engine id). Nothing waits for an answer: the
database says what happened to a step whose message was lost (``engine.remote_steps``).
What travels is plain JSON (``engine.step_units`` makes it).
"""

from __future__ import annotations

from typing import Any, Protocol

import oslo_messaging

VERSION = "1.0"


def steps_topic(engine_topic: str) -> str:
    return f"{engine_topic}-steps"


class StepBus:
    def __init__(self, transport: oslo_messaging.Transport, topic: str) -> None:
        self._client = oslo_messaging.get_rpc_client(
            transport, oslo_messaging.Target(topic=topic, version=VERSION)
        )

    def offer(self, units: list[dict[str, Any]]) -> None:
        self._client.cast({}, "take", units=units)

    def stop(self, engine_id: str, unit: dict[str, Any], why: str) -> None:
        self._client.prepare(server=engine_id).cast({}, "stop", unit=unit, why=why)

    def report(self, coordinator: str, ended: list[dict[str, Any]]) -> None:
        self._client.prepare(server=coordinator).cast({}, "reported", ended=ended)


class StepHandlers(Protocol):
    def take(self, units: list[dict[str, Any]]) -> None: ...
    def stop(self, unit: dict[str, Any], why: str) -> None: ...
    def reported(self, ended: list[dict[str, Any]]) -> None: ...


class _Endpoint:
    target = oslo_messaging.Target(version=VERSION)

    def __init__(self, handlers: StepHandlers) -> None:
        self._handlers = handlers

    def take(self, ctxt: Any, units: list[dict[str, Any]]) -> None:
        self._handlers.take(units)

    def stop(self, ctxt: Any, unit: dict[str, Any], why: str) -> None:
        self._handlers.stop(unit, why)

    def reported(self, ctxt: Any, ended: list[dict[str, Any]]) -> None:
        self._handlers.reported(ended)


def step_server(
    transport: oslo_messaging.Transport, topic: str, engine_id: str, handlers: StepHandlers
) -> oslo_messaging.MessageHandlingServer:
    """Takes the topic's offers (shared with every engine) and what is sent to this engine."""
    target = oslo_messaging.Target(topic=topic, server=engine_id, version=VERSION)
    return oslo_messaging.get_rpc_server(transport, target, [_Endpoint(handlers)])
