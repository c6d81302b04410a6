"""Stacks and the templates they are made from: rows in, rows out.

Hidden parameter values are stored encrypted (their names listed in the environment's
``encrypted_param_names``) when an ``Encryptor`` is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Table, bindparam, delete, false, func, insert, not_, or_, select, update
from sqlalchemy.orm import Session

from hearth.common.ids import new_uuid
from hearth.store import driver
from hearth.store.crypto import Encryptor
from hearth.store.models import RawTemplate, RawTemplateFiles, Resource, Stack, StackTag
from hearth.store.queries import after_marker
from hearth.store.types import utcnow

ENCRYPTED_PARAM_NAMES = "encrypted_param_names"

_FILES: Table = RawTemplateFiles.__table__  # type: ignore[assignment]
_TEMPLATES: Table = RawTemplate.__table__  # type: ignore[assignment]
_STACKS: Table = Stack.__table__  # type: ignore[assignment]
_TAGS: Table = StackTag.__table__  # type: ignore[assignment]

# Statements every nested stack's actions send, built once (building one again per call, its
# expression and its cache key, costs more than sending it). An UPDATE without values sets
# the columns its parameters name; the WHERE's own parameters end in "_" (no column does).
_INSERTS = {table.name: insert(table) for table in (_FILES, _TEMPLATES, _STACKS, _TAGS)}
_TEMPLATE_WITH_FILES = (
    select(RawTemplate.template, RawTemplate.environment, RawTemplateFiles.files,
           RawTemplate.files_id)
    .outerjoin(RawTemplateFiles, RawTemplateFiles.id == RawTemplate.files_id)
    .where(RawTemplate.id == bindparam("template_id"))
)
_CHILD_ID = select(_STACKS.c.id).where(
    _STACKS.c.owner_id == bindparam("owner_id"), _STACKS.c.name == bindparam("name"),
    _STACKS.c.deleted_at.is_(None),
).limit(1)
_UPDATE_STACK = update(_STACKS).where(_STACKS.c.id == bindparam("id_"))
_CLAIM = {
    expected_none: update(_STACKS).where(
        _STACKS.c.id == bindparam("id_"),
        _STACKS.c.current_traversal.is_(None) if expected_none
        else _STACKS.c.current_traversal == bindparam("expected_"),
    )
    for expected_none in (True, False)
}


def store_template(
    session: Session,
    template: Mapping[str, Any],
    files: Mapping[str, str],
    environment: Mapping[str, Any],
    hidden_params: Iterable[str] = (),
    encryptor: Encryptor | None = None,
    *,
    files_id: int | None = None,
) -> int:
    """A new template row; its files go in a row of their own unless ``files_id`` names a
    stored row of the same files (a child stack shares its parent's, as in Heat)."""
    env = dict(environment)
    if encryptor is not None:
        params = dict(env.get("parameters") or {})
        hidden = [name for name in hidden_params if name in params]
        for name in hidden:
            params[name] = encryptor.encrypt(params[name])
        env["parameters"] = params
        env[ENCRYPTED_PARAM_NAMES] = hidden
    if files_id is None:
        files_id = store_files(session, files)
    return _insert(session, _TEMPLATES, template=dict(template), files_id=files_id,
                   environment=env)


def store_files(session: Session, files: Mapping[str, str]) -> int:
    """A new row of a template's files; its id."""
    return _insert(session, _FILES, files=dict(files))


def _insert(session: Session, table: Table, **values: Any) -> int:
    """Insert one row; its new integer id (a Core insert: one template per stack, and the
    ORM's unit of work costs more than the insert)."""
    return driver.insert_row(session.connection(), _INSERTS[table.name],
                            {"created_at": utcnow(), **values})


class StoredTemplate(NamedTuple):
    template: dict[str, Any]
    files: dict[str, str]
    environment: dict[str, Any]
    # The row of its files (None: a template stored without one)
    files_id: int | None


def load_template(
    session: Session, template_id: int, encryptor: Encryptor | None = None
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """(template, files, environment) with hidden parameters decrypted."""
    stored = load_stored_template(session, template_id, encryptor)
    return stored.template, stored.files, stored.environment


def load_stored_template(
    session: Session, template_id: int, encryptor: Encryptor | None = None
) -> StoredTemplate:
    """``load_template`` with the id of the files' row."""
    # One query with its files (every nested stack's action reads its template).
    row = driver.first(session.connection(), _TEMPLATE_WITH_FILES, {"template_id": template_id})
    if row is None:
        raise LookupError(f"raw template {template_id} not found")
    files: dict[str, str] = dict(row.files or {})
    env = dict(row.environment or {})
    encrypted = env.get(ENCRYPTED_PARAM_NAMES) or []
    if encrypted and encryptor is not None:
        params = dict(env.get("parameters") or {})
        for name in encrypted:
            if name in params and isinstance(params[name], str):
                params[name] = encryptor.decrypt(params[name])
        env["parameters"] = params
    env[ENCRYPTED_PARAM_NAMES] = []
    return StoredTemplate(dict(row.template or {}), files, env, row.files_id)


def environment_as_loaded(environment: Mapping[str, Any], sealed: bool) -> dict[str, Any]:
    """What ``load_template`` gives back of an environment ``store_template`` was given
    (``sealed``: with an encryptor), without the round trip."""
    env = dict(environment)
    if sealed:
        env["parameters"] = dict(env.get("parameters") or {})
    env[ENCRYPTED_PARAM_NAMES] = []
    return env


def delete_template(session: Session, template_id: int | None) -> None:
    """Delete a stored template once nothing refers to it any more.

    Resources keep the template they were last acted on with (``current_template_id``), so
    a previous template stays while an unfinished update leaves resources on it.
    """
    if template_id is None:
        return
    row = session.get(RawTemplate, template_id)
    if row is None:
        return
    in_use = session.scalar(
        select(func.count()).select_from(Resource).where(
            Resource.current_template_id == template_id
        )
    ) or session.scalar(
        select(func.count()).select_from(Stack).where(
            or_(Stack.raw_template_id == template_id, Stack.prev_raw_template_id == template_id)
        )
    )
    if in_use:
        return
    files_id = row.files_id
    session.delete(row)
    session.flush()
    # A tree's stacks share their files' row: it goes with the last template on it.
    if files_id is not None and session.scalar(
        select(RawTemplate.id).where(RawTemplate.files_id == files_id).limit(1)
    ) is None:
        session.execute(delete(RawTemplateFiles).where(RawTemplateFiles.id == files_id))


def create_stack(session: Session, tags: Sequence[str] = (), **fields: Any) -> str:
    """A new stack's row and tags; its id (``fields``' or a new one). A stack without a root
    is its own. Core inserts: one per stack, nested ones included, and the ORM's unit of work
    costs more than they do."""
    session.flush()  # (what the ORM holds for it, first)
    values = dict(fields)
    values["id"] = values.get("id") or new_uuid()
    values["root_stack_id"] = values.get("root_stack_id") or values["id"]
    connection = session.connection()
    driver.execute_write(connection, _INSERTS[_STACKS.name], values)
    if tags:
        connection.execute(_INSERTS[_TAGS.name],
                           [{"stack_id": values["id"], "tag": tag} for tag in tags])
    return str(values["id"])


def get_stack(session: Session, stack_id: str, *, show_deleted: bool = True) -> Stack | None:
    """The stack's ORM row."""
    row = session.get(Stack, stack_id)
    if row is None or (row.deleted_at is not None and not show_deleted):
        return None
    return row


# What an action reads of its stack's row (``hearth.engine.running.loaded_stack``).
_RUN_COLUMNS = select(
    Stack.id, Stack.name, Stack.tenant, Stack.username, Stack.nested_depth, Stack.root_stack_id,
    Stack.owner_id, Stack.parent_resource_name, Stack.disable_rollback, Stack.timeout,
    Stack.raw_template_id, Stack.prev_raw_template_id, Stack.current_traversal,
    # What a delete reads of the action it may stop.
    Stack.action, Stack.status,
    # And what a lookup checks (a delete looks its stack up this way).
    Stack.stack_user_project_id, Stack.deleted_at,
)
_RUN_COLUMNS_BY_ID = _RUN_COLUMNS.where(Stack.id == bindparam("id_"))


def run_columns(session: Session, stack_id: str) -> Any:
    """The columns an action reads of a stack, deleted or not (None if there is no row): a
    plain row, not an ORM object with its tags, since every nested stack's action reads it."""
    return driver.first(session.connection(), _RUN_COLUMNS_BY_ID, {"id_": stack_id})


def _live_columns(session: Session, stack_id: str, *columns: Any) -> Any:
    """A few columns of a live stack (None if it is gone): a whole ORM row per child stack
    costs more than its resources."""
    return session.execute(
        select(*columns).where(Stack.id == stack_id, Stack.deleted_at.is_(None))
    ).first()


def stack_state(session: Session, stack_id: str) -> tuple[str, str, str] | None:
    """(action, status, reason) of a live stack: the few columns a parent polls for."""
    row = _live_columns(session, stack_id, Stack.action, Stack.status, Stack.status_reason)
    if row is None:
        return None
    return row.action or "", row.status or "", row.status_reason or ""


def stack_last_action(
    session: Session, stack_id: str
) -> tuple[str, str, datetime | None] | None:
    """(action, status, updated_at) of a live stack: when its last action ended."""
    row = _live_columns(session, stack_id, Stack.action, Stack.status, Stack.updated_at)
    if row is None:
        return None
    return row.action or "", row.status or "", row.updated_at


def stack_brief(
    session: Session, stack_id: str
) -> tuple[str, str, str | None, str | None, str | None] | None:
    """(id, name, tenant, username, action) of a live stack."""
    row = _live_columns(
        session, stack_id, Stack.id, Stack.name, Stack.tenant, Stack.username, Stack.action
    )
    return None if row is None else tuple(row)


def stack_outputs(session: Session, stack_id: str) -> Any:
    """The stored outputs of a live stack (None if it is gone)."""
    row = _live_columns(session, stack_id, Stack.outputs)
    return None if row is None else row[0]


def claim_user_project(session: Session, stack_id: str, project_id: str) -> None:
    """Set the stack's user project unless it has one already (a compare-and-set)."""
    session.execute(
        update(Stack)
        .where(Stack.id == stack_id, Stack.stack_user_project_id.is_(None))
        .values(stack_user_project_id=project_id)
    )


def find_stack(
    session: Session,
    tenant: str | None,
    name_or_id: str,
    *,
    show_deleted: bool = False,
) -> Stack | None:
    """A stack by id, then by name, within a project (None: any project). Backups excluded."""
    conds: list[Any] = [Stack.backup.is_(False)]
    if tenant is not None:
        conds.append(Stack.tenant == tenant)
    if not show_deleted:
        conds.append(Stack.deleted_at.is_(None))
    row = session.scalars(select(Stack).where(Stack.id == name_or_id, *conds)).first()
    if row is not None:
        return row
    stmt = (
        select(Stack)
        .where(Stack.name == name_or_id, *conds)
        .order_by(Stack.deleted_at.is_not(None), Stack.created_at.desc())
    )
    return session.scalars(stmt).first()


def name_taken(session: Session, tenant: str, name: str) -> bool:
    stmt = select(Stack.id).where(
        Stack.tenant == tenant,
        Stack.name == name,
        Stack.deleted_at.is_(None),
        Stack.backup.is_(False),
        Stack.owner_id.is_(None),
    )
    return session.scalars(stmt).first() is not None


def find_child_id(session: Session, owner_id: str, name: str) -> str | None:
    """The id of a live nested stack of ``owner_id`` by name."""
    row = driver.first(session.connection(), _CHILD_ID, {"owner_id": owner_id, "name": name})
    return None if row is None else str(row.id)


def count_top_level(session: Session, tenant: str, hidden_tags: Sequence[str] = ()) -> int:
    stmt = select(func.count(Stack.id)).where(
        Stack.tenant == tenant,
        Stack.deleted_at.is_(None),
        Stack.owner_id.is_(None),
        Stack.backup.is_(False),
    )
    if hidden_tags:
        stmt = stmt.where(not_(Stack.tags.any(StackTag.tag.in_(hidden_tags))))
    return int(session.scalar(stmt) or 0)


def set_state(
    session: Session,
    stack_id: str,
    action: str,
    status: str,
    reason: str,
    **fields: Any,
) -> None:
    # A Core statement, as every action of every stack writes its state twice; pending ORM
    # changes go first, as the ORM's own UPDATE would flush them. A stack's ORM row already
    # in the session keeps the state it was read with.
    session.flush()
    driver.execute_write(session.connection(), _UPDATE_STACK, {
        "id_": stack_id, "action": action, "status": status, "status_reason": reason, **fields,
    })


def set_fields(session: Session, stack_id: str, **fields: Any) -> None:
    session.execute(update(Stack).where(Stack.id == stack_id).values(**fields))


def claim_traversal(
    session: Session, stack_id: str, expected: str | None, traversal_id: str, **fields: Any
) -> bool:
    """Make ``traversal_id`` the stack's traversal if it still is ``expected``; False when
    another one took the stack first (a newer update)."""
    # A Core statement (at the end of every action of every stack): the ORM's costs twice as
    # much, and no caller holds the stack's ORM row in the session to be kept in step.
    params = {"id_": stack_id, "current_traversal": traversal_id, **fields}
    if expected is not None:
        params["expected_"] = expected
    return driver.execute_write(session.connection(), _CLAIM[expected is None], params) > 0


def set_tags(session: Session, stack: Stack, tags: Sequence[str]) -> None:
    stack.tags = [StackTag(tag=t) for t in tags]


def in_progress_stack_ids(session: Session) -> list[str]:
    """The ids of the live stacks IN_PROGRESS (read every heartbeat: ids only, not rows
    whose sealed outputs would each be decrypted)."""
    stmt = select(Stack.id).where(Stack.status == "IN_PROGRESS", Stack.deleted_at.is_(None))
    return [str(stack_id) for stack_id in session.scalars(stmt)]


SORT_KEYS = {
    "stack_name": Stack.name,
    "stack_status": Stack.status,
    "creation_time": Stack.created_at,
    "updated_time": Stack.updated_at,
    "created_at": Stack.created_at,
    "updated_at": Stack.updated_at,
    "name": Stack.name,
    "status": Stack.status,
}

FILTER_COLUMNS = {
    "id": Stack.id,
    "name": Stack.name,
    "stack_name": Stack.name,
    "status": Stack.status,
    "stack_status": Stack.status,
    "action": Stack.action,
    "stack_action": Stack.action,
    "tenant": Stack.tenant,
    "username": Stack.username,
    "stack_owner": Stack.username,
    "owner_id": Stack.owner_id,
    "parent": Stack.owner_id,
    "stack_status_reason": Stack.status_reason,
    "disable_rollback": Stack.disable_rollback,
    "timeout_mins": Stack.timeout,
    "stack_user_project_id": Stack.stack_user_project_id,
}


def _having_all(tags: Sequence[str]) -> Any:
    """Ids of the stacks that have every one of ``tags``: one grouped query, whatever their
    number (a condition per tag nests past the database's expression depth limit)."""
    wanted = set(tags)
    return (select(StackTag.stack_id).where(StackTag.tag.in_(wanted))
            .group_by(StackTag.stack_id)
            .having(func.count(func.distinct(StackTag.tag)) == len(wanted)))


def _tag_filters(
    tags: Sequence[str] | None,
    tags_any: Sequence[str] | None,
    not_tags: Sequence[str] | None,
    not_tags_any: Sequence[str] | None,
) -> list[Any]:
    conds: list[Any] = []
    if tags:
        conds.append(Stack.id.in_(_having_all(tags)))
    if tags_any:
        conds.append(Stack.tags.any(StackTag.tag.in_(tags_any)))
    if not_tags:
        conds.append(Stack.id.not_in(_having_all(not_tags)))
    if not_tags_any:
        conds.append(not_(Stack.tags.any(StackTag.tag.in_(not_tags_any))))
    return conds


def list_stacks(
    session: Session,
    tenant: str | None,
    *,
    filters: Mapping[str, Sequence[Any]] | None = None,
    limit: int | None = None,
    marker: str | None = None,
    sort_keys: Sequence[str] = (),
    sort_dir: str | None = None,
    show_deleted: bool = False,
    show_nested: bool = False,
    hidden_tags: Sequence[str] = (),
    tags: Sequence[str] | None = None,
    tags_any: Sequence[str] | None = None,
    not_tags: Sequence[str] | None = None,
    not_tags_any: Sequence[str] | None = None,
    count_only: bool = False,
) -> list[Stack] | int:
    """Stacks of a project (None: all projects) with Heat's filters, sorting and paging."""
    conds: list[Any] = [Stack.backup.is_(False)]
    if tenant is not None:
        conds.append(Stack.tenant == tenant)
    if not show_deleted:
        conds.append(Stack.deleted_at.is_(None))
    if not show_nested:
        conds.append(Stack.owner_id.is_(None))
    if hidden_tags:
        conds.append(not_(Stack.tags.any(StackTag.tag.in_(hidden_tags))))
    for key, values in (filters or {}).items():
        column = FILTER_COLUMNS[key]
        # An empty list of accepted values matches nothing.
        conds.append(or_(*(column == v for v in values)) if values else false())
    conds.extend(_tag_filters(tags, tags_any, not_tags, not_tags_any))
    if count_only:
        return int(session.scalar(select(func.count(Stack.id)).where(*conds)) or 0)
    columns = [SORT_KEYS[k] for k in sort_keys if k in SORT_KEYS]
    # Heat: newest first by default; ascending once sort keys are given without a direction.
    descending = sort_dir == "desc" if sort_dir else not columns
    columns = columns or [Stack.created_at]
    order: list[Any] = [c.desc() if descending else c.asc() for c in columns]
    order.append(Stack.id.desc() if descending else Stack.id.asc())
    stmt = select(Stack).where(*conds)
    if marker is not None:
        marker_row = session.get(Stack, marker)
        if marker_row is not None:
            keys = [*columns, Stack.id]
            values = [getattr(marker_row, c.key) for c in keys]
            stmt = stmt.where(after_marker(keys, values, descending))
    stmt = stmt.order_by(*order)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(session.scalars(stmt))


def children(session: Session, stack_id: str) -> list[Stack]:
    stmt = select(Stack).where(Stack.owner_id == stack_id, Stack.deleted_at.is_(None))
    return list(session.scalars(stmt))
