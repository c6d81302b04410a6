"""What the holder of an AWS::IAM::AccessKey may read of its stack (DescribeStackResource,
resource metadata), as Heat decides it.

The key belongs to the AWS::IAM::User whose reference (the user's name) is the key's
``UserName``. A user without ``Policies`` may read every resource of the stack; otherwise
every policy it names must be an OS::Heat::AccessPolicy of the stack listing the resource in
``AllowedResources``. Entries of ``Policies`` that are not strings are ignored, as Heat
ignores them (it once accepted inline IAM policies without applying them).

This module is pure: the engine hands it what it stored of the stack's resources, and the
plugins use its type names, so the rule lives in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

ACCESS_KEY_TYPE = "AWS::IAM::AccessKey"
USER_TYPE = "AWS::IAM::User"
ACCESS_POLICY_TYPE = "OS::Heat::AccessPolicy"
# The only resources the rule looks at (the engine loads nothing else).
IAM_TYPES = frozenset({ACCESS_KEY_TYPE, USER_TYPE, ACCESS_POLICY_TYPE})

USER_NAME = "UserName"
POLICIES = "Policies"
ALLOWED_RESOURCES = "AllowedResources"


@dataclass(frozen=True)
class IamResource:
    """One resource of the stack as stored: what the rule needs of it."""

    name: str
    type: str
    # The physical id (an AccessKey's is its access key).
    physical_id: str | None
    # What get_resource / Ref gives for it (a User's is its Keystone user name).
    reference: str
    properties: Mapping[str, Any] = field(default_factory=dict)


def policies_allow(
    policies: Any, resources_by_name: Mapping[str, IamResource], resource_name: str
) -> bool:
    """Whether a user with these ``Policies`` may read ``resource_name``."""
    for policy in policies or ():
        if not isinstance(policy, str):
            continue
        found = resources_by_name.get(policy)
        # A policy that is missing or of another type grants nothing (Heat fails the call).
        if found is None or found.type != ACCESS_POLICY_TYPE:
            return False
        allowed = found.properties.get(ALLOWED_RESOURCES) or ()
        if resource_name not in allowed:
            return False
    return True


def access_key_allows(
    resources: Iterable[IamResource], access_key: str, resource_name: str
) -> bool:
    """Whether the holder of ``access_key`` may read ``resource_name`` of the stack whose
    resources (at least its IAM_TYPES ones) are ``resources``."""
    if not access_key:
        return False
    listed = list(resources)
    by_name = {r.name: r for r in listed}
    for key in listed:
        if key.type != ACCESS_KEY_TYPE or key.physical_id != access_key:
            continue
        owner = key.properties.get(USER_NAME)
        user = next(
            (r for r in listed if r.type == USER_TYPE and r.reference == owner), None
        )
        if user is not None and policies_allow(
            user.properties.get(POLICIES), by_name, resource_name
        ):
            return True
    return False
