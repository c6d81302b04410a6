"""What a stack user may read of its stack's resources (resource show and metadata, the CFN
API's DescribeStackResource): the resource that made it, or what the AWS::IAM::AccessKey it
signed with allows (Heat's ``access_allowed``, by user id, then by EC2 access key)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hearth.common.context import RequestContext
from hearth.common.errors import Forbidden
from hearth.engine.plugin_access import peers
from hearth.resources.iam_access import (
    ACCESS_KEY_TYPE,
    IAM_TYPES,
    IamResource,
    access_key_allows,
)
from hearth.resources.stack_users_api import USER_ID_KEY
from hearth.store.crypto import Encryptor
from hearth.store.db import Session
from hearth.store.models import Resource, Stack
from hearth.store.resources import data_value, load_properties


def restricted(ctx: RequestContext, stack: Stack, stack_user_role: str) -> bool:
    """Whether the caller's reads of resources are restricted: a stack user (Heat's test:
    the role) or anyone in through the stack's user project."""
    if ctx.is_admin:
        return False
    return ctx.project_id != stack.tenant or stack_user_role in ctx.roles


def check(
    session: Session, ctx: RequestContext, rows: Sequence[Resource], found: Resource | None,
    name: str, encryptor: Callable[[], Encryptor | None],
) -> None:
    """Forbidden unless the stack user may read resource ``name`` (``found``, if it exists)
    of a stack of ``rows``. Other servers' metadata holds their deployments' inputs."""
    if found is not None and ctx.user_id:
        if data_value(session, found.id, USER_ID_KEY, encryptor()) == ctx.user_id:
            return
    if ctx.ec2_access_key and _access_key_allows(session, rows, ctx.ec2_access_key, name,
                                                 encryptor):
        return
    raise Forbidden(f"resource {name}")


def _access_key_allows(
    session: Session, rows: Sequence[Resource], access_key: str, name: str,
    encryptor: Callable[[], Encryptor | None],
) -> bool:
    # Properties are loaded only when the stack has that key (agents poll often).
    if not any(r.resource_type == ACCESS_KEY_TYPE and r.physical_resource_id == access_key
               for r in rows):
        return False
    iam = [
        IamResource(
            name=r.name, type=r.resource_type or "", physical_id=r.physical_resource_id,
            reference=peers.reference_of(r),
            properties=load_properties(session, r.rsrc_prop_data_id, encryptor()) or {},
        )
        for r in rows
        if r.resource_type in IAM_TYPES
    ]
    return access_key_allows(iam, access_key, name)
