"""OS::Nova::KeyPair: a Nova key pair, given or generated.

The physical id is the key pair's name (Nova names key pairs per user). A generated private
key is returned by Nova only once, at create: it is kept, encrypted and hidden, as resource
data when ``save_private_key`` asks for it.
"""

from __future__ import annotations

from typing import Any

from hearth.resources.attributes import AttributeSchema
from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.openstack.finders import KEYSTONE_FINDERS
from hearth.resources.schema import PropertySchema as P
from hearth.template.constraints import AllowedValues, CustomConstraint, Length

# Resource data keys.
PRIVATE_KEY = "private_key"
USER_ID = "user_id"


class KeyPair(CloudResource):
    """A resource for creating Nova key pairs.

    A keypair is a ssh key that can be injected into a server on launch.

    **Note** that if a new key is generated setting `save_private_key` to
    `True` results in the system saving the private key which can then be
    retrieved via the `private_key` attribute of this resource.

    Setting the `public_key` property means that the `private_key` attribute
    of this resource will always return an empty string regardless of the
    `save_private_key` setting since there will be no private key data to
    save.
    """

    support_status = since("2014.1")
    service_type = "compute"
    default_client_name = "nova"
    entity = "keypairs"

    properties_schema = {
        "name": P(
            P.STRING,
            "The name of the key pair.",
            required=True,
            constraints=[Length(min=1, max=255)],
        ),
        "save_private_key": P(
            P.BOOLEAN,
            "True if the system should remember a generated private key; False otherwise.",
            default=False,
        ),
        "public_key": P(
            P.STRING,
            "The public key. This allows users to supply the public key from a pre-existing "
            "key pair. In Nova api version < 2.92, if not supplied, a new key pair will be "
            "generated. This property is required since Nova api version 2.92.",
        ),
        "type": P(
            P.STRING,
            "Keypair type. Supported since Nova api version 2.2.",
            constraints=[AllowedValues(["ssh", "x509"])],
            support_status=since("8.0.0"),
        ),
        "user": P(
            P.STRING,
            "ID or name of user to whom to add key-pair. The usage of this property is "
            "limited to being used by administrators only. Supported since Nova api version "
            "2.10.",
            constraints=[CustomConstraint("keystone.user")],
            support_status=since("9.0.0"),
        ),
    }

    attributes_schema = {
        "public_key": AttributeSchema("The public key.", type=AttributeSchema.STRING),
        "private_key": AttributeSchema(
            "The private key if it has been saved.",
            cache_mode=AttributeSchema.CACHE_NONE,
            type=AttributeSchema.STRING,
        ),
    }

    # The private key is computed only when a template reads it, never cached in the clear
    # with the other attributes (Heat's CACHE_NONE).
    uncached_attributes = frozenset({"private_key"})

    # --- the service ---------------------------------------------------------------------

    def _user_id(self) -> str | None:
        """The id of the key pair's owner when the template names one (else the caller)."""
        return self.data().get(USER_ID) or None

    def fetch(self) -> Any:
        return self.conn.compute.get_keypair(str(self.resource_id), user_id=self._user_id())

    def delete_object(self) -> None:
        # openstacksdk's delete_keypair takes no user: address the owner's key directly.
        from openstack import exceptions as sdk

        params = {"user_id": self._user_id()} if self._user_id() else None
        response = self.conn.compute.delete(
            f"/os-keypairs/{self.resource_id}", params=params, microversion="2.10"
        )
        sdk.raise_from_response(response)

    def object_status(self, obj: Any) -> str | None:
        return None

    # --- lifecycle -----------------------------------------------------------------------

    def handle_create(self) -> None:
        props = self.properties
        attrs: dict[str, Any] = {"name": props["name"]}
        if props["public_key"]:
            attrs["public_key"] = props["public_key"]
        if props["type"]:
            attrs["type"] = props["type"]
        if props["user"]:
            user_id = KEYSTONE_FINDERS["user"](self.cloud, props["user"])
            attrs["user_id"] = user_id
            self.data_set(USER_ID, user_id)
        # openstacksdk speaks microversion 2.10 here: without a public key Nova generates
        # the pair (a newer microversion would refuse), as Heat's schema describes.
        created = self.call(self.conn.compute.create_keypair, **attrs)
        private = getattr(created, "private_key", None)
        if props["save_private_key"] and private:
            self.data_set(PRIVATE_KEY, str(private), redact=True)
        # Not kept as ``obj``: ``show`` must never carry the private key.
        self.resource_id_set(str(created.name))

    def get_reference_id(self) -> str | None:
        return self.resource_id

    def _resolve_attribute(self, name: str) -> Any:
        if name == "private_key":
            if not self.properties["save_private_key"]:
                return ""
            return self.data().get(PRIVATE_KEY, "")
        if name == "public_key":
            given = self.properties["public_key"]
            if given:
                return given
            if self.resource_id is None:
                return ""
            return str(self.obj.public_key or "")
        return None


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Nova::KeyPair": KeyPair}
