"""The base class of every resource type: the contract between plugins and the engine.

A plugin declares its schemas as class attributes and implements the handlers it needs:

* ``handle_<action>()`` starts an action (create, delete, suspend, resume, check, snapshot)
  and returns a *cookie*; ``check_<action>_complete(cookie)`` is then polled until it returns
  True (it may raise ``PollDelay`` to be polled less often). A missing handler makes the action
  a no-op; a missing check makes it complete as soon as the handler returns.
* ``handle_update(new_properties, prop_diff, tmpl_diff)`` is called on an instance built with
  the *old* properties; the base implementation asks for a replacement when any property
  changed, so a type without its own ``handle_update`` is replaced on property changes.
* ``handle_<action>_cancel(cookie)`` is called when an action is abandoned.

Handlers run in an engine worker thread and must not wait long: waiting is done by returning
False from ``check_*_complete`` (the engine polls with backoff), which also lets a cookie
carry the work on to another worker. Cookies should therefore be plain JSON data.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from hearth.common.errors import InvalidTemplateAttribute, NotSupported, StackValidationFailed
from hearth.resources import definition, update
from hearth.resources.attributes import BASE_ATTRIBUTES, AttributeSchema, select_from_attribute
from hearth.resources.context import ResourceContext, reduce_physical_resource_name
from hearth.resources.exceptions import ResourceActionNotSupported, UpdateReplace
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema, schemata
from hearth.resources.support import SupportStatus
from hearth.resources.update import UpdatePlan

if TYPE_CHECKING:
    from hearth.resources.dependencies import ResourceShape
    from hearth.template.environment import Environment

NO_DESCRIPTION = "No description available"


class Resource:
    """A resource type. Subclasses declare schemas and implement handlers (module doc)."""

    # --- declarations (override in plugins) ---------------------------------------------

    # What the API serves as the type's description; by default the class docstring.
    type_description: ClassVar[str | None] = None

    properties_schema: ClassVar[Mapping[str, PropertySchema]] = {}
    # The base adds ``show`` to every type's attributes.
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = dict(BASE_ATTRIBUTES)
    update_policy_schema: ClassVar[Mapping[str, PropertySchema]] = {}
    support_status: ClassVar[SupportStatus] = SupportStatus()
    # False: references to this resource do not make the referrer wait for it.
    strict_dependency: ClassVar[bool] = True
    # Resource actions during which signals are refused.
    no_signal_actions: ClassVar[tuple[str, ...]] = ("SUSPEND", "DELETE")
    signal_needs_metadata_updates: ClassVar[bool] = True
    always_replace_on_check_failed: ClassVar[bool] = True
    requires_deferred_auth: ClassVar[bool] = False
    default_client_name: ClassVar[str | None] = None
    entity: ClassVar[str | None] = None
    physical_resource_name_limit: ClassVar[int | None] = 255
    # True: a stack create/update checks nothing of the definition (only POST /validate
    # does), as Heat's OS::Heat::None does.
    skip_create_validation: ClassVar[bool] = False
    # False for types whose handlers and attributes only compute (no network, no sleeps, no
    # engine calls): the engine then runs their steps on its loop, not in a worker thread.
    # Resource data they set is then committed with the step that set it.
    handlers_block: ClassVar[bool] = True
    # True for types whose blocking handlers mostly wait for something outside the engine
    # (another service's API, a sleep): their steps run in the engine's larger pool of
    # waiting threads. False for types whose handlers work the database (nested stacks),
    # which share the small pool of ``engine_worker_threads``.
    handlers_wait_elsewhere: ClassVar[bool] = True
    # Metadata keys the type itself maintains (a server's ``deployments``): kept when the
    # engine writes the template's metadata back at the end of a create or update.
    metadata_owned_keys: ClassVar[tuple[str, ...]] = ()
    # True for types whose ``check_<action>_complete`` needs nothing but the cookie (plain
    # JSON, as stored) and the stored resource: an engine taking over an action polls on from
    # the stored cookie instead of running the handler again (a wait keeps its start).
    polls_from_cookie: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Heat's older dictionary schemas are accepted and converted once, here.
        cls.properties_schema = schemata(cls.properties_schema)
        cls.update_policy_schema = schemata(cls.update_policy_schema)
        cls.attributes_schema = {**cls.attributes_schema, **BASE_ATTRIBUTES}

    def __init__(
        self,
        name: str,
        type_name: str,
        properties_data: Mapping[str, Any] | None,
        context: ResourceContext,
        *,
        resource_id: str | None = None,
        metadata: Any = None,
        unresolved: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.type_name = type_name
        self.context = context
        self.resource_id = resource_id
        self.metadata = metadata
        self.properties = self.build_properties(properties_data, unresolved=unresolved)
        # Custom constraints backed by a service (nova.flavor...) reach it through this.
        self.properties.context = context

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} ({self.type_name}) id={self.resource_id!r}>"

    # --- description ---------------------------------------------------------------------

    @classmethod
    def description(cls) -> str:
        """What Heat serves as the type's description: the class docstring, cleaned."""
        if cls.type_description is not None:
            return cls.type_description
        doc = cls.__dict__.get("__doc__")
        if doc is None:
            return NO_DESCRIPTION
        return inspect.cleandoc(doc).strip()

    # --- properties ----------------------------------------------------------------------

    @classmethod
    def build_properties(
        cls, data: Mapping[str, Any] | None, *, unresolved: Collection[str] = frozenset()
    ) -> Properties:
        """The ``Properties`` for this data (plugins whose schema depends on it override)."""
        return Properties(cls.properties_schema, data, unresolved=unresolved)

    def validate_properties(self) -> None:
        """Check the properties before an action, as Heat does when creating.

        The error's path starts with ``Properties`` so that the status reason reads as
        Heat's (``StackValidationFailed: resources.r: Property error: Properties.x: ...``).
        """
        try:
            self.properties.validate()
        except StackValidationFailed as exc:
            raise definition.in_section(exc, definition.PROPERTIES) from None

    @classmethod
    def validate_definition(
        cls,
        name: str,
        properties_data: Mapping[str, Any] | None,
        *,
        unresolved: Collection[str] = frozenset(),
        update_policy: Any = None,
        deletion_policy: str | None = "Delete",
        type_name: str | None = None,
        strict: bool = True,
        cfn: bool = False,
        stack_timeout: float = definition.DEFAULT_STACK_TIMEOUT,
        update_policy_unresolved: Collection[str] = frozenset(),
        context: Any = None,
        environment: Environment | None = None,
        files: Mapping[str, str] | None = None,
        resources: Mapping[str, str] | None = None,
    ) -> None:
        """Check one resource definition as Heat does before a stack create or update.

        Deletion policy, update policy, properties (values too when ``strict``; only the
        names otherwise, as POST /validate does), then the plugin's ``validate`` hook (only
        when ``strict``; it sees the stack's ``environment``, ``files`` and ``resources``
        (name -> type) in its scope).
        Raises StackValidationFailed with Heat's full path and message.
        """
        definition.validate_definition(
            cls,
            name,
            properties_data,
            type_name=type_name or cls.__name__,
            unresolved=unresolved,
            update_policy=update_policy,
            update_policy_unresolved=update_policy_unresolved,
            deletion_policy=deletion_policy,
            strict=strict,
            cfn=cfn,
            stack_timeout=stack_timeout,
            context=context,
            environment=environment,
            files=files,
            resources=resources,
        )

    @classmethod
    def validate(cls, properties: Properties, scope: definition.ValidationScope) -> None:
        """Plugin hook: checks across properties (raise StackValidationFailed)."""

    # --- handlers and what the engine asks about them ------------------------------------

    @classmethod
    def has_handler(cls, action: str) -> bool:
        """Whether ``handle_<action>`` exists (``create``, ``CREATE``, ``create_cancel``...)."""
        return callable(getattr(cls, f"handle_{action.lower()}", None))

    @classmethod
    def has_check(cls, action: str) -> bool:
        return callable(getattr(cls, f"check_{action.lower()}_complete", None))

    @classmethod
    def updates_in_place(cls) -> bool:
        """Whether the type has its own ``handle_update`` (the base one only replaces)."""
        return cls.handle_update is not Resource.handle_update

    def resource_id_set(self, value: str | None) -> None:
        """Record the physical id; the engine stores it after every handler call."""
        self.resource_id = value

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        if prop_diff:
            raise UpdateReplace(self.name)
        return None

    def handle_adopt(self, resource_data: Mapping[str, Any] | None) -> Any:
        """Take over an existing physical resource: its id, resource data and metadata."""
        info = resource_data or {}
        resource_id = info.get("resource_id")
        if not resource_id:
            raise Exception("Resource ID was not provided.")
        self.resource_id_set(resource_id)
        data = info.get("resource_data")
        if isinstance(data, Mapping):
            for key, value in data.items():
                self.context.data_set(key, str(value))
        self.context.metadata_set(info.get("metadata"))
        return None

    def handle_metadata_reset(self) -> None:
        """Called when a resource marked unhealthy is marked healthy again."""

    # --- update decisions ----------------------------------------------------------------

    @classmethod
    def plan_update(
        cls,
        name: str,
        old_data: Mapping[str, Any] | None,
        new_data: Mapping[str, Any] | None,
        *,
        type_name: str | None = None,
        tmpl_diff: Mapping[str, Any] | None = None,
    ) -> UpdatePlan:
        """Whether and how a change of property data reaches the resource.

        ``tmpl_diff`` names the parts of the definition that changed (``Properties``,
        ``Metadata``, ``UpdatePolicy``); a metadata-only change is an in-place update with an
        empty ``prop_diff``. Raises NotSupported when an immutable property changed.
        """
        return update.plan_update(
            cls, name, old_data, new_data, type_name=type_name or cls.__name__,
            tmpl_diff=tmpl_diff,
        )

    @classmethod
    def needs_replace(cls, after: Properties) -> bool:
        """Hook: replacement needed whatever changed."""
        return False

    @classmethod
    def needs_replace_with_prop_diff(
        cls, changed: frozenset[str], after: Properties, before: Properties
    ) -> bool:
        """Hook: replacement needed because of these changed properties."""
        return False

    @classmethod
    def needs_replace_with_tmpl_diff(cls, tmpl_diff: Mapping[str, Any]) -> bool:
        """Hook: replacement needed because of these changed definition sections."""
        return False

    def needs_replace_failed(self) -> bool:
        """Hook (Heat's): whether this resource, left FAILED by an action (not a check), is
        replaced by the next update. Yes, unless its type can ask its service whether the
        object is still sound (a server, a volume, a Neutron object): then it is updated in
        place, or left as it is, like any other."""
        return True

    @classmethod
    def implicit_dependencies(
        cls, name: str, shapes: Mapping[str, ResourceShape]
    ) -> Iterable[str]:
        """Hook (Heat's ``add_dependencies``): resources this one must wait for besides those
        it references; ``shapes`` describes every resource of the stack
        (``hearth.resources.dependencies``). An edge that would close a cycle is left out."""
        return ()

    # Plugin hook (optional): ``prepare_for_replace(self)`` runs on the existing resource
    # before its replacement is created (Heat's), e.g. a port giving up its fixed IPs.
    # ``restore_prev_rsrc(self, replacement_id)`` undoes it when a rollback makes the old
    # resource current again (``replacement_id``: the replacement's physical id or None).

    @classmethod
    def check_is_substituted(cls, new_class: type[Resource]) -> bool:
        """Whether a type change to ``new_class`` may happen in place."""
        return cls.support_status.is_substituted(new_class)

    # --- references and attributes -------------------------------------------------------

    def get_reference_id(self) -> str | None:
        """The value of get_resource / Ref: the physical id, or the name before there is one."""
        return str(self.resource_id) if self.resource_id is not None else self.name

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        """Attributes get_attr may read; None when the type answers any name."""
        if cls.get_attribute is not Resource.get_attribute:
            return None
        return frozenset(cls.attributes_schema)

    def dynamic_attribute_names(self) -> Iterable[str]:
        """Hook: attributes outside the schema that this resource has now (a deployment's
        declared outputs); stored with the others when an action completes."""
        return ()

    @classmethod
    def attribute_cache_mode(cls, name: str) -> str:
        schema = cls.attributes_schema.get(name)
        return schema.cache_mode if schema is not None else AttributeSchema.CACHE_LOCAL

    def get_attribute(self, name: str, *path: Any) -> Any:
        """get_attr: the attribute's value, then ``path`` into it (None where it leads nowhere)."""
        if name not in type(self).attributes_schema:
            raise InvalidTemplateAttribute(self.name, name)
        if name in BASE_ATTRIBUTES:
            value = self._show_resource() if self.resource_id is not None else None
        else:
            value = self._resolve_attribute(name)
        return select_from_attribute(value, path)

    def _resolve_attribute(self, name: str) -> Any:
        """Plugin hook: the value of one of the type's own attributes."""
        return None

    def _show_resource(self) -> Any:
        """Plugin hook: the resource as its service describes it (the ``show`` attribute)."""
        return None

    # --- signals -------------------------------------------------------------------------

    @classmethod
    def check_signal_allowed(cls, resource_action: str) -> None:
        if resource_action in cls.no_signal_actions:
            raise NotSupported(f"Signal resource during {resource_action}")

    def signal(self, details: Any = None) -> str:
        """Run ``handle_signal`` and give the reason of the SIGNAL event to record.

        ResourceActionNotSupported when the type takes no signals; NoActionRequired (from the
        handler) means no event should be recorded.
        """
        handler = getattr(self, "handle_signal", None)
        if not callable(handler):
            raise ResourceActionNotSupported("signal")
        result = handler(details)
        if result:
            return f"Signal: {result}"
        return _signal_summary(details)

    # --- what the engine keeps for the resource ------------------------------------------

    def physical_resource_name(self) -> str:
        return reduce_physical_resource_name(
            self.context.physical_resource_name(), self.physical_resource_name_limit
        )

    def data(self) -> dict[str, str]:
        return self.context.data()

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        self.context.data_set(key, value, redact)

    def data_delete(self, key: str) -> bool:
        return self.context.data_delete(key)


def _signal_summary(details: Any) -> str:
    if details is None:
        return "No signal details provided"
    if isinstance(details, str):
        return details
    alarm_keys = ("previous", "current", "reason")
    if isinstance(details, Mapping) and all(k in details for k in alarm_keys):
        # An alarm notification (Aodh / Ceilometer).
        return (
            f"alarm state changed from {details['previous']} to {details['current']} "
            f"({details['reason']})"
        )
    return "Unknown"
