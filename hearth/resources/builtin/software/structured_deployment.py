"""OS::Heat::StructuredDeployment: a SoftwareDeployment whose derived config has its
``{get_input: name}`` maps replaced by the deployment's input values (for tools without
inputs of their own, such as cfn-init's metadata)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.resources.builtin.software import deployment_schema as s
from hearth.resources.builtin.software.deployment import SoftwareDeployment
from hearth.resources.builtin.software.structured_config import substitute_inputs
from hearth.resources.support import SupportStatus


class StructuredDeployment(SoftwareDeployment):
    type_description = s.STRUCTURED_DESCRIPTION
    support_status = SupportStatus(version="2014.1")
    properties_schema = s.STRUCTURED_PROPERTIES

    def empty_config(self) -> Any:
        return {}

    def build_config(self, source: Mapping[str, Any], inputs: list[dict[str, Any]]) -> Any:
        values = {str(i["name"]): i.get("value") for i in inputs}
        return substitute_inputs(
            source.get("config"), values, str(self.properties.get(s.INPUT_KEY)),
            strict=self.properties.get(s.INPUT_VALUES_VALIDATE) == "STRICT",
        )
