"""The config types (OS::Heat::SoftwareConfig and its kin)."""

from __future__ import annotations

from hearth.resources.base import Resource
from hearth.resources.builtin.software.cloud_config import CloudConfig
from hearth.resources.builtin.software.component import SoftwareComponent
from hearth.resources.builtin.software.config import SoftwareConfig
from hearth.resources.builtin.software.multipart import MultipartMime
from hearth.resources.builtin.software.structured_config import StructuredConfig


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "OS::Heat::SoftwareConfig": SoftwareConfig,
        "OS::Heat::StructuredConfig": StructuredConfig,
        "OS::Heat::MultipartMime": MultipartMime,
        "OS::Heat::CloudConfig": CloudConfig,
        "OS::Heat::SoftwareComponent": SoftwareComponent,
    }
