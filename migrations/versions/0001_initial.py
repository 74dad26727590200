"""initial schema: players, rooms, games, game_results

Revision ID: 0001
Revises:
Create Date: 2024-11-29 00:00:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _timestamp() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_index(op.f("ix_players_token_hash"), "players", ["token_hash"], unique=True)

    op.create_table(
        "rooms",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", _json(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.Column("updated_at", _timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rooms")),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["players.id"],
            name=op.f("fk_rooms_owner_id_players"),
            ondelete="SET NULL",
        ),
        sa.CheckConstraint(
            "status IN ('waiting', 'playing', 'finished', 'abandoned')",
            name=op.f("ck_rooms_status"),
        ),
    )
    op.create_index(op.f("ix_rooms_status"), "rooms", ["status"], unique=False)

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", _json(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("actions", _json(), nullable=False),
        sa.Column("scores", _json(), nullable=False),
        sa.Column("seat_names", _json(), nullable=False),
        sa.Column("started_at", _timestamp(), nullable=False),
        sa.Column("finished_at", _timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.ForeignKeyConstraint(
            ["room_id"],
            ["rooms.id"],
            name=op.f("fk_games_room_id_rooms"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("room_id", name=op.f("uq_games_room_id")),
    )

    op.create_table(
        "game_results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_results")),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_results_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_game_results_player_id_players"),
            ondelete="SET NULL",
        ),
    )
    op.create_index(op.f("ix_game_results_player_id"), "game_results", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_game_results_player_id"), table_name="game_results")
    op.drop_table("game_results")
    op.drop_table("games")
    op.drop_index(op.f("ix_rooms_status"), table_name="rooms")
    op.drop_table("rooms")
    op.drop_index(op.f("ix_players_token_hash"), table_name="players")
    op.drop_table("players")
