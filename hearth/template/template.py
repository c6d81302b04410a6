"""A template document: its version, its sections, and their structural checks.

``Template`` knows only the document. Binding it to parameter values and a stack (which is
what parsing functions, evaluating conditions and resolving need) is ``StackDefinition``'s job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common.errors import (
    InvalidTemplateSection,
    InvalidTemplateVersion,
    StackValidationFailed,
)
from hearth.template.versions import (
    VERSION_INDEX,
    VERSION_KEYS,
    TemplateVersion,
    accepted_values,
)

# HOT section and key names, and their CFN spelling.
HOT_TO_CFN_SECTIONS = {
    "description": "Description",
    "parameters": "Parameters",
    "resources": "Resources",
    "outputs": "Outputs",
    "conditions": "Conditions",
    "mappings": "Mappings",
}
HOT_TO_CFN_RESOURCE_KEYS = {
    "type": "Type",
    "properties": "Properties",
    "metadata": "Metadata",
    "depends_on": "DependsOn",
    "deletion_policy": "DeletionPolicy",
    "update_policy": "UpdatePolicy",
    "description": "Description",
    "condition": "Condition",
    "external_id": "external_id",
}
HOT_TO_CFN_OUTPUT_KEYS = {"value": "Value", "description": "Description", "condition": "Condition"}


def detect_version(data: Mapping[str, Any]) -> TemplateVersion:
    present = [k for k in VERSION_KEYS if isinstance(data.get(k), str)]
    if len(present) > 1:
        raise InvalidTemplateVersion(f"Ambiguous versions ({', '.join(present)})")
    if not present:
        raise InvalidTemplateVersion("Template version was not provided")
    key = present[0]
    value = data[key]
    version = VERSION_INDEX.get((key, value))
    if version is None:
        accepted = accepted_values(key)
        should = "should be one of" if len(accepted) > 1 else "should be"
        raise InvalidTemplateVersion(f'"{key}: {value}". "{key}" {should}: {", ".join(accepted)}')
    return version


class Template:
    """A loaded template document and its version."""

    def __init__(self, data: Mapping[str, Any], files: Mapping[str, str] | None = None) -> None:
        if not isinstance(data, Mapping):
            raise StackValidationFailed("The template is not a JSON object or YAML mapping.")
        self.data = data
        self.files: Mapping[str, str] = files or {}
        self.version = detect_version(data)

    @property
    def is_hot(self) -> bool:
        return self.version.kind == "hot"

    # --- naming --------------------------------------------------------------------------

    def section_name(self, hot_name: str) -> str:
        return hot_name if self.is_hot else HOT_TO_CFN_SECTIONS[hot_name]

    def resource_key(self, hot_name: str) -> str:
        return hot_name if self.is_hot else HOT_TO_CFN_RESOURCE_KEYS[hot_name]

    def output_key(self, hot_name: str) -> str:
        return hot_name if self.is_hot else HOT_TO_CFN_OUTPUT_KEYS[hot_name]

    def _section(self, hot_name: str, default: Any) -> Any:
        value = self.data.get(self.section_name(hot_name))
        # A section left empty in YAML (null) counts as absent.
        return default if value is None else value

    # --- sections ------------------------------------------------------------------------

    @property
    def description(self) -> str:
        value = self._section("description", "No description")
        return value if value else "No description"

    @property
    def parameters_section(self) -> Mapping[str, Any]:
        return self._section("parameters", {})  # type: ignore[no-any-return]

    @property
    def parameter_groups_section(self) -> Any:
        if not self.is_hot:
            return []
        return self.data.get("parameter_groups") or []

    @property
    def resources_section(self) -> Mapping[str, Any]:
        return self._section("resources", {})  # type: ignore[no-any-return]

    @property
    def outputs_section(self) -> Mapping[str, Any]:
        return self._section("outputs", {})  # type: ignore[no-any-return]

    @property
    def conditions_section(self) -> Any:
        if not self.version.supports_conditions:
            return {}
        return self._section("conditions", {})

    @property
    def mappings(self) -> Mapping[str, Any]:
        if self.is_hot:
            return {}
        return self._section("mappings", {})  # type: ignore[no-any-return]

    # --- structure -----------------------------------------------------------------------

    def validate_structure(self) -> None:
        """Top-level sections, and the shape of each resource and output."""
        for key in self.data:
            if key not in self.version.sections and not (
                not self.is_hot and key in VERSION_KEYS
            ):
                raise InvalidTemplateSection(str(key))
        self._validate_resources()
        self._validate_outputs()

    def _validate_resources(self) -> None:
        resources = self.resources_section
        if not isinstance(resources, Mapping):
            raise StackValidationFailed(
                f"Resources must contain Resource. Found a [{type(resources)}] instead"
            )
        if self.is_hot:
            self._validate_hot_entries(
                "resources", "type", resources, self.version.resource_keys
            )
            return
        for res in resources.values():
            if not isinstance(res, Mapping):
                raise StackValidationFailed(
                    f"Resources must contain Resource. Found a [{type(res)}] instead",
                )
            if not res or not res.get("Type"):
                raise StackValidationFailed("Each Resource must contain a Type key.")

    def _validate_outputs(self) -> None:
        outputs = self.outputs_section
        if not isinstance(outputs, Mapping):
            raise StackValidationFailed(
                f'"{self.section_name("outputs")}" must contain a map of output maps. '
                f"Found a [{type(outputs)}] instead"
            )
        # Each output's own shape is checked where the outputs are read (StackDefinition),
        # in Heat's order and words; keys Heat does not know are ignored there, as Heat does.

    @staticmethod
    def _validate_hot_entries(
        section: str, required: str, entries: Mapping[str, Any], allowed: tuple[str, ...]
    ) -> None:
        kind = section[:-1]
        missing = f"Each {kind} must contain a {required} key."
        for _name, body in sorted(entries.items(), key=lambda kv: str(kv[0])):
            if not body:
                raise StackValidationFailed(missing)
            if not isinstance(body, Mapping):
                raise StackValidationFailed(
                    f'"{section}" must contain a map of {kind} maps. '
                    f"Found a [{type(body)}] instead"
                )
            for key in body:
                if key not in allowed:
                    raise StackValidationFailed(
                        f'"{key}" is not a valid keyword inside a {kind} definition'
                    )
            if required not in body:
                raise StackValidationFailed(missing)
