"""OS::Heat::AccessPolicy: which resources of its stack an AWS::IAM::User's access keys may
read through DescribeStackResource (the rule is hearth.resources.iam_access). It makes
nothing anywhere; its properties are the policy."""

from __future__ import annotations

from hearth.common.errors import StackValidationFailed
from hearth.resources.base import Resource
from hearth.resources.definition import ValidationScope
from hearth.resources.iam_access import ALLOWED_RESOURCES
from hearth.resources.properties import Properties
from hearth.resources.schema import PropertySchema as P

# What Heat 27 serves as the type's description (GET /resource_types/OS::Heat::AccessPolicy).
DESCRIPTION = (
    "Resource for defining which resources can be accessed by users.\n\n"
    "NOTE: Now this resource is actually associated with an AWS user resource,\n"
    "not any OS:: resource though it is registered under the OS namespace below.\n\n"
    "Resource for defining resources that users are allowed to access by the\n"
    "DescribeStackResource API."
)


class AccessPolicy(Resource):
    type_description = DESCRIPTION
    properties_schema = {
        ALLOWED_RESOURCES: P(
            P.LIST,
            "Resources that users are allowed to access by the DescribeStackResource API.",
            required=True,
        ),
    }
    handlers_block = False

    @classmethod
    def validate(cls, properties: Properties, scope: ValidationScope) -> None:
        # No stack to look in (a lone definition), or names other resources give: those
        # are names of the stack's resources anyway.
        if scope.resources is None or ALLOWED_RESOURCES in properties.unresolved:
            return
        for allowed in properties[ALLOWED_RESOURCES] or ():
            # Heat's message carries no path.
            if not isinstance(allowed, str) or allowed not in scope.resources:
                raise StackValidationFailed(f"AccessPolicy resource {allowed} not in stack")

    def access_allowed(self, resource_name: str) -> bool:
        return resource_name in (self.properties[ALLOWED_RESOURCES] or ())
