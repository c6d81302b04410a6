"""The database tables, as SQLAlchemy 2 declarative models.

Columns of resolved values (which may hold a hidden parameter or a credential) are
``SealedJson``: encrypted at rest with the engine's key (see ``hearth.store.sealing``).

The schema itself is created by the Alembic migrations in ``hearth/store/migrations``; a test
compares these models with the migrated database on every backend, so the two cannot drift.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from hearth.common.ids import new_uuid
from hearth.store.sealing import SealedJson
from hearth.store.types import Json, LongText, Timestamp, TruncatedString, utcnow

# Explicit constraint names, so that migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# utf8mb4_bin: full Unicode, and names compare case-sensitively as on PostgreSQL and SQLite.
MYSQL_TABLE_OPTIONS = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    __table_args__: Any = MYSQL_TABLE_OPTIONS

    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(Timestamp, onupdate=utcnow)


class ExplicitUpdateTime(Base):
    """``updated_at`` is the time the last update action was asked for, not the row's last write.

    Heat reports it as ``updated_time`` (None until the first update) and measures an action's
    timeout from it, so the engine sets it itself.
    """

    __abstract__ = True

    updated_at: Mapped[datetime | None] = mapped_column(Timestamp)


class RawTemplateFiles(Base):
    __tablename__ = "raw_template_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    files: Mapped[dict[str, Any] | None] = mapped_column(Json)


class RawTemplate(Base):
    __tablename__ = "raw_template"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    template: Mapped[dict[str, Any] | None] = mapped_column(Json)
    files_id: Mapped[int | None] = mapped_column(
        ForeignKey("raw_template_files.id"), index=True
    )
    environment: Mapped[dict[str, Any] | None] = mapped_column(Json)


class UserCreds(Base):
    __tablename__ = "user_creds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str | None] = mapped_column(String(255))
    password: Mapped[str | None] = mapped_column(LongText)
    tenant: Mapped[str | None] = mapped_column(String(1024))
    tenant_id: Mapped[str | None] = mapped_column(String(256))
    auth_url: Mapped[str | None] = mapped_column(Text)
    trust_id: Mapped[str | None] = mapped_column(String(255))
    trustor_user_id: Mapped[str | None] = mapped_column(String(64))
    region_name: Mapped[str | None] = mapped_column(String(255))
    decrypt_method: Mapped[str | None] = mapped_column(String(64))


class Stack(ExplicitUpdateTime):
    __tablename__ = "stack"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(255), index=True)
    raw_template_id: Mapped[int] = mapped_column(
        ForeignKey("raw_template.id"), nullable=False, index=True
    )
    prev_raw_template_id: Mapped[int | None] = mapped_column(
        ForeignKey("raw_template.id"), index=True
    )
    username: Mapped[str | None] = mapped_column(String(256))
    tenant: Mapped[str | None] = mapped_column(String(256), index=True)
    user_creds_id: Mapped[int | None] = mapped_column(ForeignKey("user_creds.id"), index=True)
    owner_id: Mapped[str | None] = mapped_column(String(36), index=True)
    parent_resource_name: Mapped[str | None] = mapped_column(String(255))
    timeout: Mapped[int | None] = mapped_column(Integer)
    disable_rollback: Mapped[bool] = mapped_column(Boolean, nullable=False)
    stack_user_project_id: Mapped[str | None] = mapped_column(String(64))
    backup: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    nested_depth: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    convergence: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    current_traversal: Mapped[str | None] = mapped_column(String(36))
    # The running traversal's graph can be large: loaded only when asked for.
    current_deps: Mapped[Any] = mapped_column(Json, nullable=True, deferred=True)
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(LongText)
    outputs: Mapped[Any] = mapped_column(SealedJson, nullable=True)
    deleted_at: Mapped[datetime | None] = mapped_column(Timestamp, index=True)
    root_stack_id: Mapped[str | None] = mapped_column(String(36), index=True)

    tags: Mapped[list[StackTag]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", passive_deletes=True
    )


class StackTag(Base):
    __tablename__ = "stack_tag"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tag: Mapped[str] = mapped_column(String(80))
    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), nullable=False, index=True
    )


class StackLock(Base):
    __tablename__ = "stack_lock"

    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), primary_key=True
    )
    engine_id: Mapped[str | None] = mapped_column(String(36))
    message: Mapped[str | None] = mapped_column(String(255))


class ResourcePropertiesData(Base):
    __tablename__ = "resource_properties_data"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    data: Mapped[dict[str, Any] | None] = mapped_column(Json)
    encrypted: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)


class Resource(ExplicitUpdateTime):
    __tablename__ = "resource"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(255))
    physical_resource_id: Mapped[str | None] = mapped_column(String(255), index=True)
    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), nullable=False, index=True
    )
    root_stack_id: Mapped[str | None] = mapped_column(String(36), index=True)
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(LongText)
    rsrc_metadata: Mapped[Any] = mapped_column(SealedJson, nullable=True)
    rsrc_prop_data_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_properties_data.id"), index=True
    )
    attr_data: Mapped[Any] = mapped_column(SealedJson, nullable=True)
    engine_id: Mapped[str | None] = mapped_column(String(36))
    atomic_key: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    requires: Mapped[list[int]] = mapped_column(Json, nullable=False, default=lambda: [])
    replaces: Mapped[int | None] = mapped_column(Integer)
    replaced_by: Mapped[int | None] = mapped_column(Integer)
    current_template_id: Mapped[int | None] = mapped_column(
        ForeignKey("raw_template.id"), index=True
    )
    traversal_id: Mapped[str | None] = mapped_column(String(36))
    step_cookie: Mapped[Any] = mapped_column(SealedJson, nullable=True)
    # Times the step in flight was carried on after its engine died (see step_takeover_limit).
    takeovers: Mapped[int] = mapped_column(Integer, nullable=False, default=0,
                                           server_default="0")
    resource_type: Mapped[str | None] = mapped_column(String(255))
    definition: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)


class ResourceData(Base):
    __tablename__ = "resource_data"
    __table_args__ = (UniqueConstraint("resource_id", "key"), MYSQL_TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str | None] = mapped_column(LongText)
    redact: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    decrypt_method: Mapped[str | None] = mapped_column(String(64))
    resource_id: Mapped[int] = mapped_column(
        ForeignKey("resource.id", ondelete="CASCADE"), nullable=False
    )


class Event(Base):
    __tablename__ = "event"
    # Events are listed per stack in id order.
    __table_args__ = (Index(None, "stack_id", "id"), MYSQL_TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True, default=new_uuid)
    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), nullable=False
    )
    resource_action: Mapped[str | None] = mapped_column(String(255))
    resource_status: Mapped[str | None] = mapped_column(String(255))
    resource_name: Mapped[str | None] = mapped_column(String(255))
    physical_resource_id: Mapped[str | None] = mapped_column(String(255))
    resource_status_reason: Mapped[str | None] = mapped_column(TruncatedString(255))
    resource_type: Mapped[str | None] = mapped_column(String(255))
    rsrc_prop_data_id: Mapped[int | None] = mapped_column(
        ForeignKey("resource_properties_data.id"), index=True
    )


class SoftwareConfig(Base):
    __tablename__ = "software_config"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str | None] = mapped_column(String(255))
    group: Mapped[str | None] = mapped_column(String(255))
    config: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)


class SoftwareDeployment(ExplicitUpdateTime):
    __tablename__ = "software_deployment"
    __table_args__ = (Index(None, "created_at"), MYSQL_TABLE_OPTIONS)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    config_id: Mapped[str] = mapped_column(
        ForeignKey("software_config.id"), nullable=False, index=True
    )
    server_id: Mapped[str] = mapped_column(String(36), nullable=False, index=True)
    input_values: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)
    output_values: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    stack_user_project_id: Mapped[str | None] = mapped_column(String(64))
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(LongText)


class Snapshot(Base):
    __tablename__ = "snapshot"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    stack_id: Mapped[str] = mapped_column(
        ForeignKey("stack.id", ondelete="CASCADE"), nullable=False, index=True
    )
    name: Mapped[str | None] = mapped_column(String(255))
    data: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)
    tenant: Mapped[str] = mapped_column(String(64), nullable=False, index=True)
    action: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(255))
    status_reason: Mapped[str | None] = mapped_column(TruncatedString(255))


class ResourceSnapshot(Base):
    __tablename__ = "resource_snapshot"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    snapshot_id: Mapped[str] = mapped_column(
        ForeignKey("snapshot.id", ondelete="CASCADE"), nullable=False, index=True
    )
    resource_name: Mapped[str | None] = mapped_column(String(255))
    data: Mapped[dict[str, Any] | None] = mapped_column(SealedJson)


class Service(Base):
    __tablename__ = "service"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    engine_id: Mapped[str] = mapped_column(String(36), nullable=False)
    host: Mapped[str] = mapped_column(String(255), nullable=False)
    hostname: Mapped[str] = mapped_column(String(255), nullable=False)
    binary: Mapped[str] = mapped_column(String(255), nullable=False)
    topic: Mapped[str] = mapped_column(String(255), nullable=False)
    report_interval: Mapped[int] = mapped_column(Integer, nullable=False)
    deleted_at: Mapped[datetime | None] = mapped_column(Timestamp)
