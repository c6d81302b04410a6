"""OS::Heat::SoftwareComponent: one config per lifecycle action of a software component,
stored together as a single config of group ``component``."""

from __future__ import annotations

from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.builtin.software.config import (
    CONFIG,
    INPUTS,
    INPUTS_SCHEMA,
    OPTIONS,
    OPTIONS_SCHEMA,
    OUTPUTS,
    OUTPUTS_SCHEMA,
    SCRIPT_SCHEMA,
    ConfigResource,
)
from hearth.resources.definition import ValidationScope
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus
from hearth.template.constraints import Length

CONFIGS = "configs"
ACTIONS = "actions"
TOOL = "tool"

# The group the in-instance hook for components handles.
COMPONENT_GROUP = "component"

CONFIG_ENTRY_SCHEMA = PropertySchema(
    PropertySchema.MAP,
    schema={
        # Other actions than Heat's own may be named: in-instance hooks then have to know them.
        ACTIONS: PropertySchema(
            PropertySchema.LIST,
            "Lifecycle actions to which the configuration applies. The string values provided "
            "for this property can include the standard resource actions CREATE, DELETE, "
            "UPDATE, SUSPEND and RESUME supported by Heat.",
            default=["CREATE", "UPDATE"],
            schema=PropertySchema(PropertySchema.STRING),
            constraints=[Length(min=1)],
        ),
        CONFIG: SCRIPT_SCHEMA,
        TOOL: PropertySchema(
            PropertySchema.STRING,
            "The configuration tool used to actually apply the configuration on a server. "
            "This string property has to be understood by in-instance tools running inside "
            "deployed servers.",
            required=True,
        ),
    },
)


class SoftwareComponent(ConfigResource):
    """A config per set of lifecycle actions, each with the tool that applies it; an action
    may appear in one entry only."""

    type_description = (
        "A resource for describing and storing a software component.\n\n"
        "This resource is similar to OS::Heat::SoftwareConfig. In contrast to\n"
        "SoftwareConfig which allows for storing only one configuration (e.g. one\n"
        "script), SoftwareComponent allows for storing multiple configurations to\n"
        "address handling of all lifecycle hooks (CREATE, UPDATE, SUSPEND, RESUME,\n"
        "DELETE) for a software component in one place.\n\n"
        "This resource is backed by the persistence layer and the API of the\n"
        "SoftwareConfig resource, and only adds handling for the additional\n"
        "'configs' property and attribute."
    )
    support_status = SupportStatus(version="2014.2")
    properties_schema = {
        CONFIGS: PropertySchema(
            PropertySchema.LIST,
            "The list of configurations for the different lifecycle actions of the "
            "represented software component.",
            schema=CONFIG_ENTRY_SCHEMA,
            constraints=[Length(min=1)],
            required=True,
        ),
        INPUTS: INPUTS_SCHEMA,
        OUTPUTS: OUTPUTS_SCHEMA,
        OPTIONS: OPTIONS_SCHEMA,
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if CONFIGS in properties.unresolved:
            return  # checked again with the values, before the create
        check_actions(properties[CONFIGS], scope.name)

    def validate_properties(self) -> None:
        super().validate_properties()
        check_actions(self.properties[CONFIGS], self.name)

    def handle_create(self) -> None:
        props = self.properties
        self.store_config(
            group=COMPONENT_GROUP,
            config={CONFIGS: props[CONFIGS]},
            inputs=props[INPUTS],
            outputs=props[OUTPUTS],
            options=props[OPTIONS],
        )

    def _resolve_attribute(self, name: str) -> Any:
        # Heat answers only a ``configs`` attribute here, which its schema does not declare:
        # the ``config`` attribute the type inherits therefore always reads as None.
        return None


def check_actions(configs: list[dict[str, Any]] | None, name: str) -> None:
    """One config per action: a second entry naming an action already taken is refused."""
    taken: set[str] = set()
    for entry in configs or []:
        actions = entry.get(ACTIONS) or []
        if any(action in taken for action in actions):
            raise StackValidationFailed(
                "Defining more than one configuration for the same action in "
                f'SoftwareComponent "{name}" is not allowed.'
            )
        taken.update(actions)
