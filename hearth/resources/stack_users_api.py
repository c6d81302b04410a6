"""Stack users, for resource plugins: Keystone users of Heat's stack user domain that a
server's in-instance agent authenticates as (POLL_SERVER_HEAT, HEAT_SIGNAL), in one project
per stack tree (the stack's ``stack_user_project_id``), with the role ``heat_stack_user_role``.

Through the API they may signal the resources of their stack, and read the metadata of the
one resource whose data holds their id under ``USER_ID_KEY`` (Heat's key: keep the id there),
and nothing else."""

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
