"""``hearth api`` and ``hearth engine``: the scale-out shape, as Heat's heat-api and heat-engine.

Both read the same config file as ``hearth serve``. They talk over ``[DEFAULT] transport_url``
(RabbitMQ, through oslo.messaging) and share ``[database] connection`` (PostgreSQL or MariaDB;
the API never opens it). Any number of each may run, on any number of hosts: every engine
takes calls from every API, and a stack left by a dead engine is carried on by another.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oslo_config import cfg

from hearth.cli.serve import (
    _cfn_app,
    close_server,
    ensure_encryption_key,
    parse_bind,
    server_config,
)
from hearth.cli.workers import Workers
from hearth.common.config import data_dir, database_url
from hearth.common.errors import HearthError
from hearth.common.logs import TEXT_FORMAT_WITH_PID, setup_logging
from hearth.common.metrics_server import prepare_multiprocess, start_engine_metrics

if TYPE_CHECKING:
    from hearth.engine.core import EngineCore

LOG = logging.getLogger("hearth.cluster")


def register(commands: Any) -> None:
    api = commands.add_parser(
        "api",
        help="run the Orchestration API only: its calls go to `hearth engine` processes "
        "over [DEFAULT] transport_url",
    )
    _common_arguments(api)
    api.add_argument(
        "--bind", type=parse_bind, default=os.environ.get("HEARTH_BIND"),
        help="HOST:PORT to listen on (env HEARTH_BIND; default [api] bind_host/bind_port)",
    )
    api.add_argument(
        "--cfn-bind", type=parse_bind, default=os.environ.get("HEARTH_CFN_BIND"),
        help="HOST:PORT of the CloudFormation-compatible API (default [cfn_api] bind)",
    )
    api.add_argument("--workers", type=int, default=None,
                     help="API processes on the one socket (default [api] workers)")
    api.set_defaults(func=cmd_api)
    engine = commands.add_parser(
        "engine",
        help="run engine processes: they take the API's calls from [DEFAULT] transport_url "
        "and work on stacks in [database] connection",
    )
    _common_arguments(engine)
    engine.add_argument("--workers", type=int, default=None,
                        help="engine processes (default [DEFAULT] num_engine_workers)")
    engine.set_defaults(func=cmd_engine, bind=None, cfn_bind=None)


def _common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config-file", "--config", dest="config", action="append", default=[],
        help="config file (repeatable; env HEARTH_CONFIG), the same as `hearth serve` reads",
    )
    parser.add_argument(
        "--data-dir", default=os.environ.get("HEARTH_DATA_DIR"),
        help="folder for the encryption key file when [DEFAULT] auth_encryption_key is unset",
    )


def _config(args: argparse.Namespace) -> cfg.ConfigOpts:
    conf = server_config(args)
    # The bus options are oslo.messaging's; they are registered when the transport is made.
    from hearth.rpc import bus

    bus.register_options(conf)
    setup_logging(conf, text_format=TEXT_FORMAT_WITH_PID)
    # oslo.messaging's default, rabbit://, is RabbitMQ on this host as guest.
    LOG.info("Message bus: %s, topic %s", _without_password(str(conf.transport_url)),
             conf.engine_topic)
    return conf


def _without_password(url: str) -> str:
    return re.sub(r"([/,][^:/@,]*):[^@,]*@", r"\1:***@", url)


def _worker_count(configured: int, given: int | None) -> int:
    count = given if given is not None else configured
    if count < 0:
        raise HearthError(f"--workers must be 0 or more, not {count}")
    return count or os.cpu_count() or 1


def _quiet_warnings() -> None:
    # oslo.messaging imports eventlet's helpers (never used here: its threading executor is);
    # their deprecation warnings would only be noise in every log.
    warnings.filterwarnings("ignore", category=Warning, module=r"(oslo_\w+|eventlet)\b")


def _run(count: int, target: Callable[[int], int], name: str) -> int:
    """One worker runs in this process; more are forked and kept running by this one. The
    target gets the worker's slot, 0 to count - 1 (kept by a worker started again)."""
    if count == 1:
        return int(target(0))
    return Workers(count, target, name).run()


# --- hearth engine -------------------------------------------------------------------------

def cmd_engine(args: argparse.Namespace) -> int:
    _quiet_warnings()
    conf = _config(args)
    from hearth.store.migrate import ensure_schema

    Path(data_dir(conf)).mkdir(parents=True, exist_ok=True)
    ensure_encryption_key(conf)
    # Once, before the workers start: each of them then finds the schema current.
    ensure_schema(database_url(conf))
    count = _worker_count(conf.num_engine_workers, args.workers)
    return _run(count, lambda slot: engine_worker(conf, slot), "engine")


def engine_worker(conf: cfg.ConfigOpts, slot: int = 0) -> int:
    from hearth.engine.engine import Engine
    from hearth.rpc import bus

    stop = _stop_on_signal()
    engine = Engine.from_config(conf, migrate=False)
    engine.start()
    transport = bus.get_transport(conf)
    server = bus.engine_server(transport, conf.engine_topic, engine, engine.core.engine_id)
    servers = [server, *_step_servers(conf, transport, engine.core)]
    for started in servers:
        started.start()
    # Each worker its own port ([metrics] engine_bind's + slot), the same after a restart.
    metrics = start_engine_metrics(conf, worker=slot)
    LOG.info("Engine %s (pid %d) takes calls on %s", engine.core.engine_id, os.getpid(),
             conf.engine_topic)
    try:
        while not stop.wait(1.0):
            pass
    finally:
        LOG.info("Engine %s stopping: no new calls; running actions handed over",
                 engine.core.engine_id)
        for started in servers:
            started.stop()
        for started in servers:
            started.wait()
        engine.stop()
        transport.cleanup()
        if metrics is not None:
            metrics.close()
    return 0


def _step_servers(
    conf: cfg.ConfigOpts, transport: Any, core: EngineCore
) -> list[Any]:
    """With ``[DEFAULT] spread_steps``, this engine offers its runs' steps to every engine
    and takes theirs."""
    if not conf.spread_steps:
        return []
    from hearth.engine.cluster.remote_steps import RemoteSteps
    from hearth.engine.cluster.step_units import WireTransport
    from hearth.engine.cluster.step_worker import StepInbox, StepWorker
    from hearth.rpc import step_bus

    topic = step_bus.steps_topic(conf.engine_topic)
    steps = WireTransport(step_bus.StepBus(transport, topic))
    remote = RemoteSteps(core, steps)
    core.remote_steps = remote
    inbox = StepInbox(StepWorker(core, remote), remote)
    return [step_bus.step_server(transport, topic, core.engine_id, inbox)]


def _stop_on_signal() -> threading.Event:
    stop = threading.Event()

    def handler(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    return stop


# --- hearth api ----------------------------------------------------------------------------

def cmd_api(args: argparse.Namespace) -> int:
    _quiet_warnings()
    conf = _config(args)
    api_socket = _listen(conf.api.bind_host, conf.api.bind_port, "API ([api] bind_host/"
                         "bind_port)")
    cfn_socket = None
    if conf.cfn_api.enabled:
        cfn_socket = _listen(*parse_bind(str(conf.cfn_api.bind)), "CFN API ([cfn_api] bind)")
    host, port = api_socket.getsockname()[:2]
    LOG.info("Hearth API on http://%s:%d/v1/ (auth: %s)", host, port, conf.api.auth_strategy)
    count = _worker_count(conf.api.workers, args.workers)
    if count == 1:
        return api_worker(conf, api_socket, cfn_socket)
    # /metrics of any worker shows the totals of all of them (prometheus_client's
    # multiprocess mode: each process writes its values to files in this folder).
    folder = Path(tempfile.mkdtemp(prefix="hearth-api-metrics-"))
    prepare_multiprocess(folder)
    try:
        return _run(count, lambda slot: api_worker(conf, api_socket, cfn_socket), "api")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _listen(host: str, port: int, what: str) -> socket.socket:
    """The listening socket, made once and shared by every API worker."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _name, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(1024)
    except OSError as exc:
        raise HearthError(f"The {what} cannot listen on {host}:{port}: "
                          f"{exc.strerror or exc}") from None
    sock.setblocking(False)
    return sock


def api_worker(
    conf: cfg.ConfigOpts, api_socket: socket.socket, cfn_socket: socket.socket | None
) -> int:
    from waitress.server import create_server

    from hearth.api.app import build_app
    from hearth.rpc import bus

    transport = bus.get_transport(conf)
    engine = bus.engine_client(transport, conf.engine_topic, conf.rpc_send_retries)
    servers = [create_server(
        build_app(engine, conf), sockets=[api_socket], threads=conf.api.threads,
        channel_timeout=conf.api.keepalive_timeout, ident="hearth",
        clear_untrusted_proxy_headers=True,
    )]
    if cfn_socket is not None:
        servers.append(create_server(
            _cfn_app(engine, conf), sockets=[cfn_socket], threads=conf.cfn_api.threads,
            channel_timeout=conf.api.keepalive_timeout, ident="hearth-cfn",
            clear_untrusted_proxy_headers=True,
        ))
    threads = [threading.Thread(target=_serve, args=(server,), daemon=True) for server in servers]
    for thread in threads:
        thread.start()
    stop = _stop_on_signal()
    reports = ServiceReports(engine, conf)
    try:
        while not stop.wait(reports.interval):
            reports.beat()
    finally:
        for server in servers:
            close_server(server)
        for thread in threads:
            thread.join(timeout=10)
        reports.remove()
        transport.cleanup()
    return 0


class ServiceReports:
    """This API worker in the service list: a heartbeat through the engines (the API never
    opens the database), removed when the worker stops."""

    def __init__(self, engine: Any, conf: cfg.ConfigOpts) -> None:
        from hearth.common.context import RequestContext

        self.engine = engine
        self.interval = float(conf.heartbeat_interval)
        self.host = str(conf.host)
        self.service_id = str(uuid.uuid4())
        self.context = RequestContext.admin()
        self.beat()

    def beat(self) -> None:
        try:
            self.engine.report_service(self.context, self.service_id, "hearth-api", self.host,
                                       max(1, round(self.interval)))
        except Exception as exc:
            # No engine answering is no reason to stop serving; the list shows this one down.
            LOG.warning("API worker %d could not report itself: %s", os.getpid(), exc)

    def remove(self) -> None:
        try:
            self.engine.remove_service(self.context, self.service_id)
        except Exception as exc:
            LOG.warning("API worker %d could not remove its record: %s", os.getpid(), exc)


def _serve(server: Any) -> None:
    try:
        server.run()
    except OSError:
        pass  # the socket closed under the running select: that ends the loop
