"""OS::Heat::CloudConfig: a cloud-init ``#cloud-config`` document written from a map."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import yaml

from hearth.resources.builtin.software.config import UNGROUPED, ConfigResource
from hearth.resources.schema import PropertySchema
from hearth.resources.support import SupportStatus

CLOUD_CONFIG = "cloud_config"
HEADER = "#cloud-config\n"

_SafeDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_SafeDumper):  # type: ignore[misc,valid-type]
    """PyYAML's safe dumper (the C one when there is one, as Heat's), block style, keys
    sorted; an OrderedDict is written as a plain map in its own order."""


def _ordered(dumper: yaml.SafeDumper, data: OrderedDict[Any, Any]) -> yaml.Node:
    return dumper.represent_dict(data.items())


_Dumper.add_representer(OrderedDict, _ordered)


def cloud_config_document(data: Any) -> str:
    """``data`` as YAML under the ``#cloud-config`` header."""
    return HEADER + yaml.dump(data, Dumper=_Dumper)


class CloudConfig(ConfigResource):
    """Stores its ``cloud_config`` map, written as YAML, as an ungrouped config."""

    type_description = (
        "A configuration resource for representing cloud-init cloud-config.\n\n"
        "This resource allows cloud-config YAML to be defined and stored by the\n"
        "config API. Any intrinsic functions called in the config will be resolved\n"
        "before storing the result.\n\n"
        "This resource will generally be referenced by OS::Nova::Server user_data,\n"
        "or OS::Heat::MultipartMime parts config. Since cloud-config is boot-only\n"
        "configuration, any changes to the definition will result in the\n"
        "replacement of all servers which reference it."
    )
    support_status = SupportStatus(version="2014.1")
    properties_schema = {
        CLOUD_CONFIG: PropertySchema(
            PropertySchema.MAP,
            "Map representing the cloud-config data structure which will be formatted as "
            "YAML.",
        ),
    }

    def handle_create(self) -> None:
        document = cloud_config_document(self.properties[CLOUD_CONFIG])
        self.store_config(group=UNGROUPED, config=document)
