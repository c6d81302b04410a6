"""Whether the configured encryption key reads what is already encrypted in the database.

Servers sharing one database must share one key: a server started with another one would
answer DecryptionFailed for every stack the others made, and could not take over their
actions. A sample of the encrypted rows is read at start-up, so that such a server refuses
to start and says why instead."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from hearth.common.errors import DecryptionFailed
from hearth.store.credentials import FERNET
from hearth.store.crypto import DECRYPT_METHODS, Encryptor
from hearth.store.models import ResourceData, UserCreds


def unreadable_row(session: Session, encryptor: Encryptor) -> str | None:
    """None when the key reads the sampled encrypted rows; else which one it cannot read."""
    data = session.scalars(
        select(ResourceData)
        .where(ResourceData.decrypt_method.in_(DECRYPT_METHODS), ResourceData.value.is_not(None))
        .order_by(ResourceData.id.desc()).limit(1)
    ).first()
    if data is not None and not _reads(encryptor, data.value):
        return f"the data {data.key!r} of resource {data.resource_id}"
    creds = session.scalars(
        select(UserCreds)
        .where(UserCreds.decrypt_method == FERNET, UserCreds.trust_id.is_not(None))
        .order_by(UserCreds.id.desc()).limit(1)
    ).first()
    if creds is not None and not _reads(encryptor, creds.trust_id):
        return f"the stored trust {creds.id}"
    return None


def _reads(encryptor: Encryptor, token: str | None) -> bool:
    try:
        encryptor.decrypt(token or "")
    except DecryptionFailed:
        return False
    return True
