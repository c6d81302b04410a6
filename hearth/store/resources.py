"""Resource rows, their key/value data and their stored properties."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from hearth.store.crypto import Encryptor
from hearth.store.models import Resource, ResourceData, ResourcePropertiesData
from hearth.store.types import utcnow


def insert_many(session: Session, rows: Iterable[Mapping[str, Any]]) -> None:
    """Bulk insert of new resource rows (one statement, whatever the count)."""
    batch = [dict(r) for r in rows]
    if batch:
        now = utcnow()
        for row in batch:
            row.setdefault("created_at", now)
        session.execute(insert(Resource), batch)


def add(session: Session, **fields: Any) -> Resource:
    row = Resource(**fields)
    session.add(row)
    session.flush()
    return row


def of_stack(session: Session, stack_id: str) -> list[Resource]:
    stmt = select(Resource).where(Resource.stack_id == stack_id).order_by(Resource.id)
    return list(session.scalars(stmt))


def get(session: Session, resource_id: int) -> Resource | None:
    return session.get(Resource, resource_id)


def by_physical_id(session: Session, physical_id: str) -> list[Resource]:
    stmt = select(Resource).where(Resource.physical_resource_id == physical_id)
    return list(session.scalars(stmt))


def set_fields(session: Session, resource_id: int, **fields: Any) -> None:
    fields.setdefault("updated_at", utcnow())
    session.execute(update(Resource).where(Resource.id == resource_id).values(**fields))


def bump(session: Session, resource_id: int, **fields: Any) -> None:
    """Set fields and advance the row's version (atomic_key)."""
    session.execute(
        update(Resource)
        .where(Resource.id == resource_id)
        .values(atomic_key=Resource.atomic_key + 1, **fields)
    )


def remove(session: Session, resource_ids: Iterable[int]) -> None:
    ids = list(resource_ids)
    if ids:
        session.execute(delete(ResourceData).where(ResourceData.resource_id.in_(ids)))
        session.execute(delete(Resource).where(Resource.id.in_(ids)))


# --- resource data -------------------------------------------------------------------------


def data_all(
    session: Session, resource_id: int, encryptor: Encryptor | None = None
) -> dict[str, str]:
    stmt = select(ResourceData).where(ResourceData.resource_id == resource_id)
    out: dict[str, str] = {}
    for row in session.scalars(stmt):
        value = row.value or ""
        if row.redact and row.decrypt_method and encryptor is not None:
            value = str(encryptor.decrypt(value))
        out[row.key] = value
    return out


def data_set(
    session: Session,
    resource_id: int,
    key: str,
    value: str,
    redact: bool = False,
    encryptor: Encryptor | None = None,
) -> None:
    method = None
    if redact and encryptor is not None:
        value, method = encryptor.encrypt(value), encryptor.decrypt_method
    row = session.scalars(
        select(ResourceData).where(
            ResourceData.resource_id == resource_id, ResourceData.key == key
        )
    ).first()
    if row is None:
        session.add(
            ResourceData(
                resource_id=resource_id, key=key, value=value, redact=redact,
                decrypt_method=method,
            )
        )
    else:
        row.value, row.redact, row.decrypt_method = value, redact, method
    session.flush()


def data_delete(session: Session, resource_id: int, key: str) -> bool:
    result = session.execute(
        delete(ResourceData).where(
            ResourceData.resource_id == resource_id, ResourceData.key == key
        )
    )
    return bool(getattr(result, "rowcount", 0))


def data_copy(session: Session, from_id: int, to_id: int) -> None:
    for row in session.scalars(select(ResourceData).where(ResourceData.resource_id == from_id)):
        session.add(
            ResourceData(
                resource_id=to_id, key=row.key, value=row.value, redact=row.redact,
                decrypt_method=row.decrypt_method,
            )
        )


# --- properties ---------------------------------------------------------------------------


def store_properties(
    session: Session, data: Mapping[str, Any] | None, encryptor: Encryptor | None
) -> int | None:
    if data is None:
        return None
    if encryptor is not None:
        row = ResourcePropertiesData(data={"token": encryptor.encrypt(dict(data))}, encrypted=True)
    else:
        row = ResourcePropertiesData(data=dict(data), encrypted=False)
    session.add(row)
    session.flush()
    return row.id


def load_properties(
    session: Session, prop_data_id: int | None, encryptor: Encryptor | None
) -> dict[str, Any] | None:
    if prop_data_id is None:
        return None
    row = session.get(ResourcePropertiesData, prop_data_id)
    if row is None or row.data is None:
        return None
    if row.encrypted:
        if encryptor is None:
            return None
        return dict(encryptor.decrypt(row.data["token"]))
    return dict(row.data)
