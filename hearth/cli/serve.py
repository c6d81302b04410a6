"""``hearth serve``: the API and one engine in one process (the embedded mode)."""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oslo_config import cfg

from hearth.common.blocking import SpareThreads
from hearth.common.config import data_dir, load_config
from hearth.common.errors import HearthError
from hearth.common.logs import setup_logging

if TYPE_CHECKING:
    from hearth.engine.engine import Engine
    from hearth.rpc.protocol import EngineAPI

LOG = logging.getLogger("hearth.serve")
DEFAULT_BIND = "127.0.0.1:8004"


def parse_bind(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise argparse.ArgumentTypeError(f"--bind {text!r} is not of the form HOST:PORT")
    return host.strip("[]"), int(port)


def register(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the API and an engine in one process (SQLite in the data directory "
        "unless [database] connection says otherwise)",
    )
    serve.add_argument(
        "--bind", type=parse_bind, default=os.environ.get("HEARTH_BIND"),
        help=f"HOST:PORT to listen on (env HEARTH_BIND; default {DEFAULT_BIND} or [api] "
        "bind_host/bind_port from the config)",
    )
    serve.add_argument(
        "--cfn-bind", type=parse_bind, default=os.environ.get("HEARTH_CFN_BIND"),
        help="HOST:PORT of the CloudFormation-compatible API (env HEARTH_CFN_BIND; default "
        "127.0.0.1:8000 or [cfn_api] bind from the config; port 0 picks a free one)",
    )
    serve.add_argument(
        "--data-dir", default=os.environ.get("HEARTH_DATA_DIR"),
        help="folder for the SQLite database (env HEARTH_DATA_DIR; default "
        "~/.local/share/hearth)",
    )
    serve.add_argument(
        # Heat's spelling, as everywhere else in hearth; --config is kept for old scripts.
        "--config-file", "--config", dest="config", action="append", default=[],
        help="config file for everything else: database, auth, limits (repeatable; env "
        "HEARTH_CONFIG). `hearth config sample` prints every option.",
    )
    serve.set_defaults(func=cmd_serve)


def server_config(args: argparse.Namespace) -> cfg.ConfigOpts:
    files = list(args.config_file) + list(args.config)
    if not files and os.environ.get("HEARTH_CONFIG"):
        files = [os.environ["HEARTH_CONFIG"]]
    overrides: list[tuple[str, str | None, object]] = []
    if args.data_dir:
        overrides.append(("data_dir", None, str(args.data_dir)))
    bind = args.bind if not isinstance(args.bind, str) else parse_bind(args.bind)
    if bind:
        overrides += [("bind_host", "api", bind[0]), ("bind_port", "api", bind[1])]
    cfn_bind = args.cfn_bind if not isinstance(args.cfn_bind, str) else parse_bind(args.cfn_bind)
    if cfn_bind:
        overrides.append(("bind", "cfn_api", f"{cfn_bind[0]}:{cfn_bind[1]}"))
    return load_config(files, overrides)


@dataclass
class RunningServer:
    """A started API server (used by ``hearth serve`` and by the tests)."""

    engine: Engine
    server: Any
    thread: threading.Thread | None = None
    # More API threads while calls wait on an API that may be this one (remote stacks).
    spares: SpareThreads | None = None
    # The CFN query API on its own port ([cfn_api]), when enabled.
    cfn_server: Any = None
    cfn_thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def url(self) -> str:
        return f"http://{self.server.effective_host}:{self.port}"

    @property
    def cfn_url(self) -> str | None:
        """``http://host:port`` of the CFN API (its actions are under ``/v1/``)."""
        if self.cfn_server is None:
            return None
        return _http_url(str(self.cfn_server.effective_host), int(self.cfn_server.effective_port))

    def stop(self) -> None:
        if self.spares is not None:
            self.spares.close()
        close_server(self.server)
        if self.thread is not None:
            self.thread.join(timeout=10)
        if self.cfn_server is not None:
            close_server(self.cfn_server)
        if self.cfn_thread is not None:
            self.cfn_thread.join(timeout=10)
        self.engine.stop()


def check_free(host: str, port: int, what: str) -> None:
    """Raise a HearthError naming the address when ``host:port`` cannot be listened on."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise HearthError(f"The {what} cannot listen on {host}:{port}: {exc}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # As waitress binds (SO_REUSEADDR): a socket in TIME_WAIT is no obstacle.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise HearthError(f"The {what} cannot listen on {host}:{port}: {reason} "
                              "(is another server running there?)") from None


def close_server(server: Any, *, from_loop: bool = False) -> None:
    """Let running requests finish, then close the listening socket and every connection.

    The closing runs in the server's own loop (through its trigger) unless we are in it
    already: closing sockets under a running ``select`` in another thread breaks it.
    """
    server.task_dispatcher.shutdown(cancel_pending=False, timeout=10)

    def close_all() -> None:
        for channel in list(server._map.values()):
            channel.close()

    if from_loop:
        close_all()
        return
    try:
        server.trigger.pull_trigger(close_all)
    except OSError:
        # The trigger is already gone (the loop is closing on its own): close from here.
        close_all()


def ensure_encryption_key(conf: cfg.ConfigOpts) -> None:
    """Embedded mode needs no setup: without a configured key, one is made once and kept
    (readable only by its owner) in the data directory."""
    if conf.auth_encryption_key:
        return
    path = Path(data_dir(conf)) / "auth_encryption_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32))
        LOG.info("Made a new encryption key for hidden parameters in %s", path)
    conf.set_override("auth_encryption_key", path.read_text().strip())


def start_server(conf: cfg.ConfigOpts, *, background: bool = False) -> RunningServer:
    # Imported here: the client commands of `hearth` should not pay for the server's start-up.
    from waitress.server import create_server

    from hearth.api.app import build_app
    from hearth.engine.engine import Engine

    # Before migrations and the engine's registration: a taken port is said plainly, at once.
    check_free(conf.api.bind_host, conf.api.bind_port, "API ([api] bind_host/bind_port)")
    if conf.cfn_api.enabled:
        check_free(*parse_bind(str(conf.cfn_api.bind)), "CFN API ([cfn_api] bind)")
    Path(data_dir(conf)).mkdir(parents=True, exist_ok=True)
    ensure_encryption_key(conf)
    engine = Engine.from_config(conf)
    engine.start()
    api_engine: EngineAPI = engine
    app = build_app(api_engine, conf)
    server = create_server(
        app,
        host=conf.api.bind_host,
        port=conf.api.bind_port,
        threads=conf.api.threads,
        channel_timeout=conf.api.keepalive_timeout,
        ident="hearth",
        clear_untrusted_proxy_headers=True,
    )
    spares = SpareThreads(conf.api.threads, server.task_dispatcher.set_thread_count)
    running = RunningServer(engine, server, spares=spares.register())
    if not conf.api.public_url:
        # Signal URLs name the address really bound (bind_port 0 picks a free port).
        engine.core.settings.public_url = _http_url(str(server.effective_host), running.port)
    if conf.cfn_api.enabled:
        _start_cfn(running, api_engine, conf)
    if background:
        running.thread = threading.Thread(
            target=_run_until_closed, args=(server,), name="hearth-api", daemon=True
        )
        running.thread.start()
    return running


def _http_url(host: str, port: int) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def _start_cfn(running: RunningServer, engine: EngineAPI, conf: cfg.ConfigOpts) -> None:
    """The CFN API's own server, in a thread of its own."""
    from waitress.server import create_server

    host, port = parse_bind(str(conf.cfn_api.bind))
    running.cfn_server = create_server(
        _cfn_app(engine, conf), host=host, port=port,
        threads=conf.cfn_api.threads, channel_timeout=conf.api.keepalive_timeout,
        ident="hearth-cfn", clear_untrusted_proxy_headers=True,
    )
    if not conf.cfn_api.public_url:
        running.engine.core.settings.cfn_public_url = running.cfn_url
    running.cfn_thread = threading.Thread(
        target=_run_until_closed, args=(running.cfn_server,), name="hearth-cfn", daemon=True
    )
    running.cfn_thread.start()


def _cfn_app(engine: EngineAPI, conf: cfg.ConfigOpts) -> Any:
    """The CFN app with the signature checker the auth strategy calls for."""
    from hearth.api.cfn.app import CfnState, build_cfn_app
    from hearth.api.cfn.signature import (
        KeystoneChecker,
        LocalChecker,
        SignatureChecker,
        Unconfigured,
    )
    from hearth.clients.credentials import trustee_session
    from hearth.clients.settings import ClientSettings, keystone_v3_url
    from hearth.common.policy import Policy

    checker: SignatureChecker
    if conf.api.auth_strategy == "keystone":
        url = keystone_v3_url(conf)
        settings = ClientSettings.from_config(conf)
        if url and settings.trustee is not None:
            checker = KeystoneChecker(url, trustee_session(settings))
        else:
            # Served all the same: each request is told what to configure.
            checker = Unconfigured(
                "The CFN API checks signatures through Keystone as Hearth's service user: "
                "set [trustee] auth_url, username and password")
    else:
        checker = LocalChecker(conf.cfn_api.ec2_credentials, conf.api.noauth_user,
                               conf.api.noauth_roles)
    return build_cfn_app(CfnState(
        engine=engine, policy=Policy(conf), checker=checker,
        max_body_size=int(conf.max_json_body_size),
        max_template_size=int(conf.max_template_size),
    ))


def _run_until_closed(server: Any) -> None:
    try:
        server.run()
    except OSError:
        # close_server() closes the sockets under the running select(): that ends the loop
        pass


@contextmanager
def serving(conf: cfg.ConfigOpts) -> Iterator[RunningServer]:
    running = start_server(conf, background=True)
    try:
        yield running
    finally:
        running.stop()


def cmd_serve(args: argparse.Namespace) -> int:
    conf = server_config(args)
    setup_logging(conf)
    running = start_server(conf)

    def shutdown(signum: int, frame: Any) -> None:
        LOG.info("Stopping (signal %d)", signum)
        if running.spares is not None:
            running.spares.close()
        close_server(running.server, from_loop=True)

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    LOG.info("Hearth API on %s/v1/ (auth: %s, database: %s)", running.url,
             conf.api.auth_strategy, "sqlite" if not conf.database.connection else "configured")
    if running.cfn_url:
        LOG.info("CFN API on %s/v1/", running.cfn_url)
    try:
        running.server.run()
    except OSError:
        # closing the listening socket from the signal handler ends the loop this way
        pass
    finally:
        running.engine.stop()
    return 0
