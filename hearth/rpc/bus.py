"""The engine's interface over a message bus: oslo.messaging RPC (RabbitMQ in practice).

``hearth api`` holds an ``EngineAPI`` that sends every call to the ``hearth-engine`` topic;
whichever engine takes the message runs the same method the embedded server calls in
process, and answers. Engines also listen on their own server name (their engine id), so a
message can reach the engine that runs a given stack.

What crosses the wire:
- the caller's ``RequestContext``, with its token (a new stack's trust is made from it);
- the call's arguments by name, as JSON;
- the answer, or a ``HearthError`` as data (module, class, message, attributes), made again
  on the caller's side with its type, message and HTTP status. Any other failure on the
  engine is an internal error: the caller gets a 500 without the engine's traceback.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from typing import Any, cast

import kombu.exceptions
import oslo_messaging
from oslo_config import cfg
from oslo_messaging import opts as oslo_messaging_opts
from oslo_messaging._metrics.client import oslo_messaging_metrics as metrics_opts
from oslo_messaging._tracing.client import oslo_messaging_tracing as tracing_opts

from hearth.common.context import RequestContext
from hearth.common.errors import HearthError
from hearth.rpc.protocol import EngineAPI, engine_methods

LOG = logging.getLogger(__name__)

VERSION = "1.0"


@cache
def _signature(name: str) -> inspect.Signature:
    return inspect.signature(getattr(EngineAPI, name))


def _takes_context(name: str) -> bool:
    """Whether the call names its caller (the secret-URL calls do not: the URL is the key)."""
    return "ctx" in _signature(name).parameters


# Reports that need no answer: sent without waiting (the sender goes on even when no engine
# is there to take them).
NOTIFICATIONS = frozenset({"report_service", "remove_service"})

# What the wire carries for a call that names no caller.
NO_CALLER = RequestContext(project_id="")


def register_options(conf: cfg.ConfigOpts) -> None:
    """oslo.messaging's options (``transport_url``, ``rpc_response_timeout``, ``[oslo_messaging_
    rabbit]``...) on ``conf``, so that they can be read before a transport exists."""
    for group, opts in oslo_messaging_opts.list_opts():
        for opt in opts:
            if group is None and opt.dest in conf:
                continue
            if group is not None and group in conf and opt.dest in conf[group]:
                continue
            conf.register_opt(opt, group=group)
    # oslo.messaging 18 registers its tracing and metrics options on its global CONF only, but
    # reads them from the ConfigOpts it is given; each Hearth server has its own.
    for name, extra in (("oslo_messaging_tracing", tracing_opts),
                        ("oslo_messaging_metrics", metrics_opts)):
        if name not in conf:
            conf.register_opts(extra, group=name)


def get_transport(conf: cfg.ConfigOpts) -> oslo_messaging.Transport:
    """The RPC transport of ``[DEFAULT] transport_url``."""
    register_options(conf)
    return oslo_messaging.get_rpc_transport(conf)


class ContextSerializer(oslo_messaging.Serializer):  # type: ignore[misc]
    """RequestContext to the wire and back; arguments and answers are plain JSON already."""

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return entity

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return entity

    def serialize_context(self, ctxt: RequestContext) -> dict[str, Any]:
        data = ctxt.to_dict()
        # The bus is between Hearth's own processes; the engine needs the token to make a
        # stack's trust while the caller's token is still valid.
        data["auth_token"] = ctxt.auth_token
        return data

    def deserialize_context(self, ctxt: dict[str, Any]) -> RequestContext:
        return replace(RequestContext.from_dict(ctxt), auth_token=ctxt.get("auth_token"))


# --- errors as data ------------------------------------------------------------------------

def error_to_data(exc: HearthError) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for key, value in vars(exc).items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        attrs[key] = value
    return {
        "module": type(exc).__module__,
        "class": type(exc).__qualname__,
        "message": str(exc),
        "http_status": exc.http_status,
        "heat_type": exc.heat_type,
        "attrs": attrs,
    }


class ForeignError(HearthError):
    """An engine error whose class this process does not have (a newer engine): its type
    name and HTTP status are kept."""

    def __init__(self, message: str, heat_type: str, http_status: int) -> None:
        super().__init__(message)
        self._heat_type = heat_type
        self.http_status = http_status

    @property
    def heat_type(self) -> str:
        return self._heat_type


def error_from_data(data: Mapping[str, Any]) -> HearthError:
    message = str(data.get("message", ""))
    cls = _hearth_error_class(str(data.get("module", "")), str(data.get("class", "")))
    if cls is None:
        return ForeignError(message, str(data.get("heat_type") or "HearthError"),
                            int(data.get("http_status") or 500))
    # Made without its constructor (each subclass takes other arguments): the message and
    # attributes are the engine's, as they were.
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    vars(error).update(data.get("attrs") or {})
    error.message = message
    return error


def _hearth_error_class(module: str, qualname: str) -> type[HearthError] | None:
    if not module.startswith("hearth.") or "." in qualname:
        return None
    try:
        found = getattr(importlib.import_module(module), qualname, None)
    except ImportError:
        return None
    if isinstance(found, type) and issubclass(found, HearthError):
        return found
    return None


class MessageBusUnavailable(HearthError):
    """The message bus could not be reached: the call was not sent to any engine."""

    http_status = 503

    def __init__(self) -> None:
        super().__init__("The message bus is unavailable at the moment; the request was not "
                         "sent. Try again shortly.")

    @property
    def heat_type(self) -> str:
        return "MessageDeliveryFailure"  # oslo.messaging's name for it


class EngineCallFailed(HearthError):
    """The engine failed in a way that is not the caller's doing (its log says why)."""

    http_status = 500


# --- the engine's side ---------------------------------------------------------------------

class EngineEndpoint:
    """Answers the bus's calls with an engine's methods (only those of ``EngineAPI``)."""

    target = oslo_messaging.Target(version=VERSION)

    def __init__(self, engine: EngineAPI) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in engine_methods():
            raise AttributeError(name)
        method = getattr(self._engine, name)
        with_context = _takes_context(name)

        def answer(ctxt: RequestContext, **kwargs: Any) -> dict[str, Any]:
            try:
                result = method(ctxt, **kwargs) if with_context else method(**kwargs)
                return {"result": result}
            except HearthError as exc:
                return {"error": error_to_data(exc)}

        return answer


def engine_server(
    transport: oslo_messaging.Transport, topic: str, engine: EngineAPI, server_name: str
) -> oslo_messaging.MessageHandlingServer:
    """An RPC server taking the topic's calls (shared with every engine) and its own."""
    target = oslo_messaging.Target(topic=topic, server=server_name, version=VERSION)
    return oslo_messaging.get_rpc_server(
        transport, target, [EngineEndpoint(engine)], serializer=ContextSerializer(),
    )


# --- the API's side ------------------------------------------------------------------------

class _BusEngine:
    """Every ``EngineAPI`` method, sent over the bus (see ``engine_client``)."""

    def __init__(self, transport: oslo_messaging.Transport, topic: str,
                 send_retries: int | None) -> None:
        # The call timeout is oslo.messaging's [DEFAULT] rpc_response_timeout, as in Heat:
        # calls that start work answer once it is stored, so only reads and validation
        # (under their template budget) take long. Reaching the bus is tried a few times
        # only: with the broker down a request is answered, not held.
        target = oslo_messaging.Target(topic=topic, version=VERSION)
        self._client = oslo_messaging.get_rpc_client(
            transport, target, serializer=ContextSerializer(), retry=send_retries
        )

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in engine_methods():
            raise AttributeError(name)
        signature = _signature(name)
        client = self._client

        def send(*args: Any, **kwargs: Any) -> Any:
            # By name on the wire: the endpoint's method is called with keywords.
            arguments = dict(signature.bind(None, *args, **kwargs).arguments)
            arguments.pop("self", None)
            context = arguments.pop("ctx", NO_CALLER)
            try:
                if name in NOTIFICATIONS:
                    client.cast(context, name, **arguments)
                    return None
                reply = client.call(context, name, **arguments)
            except (oslo_messaging.MessageDeliveryFailure, kombu.exceptions.OperationalError):
                # (The second: no connection to the bus could be made, within the retries.)
                LOG.warning("The message bus took no %s call", name)
                raise MessageBusUnavailable() from None
            except oslo_messaging.MessagingTimeout:
                LOG.warning("No engine answered %s in time", name)
                raise EngineCallFailed(
                    "No engine answered in time; the request may still be carried out"
                ) from None
            except oslo_messaging.RemoteError as exc:
                LOG.error("Engine failed on %s: %s: %s", name, exc.exc_type, exc.value)
                raise EngineCallFailed("The engine failed on this request") from None
            if "error" in reply:
                raise error_from_data(reply["error"])
            return reply.get("result")

        send.__name__ = name
        return send


def engine_client(
    transport: oslo_messaging.Transport, topic: str, send_retries: int = -1
) -> EngineAPI:
    """The engine as the API sees it, over the bus (``send_retries``: [DEFAULT]
    rpc_send_retries)."""
    return cast(EngineAPI, _BusEngine(transport, topic, None if send_retries < 0
                                      else send_retries))
