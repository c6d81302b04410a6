"""Hearth's configuration options, defined once with oslo.config.

Every option lives here, so that the sample config (``oslo-config-generator`` through
``list_opts``) and the code read the same definitions. Values come from a config file, then from
environment variables named ``OS_<GROUP>__<OPTION>`` (oslo.config's environment source), then
from the defaults below, which are Heat's where Heat has the same option.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from oslo_config import cfg

from hearth.common.client_config import DEFERRED_AUTH_OPTS, STACK_DOMAIN_OPTS, client_groups

# The hooks heat-agents ships, and the groups Heat itself handles (no hook: the agent's
# os-apply-config, a component's own tools, Heat::Ungrouped).
DEFAULT_SOFTWARE_CONFIG_HOOKS = (
    "script", "ansible", "apply-config", "cfn-init", "chef", "docker-cmd", "docker-compose",
    "hiera", "json-file", "kubelet", "puppet", "salt", "os-apply-config", "component",
    "Heat::Ungrouped",
)

# ``engine_worker_threads`` when it is 0, by database. On SQLite, nested stacks' stores and
# ends wait in these threads for a group commit (``hearth.store.group_commit``): with 32 the
# nested benchmark's create (1,092 resources) commits 77 times rather than 184 with 8, and is
# about 1.2x faster. A database server commits each on its own, and its connection pool is
# smaller: there more threads only contend (the cluster's nested create was slower with 32).
SQLITE_WORKER_THREADS = 32
SERVER_WORKER_THREADS = 8

DEFAULT_OPTS: list[cfg.Opt] = [
    cfg.ListOpt(
        "template_fetch_allowed_networks", default=[],
        help="Networks (CIDRs) template URLs may point into although they are private, "
        "loopback, link-local or reserved; by default no such address is fetched from.",
    ),
    cfg.FloatOpt("template_fetch_timeout", default=30.0, min=1.0,
                 help="Seconds a template URL fetch may take in all (redirects included)."),
    cfg.IntOpt("template_cpu_seconds", default=20, min=1,
               help="CPU seconds the template work of one API request (validate, create, "
               "update, preview) may take, run in a worker process before the server works "
               "on it; over it, the request is refused with 413."),
    cfg.IntOpt("template_memory_mb", default=2048, min=64,
               help="Memory (MiB of address space beyond the worker's own) the template work "
               "of one API request may use."),
    cfg.IntOpt("template_max_value_chars", default=16 * 1024 * 1024, min=1024,
               help="Most characters one resolved value (a resource's properties, an output) "
               "of a template may hold."),
    cfg.IntOpt("template_workers", default=2, min=0,
               help="Worker processes for the template work of API requests; 0 does that work "
               "in the API's own threads, with no budgets or isolation."),
    cfg.StrOpt(
        "host",
        default=socket.gethostname(),
        sample_default="<hostname>",
        help="Name of this engine host, as shown by the services list.",
    ),
    cfg.StrOpt(
        "data_dir",
        help="Directory for Hearth's own files (the SQLite database when no "
        "[database] connection is set). Default: $XDG_DATA_HOME/hearth or "
        "~/.local/share/hearth.",
    ),
    cfg.IntOpt(
        "max_resources_per_stack",
        default=1000,
        min=-1,
        help="Maximum resources in one stack, nested stacks included; -1 means unlimited.",
    ),
    cfg.IntOpt(
        "max_stacks_per_tenant",
        default=512,
        help="Maximum top-level stacks a project may own (admins are exempt).",
    ),
    cfg.IntOpt("max_template_size", default=524288, help="Maximum raw template size in bytes."),
    cfg.IntOpt(
        "max_json_body_size", default=1048576, help="Maximum API request body size in bytes."
    ),
    cfg.IntOpt("max_nested_stack_depth", default=5, help="Maximum depth of nested stacks."),
    cfg.IntOpt(
        "stack_action_timeout",
        default=3600,
        help="Seconds a stack action may take when the stack sets no timeout.",
    ),
    cfg.IntOpt(
        "action_retry_limit",
        default=5,
        min=0,
        help="Times a resource create or delete is retried after a retryable failure.",
    ),
    cfg.IntOpt(
        "error_wait_time",
        default=240,
        min=0,
        help="Seconds resource actions already running may go on after another one failed.",
    ),
    cfg.IntOpt("max_events_per_stack", default=1000, help="Events kept per stack (0: all)."),
    cfg.IntOpt(
        "event_purge_batch_size", default=200, min=1, help="Events deleted at once when pruning."
    ),
    cfg.IntOpt("max_snapshots_per_stack", default=32, help="Maximum snapshots of one stack."),
    cfg.IntOpt(
        "max_software_configs_per_tenant", default=4096, help="Software configs per project."
    ),
    cfg.IntOpt(
        "max_software_deployments_per_tenant",
        default=4096,
        help="Software deployments per project.",
    ),
    cfg.ListOpt(
        "software_config_hooks",
        default=list(DEFAULT_SOFTWARE_CONFIG_HOOKS),
        help="Config groups the servers' agents have a hook for (heat-agents' hooks and "
        "Heat's own groups). A deployment that waits for a signal refuses a config of "
        "another group: the agent would skip it and never signal. Add the groups of custom "
        "hooks here.",
    ),
    cfg.BoolOpt("enable_stack_abandon", default=False, help="Allow abandoning stacks."),
    cfg.BoolOpt("enable_stack_adopt", default=False, help="Allow adopting stacks."),
    cfg.ListOpt(
        "hidden_stack_tags",
        default=[],
        help="Stacks with any of these tags are hidden from stack lists.",
    ),
    cfg.BoolOpt(
        "encrypt_parameters_and_properties",
        default=True,
        help="Store hidden parameters and resource properties encrypted "
        "with auth_encryption_key.",
    ),
    cfg.StrOpt(
        "auth_encryption_key",
        secret=True,
        help="Key that encrypts hidden parameters, resource properties and credentials "
        "at rest (any string of at least 32 characters). Required when encryption is on.",
    ),
    cfg.ListOpt(
        "plugin_dirs",
        default=[],
        help="Directories searched for resource plugin modules.",
    ),
    cfg.IntOpt(
        "engine_worker_threads",
        default=0,
        min=0,
        help="Threads of one engine for database work and for the steps of types that "
        "work the database (nested stacks). 0: chosen by the database, "
        f"{SQLITE_WORKER_THREADS} on SQLite (where the stores and ends of a tree's child "
        "stacks wait in these threads to be committed together: the more wait, the fewer "
        f"commits) and {SERVER_WORKER_THREADS} on a database server.",
    ),
    cfg.IntOpt(
        "engine_wait_threads",
        default=64,
        min=1,
        help="Threads of one engine for the steps of types whose handlers wait for another "
        "service (cloud APIs) or sleep; each service's share is bounded by [clients] "
        "service_concurrency.",
    ),
    cfg.BoolOpt(
        "spread_steps",
        default=True,
        help="`hearth engine` only: offer the resource steps of the stacks an engine runs to "
        "every engine on the bus (steps of types that wait on other services), so that one "
        "stack's work spreads over the cluster. Off: each stack's steps run on the engine "
        "holding its lock.",
    ),
    cfg.IntOpt(
        "spread_steps_after",
        default=-1,
        min=-1,
        help="With spread_steps: how many such steps an engine runs at once itself before "
        "it offers its stacks' further ready steps to the other engines (-1: as many as "
        "engine_wait_threads; 0: offer every one). Steps run here cost no messages.",
    ),
    cfg.BoolOpt(
        "spread_nested_steps",
        default=False,
        help="With spread_steps: also offer the steps of resources that own a child stack "
        "(nested stacks, provider templates, groups); the child is then made and run on the "
        "engine that takes the step, so a tree of stacks spreads over the engines. Each "
        "such step costs its taker a copy of the parent's action: worth it with engines on "
        "several hosts, not with every engine on one host.",
    ),
    cfg.StrOpt(
        "engine_topic",
        default="hearth-engine",
        help="The message bus topic the APIs send engine calls to and every engine of one "
        "deployment takes them from (deployments sharing one RabbitMQ need their own).",
    ),
    cfg.IntOpt(
        "rpc_send_retries",
        default=3,
        min=-1,
        help="Times an API process tries again to reach the message bus for one engine call "
        "before it answers 503 (the call was not sent; the backoff between tries is "
        "[oslo_messaging_rabbit] rabbit_retry_interval and rabbit_retry_backoff, about 9 s "
        "for 3). -1: try until the bus is back, as Heat does.",
    ),
    cfg.IntOpt(
        "num_engine_workers",
        default=0,
        min=0,
        help="Engine processes `hearth engine` runs (0: one per CPU). `hearth serve` runs "
        "one engine in its own process whatever this says.",
    ),
    cfg.FloatOpt(
        "heartbeat_interval",
        default=5.0,
        min=0.1,
        help="Seconds between an engine's liveness reports in the service table.",
    ),
    cfg.IntOpt(
        "engine_dead_after_missed_heartbeats",
        default=3,
        min=2,
        help="An engine that missed this many heartbeats is dead: its stack locks are "
        "taken over and its unfinished actions continued.",
    ),
    cfg.IntOpt(
        "step_takeover_limit",
        default=2,
        min=0,
        help="Times a resource step is carried on after the engine running it died; the "
        "next time, it fails instead of being run again (a step that kills its engine must "
        "not kill every engine that takes it over).",
    ),
]

DATABASE_OPTS: list[cfg.Opt] = [
    cfg.StrOpt(
        "connection",
        secret=True,
        help="SQLAlchemy URL of the database, e.g. postgresql+psycopg://user@host/hearth "
        "or mysql+pymysql://root@host/hearth. Default: SQLite in data_dir.",
    ),
]

YAQL_OPTS: list[cfg.Opt] = [
    cfg.IntOpt("limit_iterators", default=200, help="Maximum items a yaql expression may iterate."),
    cfg.IntOpt("memory_quota", default=10000, help="Maximum size of a yaql expression's data."),
]

REVISION_OPTS: list[cfg.Opt] = [
    cfg.StrOpt("heat_revision", default="unknown", help="Revision reported by build_info."),
]

API_OPTS: list[cfg.Opt] = [
    cfg.HostAddressOpt("bind_host", default="127.0.0.1", help="Address the API listens on."),
    cfg.PortOpt("bind_port", default=8004, help="Port the API listens on."),
    cfg.IntOpt("threads", default=16, min=1, help="Requests the API serves at the same time."),
    cfg.IntOpt("workers", default=0, min=0,
               help="API processes `hearth api` runs on the one listening socket (0: one per "
               "CPU); each serves `threads` requests at once. `hearth serve` runs one."),
    cfg.StrOpt(
        "auth_strategy",
        default="noauth",
        choices=[
            ("noauth", "no authentication: the project is the one in the URL"),
            ("keystone", "Keystone tokens checked by keystonemiddleware's auth_token"),
        ],
        help="How API requests are authenticated. With keystone, configure the "
        "[keystone_authtoken] section.",
    ),
    cfg.StrOpt("noauth_user", default="admin", help="The user of noauth requests "
               "(an X-Auth-User header overrides it)."),
    cfg.ListOpt(
        "noauth_roles",
        default=["member", "reader"],
        help="The roles of noauth requests. Without admin (the default) a project, the one in "
        "the URL, sees and changes only its own stacks; add admin for a single-user "
        "setup that should reach every project (global listings, admin-only types).",
    ),
    cfg.IntOpt(
        "secret_url_failures_per_minute", default=30, min=1,
        help="Refused requests to the public secret URLs (signal, wait condition, metadata) "
        "a source address may make in a minute before it is refused at once (429).",
    ),
    cfg.IntOpt(
        "keepalive_timeout",
        default=120,
        min=1,
        help="Seconds an idle client connection is kept open.",
    ),
    cfg.URIOpt(
        "public_url",
        schemes=["http", "https"],
        help="The API's address as servers reach it, e.g. https://orchestration.example.com; "
        "wait condition handles hand out signal URLs under it. Default: "
        "http://<bind_host>:<bind_port> (the port actually bound when bind_port is 0); set "
        "it when binding 0.0.0.0 or behind a proxy.",
    ),
]

CFN_API_OPTS: list[cfg.Opt] = [
    cfg.BoolOpt("enabled", default=True,
                help="Serve the CloudFormation-compatible query API (heat-api-cfn) too."),
    cfg.StrOpt("bind", default="127.0.0.1:8000",
               help="HOST:PORT the CFN API listens on (port 0: a free one)."),
    cfg.IntOpt("threads", default=4, min=1, help="Requests the CFN API serves at once."),
    cfg.URIOpt(
        "public_url", schemes=["http", "https"],
        help="The CFN API's address as servers reach it (pre-signed wait condition URLs, "
        "the metadata URL of POLL_SERVER_CFN). Default: http://<bind> as bound.",
    ),
    cfg.ListOpt(
        "ec2_credentials", default=[], secret=True,
        help="Without Keystone (auth_strategy noauth): the EC2 keypairs signed requests may "
        "use, each ACCESS:SECRET:PROJECT. With Keystone, Keystone's EC2 credentials are used.",
    ),
]

LOG_OPTS: list[cfg.Opt] = [
    cfg.BoolOpt(
        "use_json", default=False,
        help="Write each log line as a JSON object (time, level, logger, message, and "
        "request_id and stack_id when known) instead of text. oslo.log's option of the same "
        "name, as Heat reads it.",
    ),
]

METRICS_OPTS: list[cfg.Opt] = [
    cfg.BoolOpt(
        "enabled", default=True,
        help="Serve Prometheus metrics at /metrics on the API, without authentication "
        "(as /healthcheck): switch it off where the API's address is reachable by those "
        "who should not read them.",
    ),
    cfg.StrOpt(
        "engine_bind", default="",
        help="HOST:PORT where a process that has no API (an engine worker) serves its "
        "Prometheus metrics at /metrics; worker N of one parent uses PORT+N (port 0: a free "
        "one each, logged). Empty: not served. A process with the API serves them there.",
    ),
]

GROUPS: dict[str, list[cfg.Opt]] = {
    "DEFAULT": [*DEFAULT_OPTS, *LOG_OPTS, *DEFERRED_AUTH_OPTS, *STACK_DOMAIN_OPTS],
    "api": API_OPTS,
    "cfn_api": CFN_API_OPTS,
    "metrics": METRICS_OPTS,
    "database": DATABASE_OPTS,
    "yaql": YAQL_OPTS,
    "revision": REVISION_OPTS,
    **client_groups(),
}


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """The option definitions, for oslo-config-generator (entry point ``hearth``)."""
    return [(group, list(opts)) for group, opts in GROUPS.items()] + [
        ("healthcheck", healthcheck_opts())]


def healthcheck_opts() -> list[cfg.Opt]:
    """oslo.middleware's ``[healthcheck]`` options, with Hearth's defaults: the
    ``disable_by_file`` backend on, as Heat's api-paste.ini has it.

    Imported only when asked for: oslo.middleware costs client commands a tenth of a second.
    """
    from oslo_middleware.healthcheck import opts

    cfg.set_defaults(opts.HEALTHCHECK_OPTS, backends=["disable_by_file"])
    # Unset, the file is looked for in the data directory (``healthcheck_disable_path``).
    opts.DISABLE_BY_FILE_OPTS[0].sample_default = "<data_dir>/healthcheck_disable"
    return [*opts.HEALTHCHECK_OPTS, *opts.DISABLE_BY_FILE_OPTS, *opts.DISABLE_BY_FILES_OPTS,
            *opts.ENABLE_BY_FILES_OPTS]


def register_opts(conf: cfg.ConfigOpts) -> None:
    for group, opts in GROUPS.items():
        conf.register_opts(opts, group=None if group == "DEFAULT" else group)
    # Not [healthcheck]: the API registers it (hearth.api.operations); a process without the
    # API does not load oslo.middleware for nothing.


def load_config(
    config_files: Sequence[str | os.PathLike[str]] = (),
    overrides: Iterable[tuple[str, str | None, object]] = (),
) -> cfg.ConfigOpts:
    """A fresh, parsed configuration (no global state: tests and processes get their own).

    ``overrides`` are ``(option, group or None, value)`` set after parsing, e.g. from the
    command line.
    """
    conf = cfg.ConfigOpts()
    register_opts(conf)
    files = [str(f) for f in config_files]
    for path in files:
        if not Path(path).is_file():
            raise FileNotFoundError(f"Config file not found: {path}")
    conf(args=[], project="hearth", default_config_files=files, default_config_dirs=[])
    for name, group, value in overrides:
        conf.set_override(name, value, group=group)
    return conf


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hearth"


def data_dir(conf: cfg.ConfigOpts) -> Path:
    return Path(conf.data_dir) if conf.data_dir else default_data_dir()


def healthcheck_disable_path(conf: cfg.ConfigOpts) -> str:
    """The file whose presence makes ``/healthcheck`` answer 503 (the ``disable_by_file``
    backend): ``[healthcheck] disable_by_file_path``, else ``healthcheck_disable`` in the
    data directory."""
    conf.register_opts(healthcheck_opts(), group="healthcheck")
    return str(conf.healthcheck.disable_by_file_path
               or data_dir(conf) / "healthcheck_disable")


def api_public_url(conf: cfg.ConfigOpts) -> str:
    """``[api] public_url``, else the address the API binds (IPv6 in brackets)."""
    if conf.api.public_url:
        return str(conf.api.public_url).rstrip("/")
    host = str(conf.api.bind_host)
    return f"http://{f'[{host}]' if ':' in host else host}:{conf.api.bind_port}"


def cfn_public_url(conf: cfg.ConfigOpts) -> str | None:
    """``[cfn_api] public_url``, else its bind address; None when the CFN API is off."""
    if not conf.cfn_api.enabled:
        return None
    if conf.cfn_api.public_url:
        return str(conf.cfn_api.public_url).rstrip("/")
    return f"http://{conf.cfn_api.bind}"


def worker_threads(conf: cfg.ConfigOpts) -> int:
    """``engine_worker_threads``, or the database's default for it when that is 0."""
    if conf.engine_worker_threads:
        return int(conf.engine_worker_threads)
    # The URL's backend: "sqlite" in "sqlite:///..." and "sqlite+pysqlite:///...".
    sqlite = database_url(conf).split(":", 1)[0].split("+", 1)[0] == "sqlite"
    return SQLITE_WORKER_THREADS if sqlite else SERVER_WORKER_THREADS


def database_url(conf: cfg.ConfigOpts) -> str:
    """The configured database, or SQLite in the data directory."""
    if conf.database.connection:
        return str(conf.database.connection)
    return f"sqlite:///{data_dir(conf) / 'hearth.sqlite'}"


@dataclass(frozen=True)
class EngineLimits:
    """The limits the engine enforces, read once from the configuration."""

    max_resources_per_stack: int = 1000
    max_stacks_per_tenant: int = 512
    max_software_configs_per_tenant: int = 4096
    max_software_deployments_per_tenant: int = 4096
    max_template_size: int = 524288
    max_nested_stack_depth: int = 5
    stack_action_timeout: int = 3600
    action_retry_limit: int = 5
    error_wait_time: int = 240
    max_events_per_stack: int = 1000
    event_purge_batch_size: int = 200
    max_snapshots_per_stack: int = 32
    enable_stack_abandon: bool = False
    enable_stack_adopt: bool = False
    hidden_stack_tags: tuple[str, ...] = ()
    software_config_hooks: tuple[str, ...] = DEFAULT_SOFTWARE_CONFIG_HOOKS
    step_takeover_limit: int = 2

    @classmethod
    def from_config(cls, conf: cfg.ConfigOpts) -> EngineLimits:
        return cls(
            max_resources_per_stack=conf.max_resources_per_stack,
            max_stacks_per_tenant=conf.max_stacks_per_tenant,
            max_software_configs_per_tenant=conf.max_software_configs_per_tenant,
            max_software_deployments_per_tenant=conf.max_software_deployments_per_tenant,
            max_template_size=conf.max_template_size,
            max_nested_stack_depth=conf.max_nested_stack_depth,
            stack_action_timeout=conf.stack_action_timeout,
            action_retry_limit=conf.action_retry_limit,
            error_wait_time=conf.error_wait_time,
            max_events_per_stack=conf.max_events_per_stack,
            event_purge_batch_size=conf.event_purge_batch_size,
            max_snapshots_per_stack=conf.max_snapshots_per_stack,
            enable_stack_abandon=conf.enable_stack_abandon,
            enable_stack_adopt=conf.enable_stack_adopt,
            hidden_stack_tags=tuple(conf.hidden_stack_tags),
            software_config_hooks=tuple(conf.software_config_hooks),
            step_takeover_limit=conf.step_takeover_limit,
        )
