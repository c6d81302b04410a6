"""The stack a request names, found only when the caller may see it.

A stack is visible to its own project (to any with admin), under its own name when the
request gives one, until it is deleted; signals of in-instance agents also reach it from its
stack user project. Anything else is "not found", as Heat answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol, TypeVar

from hearth.common.context import RequestContext
from hearth.common.errors import EntityNotFound
from hearth.store import stacks as stack_store
from hearth.store.db import Session
from hearth.store.models import Stack as StackRow


def live_stack(
    session: Session, ctx: RequestContext, identity: Mapping[str, Any],
    *, stack_users: bool = False,
) -> StackRow:
    """A live stack of the caller's project (``stack_users``: or whose stack user project
    the caller is in: signals of in-instance agents)."""
    row = stack_store.get_stack(session, str(identity.get("stack_id", "")), show_deleted=True)
    return _visible(row, ctx, identity, stack_users)


def live_stack_columns(
    session: Session, ctx: RequestContext, identity: Mapping[str, Any]
) -> Any:
    """``live_stack`` as the plain row of the columns an action reads (``run_columns``)."""
    row = stack_store.run_columns(session, str(identity.get("stack_id", "")))
    return _visible(row, ctx, identity, False)


class _Visible(Protocol):
    """What a lookup checks of a stack row (an ORM row or a plain one)."""

    @property
    def name(self) -> str: ...
    @property
    def tenant(self) -> str | None: ...
    @property
    def stack_user_project_id(self) -> str | None: ...
    @property
    def deleted_at(self) -> datetime | None: ...


_Row = TypeVar("_Row", bound=_Visible)


def _visible(row: _Row | None, ctx: RequestContext, identity: Mapping[str, Any],
             stack_users: bool) -> _Row:
    """``row`` when it is a live stack of the caller's project (``stack_users``: or whose
    stack user project the caller is in); EntityNotFound otherwise."""
    if (
        row is None
        or (row.tenant != ctx.project_id and not ctx.is_admin
            and not (stack_users and row.stack_user_project_id == ctx.project_id))
        or (identity.get("stack_name") and row.name != identity["stack_name"])
        or row.deleted_at is not None
    ):
        stack_id = str(identity.get("stack_id", ""))
        raise EntityNotFound("Stack", str(identity.get("stack_name") or stack_id))
    return row
