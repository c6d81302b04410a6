"""OS::Heat::DeployedServer: a server Hearth did not create (no compute service involved),
registered so that software deployments can target it. Its ``os_collect_config`` attribute is
what the operator configures the server's agent with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources import definition
from hearth.resources.attributes import AttributeSchema
from hearth.resources.base import Resource
from hearth.resources.builtin.software import server_transport as transport
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.support import DEPRECATED, SUPPORTED, SupportStatus
from hearth.template.constraints import AllowedValues, Length

NAME, METADATA, NAME_ATTR, OCC_ATTR = "name", "metadata", "name", "os_collect_config"

_TRANSPORT_DESCRIPTION = (
    "How the server should receive the metadata required for software configuration. "
    "POLL_SERVER_CFN will allow calls to the cfn API action DescribeStackResource "
    "authenticated with the provided keypair. POLL_SERVER_HEAT will allow calls to the Heat "
    "API resource-show using the provided keystone credentials. POLL_TEMP_URL will create "
    "and populate a Swift TempURL with metadata for polling. ZAQAR_MESSAGE will create a "
    "dedicated zaqar queue and post the metadata for polling."
)
_SWIFT_DATA_DESCRIPTION = (
    "Swift container and object to use for storing deployment data for the server resource. "
    "The parameter is a map value with the keys \"container\" and \"object\", and the values "
    "are the corresponding container and object names. The software_config_transport "
    "parameter must be set to POLL_TEMP_URL for swift to be used. If not specified, and "
    "software_config_transport is set to POLL_TEMP_URL, a container will be automatically "
    "created from the resource name, and the object name will be a generated uuid."
)


class DeployedServer(Resource):
    type_description = (
        "A resource for managing servers that are already deployed.\n\n"
        "A DeployedServer resource manages resources for servers that have been\n"
        "deployed externally from OpenStack. These servers can be associated with\n"
        "SoftwareDeployments for further orchestration via Heat."
    )
    support_status = SupportStatus(version=None)
    default_client_name = "heat"
    metadata_owned_keys = transport.OWNED_KEYS
    # The agent collects the default collectors first; a deployed server has no EC2 metadata.
    default_collectors: tuple[str, ...] = ()
    properties_schema = {
        NAME: PropertySchema(PropertySchema.STRING, "Server name.", update_allowed=True),
        METADATA: PropertySchema(
            PropertySchema.MAP,
            "Arbitrary key/value metadata to store for this server. Both keys and values must "
            "be 255 characters or less. Non-string values will be serialized to JSON (and the "
            "serialized string must be 255 characters or less).",
            update_allowed=True,
            support_status=SupportStatus(
                status=DEPRECATED, message="This property will be ignored", version="9.0.0",
                previous_status=SupportStatus(status=SUPPORTED, version="8.0.0"),
            ),
        ),
        transport.TRANSPORT_PROPERTY: PropertySchema(
            PropertySchema.STRING, _TRANSPORT_DESCRIPTION, default=transport.POLL_SERVER_CFN,
            update_allowed=True, constraints=[AllowedValues(list(transport.TRANSPORTS))],
        ),
        transport.SWIFT_DATA_PROPERTY: PropertySchema(
            PropertySchema.MAP, _SWIFT_DATA_DESCRIPTION, default={}, update_allowed=True,
            support_status=SupportStatus(version="9.0.0"),
            schema={
                "container": PropertySchema(PropertySchema.STRING, "Name of the container.",
                                            constraints=[Length(min=1)]),
                "object": PropertySchema(PropertySchema.STRING, "Name of the object.",
                                         constraints=[Length(min=1)]),
            },
        ),
    }
    attributes_schema = {
        NAME_ATTR: AttributeSchema("Name of the server.", type=AttributeSchema.STRING),
        OCC_ATTR: AttributeSchema(
            "The os-collect-config configuration for the server's local agent to be "
            "configured to connect to Heat to retrieve deployment data.",
            type=AttributeSchema.MAP, support_status=SupportStatus(version="9.0.0"),
            cache_mode=AttributeSchema.CACHE_NONE,
        ),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: definition.ValidationScope) -> None:
        transport.check_transport(properties.get(transport.TRANSPORT_PROPERTY),
                                  properties.get(transport.SWIFT_DATA_PROPERTY))

    def _transport(self, properties: Properties | None = None) -> str:
        props = properties if properties is not None else self.properties
        return str(props.get(transport.TRANSPORT_PROPERTY) or transport.POLL_SERVER_CFN)

    def handle_create(self) -> Any:
        self.resource_id_set(self.context.resource_uuid)
        self.context.physical_id_set(self.context.resource_uuid)
        transport.populate(self, self._transport(), self.default_collectors)
        return None

    def handle_update(
        self, new_properties: Properties, prop_diff: Mapping[str, Any], tmpl_diff: Any
    ) -> Any:
        if transport.TRANSPORT_PROPERTY in prop_diff:
            # The old transport's credentials go; the agent gets the new settings.
            transport.forget(self)
            transport.populate(self, self._transport(new_properties), self.default_collectors)
        self.properties = new_properties
        return None

    def handle_delete(self) -> Any:
        transport.forget(self)
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == NAME_ATTR:
            return self.properties.get(NAME) or self.physical_resource_name()
        if name == OCC_ATTR:
            metadata = self.context.metadata_get() or {}
            return metadata.get(transport.OCC, {}) if isinstance(metadata, dict) else {}
        return None
