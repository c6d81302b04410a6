"""Resource rows, their key/value data and their stored properties."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Row, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from hearth.store import batch, driver
from hearth.store.crypto import Encryptor
from hearth.store.models import Resource, ResourceData, ResourcePropertiesData, Stack
from hearth.store.types import utcnow

_RESOURCE_INSERT = insert(Resource.__table__)  # type: ignore[arg-type]


def insert_many(session: Session, rows: Iterable[Mapping[str, Any]]) -> None:
    """Bulk insert of new resource rows (one statement per run of rows with the same keys).

    Core statements (the driver on SQLite): the ORM's bulk path costs several times more per
    row. Like that path, keys that are no column and None values are left out, so the
    columns' defaults apply.
    """
    table = Resource.__table__
    columns = set(table.c.keys())
    now = utcnow()
    groups: list[list[dict[str, Any]]] = []
    for r in rows:
        row = {k: v for k, v in r.items() if v is not None and k in columns}
        if "created_at" not in r:
            row["created_at"] = now
        if groups and groups[-1][0].keys() == row.keys():
            groups[-1].append(row)
        else:
            groups.append([row])
    for group in groups:
        driver.executemany(session.connection(), _RESOURCE_INSERT, group)


def add(session: Session, **fields: Any) -> Resource:
    row = Resource(**fields)
    session.add(row)
    session.flush()
    return row


# A resource row read as a plain row: its columns by name, as the ORM row's attributes.
PlainResourceRow = Row[Any]

# Built once: every action of every nested stack reads its rows.
_OF_STACK = select(Resource).where(Resource.stack_id == bindparam("stack_id")).order_by(
    Resource.id)
_ROWS_OF_STACK = select(Resource.__table__).where(
    Resource.__table__.c.stack_id == bindparam("stack_id")).order_by(Resource.__table__.c.id)


def of_stack(session: Session, stack_id: str) -> list[Resource]:
    return list(session.scalars(_OF_STACK, {"stack_id": stack_id}))


def rows_of_stack(session: Session, stack_id: str) -> Sequence[PlainResourceRow]:
    """The stack's resource rows as plain rows (their columns by name), for reading only:
    every nested stack's action reads its own, and ORM objects cost more to make."""
    return driver.fetch(session.connection(), _ROWS_OF_STACK, {"stack_id": stack_id})


def get(session: Session, resource_id: int) -> Resource | None:
    return session.get(Resource, resource_id)


def get_many(session: Session, resource_ids: Iterable[int]) -> list[Resource]:
    ids = list(resource_ids)
    if not ids:
        return []
    return list(session.scalars(select(Resource).where(Resource.id.in_(ids))))


def by_uuid(session: Session, resource_uuid: str) -> Resource | None:
    return session.scalars(select(Resource).where(Resource.uuid == resource_uuid)).first()


def current_by_name(session: Session, stack_id: str, name: str) -> Resource | None:
    """The stack's resource of that name that is not being replaced."""
    stmt = select(Resource).where(
        Resource.stack_id == stack_id, Resource.name == name, Resource.replaced_by.is_(None)
    )
    return session.scalars(stmt).first()


def current_by_names(session: Session, stack_id: str, names: Iterable[str]) -> list[Resource]:
    """The stack's resources of those names that are not being replaced."""
    stmt = select(Resource).where(
        Resource.stack_id == stack_id, Resource.name.in_(list(names)),
        Resource.replaced_by.is_(None),
    )
    return list(session.scalars(stmt))


def all_named(session: Session, stack_id: str, name: str) -> list[Resource]:
    """Every row of that name in the stack, replaced and replacing ones too (unordered)."""
    stmt = select(Resource).where(Resource.stack_id == stack_id, Resource.name == name)
    return list(session.scalars(stmt))


def count_in_tree(session: Session, root_stack_id: str) -> int:
    """The resources of a whole stack tree: one indexed count, no walk."""
    stmt = select(func.count(Resource.id)).where(Resource.root_stack_id == root_stack_id)
    return session.scalar(stmt) or 0


def live_ids_by_physical_id(
    session: Session, tenant: str, physical_id: str, *, except_action: str
) -> list[int]:
    """Ids of the project's resources in live stacks with that physical id, in id order,
    but for those whose action is ``except_action``."""
    stmt = (
        select(Resource.id)
        .join(Stack, Stack.id == Resource.stack_id)
        .where(Resource.physical_resource_id == physical_id)
        .where(Stack.tenant == tenant)
        .where(Stack.deleted_at.is_(None))
        .where(Resource.action.is_distinct_from(except_action))
        .order_by(Resource.id)
    )
    return list(session.scalars(stmt))


def by_physical_id(session: Session, physical_id: str) -> list[Resource]:
    stmt = select(Resource).where(Resource.physical_resource_id == physical_id)
    return list(session.scalars(stmt))


def set_fields(session: Session, resource_id: int, **fields: Any) -> None:
    fields.setdefault("updated_at", utcnow())
    session.execute(update(Resource).where(Resource.id == resource_id).values(**fields))


def stored_metadata(session: Session, resource_id: int) -> Any:
    return session.scalar(select(Resource.rsrc_metadata).where(Resource.id == resource_id))


def metadata_for_update(session: Session, resource_id: int) -> Any:
    """A resource's metadata, its row locked until the transaction ends (SQLite's write
    sessions hold the database lock already): for a read-modify-write that loses nothing."""
    stmt = (
        select(Resource.rsrc_metadata).where(Resource.id == resource_id).with_for_update()
    )
    return session.scalars(stmt).one()


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
    return decode_data(session.scalars(stmt), encryptor)


def data_value(
    session: Session, resource_id: int, key: str, encryptor: Encryptor | None = None
) -> str | None:
    """One key of a resource's data (None when it is not set)."""
    stmt = select(ResourceData).where(
        ResourceData.resource_id == resource_id, ResourceData.key == key
    )
    return decode_data(session.scalars(stmt), encryptor).get(key)


def data_of_stack(session: Session, stack_id: str) -> dict[int, list[ResourceData]]:
    """Every data row of the stack's resources, by resource id (one query)."""
    stmt = (
        select(ResourceData)
        .join(Resource, Resource.id == ResourceData.resource_id)
        .where(Resource.stack_id == stack_id)
    )
    out: dict[int, list[ResourceData]] = {}
    for row in session.scalars(stmt):
        out.setdefault(row.resource_id, []).append(row)
    return out


def decode_data(rows: Iterable[ResourceData], encryptor: Encryptor | None) -> dict[str, str]:
    """Data rows as a plain dict (encrypted values decrypted)."""
    out: dict[str, str] = {}
    for row in rows:
        value = row.value or ""
        if row.decrypt_method and encryptor is not None:
            value = str(encryptor.decrypt(value))
        out[row.key] = value
    return out


def data_change(
    resource_id: int, key: str, value: str, redact: bool = False,
    encryptor: Encryptor | None = None,
) -> batch.DataChange:
    """Setting one key of a resource's data, as a write.

    Every value is encrypted when there is an encryptor, not only the ``redact`` ones: a
    plugin's data may hold what it resolved from a hidden parameter."""
    method = None
    if encryptor is not None:
        value, method = encryptor.encrypt(value), encryptor.decrypt_method
    return batch.DataChange(resource_id, key, value, redact, method)


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


def properties_row(
    data: Mapping[str, Any] | None, encryptor: Encryptor | None
) -> batch.PropsRow | None:
    """A resource's properties as a new row (encrypted when there is an encryptor); none for
    empty properties, as Heat stores none (readers take a missing row as no properties)."""
    if not data:
        return None
    if encryptor is not None:
        return batch.PropsRow({"token": encryptor.encrypt(dict(data))}, encrypted=True)
    return batch.PropsRow(dict(data), encrypted=False)


def load_properties(
    session: Session, prop_data_id: int | None, encryptor: Encryptor | None
) -> dict[str, Any] | None:
    if prop_data_id is None:
        return None
    row = session.get(ResourcePropertiesData, prop_data_id)
    if row is None:
        return None
    return decode_properties(row.data, row.encrypted, encryptor)


def properties_of_rows(session: Session, ids: Iterable[int]) -> dict[int, tuple[Any, bool]]:
    """The stored (still encoded) properties rows with these ids: id -> (data, encrypted)."""
    wanted = sorted(set(ids))
    out: dict[int, tuple[Any, bool]] = {}
    table = ResourcePropertiesData.__table__
    # In slices: databases bound the number of parameters of one statement.
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        stmt = select(table.c.id, table.c.data, table.c.encrypted).where(
            table.c.id.in_(chunk)
        )
        for row_id, data, encrypted in session.execute(stmt):
            out[row_id] = (data, bool(encrypted))
    return out


def decode_properties(
    data: Any, encrypted: bool, encryptor: Encryptor | None
) -> dict[str, Any] | None:
    """Stored properties as a plain dict (None when they cannot be read)."""
    if data is None:
        return None
    if encrypted:
        if encryptor is None:
            return None
        return dict(encryptor.decrypt(data["token"]))
    return dict(data)
