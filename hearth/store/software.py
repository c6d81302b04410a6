"""Software configs and software deployments: rows in, rows out, scoped as Heat scopes them.

A config belongs to one project and only that project sees it. A deployment is seen by its
project and by its ``stack_user_project_id`` (the in-instance users of the server it deploys
to). An admin sees every config and deployment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from hearth.store.models import SoftwareConfig, SoftwareDeployment
from hearth.store.queries import after_marker

# --- configs ---------------------------------------------------------------------------------


def create_config(
    session: Session,
    *,
    tenant: str,
    name: str | None,
    group: str | None,
    config: dict[str, Any],
) -> SoftwareConfig:
    row = SoftwareConfig(tenant=tenant, name=name, group=group, config=config)
    session.add(row)
    session.flush()
    return row


def scoped_config(
    session: Session, config_id: str, *, project: str, is_admin: bool
) -> SoftwareConfig | None:
    """A config by id, if the caller may see it."""
    row = session.get(SoftwareConfig, config_id)
    if row is None or (not is_admin and row.tenant != project):
        return None
    return row


def list_configs(
    session: Session,
    tenant: str | None,
    *,
    limit: int | None = None,
    marker: str | None = None,
) -> list[SoftwareConfig]:
    """Configs of a project (None: of all projects), newest first, paged by ``marker``.

    A marker that names no config is ignored (the page starts at the beginning), as in Heat.
    """
    stmt = select(SoftwareConfig)
    if tenant is not None:
        stmt = stmt.where(SoftwareConfig.tenant == tenant)
    if marker is not None:
        marker_row = session.get(SoftwareConfig, marker)
        if marker_row is not None:
            keys = [SoftwareConfig.created_at, SoftwareConfig.id]
            values = [marker_row.created_at, marker_row.id]
            stmt = stmt.where(after_marker(keys, values, descending=True))
    stmt = stmt.order_by(SoftwareConfig.created_at.desc(), SoftwareConfig.id.desc())
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(session.scalars(stmt))


def count_configs(session: Session, tenant: str) -> int:
    stmt = select(func.count(SoftwareConfig.id)).where(SoftwareConfig.tenant == tenant)
    return int(session.scalar(stmt) or 0)


def configs_by_id(session: Session, config_ids: Iterable[str]) -> dict[str, SoftwareConfig]:
    ids = list(set(config_ids))
    if not ids:
        return {}
    stmt = select(SoftwareConfig).where(SoftwareConfig.id.in_(ids))
    return {row.id: row for row in session.scalars(stmt)}


def config_in_use(session: Session, config_id: str) -> bool:
    """Whether any deployment (of any project) refers to the config."""
    stmt = select(SoftwareDeployment.id).where(SoftwareDeployment.config_id == config_id)
    return session.scalars(stmt.limit(1)).first() is not None


def delete_config(session: Session, config_id: str) -> None:
    session.execute(delete(SoftwareConfig).where(SoftwareConfig.id == config_id))


# --- deployments -----------------------------------------------------------------------------


def _visible_to(project: str) -> Any:
    return or_(
        SoftwareDeployment.tenant == project,
        SoftwareDeployment.stack_user_project_id == project,
    )


def create_deployment(session: Session, **fields: Any) -> SoftwareDeployment:
    row = SoftwareDeployment(**fields)
    session.add(row)
    session.flush()
    return row


def scoped_deployment(
    session: Session,
    deployment_id: str,
    *,
    project: str,
    is_admin: bool,
    for_update: bool = False,
) -> SoftwareDeployment | None:
    """A deployment by id, if the caller may see it (``for_update``: row-locked)."""
    row = session.get(SoftwareDeployment, deployment_id, with_for_update=for_update)
    if row is None:
        return None
    if not is_admin and project not in (row.tenant, row.stack_user_project_id):
        return None
    return row


def list_deployments(
    session: Session, project: str | None, *, server_id: str | None = None
) -> list[tuple[SoftwareDeployment, SoftwareConfig]]:
    """Deployments a project may see (None: all), oldest first, each with its config."""
    stmt = select(SoftwareDeployment, SoftwareConfig).join(
        SoftwareConfig, SoftwareConfig.id == SoftwareDeployment.config_id
    )
    if project is not None:
        stmt = stmt.where(_visible_to(project))
    if server_id:
        stmt = stmt.where(SoftwareDeployment.server_id == server_id)
    stmt = stmt.order_by(SoftwareDeployment.created_at, SoftwareDeployment.id)
    return [(deployment, config) for deployment, config in session.execute(stmt)]


def count_deployments(session: Session, project: str) -> int:
    stmt = select(func.count(SoftwareDeployment.id)).where(_visible_to(project))
    return int(session.scalar(stmt) or 0)


def delete_deployment(session: Session, deployment_id: str) -> None:
    session.execute(delete(SoftwareDeployment).where(SoftwareDeployment.id == deployment_id))
