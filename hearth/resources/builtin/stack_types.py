"""Stacks as resources: AWS::CloudFormation::Stack (a template by URL, or from the ``files``
map); OS::Heat::Stack is in ``heat_stack``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hearth.common import urlfetch
from hearth.common.errors import HearthError, InvalidTemplateAttribute, StackValidationFailed
from hearth.resources.attributes import select_from_attribute
from hearth.resources.nested import ChildDefinition
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema
from hearth.resources.stack_resource import StackResource, stack_arn
from hearth.template.context import Limits
from hearth.template.environment import Environment
from hearth.template.loader import load_template_text


def parse_child_template(text: Any, where: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise StackValidationFailed(f"{where}: the template must be a string")
    try:
        data = load_template_text(text, Limits())
    except HearthError as exc:
        raise StackValidationFailed(f"{where}: {exc}") from None
    if not isinstance(data, dict):
        raise StackValidationFailed(f"{where}: the template is not a mapping")
    return data


class NestedStack(StackResource):
    """Represents a child stack to allow composition of templates."""

    properties_schema = {
        "TemplateURL": PropertySchema(
            PropertySchema.STRING,
            "The URL of a template that specifies the stack to be created as a resource.",
            required=True,
            update_allowed=True,
        ),
        "TimeoutInMinutes": PropertySchema(
            PropertySchema.INTEGER,
            "The length of time, in minutes, to wait for the nested stack creation.",
            update_allowed=True,
        ),
        "Parameters": PropertySchema(
            PropertySchema.MAP,
            "The set of parameters passed to this nested stack.",
            update_allowed=True,
        ),
    }

    @classmethod
    def child_for(
        cls,
        name: str,
        properties: Properties,
        environment: Environment,
        files: Mapping[str, str],
    ) -> ChildDefinition | None:
        url = properties.get("TemplateURL")
        if not isinstance(url, str):
            return None
        text = files.get(url)
        if text is None:
            try:
                text = urlfetch.fetch_template(url, Limits().max_template_size)
            except urlfetch.FetchError as exc:
                raise StackValidationFailed(
                    f"Could not fetch remote template '{url}': {exc}"
                ) from None
        template = parse_child_template(text, url)
        env = environment.child(properties.get("Parameters") or {})
        return ChildDefinition(template, env, files)

    def child_timeout(self) -> int | None:
        timeout = self.properties.get("TimeoutInMinutes")
        return int(timeout) if timeout else self.context.stack_timeout_mins

    @classmethod
    def attribute_names(cls) -> frozenset[str] | None:
        return None  # Outputs.<name>, for any output of the child

    def get_attribute(self, name: str, *path: Any) -> Any:
        if name == "show":
            return super().get_attribute(name, *path)
        if not name.startswith("Outputs."):
            raise InvalidTemplateAttribute(self.name, name)
        if self.resource_id is None:
            return None
        outputs = self.child_outputs()
        key = name.partition(".")[2]
        if key not in outputs:
            raise InvalidTemplateAttribute(self.name, name)
        return select_from_attribute(outputs[key], path)

    def get_reference_id(self) -> str | None:
        if self.resource_id is None:
            return self.name
        return stack_arn(self.context.tenant, self.context.physical_resource_name(),
                         self.resource_id)
