"""Resources count the takeovers of the step in flight.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25

A step carried on after its engine died more than ``step_takeover_limit`` times fails rather
than being run again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("resource") as table:
        table.add_column(
            sa.Column("takeovers", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("resource") as table:
        table.drop_column("takeovers")
