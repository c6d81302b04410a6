"""OS::Heat::SoftwareConfig, and what every config type shares.

A config resource is a row of the software-config API (``self.context.software``): creating
the resource stores one, its physical id is that row's id, deleting the resource removes it.
Stored configs never change, so every property change replaces the resource (no property is
``update_allowed``): the new row is made first, the old one removed with the old resource.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.common.errors import NotFound
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import AllowedValues

GROUP = "group"
CONFIG = "config"
OPTIONS = "options"
INPUTS = "inputs"
OUTPUTS = "outputs"

# What the config API answers a created config with; the key of a config's body.
ID = "id"

# The group a config is stored under when nothing else is said.
UNGROUPED = "Heat::Ungrouped"

# Declared input and output types (those of template parameters, CFN spelling).
IO_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")

IO_NAME = "name"
IO_DESCRIPTION = "description"
IO_TYPE = "type"
IO_DEFAULT = "default"
IO_REPLACE_ON_CHANGE = "replace_on_change"
IO_ERROR_OUTPUT = "error_output"


def _io_type(what: str) -> PropertySchema:
    return PropertySchema(
        PropertySchema.STRING,
        f"Type of the value of the {what}.",
        default="String",
        constraints=[AllowedValues(list(IO_TYPES))],
    )


INPUT_SCHEMA: dict[str, PropertySchema] = {
    IO_NAME: PropertySchema(PropertySchema.STRING, "Name of the input.", required=True),
    IO_DESCRIPTION: PropertySchema(PropertySchema.STRING, "Description of the input."),
    IO_TYPE: _io_type("input"),
    IO_DEFAULT: PropertySchema(
        PropertySchema.ANY, "Default value for the input if none is specified."
    ),
    IO_REPLACE_ON_CHANGE: PropertySchema(
        PropertySchema.BOOLEAN,
        "Replace the deployment instead of updating it when the input value changes.",
        default=False,
    ),
}

OUTPUT_SCHEMA: dict[str, PropertySchema] = {
    IO_NAME: PropertySchema(PropertySchema.STRING, "Name of the output.", required=True),
    IO_DESCRIPTION: PropertySchema(PropertySchema.STRING, "Description of the output."),
    IO_TYPE: _io_type("output"),
    IO_ERROR_OUTPUT: PropertySchema(
        PropertySchema.BOOLEAN,
        "Denotes that the deployment is in an error state if this output has a value.",
        default=False,
    ),
}

GROUP_SCHEMA = PropertySchema(
    PropertySchema.STRING,
    "Namespace to group this software config by when delivered to a server. This may imply "
    "what configuration tool is going to perform the configuration.",
    default=UNGROUPED,
)
OPTIONS_SCHEMA = PropertySchema(
    PropertySchema.MAP,
    "Map containing options specific to the configuration management tool used by this "
    "resource.",
)
INPUTS_SCHEMA = PropertySchema(
    PropertySchema.LIST,
    "Schema representing the inputs that this software config is expecting.",
    schema=PropertySchema(PropertySchema.MAP, schema=INPUT_SCHEMA),
)
OUTPUTS_SCHEMA = PropertySchema(
    PropertySchema.LIST,
    "Schema representing the outputs that this software config will produce.",
    schema=PropertySchema(PropertySchema.MAP, schema=OUTPUT_SCHEMA),
)
SCRIPT_SCHEMA = PropertySchema(
    PropertySchema.STRING,
    "Configuration script or manifest which specifies what actual configuration is "
    "performed.",
)

CONFIG_ATTRIBUTE = AttributeSchema(
    "The config value of the software config.", type=AttributeSchema.STRING
)


class ConfigResource(Resource):
    """What the config types share: a stored config as the physical resource, removed on
    delete, and the ``config`` attribute read back from the store.

    Subclasses say what to store in ``handle_create`` by calling ``store_config``.
    """

    default_client_name = "heat"
    entity = "software_configs"
    attributes_schema = {CONFIG: CONFIG_ATTRIBUTE}

    def store_config(
        self,
        *,
        group: str | None,
        config: Any,
        inputs: Sequence[Mapping[str, Any]] | None = None,
        outputs: Sequence[Mapping[str, Any]] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """Store the config (named after the resource) and make it the physical resource."""
        created = self.context.software.create_config(
            name=self.physical_resource_name(),
            group=group,
            config=config,
            inputs=inputs or [],
            outputs=outputs or [],
            options=options or {},
        )
        self.resource_id_set(created[ID])

    def stored_config(self) -> dict[str, Any] | None:
        """The stored config (the API's answer), None when there is none (any more)."""
        if not self.resource_id:
            return None
        try:
            return self.context.software.show_config(self.resource_id)
        except NotFound:
            return None

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        # A config that is already gone is fine.
        self.context.software.delete_config(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        if name == CONFIG:
            stored = self.stored_config()
            return None if stored is None else stored.get(CONFIG)
        return None


class SoftwareConfig(ConfigResource):
    """A script (or manifest) with its declared inputs, outputs and options, stored as is."""

    type_description = (
        "A resource for describing and storing software configuration.\n\n"
        "The software_configs API which backs this resource creates immutable\n"
        "configs, so any change to the template resource definition will result\n"
        "in a new config being created, and the old one being deleted.\n\n"
        "Configs can be defined in the same template which uses them, or they can\n"
        "be created in one stack, and passed to another stack via a parameter.\n\n"
        "A config resource can be referenced in other resource properties which\n"
        "are config-aware. This includes the properties OS::Nova::Server user_data,\n"
        "OS::Heat::SoftwareDeployment config and OS::Heat::MultipartMime parts\n"
        "config.\n\n"
        "Along with the config script itself, this resource can define schemas for\n"
        "inputs and outputs which the config script is expected to consume and\n"
        "produce. Inputs and outputs are optional and will map to concepts which\n"
        "are specific to the configuration tool being used."
    )
    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        GROUP: GROUP_SCHEMA,
        CONFIG: SCRIPT_SCHEMA,
        OPTIONS: OPTIONS_SCHEMA,
        INPUTS: INPUTS_SCHEMA,
        OUTPUTS: OUTPUTS_SCHEMA,
    }

    def handle_create(self) -> None:
        props = self.properties
        self.store_config(
            group=props[GROUP],
            config=props[CONFIG],
            inputs=props[INPUTS],
            outputs=props[OUTPUTS],
            options=props[OPTIONS],
        )
