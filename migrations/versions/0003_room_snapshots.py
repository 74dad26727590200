"""running rooms: room_snapshots and room_log, to resume games after a restart

Revision ID: 0003
Revises: 0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_snapshots",
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], ondelete="CASCADE",
                                name=op.f("fk_room_snapshots_room_id_rooms")),
        sa.PrimaryKeyConstraint("room_id", name=op.f("pk_room_snapshots")),
    )
    op.create_index(op.f("ix_room_snapshots_active"), "room_snapshots", ["active"])
    op.create_table(
        "room_log",
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("entry", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["room_id"], ["rooms.id"], ondelete="CASCADE",
                                name=op.f("fk_room_log_room_id_rooms")),
        sa.PrimaryKeyConstraint("room_id", "seq", name=op.f("pk_room_log")),
    )


def downgrade() -> None:
    op.drop_table("room_log")
    op.drop_index(op.f("ix_room_snapshots_active"), table_name="room_snapshots")
    op.drop_table("room_snapshots")
