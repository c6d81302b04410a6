"""OS::Cinder::EncryptedVolumeType: the encryption settings of a volume type (admin only by
Cinder's default policy). The physical id is the volume type's id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.openstack.base import since
from hearth.resources.openstack.cinder.base import UncheckedCinderResource
from hearth.resources.openstack.finders import volume_type_id
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint

SETTINGS = ("provider", "cipher", "key_size", "control_location")


class EncryptedVolumeType(UncheckedCinderResource):
    """A resource for encrypting a cinder volume type.

    A Volume Encryption Type is a collection of settings used to conduct
    encryption for a specific volume type.

    Note that default cinder security policy usage of this resource
    is limited to being used by administrators only.
    """

    support_status = since("5.0.0")
    required_service_extension = "encryption"

    properties_schema = {
        "provider": P(
            P.STRING,
            "The class that provides encryption support. For example, "
            "nova.volume.encryptors.luks.LuksEncryptor.",
            required=True, update_allowed=True,
        ),
        "control_location": P(
            P.STRING,
            "Notional service where encryption is performed For example, front-end. For Nova.",
            constraints=[AllowedValues(["front-end", "back-end"])],
            default="front-end", update_allowed=True,
        ),
        "cipher": P(
            P.STRING, "The encryption algorithm or mode. For example, aes-xts-plain64.",
            constraints=[AllowedValues(["aes-xts-plain64", "aes-cbc-essiv"])],
            update_allowed=True,
        ),
        "key_size": P(
            P.INTEGER, "Size of encryption key, in bits. For example, 128 or 256.",
            update_allowed=True,
        ),
        "volume_type": P(
            P.STRING, "Name or id of volume type (OS::Cinder::VolumeType).", required=True,
            constraints=[CustomConstraint("cinder.vtype")],
        ),
    }

    def handle_create(self) -> None:
        type_id = volume_type_id(self.cloud, self.properties["volume_type"])
        body = {key: self.properties[key] for key in SETTINGS}
        created = self.api("POST", f"/types/{type_id}/encryption", {"encryption": body})
        self.resource_id_set(str(created["encryption"]["volume_type_id"]))

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if prop_diff:
            self.api("PUT", f"/types/{self.resource_id}/encryption/provider",
                     {"encryption": dict(prop_diff)})

    def fetch(self) -> Any:
        return self.api("GET", f"/types/{self.resource_id}/encryption")

    def delete_object(self) -> None:
        self.api("DELETE", f"/types/{self.resource_id}/encryption/provider")


def resource_mapping() -> dict[str, type[UncheckedCinderResource]]:
    return {"OS::Cinder::EncryptedVolumeType": EncryptedVolumeType}
