"""Stored credentials of stacks (Heat's ``user_creds`` rows): the Keystone trust a stack's
later actions authenticate with, its id encrypted at rest when encryption is on."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from hearth.store.crypto import Encryptor
from hearth.store.models import Stack, UserCreds

# decrypt_method values: how trust_id is stored. "fernet" (named when it was the only
# format) marks any value the Encryptor sealed: its token says which format it is in.
PLAIN = "plain"
FERNET = "fernet"


@dataclass(frozen=True)
class StoredTrust:
    creds_id: int
    trust_id: str
    trustor_user_id: str | None


def store_trust(
    session: Session,
    trust_id: str,
    trustor_user_id: str | None,
    tenant_id: str,
    encryptor: Encryptor | None,
) -> int:
    row = UserCreds(
        trust_id=encryptor.encrypt(trust_id) if encryptor is not None else trust_id,
        decrypt_method=FERNET if encryptor is not None else PLAIN,
        trustor_user_id=trustor_user_id,
        tenant_id=tenant_id,
    )
    session.add(row)
    session.flush()
    return row.id


def _decoded(row: UserCreds, encryptor: Encryptor | None) -> StoredTrust | None:
    if not row.trust_id:
        return None
    trust_id = row.trust_id
    if row.decrypt_method == FERNET:
        if encryptor is None:
            return None
        trust_id = str(encryptor.decrypt(trust_id))
    return StoredTrust(row.id, trust_id, row.trustor_user_id)


def trust_of_stack(
    session: Session, stack_id: str, encryptor: Encryptor | None
) -> StoredTrust | None:
    """The trust of the stack's tree (a child stack uses its root's)."""
    ids = session.execute(
        select(Stack.root_stack_id, Stack.user_creds_id).where(Stack.id == stack_id)
    ).first()
    if ids is None:
        return None
    root_id, creds_id = ids
    if creds_id is None and root_id and root_id != stack_id:
        creds_id = session.scalar(select(Stack.user_creds_id).where(Stack.id == root_id))
    if creds_id is None:
        return None
    row = session.get(UserCreds, creds_id)
    return None if row is None else _decoded(row, encryptor)


def trust_by_id(
    session: Session, creds_id: int, encryptor: Encryptor | None
) -> StoredTrust | None:
    row = session.get(UserCreds, creds_id)
    return None if row is None else _decoded(row, encryptor)


def delete_creds(session: Session, creds_id: int) -> None:
    row = session.get(UserCreds, creds_id)
    if row is not None:
        session.delete(row)


def delete_stack_creds(session: Session, stack_id: str, creds_id: int) -> None:
    """Delete a stack's credentials row, the stack's reference to it cleared first."""
    stack = session.get(Stack, stack_id)
    if stack is not None:
        stack.user_creds_id = None
    # The stack's foreign key goes before the row it points at.
    session.flush()
    delete_creds(session, creds_id)
