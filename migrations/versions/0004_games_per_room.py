"""several finished games per room (rematches): games.number, unique with room_id

A rematch plays a new game in the same room, so a room keeps a finished game
per game played: ``number`` counts them from 1 (the games stored before
this revision are each their room's first), and a room has one game of
each number.

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Batch mode: SQLite changes a table's constraints by copying the table.
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("number", sa.Integer(), nullable=False, server_default="1"))
        batch.drop_constraint("uq_games_room_id", type_="unique")
        batch.create_unique_constraint("uq_games_room_id", ["room_id", "number"])


def downgrade() -> None:
    # Only a room's first game fits the old schema: later ones go.
    op.execute("DELETE FROM games WHERE number > 1")
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_room_id", type_="unique")
        batch.create_unique_constraint("uq_games_room_id", ["room_id"])
        batch.drop_column("number")
