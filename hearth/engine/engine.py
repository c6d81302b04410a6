"""One engine: its parts wired together, started and stopped as a unit.

``Engine`` is what the RPC layer calls: every Heat engine call is an attribute of one of its
parts (stacks, previews, data, signals, reader, catalog), re-exported here by name.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from oslo_config import cfg

from hearth.common import gc_tuning, urlfetch
from hearth.common.config import database_url
from hearth.common.context import RequestContext
from hearth.common.errors import DatabaseUnavailable, EntityNotFound, HearthError
from hearth.common.policy import Policy
from hearth.engine.cluster.liveness import Liveness
from hearth.engine.core import EngineCore, EngineSettings
from hearth.engine.reading.reader import StackReader
from hearth.engine.requests import StackRequest
from hearth.engine.running.actions import ActionManager
from hearth.engine.services.nested import NestedStackService
from hearth.engine.services.previews import Previews
from hearth.engine.services.signals import ResourceSignals
from hearth.engine.services.software import SoftwareService
from hearth.engine.services.stack_data import StackData
from hearth.engine.services.stacks import StackService
from hearth.resources.registry import PluginRegistry
from hearth.rpc.protocol import engine_methods
from hearth.store import key_check
from hearth.store.db import Database
from hearth.store.migrate import ensure_schema
from hearth.store.outage import is_database_outage, outage_summary
from hearth.template import versions
from hearth.template.validate import validate_template

LOG = logging.getLogger(__name__)


def _outage_unavailable(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except HearthError:
            raise
        except Exception as exc:
            if is_database_outage(exc):
                LOG.warning("%s: the database is unavailable: %s", method.__name__,
                            outage_summary(exc))
                raise DatabaseUnavailable() from None
            raise

    return call


class Engine:
    def __init__(self, core: EngineCore) -> None:
        self.core = core
        self.actions = ActionManager(core)
        self.stacks = StackService(core, self.actions)
        core.nested = NestedStackService(core, self.actions, self.stacks)
        self.previews = Previews(self.stacks)
        self.data = StackData(core, self.actions, self.stacks)
        self.signals = ResourceSignals(core, self.actions, self.stacks)
        self.reader = StackReader(
            core.db, lambda: core.encryptor, core.limits,
            stack_user_role=core.settings.clients.stack_user_role,
        )
        self.liveness = Liveness(core, self.actions, self.stacks)
        self.software = SoftwareService(
            core.db,
            max_configs_per_tenant=core.limits.max_software_configs_per_tenant,
            max_deployments_per_tenant=core.limits.max_software_deployments_per_tenant,
            hook_groups=core.limits.software_config_hooks,
        )
        core.software = self.software
        # The RPC calls, by Heat's names.
        self.create_stack = self.stacks.create_stack
        self.update_stack = self.stacks.update_stack
        self.delete_stack = self.stacks.delete_stack
        self.stack_suspend = self.stacks.stack_suspend
        self.stack_resume = self.stacks.stack_resume
        self.stack_check = self.stacks.stack_check
        self.stack_cancel_update = self.stacks.stack_cancel_update
        self.preview_stack = self.previews.preview_stack
        self.preview_update_stack = self.previews.preview_update_stack
        self.abandon_stack = self.data.abandon_stack
        self.export_stack = self.data.export_stack
        self.stack_snapshot = self.data.stack_snapshot
        self.delete_snapshot = self.data.delete_snapshot
        self.stack_restore = self.data.stack_restore
        self.resource_signal = self.signals.resource_signal
        self.resource_signal_by_token = self.signals.resource_signal_by_token
        self.resource_metadata_by_token = self.signals.resource_metadata_by_token
        self.resource_mark_unhealthy = self.signals.resource_mark_unhealthy
        self.identify_stack = self.reader.identify_stack
        self.show_stack = self.reader.show_stack
        self.list_stacks = self.reader.list_stacks
        self.count_stacks = self.reader.count_stacks
        self.get_template = self.reader.get_template
        self.get_environment = self.reader.get_environment
        self.get_files = self.reader.get_files
        self.list_outputs = self.reader.list_outputs
        self.show_output = self.reader.show_output
        self.list_stack_resources = self.reader.list_stack_resources
        self.describe_stack_resource = self.reader.describe_stack_resource
        self.resource_metadata = self.reader.resource_metadata
        self.find_physical_resource = self.reader.find_physical_resource
        self.list_events = self.reader.list_events
        self.show_event = self.reader.show_event
        self.stack_list_snapshots = self.reader.list_snapshots
        self.show_snapshot = self.reader.show_snapshot
        self.list_services = self.reader.list_services
        self.report_service = self.liveness.report_service
        self.remove_service = self.liveness.remove_service
        self.list_software_configs = self.software.list_software_configs
        self.show_software_config = self.software.show_software_config
        self.create_software_config = self.software.create_software_config
        self.delete_software_config = self.software.delete_software_config
        self.list_software_deployments = self.software.list_software_deployments
        self.metadata_software_deployments = self.software.metadata_software_deployments
        self.show_software_deployment = self.software.show_software_deployment
        self.create_software_deployment = self.software.create_software_deployment
        self.update_software_deployment = self.software.update_software_deployment
        self.signal_software_deployment = self.software.signal_software_deployment
        self.delete_software_deployment = self.software.delete_software_deployment
        # A call that meets the database down is answered 503 (the same request may be sent
        # again), not as an unexpected error.
        for name in engine_methods():
            method = getattr(self, name, None)
            if callable(method):
                setattr(self, name, _outage_unavailable(method))

    @classmethod
    def from_config(cls, conf: cfg.ConfigOpts, *, migrate: bool = True) -> Engine:
        url = database_url(conf)
        if migrate:
            ensure_schema(url)
        plugins = PluginRegistry.load(plugin_dirs=list(conf.plugin_dirs))
        urlfetch.configure(conf.template_fetch_allowed_networks, conf.template_fetch_timeout)
        core = EngineCore(
            Database(url),
            plugins,
            plugins.global_environment(),
            EngineSettings.from_config(conf),
            encryption_key=conf.auth_encryption_key,
            policy=Policy(conf),
        )
        _check_key(core)
        return cls(core)

    def start(self) -> None:
        """Register this engine, continue what dead engines left, and start the heartbeat."""
        gc_tuning.tune_for_engine()
        self.liveness.start()

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Wait until what ``start`` set going in the background is up (the template
        workers' processes); False when it was not within ``timeout`` seconds."""
        sandbox = self.core.template_sandbox
        return sandbox is None or sandbox.wait_ready(timeout)

    def stop(self, *, graceful: bool = True) -> None:
        """Stop this engine. Its running actions stop where they are, their resources left
        IN_PROGRESS with what they stored (a wait's start); a graceful stop then removes the
        engine's record, so that the next engine takes them over at once."""
        self.core.handing_over = True
        self.liveness.stop()
        self.core.workers.stop()
        self.core.journal.close()
        if graceful:
            self.liveness.unregister()
        self.core.db.dispose()

    def wait_idle(self, stack_id: str, timeout: float | None = None) -> bool:
        return self.actions.wait_idle(stack_id, timeout)

    # --- catalog: types, versions, validation ---------------------------------------------

    def list_resource_types(
        self,
        ctx: RequestContext,
        support_status: str | None = None,
        type_name: str | None = None,
        heat_version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]:
        found = self.core.plugins.list_types(
            support_status=support_status,
            type_name=type_name,
            version=heat_version,
            with_description=with_description,
        )
        policy = self.core.policy
        available = self._available_types(ctx)
        return [
            t for t in found
            if available(name := t if isinstance(t, str) else t["resource_type"])
            and (policy is None or policy.type_allowed(ctx, name))
        ]

    def _available_types(self, ctx: RequestContext) -> Callable[[str], bool]:
        """Heat lists only the types whose service the caller's catalog has."""
        validation = self.core.clouds.validation(ctx)

        def available(name: str) -> bool:
            try:
                validation.check(self.core.plugins.get_class(name), name)
            except HearthError:
                return False
            return True

        return available

    def _check_available(self, ctx: RequestContext, type_name: str) -> None:
        if type_name in self.core.plugins:
            cls = self.core.plugins.get_class(type_name)
            self.core.clouds.validation(ctx).check(cls, type_name)

    def resource_schema(
        self, ctx: RequestContext, type_name: str, with_description: bool = False
    ) -> dict[str, Any]:
        if self.core.policy is not None:
            self.core.policy.authorize_resource_type(ctx, type_name)
        self._check_available(ctx, type_name)
        return self.core.plugins.schema(type_name, with_description=with_description)

    def generate_template(
        self, ctx: RequestContext, type_name: str, template_type: str = "cfn"
    ) -> dict[str, Any]:
        if self.core.policy is not None:
            self.core.policy.authorize_resource_type(ctx, type_name)
        self._check_available(ctx, type_name)
        return self.core.plugins.generate_template(type_name, template_type)

    def _type_checker(self, ctx: RequestContext) -> Callable[[Any, Any], None]:
        """validate_template's check of each plugin type: its service, then its schema."""
        validation = self.core.clouds.validation(ctx)
        plugins = self.core.plugins

        def check(defn: Any, entry: Any) -> None:
            if entry.kind == "plugin":
                name = str(entry.name)
                validation.check(plugins.get_class(name), name)
            plugins.definition_checker(defn, entry)

        return check

    def list_template_versions(self, ctx: RequestContext) -> list[dict[str, object]]:
        return versions.list_versions()

    def list_template_functions(
        self, ctx: RequestContext, template_version: str, with_condition: bool = False
    ) -> list[dict[str, str]]:
        version = versions.find_version(template_version)
        if version is None:
            raise EntityNotFound("Template version", template_version)
        return versions.list_functions(version, with_condition)

    def validate_template(
        self,
        ctx: RequestContext,
        template: Mapping[str, Any] | str | None,
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        environment: Mapping[str, Any] | str | None = None,
        environment_files: Sequence[str] | None = None,
        show_nested: bool = False,
        ignorable_errors: Collection[str] | None = None,
    ) -> dict[str, Any]:
        self.core.preflight(
            StackRequest(template, params, files, environment, environment_files), outputs=False)
        return validate_template(
            template,
            files=files,
            environment=environment,
            environment_files=environment_files,
            parameters=params,
            show_nested=show_nested,
            ignorable_errors=ignorable_errors,
            global_env=self.core.global_env,
            type_checker=self._type_checker(ctx),
            max_resources_per_stack=self.core.limits.max_resources_per_stack,
            plugin_attributes=self.core.plugins.attribute_names,
        )


def _check_key(core: EngineCore) -> None:
    """Refuse to start with a key that cannot read the database's encrypted rows."""
    if not core.settings.encrypt or not core.has_encryption_key:
        return  # nothing encrypted with it; a missing key is reported where it is needed
    encryptor = core.encryptor
    if encryptor is None:
        return
    with core.db.session(readonly=True) as session:
        unreadable = key_check.unreadable_row(session, encryptor)
    if unreadable is not None:
        raise HearthError(
            f"The encryption key (auth_encryption_key, or the data directory's "
            f"auth_encryption_key file) cannot read {unreadable} in this database: every "
            "server of one database needs the same key. Set the key the database was "
            "written with."
        )

