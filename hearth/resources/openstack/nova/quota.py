"""OS::Nova::Quota: a project's compute quotas (admin only by Nova's default policy).

Create and update set every quota the template gives (as Heat does, a quota left out of an
update keeps its value); delete puts the project back on Nova's defaults. The physical id is
the resource's physical name, as in Heat; the project's id is kept as resource data.

Requests use microversion 2.56, the last that still takes the (deprecated) injected file
quotas; Nova itself refuses the network quotas (fixed_ips, floating_ips, security_groups,
security_group_rules) it dropped in 2.36, naming the property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import StackValidationFailed
from hearth.resources.definition import ValidationScope
from hearth.resources.openstack.base import CloudResource, since
from hearth.resources.openstack.finders import KEYSTONE_FINDERS
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P
from hearth.resources.support import DEPRECATED, SupportStatus
from hearth.template.constraints import CustomConstraint, Range

MICROVERSION = "2.56"
PROJECT = "project"
PROJECT_ID = "project_id"  # resource data key

_FILE_INJECTION_DEPRECATED = SupportStatus(
    status=DEPRECATED,
    version="14.0.0",
    message="File injection is deprecated from compute REST API OS::Nova::Quota resource "
    "will not support it in the future.",
)


def _limit(what: str, deprecated: bool = False) -> P:
    return P(
        P.INTEGER,
        f"Quota for the {what}. Setting the value to -1 removes the limit.",
        constraints=[Range(min=-1)],
        update_allowed=True,
        support_status=_FILE_INJECTION_DEPRECATED if deprecated else SupportStatus(),
    )


class NovaQuota(CloudResource):
    """A resource for creating nova quotas.

    Nova Quota is used to manage operational limits for projects. Currently,
    this resource can manage Nova's quotas for:

        - cores
        - fixed_ips
        - floating_ips
        - instances
        - injected_files
        - injected_file_content_bytes
        - injected_file_path_bytes
        - key_pairs
        - metadata_items
        - ram
        - security_groups
        - security_group_rules
        - server_groups
        - server_group_members

    Note that default nova security policy usage of this resource
    is limited to being used by administrators only. Administrators should be
    careful to create only one Nova Quota resource per project, otherwise
    it will be hard for them to manage the quota properly.
    """

    support_status = since("8.0.0")
    service_type = "compute"
    default_client_name = "nova"
    entity = "quotas"

    properties_schema = {
        PROJECT: P(
            P.STRING,
            "Name or id of the project to set the quota for.",
            required=True,
            constraints=[CustomConstraint("keystone.project")],
        ),
        "cores": _limit("number of cores"),
        "fixed_ips": _limit("number of fixed IPs"),
        "floating_ips": _limit("number of floating IPs"),
        "instances": _limit("number of instances"),
        "injected_files": _limit("number of injected files", deprecated=True),
        "injected_file_content_bytes": _limit(
            "number of injected file content bytes", deprecated=True
        ),
        "injected_file_path_bytes": _limit(
            "number of injected file path bytes", deprecated=True
        ),
        "key_pairs": _limit("number of key pairs"),
        "metadata_items": _limit("number of metadata items"),
        "ram": _limit("amount of ram (in megabytes)"),
        "security_groups": _limit("number of security groups"),
        "security_group_rules": _limit("number of security group rules"),
        "server_groups": _limit("number of server groups"),
        "server_group_members": _limit("number of server group members"),
    }

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        if not any(properties[name] is not None for name in properties.schema
                   if name != PROJECT):
            names = ", ".join(sorted(set(properties.schema) - {PROJECT}))
            raise StackValidationFailed(
                f"At least one of the following properties must be specified: {names}."
            )

    # --- the service ---------------------------------------------------------------------

    def _project_id(self) -> str:
        stored = self.data().get(PROJECT_ID)
        if stored:
            return stored
        return KEYSTONE_FINDERS["project"](self.cloud, self.properties[PROJECT])

    def _request(self, method: str, body: Any = None) -> Any:
        from openstack import exceptions as sdk

        def go() -> Any:
            response = self.conn.compute.request(
                f"/os-quota-sets/{self._project_id()}", method,
                json=body, microversion=MICROVERSION,
            )
            sdk.raise_from_response(response)
            return response.json() if response.content else None

        return self.call(go)

    def fetch(self) -> dict[str, Any]:
        return dict(self._request("GET")["quota_set"])

    def delete_object(self) -> None:
        self._request("DELETE")

    def object_status(self, obj: Any) -> str | None:
        return None

    def _set_quota(self, properties: Properties) -> None:
        limits = {name: properties[name] for name in properties.schema
                  if name != PROJECT and properties[name] is not None}
        self._obj = dict(self._request("PUT", {"quota_set": limits})["quota_set"])

    # --- lifecycle -----------------------------------------------------------------------

    def handle_create(self) -> None:
        project_id = KEYSTONE_FINDERS["project"](self.cloud, self.properties[PROJECT])
        self.data_set(PROJECT_ID, project_id)
        self._set_quota(self.properties)
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, new_properties: Properties, prop_diff: Mapping[str, Any],
                      tmpl_diff: Any) -> None:
        if prop_diff:
            self._set_quota(new_properties)


def resource_mapping() -> dict[str, type[CloudResource]]:
    return {"OS::Nova::Quota": NovaQuota}
