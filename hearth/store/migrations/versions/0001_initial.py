"""The initial schema.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Column types are spelled out here rather than taken from the models, so that this revision
keeps creating the same tables however the models change later.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

_MYSQL = ("mysql", "mariadb")
JSON = sa.JSON().with_variant(mysql.LONGTEXT(), *_MYSQL)
LONG_TEXT = sa.Text().with_variant(mysql.LONGTEXT(), *_MYSQL)
TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), *_MYSQL)
TABLE_OPTIONS: dict[str, Any] = {
    "mysql_engine": "InnoDB",
    "mysql_charset": "utf8mb4",
    "mysql_collate": "utf8mb4_bin",
}


def _timestamps() -> list[sa.Column[Any]]:
    return [
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=True),
    ]


def _state(reason: sa.types.TypeEngine[Any]) -> list[sa.Column[Any]]:
    return [
        sa.Column("action", sa.String(255), nullable=True),
        sa.Column("status", sa.String(255), nullable=True),
        sa.Column("status_reason", reason, nullable=True),
    ]


def _index(table: str, *columns: str) -> None:
    op.create_index(f"ix_{table}_{'_'.join(columns)}", table, list(columns))


def upgrade() -> None:
    op.create_table(
        "raw_template_files",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("files", JSON, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_raw_template_files"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "raw_template",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("template", JSON, nullable=True),
        sa.Column("files_id", sa.Integer, nullable=True),
        sa.Column("environment", JSON, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_raw_template"),
        sa.ForeignKeyConstraint(
            ["files_id"], ["raw_template_files.id"],
            name="fk_raw_template_files_id_raw_template_files",
        ),
        **TABLE_OPTIONS,
    )
    _index("raw_template", "files_id")

    op.create_table(
        "user_creds",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("username", sa.String(255), nullable=True),
        sa.Column("password", LONG_TEXT, nullable=True),
        sa.Column("tenant", sa.String(1024), nullable=True),
        sa.Column("tenant_id", sa.String(256), nullable=True),
        sa.Column("auth_url", sa.Text, nullable=True),
        sa.Column("trust_id", sa.String(255), nullable=True),
        sa.Column("trustor_user_id", sa.String(64), nullable=True),
        sa.Column("region_name", sa.String(255), nullable=True),
        sa.Column("decrypt_method", sa.String(64), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_user_creds"),
        **TABLE_OPTIONS,
    )

    op.create_table(
        "stack",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("raw_template_id", sa.Integer, nullable=False),
        sa.Column("prev_raw_template_id", sa.Integer, nullable=True),
        sa.Column("username", sa.String(256), nullable=True),
        sa.Column("tenant", sa.String(256), nullable=True),
        sa.Column("user_creds_id", sa.Integer, nullable=True),
        sa.Column("owner_id", sa.String(36), nullable=True),
        sa.Column("parent_resource_name", sa.String(255), nullable=True),
        sa.Column("timeout", sa.Integer, nullable=True),
        sa.Column("disable_rollback", sa.Boolean, nullable=False),
        sa.Column("stack_user_project_id", sa.String(64), nullable=True),
        sa.Column("backup", sa.Boolean, nullable=False),
        sa.Column("nested_depth", sa.Integer, nullable=False),
        sa.Column("convergence", sa.Boolean, nullable=False),
        sa.Column("current_traversal", sa.String(36), nullable=True),
        sa.Column("current_deps", JSON, nullable=True),
        *_state(LONG_TEXT),
        sa.Column("outputs", JSON, nullable=True),
        sa.Column("deleted_at", TIMESTAMP, nullable=True),
        sa.Column("root_stack_id", sa.String(36), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_stack"),
        sa.ForeignKeyConstraint(
            ["raw_template_id"], ["raw_template.id"],
            name="fk_stack_raw_template_id_raw_template",
        ),
        sa.ForeignKeyConstraint(
            ["prev_raw_template_id"], ["raw_template.id"],
            name="fk_stack_prev_raw_template_id_raw_template",
        ),
        sa.ForeignKeyConstraint(
            ["user_creds_id"], ["user_creds.id"], name="fk_stack_user_creds_id_user_creds"
        ),
        **TABLE_OPTIONS,
    )
    for column in (
        "name", "raw_template_id", "prev_raw_template_id", "tenant", "user_creds_id",
        "owner_id", "deleted_at", "root_stack_id",
    ):
        _index("stack", column)

    op.create_table(
        "stack_tag",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("tag", sa.String(80), nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_stack_tag"),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name="fk_stack_tag_stack_id_stack", ondelete="CASCADE"
        ),
        **TABLE_OPTIONS,
    )
    _index("stack_tag", "stack_id")

    op.create_table(
        "stack_lock",
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("engine_id", sa.String(36), nullable=True),
        sa.Column("message", sa.String(255), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("stack_id", name="pk_stack_lock"),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name="fk_stack_lock_stack_id_stack", ondelete="CASCADE"
        ),
        **TABLE_OPTIONS,
    )

    op.create_table(
        "resource_properties_data",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("data", JSON, nullable=True),
        sa.Column("encrypted", sa.Boolean, nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_resource_properties_data"),
        **TABLE_OPTIONS,
    )

    op.create_table(
        "resource",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("physical_resource_id", sa.String(255), nullable=True),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("root_stack_id", sa.String(36), nullable=True),
        *_state(LONG_TEXT),
        sa.Column("rsrc_metadata", JSON, nullable=True),
        sa.Column("rsrc_prop_data_id", sa.Integer, nullable=True),
        sa.Column("attr_data", JSON, nullable=True),
        sa.Column("engine_id", sa.String(36), nullable=True),
        sa.Column("atomic_key", sa.Integer, nullable=False),
        sa.Column("requires", JSON, nullable=False),
        sa.Column("replaces", sa.Integer, nullable=True),
        sa.Column("replaced_by", sa.Integer, nullable=True),
        sa.Column("current_template_id", sa.Integer, nullable=True),
        sa.Column("traversal_id", sa.String(36), nullable=True),
        sa.Column("step_cookie", JSON, nullable=True),
        sa.Column("resource_type", sa.String(255), nullable=True),
        sa.Column("definition", JSON, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_resource"),
        sa.UniqueConstraint("uuid", name="uq_resource_uuid"),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name="fk_resource_stack_id_stack", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"], ["resource_properties_data.id"],
            name="fk_resource_rsrc_prop_data_id_resource_properties_data",
        ),
        sa.ForeignKeyConstraint(
            ["current_template_id"], ["raw_template.id"],
            name="fk_resource_current_template_id_raw_template",
        ),
        **TABLE_OPTIONS,
    )
    for column in (
        "physical_resource_id", "stack_id", "root_stack_id", "rsrc_prop_data_id",
        "current_template_id",
    ):
        _index("resource", column)

    op.create_table(
        "resource_data",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", LONG_TEXT, nullable=True),
        sa.Column("redact", sa.Boolean, nullable=False),
        sa.Column("decrypt_method", sa.String(64), nullable=True),
        sa.Column("resource_id", sa.Integer, nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_resource_data"),
        sa.ForeignKeyConstraint(
            ["resource_id"], ["resource.id"],
            name="fk_resource_data_resource_id_resource", ondelete="CASCADE",
        ),
        sa.UniqueConstraint("resource_id", "key", name="uq_resource_data_resource_id_key"),
        **TABLE_OPTIONS,
    )

    op.create_table(
        "event",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("resource_action", sa.String(255), nullable=True),
        sa.Column("resource_status", sa.String(255), nullable=True),
        sa.Column("resource_name", sa.String(255), nullable=True),
        sa.Column("physical_resource_id", sa.String(255), nullable=True),
        sa.Column("resource_status_reason", sa.String(255), nullable=True),
        sa.Column("resource_type", sa.String(255), nullable=True),
        sa.Column("rsrc_prop_data_id", sa.Integer, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_event"),
        sa.UniqueConstraint("uuid", name="uq_event_uuid"),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name="fk_event_stack_id_stack", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["rsrc_prop_data_id"], ["resource_properties_data.id"],
            name="fk_event_rsrc_prop_data_id_resource_properties_data",
        ),
        **TABLE_OPTIONS,
    )
    _index("event", "stack_id", "id")
    _index("event", "rsrc_prop_data_id")

    op.create_table(
        "software_config",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=True),
        sa.Column("group", sa.String(255), nullable=True),
        sa.Column("config", JSON, nullable=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_software_config"),
        **TABLE_OPTIONS,
    )
    _index("software_config", "tenant")

    op.create_table(
        "software_deployment",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("config_id", sa.String(36), nullable=False),
        sa.Column("server_id", sa.String(36), nullable=False),
        sa.Column("input_values", JSON, nullable=True),
        sa.Column("output_values", JSON, nullable=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("stack_user_project_id", sa.String(64), nullable=True),
        *_state(LONG_TEXT),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_software_deployment"),
        sa.ForeignKeyConstraint(
            ["config_id"], ["software_config.id"],
            name="fk_software_deployment_config_id_software_config",
        ),
        **TABLE_OPTIONS,
    )
    for column in ("config_id", "server_id", "tenant", "created_at"):
        _index("software_deployment", column)

    op.create_table(
        "snapshot",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("stack_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=True),
        sa.Column("data", JSON, nullable=True),
        sa.Column("tenant", sa.String(64), nullable=False),
        *_state(sa.String(255)),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_snapshot"),
        sa.ForeignKeyConstraint(
            ["stack_id"], ["stack.id"], name="fk_snapshot_stack_id_stack", ondelete="CASCADE"
        ),
        **TABLE_OPTIONS,
    )
    _index("snapshot", "stack_id")
    _index("snapshot", "tenant")

    op.create_table(
        "resource_snapshot",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("snapshot_id", sa.String(36), nullable=False),
        sa.Column("resource_name", sa.String(255), nullable=True),
        sa.Column("data", JSON, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_resource_snapshot"),
        sa.ForeignKeyConstraint(
            ["snapshot_id"], ["snapshot.id"],
            name="fk_resource_snapshot_snapshot_id_snapshot", ondelete="CASCADE",
        ),
        **TABLE_OPTIONS,
    )
    _index("resource_snapshot", "snapshot_id")

    op.create_table(
        "service",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("engine_id", sa.String(36), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("hostname", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("report_interval", sa.Integer, nullable=False),
        sa.Column("deleted_at", TIMESTAMP, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name="pk_service"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    for table in (
        "service", "resource_snapshot", "snapshot", "software_deployment", "software_config",
        "event", "resource_data", "resource", "resource_properties_data", "stack_lock",
        "stack_tag", "stack", "user_creds", "raw_template", "raw_template_files",
    ):
        op.drop_table(table)
