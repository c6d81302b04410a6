"""Stack users, for resource plugins: Keystone users of Heat's stack user domain that a
server's in-instance agent authenticates as (POLL_SERVER_HEAT, HEAT_SIGNAL), in one project
per stack tree (the stack's ``stack_user_project_id``), with the role ``heat_stack_user_role``.

Through the API they may signal the resources of their stack, and read the metadata of the
one resource whose data holds their id under ``USER_ID_KEY`` (Heat's key: keep the id there),
and nothing else. A stack user may also hold EC2 keypairs (Keystone credentials of type
``ec2``), with which the CFN API's callers sign requests (AWS::IAM::AccessKey)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# The resource data key of the stack user a resource made (Heat's ``user_id``).
USER_ID_KEY = "user_id"


@dataclass(frozen=True)
class StackUserCredentials:
    user_id: str
    username: str
    password: str = field(repr=False)
    project_id: str = ""
    # The Keystone v3 URL the agent authenticates at, and the region of Hearth's endpoint.
    auth_url: str = ""
    region_name: str | None = None


@dataclass(frozen=True)
class Ec2Keypair:
    credential_id: str
    access: str
    secret: str = field(repr=False)


class StackUsers(Protocol):
    def configured(self) -> str | None:
        """None when a stack user domain is configured; else why not (options to set)."""
        ...

    def create_user(self, password: str) -> StackUserCredentials:
        """A user for the calling resource (named after its physical resource name) in the
        stack's project, which is made on first use. Raises a CloudError from Keystone."""
        ...

    def delete_user(self, user_id: str) -> None:
        """Remove the user (already gone: nothing happens)."""
        ...

    def create_ec2_keypair(self, user_id: str) -> Ec2Keypair:
        """A new EC2 keypair of a stack user, in the stack's project."""
        ...

    def delete_ec2_keypair(self, credential_id: str) -> None:
        """Remove an EC2 keypair (already gone: nothing happens)."""
        ...

    def enable_user(self, user_id: str) -> None: ...

    def disable_user(self, user_id: str) -> None:
        """The user can no longer authenticate (its keypairs neither) until enabled again."""
        ...
