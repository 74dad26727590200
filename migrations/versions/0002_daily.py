"""daily deal: daily_entries (with the leaderboard index) and server_secrets

Revision ID: 0002
Revises: 0001
Create Date: 2024-12-06 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "daily_entries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("rank_key", sa.Integer(), nullable=True),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.Column("finished_at", _timestamp(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_entries")),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_daily_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_daily_entries_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("room_id", name=op.f("uq_daily_entries_room_id")),
        sa.CheckConstraint(
            "status IN ('playing', 'finished', 'abandoned')",
            name=op.f("ck_daily_entries_status"),
        ),
    )
    # At most one ranked game per player, game and day (practice games are free).
    op.create_index(
        "uq_daily_entries_ranked",
        "daily_entries",
        ["game", "date", "player_id"],
        unique=True,
        sqlite_where=sa.text("ranked"),
        postgresql_where=sa.text("ranked"),
    )
    # A day's leaderboard in order, its size, and one player's rank (a count of
    # better keys) are all ranges of this index.
    op.create_index(
        "ix_daily_entries_board",
        "daily_entries",
        ["game", "date", "rank_key", "finished_at", "id"],
        unique=False,
        sqlite_where=sa.text("rank_key IS NOT NULL"),
        postgresql_where=sa.text("rank_key IS NOT NULL"),
    )
    op.create_index(
        "ix_daily_entries_player_game", "daily_entries", ["player_id", "game"], unique=False
    )

    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_server_secrets")),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_index("ix_daily_entries_player_game", table_name="daily_entries")
    op.drop_index("ix_daily_entries_board", table_name="daily_entries")
    op.drop_index("uq_daily_entries_ranked", table_name="daily_entries")
    op.drop_table("daily_entries")
