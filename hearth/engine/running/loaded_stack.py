"""What an action reads of its stack before it starts: the row's fields, the template, the
resource rows, the facade a nested stack sees, and the data and properties stored for its
resources.

Read from the database (``read``) for every action, or taken from what was just written
(``fresh``) when the engine that stored a new stack starts its create at once: the same
values without reading back, in one transaction, what that transaction wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.common.errors import HearthError
from hearth.engine.running.parent import StoredFacade, StoredFiles
from hearth.engine.running.records import ResourceRecord
from hearth.engine.running.stored_properties import StoredData, StoredProperties
from hearth.store import resources as resource_store
from hearth.store import stacks as stack_store
from hearth.store.crypto import Encryptor
from hearth.store.db import Database, Session
from hearth.store.resources import PlainResourceRow
from hearth.store.types import as_stored

if TYPE_CHECKING:
    from hearth.engine.stack_builder import BoundStack


@dataclass
class LoadedStack:
    name: str
    tenant: str
    username: str | None
    depth: int
    root_stack_id: str
    owner_id: str | None
    parent_resource: str | None
    disable_rollback: bool
    timeout_mins: int | None
    template_id: int
    prev_template_id: int | None
    traversal_id: str | None
    template: dict[str, Any]
    files: dict[str, str]
    environment: dict[str, Any]
    rows: list[ResourceRecord]
    # What resource_facade reads (a nested stack's): called with what it asks for.
    facade: Callable[[str], Any] | None
    data: StoredData
    properties: StoredProperties
    # The run's traversal and graph were stored with the stack (a create stored a moment
    # ago): the run has nothing to claim when it starts.
    traversal_stored: bool = False
    # The files as stored (``files`` above may gain fetched templates during the action).
    stored_files: StoredFiles | None = None
    # The definition's dependency graph, when whoever stored the stack a moment ago had it
    # (a create): its run does not work it out again.
    graph: dict[str, set[str]] | None = None
    # The definition whoever stored the stack a moment ago built and validated from the
    # same template and environment as stored: its run uses it rather than parse them again.
    bound: BoundStack | None = None


def read(db: Database, encryptor: Encryptor | None, stack_id: str) -> LoadedStack:
    """The stack as stored."""
    with db.session(readonly=True) as session:
        return read_in(session, db, encryptor, stack_id)


def read_in(
    session: Session, db: Database, encryptor: Encryptor | None, stack_id: str,
    row: Any = None,
) -> LoadedStack:
    """The stack as stored, read in the caller's transaction (which began its action);
    ``row``: its stack row, when the caller read it in that transaction already."""
    if row is None:
        row = stack_store.run_columns(session, stack_id)
    if row is None:
        raise HearthError(f"Stack {stack_id} disappeared")
    tmpl, files, env, files_id = stack_store.load_stored_template(
        session, row.raw_template_id, encryptor)
    rows = resource_store.rows_of_stack(session, stack_id)
    return LoadedStack(
        name=row.name,
        tenant=row.tenant or "",
        username=row.username,
        depth=row.nested_depth,
        root_stack_id=row.root_stack_id or row.id,
        owner_id=row.owner_id,
        parent_resource=row.parent_resource_name,
        disable_rollback=row.disable_rollback,
        timeout_mins=row.timeout,
        template_id=row.raw_template_id,
        prev_template_id=row.prev_raw_template_id,
        traversal_id=row.current_traversal,
        template=tmpl,
        files=files,
        environment=env,
        rows=[ResourceRecord.from_row(r) for r in rows],
        facade=StoredFacade(db, row) if row.owner_id is not None else None,
        data=StoredData(encryptor, db, stack_id),
        properties=StoredProperties(
            db, encryptor, session,
            (r.rsrc_prop_data_id for r in rows if r.rsrc_prop_data_id is not None),
        ),
        stored_files=_stored_files(files_id, files),
    )


def _stored_files(files_id: int | None, files: Mapping[str, str]) -> StoredFiles | None:
    return None if files_id is None else StoredFiles(files_id, dict(files))


def fresh(
    db: Database,
    encryptor: Encryptor | None,
    *,
    fields: Mapping[str, Any],
    template: Mapping[str, Any],
    files: Mapping[str, str],
    files_id: int,
    environment: Mapping[str, Any],
    rows: Sequence[PlainResourceRow],
    facade: Callable[[str], Any] | None,
    graph: dict[str, set[str]] | None = None,
    bound: BoundStack | None = None,
) -> LoadedStack:
    """A stack stored a moment ago: ``fields`` are its row's as written (with the run's
    traversal and graph, when they were stored with it), ``rows`` its INIT resource rows, for
    which nothing else is stored yet, ``files_id`` the row of its files. The template and
    environment go through JSON as stored ones do (keys become strings, tuples lists), so both
    loads are alike; ``bound``, the definition built from ``template`` and ``environment``,
    is handed to the run only where that leaves them as they were."""
    stack_id = str(fields["id"])
    stored_template = _as_stored(template)
    stored_environment = stack_store.environment_as_loaded(
        _as_stored(environment), sealed=encryptor is not None)
    if bound is not None and (stored_template != template
                              or stored_environment != environment):
        bound = None
    if bound is not None:
        # What only its validation needed (the tree's checked children, the caller's cloud).
        bound.checked_children = None
        bound.cloud_validation = None
    return LoadedStack(
        name=str(fields["name"]),
        tenant=str(fields.get("tenant") or ""),
        username=fields.get("username"),
        depth=int(fields.get("nested_depth") or 0),
        root_stack_id=str(fields.get("root_stack_id") or stack_id),
        owner_id=fields.get("owner_id"),
        parent_resource=fields.get("parent_resource_name"),
        disable_rollback=bool(fields.get("disable_rollback")),
        timeout_mins=fields.get("timeout"),
        template_id=int(fields["raw_template_id"]),
        prev_template_id=None,
        traversal_id=fields.get("current_traversal"),
        template=stored_template,
        # File names and contents are strings: JSON gives them back unchanged, so no round
        # trip (a tree of provider templates hands every child all of its files).
        files=dict(files),
        environment=stored_environment,
        rows=[ResourceRecord.from_row(r) for r in rows],
        facade=facade,
        data=StoredData.nothing_stored(encryptor),
        properties=StoredProperties.nothing_stored(db, encryptor),
        traversal_stored=fields.get("current_deps") is not None,
        stored_files=_stored_files(files_id, files),
        graph=graph,
        bound=bound,
    )


def _as_stored(value: Mapping[str, Any]) -> dict[str, Any]:
    loaded = as_stored(dict(value))
    assert isinstance(loaded, dict)
    return loaded
