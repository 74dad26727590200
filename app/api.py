"""HTTP routes: guests, the games catalog, rooms and replays.

Errors a client should act on come back as ``{"code", "message", "rule",
"reason", "params"}`` (with the HTTP status saying how bad; ``reason`` and
``params``: :mod:`engine.refusals`); request bodies that don't fit the
schema are FastAPI's usual 422, except a guest's name, refused by reason.

Creating guests and rooms is limited per client address (a token bucket
each, app/edge.py: 429 ``rate_limited``), and the rooms a player owns that
are waiting or being played are capped (409 ``too_many_rooms``).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field

from app.daily import replay_is_private
from app.deps import (
    ApiError,
    AuthorizationHeader,
    CurrentPlayer,
    Registry,
    SettingsDep,
    StoreDep,
    bearer_token,
    take_token,
)
from engine.errors import BadOptions
from engine.games import all_games, find_game
from engine.options import common_defaults, validate_room_options
from engine.replay import steps as replay_steps

router = APIRouter()


NAME_LIMIT = 24


class GuestIn(BaseModel):
    # Checked in the route rather than by the schema, so that a refused name
    # says exactly why (name_empty, name_too_long, name_not_printable).
    name: str


def _name_refusal(name: str) -> ApiError | None:
    """Why ``name`` cannot be a guest's name (1-24 printable characters), or None."""
    if not name.strip():
        return ApiError(422, "bad_name", reason="name_empty")
    if len(name) > NAME_LIMIT:
        return ApiError(422, "bad_name", reason="name_too_long", params={"limit": NAME_LIMIT})
    if not name.isprintable():
        return ApiError(422, "bad_name", reason="name_not_printable")
    return None


class RoomIn(BaseModel):
    game: str
    seats: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)


@router.post("/api/guests", status_code=201)
async def create_guest(body: GuestIn, store: StoreDep, request: Request) -> dict[str, Any]:
    refusal = _name_refusal(body.name)
    if refusal is not None:
        raise refusal
    take_token(request, "guest_buckets", "new guests")
    player = await store.create_player(body.name)
    return {"player_id": player.id, "name": player.name, "token": player.token}


@router.post("/api/guests/me/token")
async def rotate_token(player: CurrentPlayer, store: StoreDep,
                       authorization: AuthorizationHeader = None
                       ) -> dict[str, Any]:
    """A new token for the caller; the one the call was made with stops working."""
    token = await store.replace_token(player.id, bearer_token(authorization) or "")
    if token is None:
        raise ApiError(401, "unauthorized", "that token was replaced meanwhile")
    return {"player_id": player.id, "name": player.name, "token": token}


@router.post("/api/guests/me/signout", status_code=204)
async def sign_out(player: CurrentPlayer, store: StoreDep,
                   authorization: AuthorizationHeader = None) -> Response:
    """The caller's token stops working, and no other replaces it."""
    await store.replace_token(player.id, bearer_token(authorization) or "", keep=False)
    return Response(status_code=204)


@router.get("/api/games")
async def list_games() -> list[dict[str, Any]]:
    return [
        {
            "game": game.name,
            "title": game.title,
            "min_players": game.min_players,
            "max_players": game.max_players,
            "default_seats": game.default_seats,
            "options": {**common_defaults(game), **game.default_options()},
        }
        for game in all_games()
    ]


@router.post("/api/rooms", status_code=201)
async def create_room(body: RoomIn, player: CurrentPlayer, registry: Registry,
                      settings: SettingsDep, request: Request) -> dict[str, Any]:
    game = find_game(body.game)
    if game is None:
        raise ApiError(422, "unknown_game", f"there is no game {body.game!r}",
                       params={"game": body.game})
    if "scenario" in body.options and not settings.scenarios:
        raise ApiError(403, "scenarios_disabled", "scenario rooms are disabled on this server")
    seats = body.seats if body.seats is not None else game.default_seats
    try:
        options = validate_room_options(game, body.options, seats)
    except BadOptions as err:
        # The rule behind the refusal travels in ``rule``, never in the message.
        raise ApiError(422, "bad_options", err.message, reason=err.reason, rule=err.rule,
                       params={**err.params, "detail": err.message}) from err
    if settings.max_open_rooms > 0:
        owned = sum(1 for s in await registry.lobby() if s["owner_id"] == player.id)
        if owned >= settings.max_open_rooms:
            raise ApiError(409, "too_many_rooms",
                           f"you have {owned} rooms waiting or being played (at most "
                           f"{settings.max_open_rooms}): finish or leave one first",
                           params={"limit": settings.max_open_rooms, "open": owned})
    take_token(request, "room_buckets", "new rooms")
    actor = await registry.create(game, seats, options, player.id)
    return actor.core.summary()


@router.get("/api/rooms")
async def list_rooms(registry: Registry) -> dict[str, Any]:
    return {"rooms": await registry.lobby()}


@router.get("/api/rooms/{room_id}")
async def get_room(room_id: str, registry: Registry) -> dict[str, Any]:
    summary = await registry.summary(room_id)
    if summary is None:
        raise ApiError(404, "unknown_room", f"there is no room {room_id!r}",
                       params={"room": room_id})
    return summary


# A room's game numbers are stored as 32-bit integers: none is larger.
MAX_GAME_NUMBER = 2**31 - 1


@router.get("/api/rooms/{room_id}/replay")
async def get_replay(room_id: str, request: Request, store: StoreDep,
                     game: Annotated[int | None, Query(ge=1, le=MAX_GAME_NUMBER)] = None,
                     ) -> dict[str, Any]:
    """The room's latest finished game, or its game number ``game`` (rematches)."""
    if await replay_is_private(request.app, store, room_id):
        raise ApiError(403, "daily_private",
                       "a daily deal's replay is private until its UTC day is over")
    record = await store.replay(room_id, game)
    if record is None:
        raise ApiError(404, "no_replay", "no finished game in that room")
    return record


# --- watching a finished game, and the pages the client serves from "/" ----------

# A replay's steps are computed on request, a page at a time (each page
# replays the log from the start, and views only the steps it returns): the
# longest log served, and the most steps in one answer.
MAX_REPLAY_ACTIONS = 20_000
MAX_STEPS_PAGE = 200


@router.get("/api/rooms/{room_id}/replay/steps")
async def get_replay_steps(
    room_id: str, request: Request, store: StoreDep,
    start: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_STEPS_PAGE)] = 50,
) -> dict[str, Any]:
    """A finished game step by step, every hand face up: ``steps`` from
    ``start`` (0: the first deal as dealt), each ``{"index", "entry" (who did
    what: ``seat``, ``action``, ``timeout``, ``bot``, ``at``), "events",
    "view": {"table": the spectator's view, "own": each seat's part}}``;
    ``total`` is the number of steps. Private like the replay itself."""
    if await replay_is_private(request.app, store, room_id):
        raise ApiError(403, "daily_private",
                       "a daily deal's replay is private until its UTC day is over")
    record = await store.replay(room_id)
    if record is None:
        raise ApiError(404, "no_replay", "no finished game in that room")
    if len(record["actions"]) > MAX_REPLAY_ACTIONS:
        raise ApiError(422, "replay_too_long", "this game is too long to watch step by step")
    total = len(record["actions"]) + 1
    page = await asyncio.to_thread(lambda: list(replay_steps(record, start, limit)))
    return {
        "room_id": room_id, "game": record["game"], "players": record["players"],
        "seat_names": record["seat_names"], "scores": record["scores"],
        "options": record["options"], "total": total, "start": start, "steps": page,
    }


@router.get("/api/me/games")
async def my_recent_games(player: CurrentPlayer, store: StoreDep,
                          limit: Annotated[int, Query(ge=1, le=50)] = 10) -> dict[str, Any]:
    """The finished games the caller sat in, newest first (each links to its replay)."""
    games = await store.recent_results(player.id, limit)
    return {"games": [
        {"room_id": g.room_id, "game": g.game, "seat": g.seat, "score": g.score, "won": g.won,
         "scores": g.scores, "seat_names": g.seat_names,
         "finished_at": g.finished_at.isoformat()}
        for g in games
    ]}


@router.get("/rules", include_in_schema=False)
@router.get("/rules/{game}", include_in_schema=False)
async def rules_page(game: str | None = None) -> RedirectResponse:
    """The rules pages live in the client: ``/?rules=<game>`` (``/?rules``: the first game's)."""
    if game is None or find_game(game) is None:
        return RedirectResponse("/?rules", status_code=307)
    return RedirectResponse(f"/?rules={game}", status_code=307)
