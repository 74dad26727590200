"""The daily deal and its leaderboards.

Every game has a *daily deal*: a solo room against bots whose deals come from
a seed fixed by the game and the UTC date, so everyone playing that game that
day gets the same cards, and the bots (which are deterministic) answer the
same moves the same way.

Terms:

- *day*: a UTC date. *Today* comes from :func:`today`, which a test may
  replace through ``app.state.daily_today`` (a function returning a date).
- *seed*: ``derive_seed(day_key, game, day)``, where ``day_key`` is an
  HMAC-SHA256 of ``game`` and ``day`` under the server's daily secret
  (``KARTU_DAILY_SECRET``, or one the store makes once and keeps). The HMAC
  matters: ``derive_seed`` is a fast, invertible mix, so a revealed seed of
  ``derive_seed(secret, ...)`` would give away the secret's hash state and
  with it every other day's seed. Through the HMAC a revealed seed says
  nothing about another day's.
- *seed hash*: ``sha256("kartu-daily:{game}:{day}:{seed}")`` in hex,
  published at any time; the seed itself only once its day is over, so
  anyone can then check the hash and replay every ranked game of that day.
- *entry*: one daily room of one player (``daily_entries``). A player's first
  daily room of a game and day is *ranked*; every later one is *practice*
  (the same deal, never on the leaderboard). A ranked entry is ``playing``,
  then ``finished`` (its score is on the board) or ``abandoned``: its player
  sent ``leave`` during the game, or its room is no longer served. An
  abandoned entry stays unranked for good, so nobody can restart for a
  better deal; while the room runs, asking again gives the same game back
  (a dropped connection costs nothing, and a running game is never dealt
  again).
- *rank key*: the score as the board sorts it, lower first: the score where
  the lowest wins (the game's ``lowest_wins``), minus the score elsewhere. Equal
  keys share a rank (1, 2, 2, 4); the earlier finish is listed first.

Privacy: daily rooms are private (no spectators, not in the lobby), their
options carry no seed, and their replays stay hidden (403 ``daily_private``)
until their day is over.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request, Response
from fastapi.responses import RedirectResponse
from sqlalchemy.exc import IntegrityError

from app.deps import ApiError, CurrentPlayer, OptionalPlayer, Registry, SettingsDep, StoreDep
from app.rooms import RoomRegistry
from app.settings import Settings
from app.store import DailyEntryRecord, FinishedGame, PlayerRecord, Store
from engine.errors import BadOptions
from engine.game import Game, Outcome
from engine.games import find_game
from engine.options import validate_room_options
from engine.rng import derive_seed
from engine.room import Change, Join, Leave, RoomActor, RoomCore, RoomError, Start

log = logging.getLogger("kartu.daily")

router = APIRouter()

DAILY_BOT_DELAY_MS = 600
SECRET_NAME = "daily"
LEADERBOARD_DEFAULT = 50
LEADERBOARD_MAX = 500


# --- the deal -----------------------------------------------------------------


def daily_setup(game: Game, overrides: dict[str, dict[str, Any]] | None = None
                ) -> tuple[int, dict[str, Any]]:
    """The daily room's seat count and options (validated, without the seed).

    A solo game at the game's default table (``default_seats``), a short one
    (``short_options``): bots fill the other seats, there is no turn clock,
    and the player sits in seat 0. ``overrides`` (``KARTU_DAILY_OPTIONS``,
    by game name) is laid over that.
    """
    seats = game.default_seats
    options: dict[str, Any] = {"bot_delay_ms": DAILY_BOT_DELAY_MS, "fill_bots": True,
                               **game.short_options}
    if game.turn_based:
        options["turn_clock_s"] = 0
    options.update((overrides or {}).get(game.name, {}))
    for fixed in ("seed", "scenario"):
        options.pop(fixed, None)
    return seats, validate_room_options(game, options, seats)


def day_seed(secret: str, game: str, day: dt.date) -> int:
    """The seed of ``game``'s daily deal on ``day``; needs the server's secret."""
    day_key = hmac.new(secret.encode(), f"kartu-daily:{game}:{day.isoformat()}".encode(),
                       hashlib.sha256).hexdigest()
    return derive_seed(day_key, game, day.isoformat())


def seed_hash(game: str, day: dt.date, seed: int) -> str:
    """The published commitment to a day's seed: sha256 hex of ``kartu-daily:game:day:seed``."""
    return hashlib.sha256(f"kartu-daily:{game}:{day.isoformat()}:{seed}".encode()).hexdigest()


def rank_key(game: Game, score: int) -> int:
    """The score as the leaderboard sorts it: lower is better."""
    return score if game.lowest_wins else -score


def ranking(game: Game) -> str:
    """Which end of the leaderboard wins: ``lowest`` or ``highest``."""
    return "lowest" if game.lowest_wins else "highest"


# --- the day --------------------------------------------------------------------


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def today(app: FastAPI) -> dt.date:
    """Today's UTC date, or what ``app.state.daily_today()`` says (tests)."""
    clock: Callable[[], dt.date] | None = getattr(app.state, "daily_today", None)
    return clock() if clock is not None else utc_today()


def day_is_over(day: dt.date, now: dt.date) -> bool:
    """True once ``day`` is in the past: its seed and its rooms' replays are public."""
    return day < now


async def replay_is_private(app: FastAPI, store: Store, room_id: str) -> bool:
    """True for a daily room whose day is not over yet (its replay shows the deal)."""
    day = await store.daily_date(room_id)
    return day is not None and not day_is_over(day, today(app))


async def daily_secret(app: FastAPI) -> str:
    """``KARTU_DAILY_SECRET``, else the secret the store made once and keeps."""
    settings: Settings = app.state.settings
    if settings.daily_secret:
        return settings.daily_secret
    secret: str | None = getattr(app.state, "daily_secret_cache", None)
    if secret is None:
        store: Store = app.state.store
        secret = await store.server_secret(SECRET_NAME)
        app.state.daily_secret_cache = secret
    return secret


# --- daily rooms ------------------------------------------------------------------


def leave_listener(store: Store) -> Callable[[RoomCore, Change], Awaitable[Any] | None]:
    """For ``registry.change_listeners``: a ``leave`` during a daily game gives it up.

    The entry becomes ``abandoned`` (a dropped connection is no leave: the
    player may come back). It works on any process that runs the room,
    including one that took it over or resumed it after a restart.
    """

    def on_change(room: RoomCore, change: Change) -> Awaitable[Any] | None:
        if not room.private or room.status != "playing":
            return None
        seat = room.seat_of(room.owner_id)
        if any(e.get("kind") == "left" and e.get("seat") == seat for e in change.events):
            log.info("daily_left", extra={"fields": {"room": room.room_id,
                                                     "player": room.owner_id}})
            return store.abandon_daily_entry(room.room_id)
        return None

    return on_change


async def room_state(registry: RoomRegistry, room_id: str) -> str:
    """Where a daily room stands: ``running``, ``over`` (finished) or ``gone``
    (no longer served). A player who left has the entry ``abandoned`` already."""
    summary = await registry.summary(room_id)
    if summary is None:
        return "gone"
    if summary["status"] in ("waiting", "playing"):
        return "running"
    return "over" if summary["status"] == "finished" else "gone"


async def effective_status(entry: DailyEntryRecord, registry: RoomRegistry) -> str:
    """The entry's status, counting a ``playing`` one whose game is gone or left as abandoned."""
    if entry.status == "playing" and await room_state(registry, entry.room_id) == "gone":
        return "abandoned"
    return entry.status


def finish_listener(store: Store
                    ) -> Callable[[RoomCore, Outcome, FinishedGame], Awaitable[None]]:
    """For ``registry.finish_listeners``: records a finished daily game's score."""

    async def on_finish(room: RoomCore, outcome: Outcome, finished: FinishedGame) -> None:
        if not room.private:
            return
        entry = await store.daily_entry_for_room(room.room_id)
        if entry is None or entry.status != "playing":
            return
        # From the record, not the room: by now the room may have moved on.
        score = next((int(score) for _, player, _, _, score, _ in finished.results
                      if player == entry.player_id), None)
        if score is None:
            return
        # When the game ended, not when this runs: ties rank by who finished first.
        await store.finish_daily_entry(room.room_id, score, rank_key(room.game, score),
                                       finished.finished_at)
        log.info("daily_finished", extra={"fields": {
            "room": room.room_id, "game": entry.game, "date": entry.date.isoformat(),
            "player": entry.player_id, "score": score, "ranked": entry.ranked}})

    return on_finish


# --- HTTP ---------------------------------------------------------------------------

# The daily calendar's first day: every day since has a deal, and the day
# before an asked day (``yesterday``) is always a date.
FIRST_DAY = dt.date(2000, 1, 1)
DayQuery = Annotated[dt.date | None, Query(alias="date", ge=FIRST_DAY,
                                           description="YYYY-MM-DD (UTC), 2000-01-01 or later")]


def _game(name: str) -> Game:
    game = find_game(name)
    if game is None:
        raise ApiError(404, "unknown_game", f"there is no game {name!r}", params={"game": name})
    return game


def _setup(game: Game, settings: Settings) -> tuple[int, dict[str, Any]]:
    try:
        return daily_setup(game, settings.daily_options)
    except BadOptions as err:  # a bad KARTU_DAILY_OPTIONS
        raise ApiError(500, "daily_misconfigured", f"daily options for {game.name}: {err}"
                       ) from err


def _lock(app: FastAPI, key: tuple[str, ...]) -> asyncio.Lock:
    locks: weakref.WeakValueDictionary[tuple[str, ...], asyncio.Lock] | None = getattr(
        app.state, "daily_locks", None)
    if locks is None:
        locks = app.state.daily_locks = weakref.WeakValueDictionary()
    lock = locks.get(key)
    if lock is None:
        lock = locks[key] = asyncio.Lock()
    return lock


async def _open_room(game: Game, day: dt.date, player: PlayerRecord, *, ranked: bool,
                     registry: RoomRegistry, store: Store, settings: Settings, secret: str
                     ) -> tuple[RoomActor, bool]:
    """Creates, records, seats and starts a daily room; returns it and whether it is ranked."""
    seats, options = _setup(game, settings)
    seed = day_seed(secret, game.name, day)
    # The seed goes apart from the options: it must not reach the room's
    # summary or the replay's options before the day is over.
    actor = await registry.create(game, seats, options, player.id, private=True, seed=seed)
    core = actor.core
    try:
        await store.create_daily_entry(game.name, day, player.id, core.room_id, ranked=ranked)
    except IntegrityError:
        if not ranked:
            raise
        # Another process got the ranked game first: this one is practice.
        ranked = False
        await store.create_daily_entry(game.name, day, player.id, core.room_id, ranked=False)
    seat = await actor.call(Join(player.id, player.name, "player"))
    await actor.call(Start(player.id))
    # The seat is the player's; the connection is the WebSocket's to make.
    await actor.call(Leave(player.id, seat, disconnect=True))
    return actor, ranked


@router.post("/api/daily/{game}")
async def play_daily(game: str, request: Request, response: Response, player: CurrentPlayer,
                     registry: Registry, store: StoreDep, settings: SettingsDep
                     ) -> dict[str, Any]:
    """Today's daily room of ``game`` for the caller: the ranked one, or practice.

    201 with a new room; 200 with the caller's ranked room still being played.
    """
    rules = _game(game)
    day = today(request.app)
    secret = await daily_secret(request.app)
    async with _lock(request.app, (player.id, game, day.isoformat())):
        entry = await store.ranked_daily_entry(game, day, player.id)
        if entry is not None and entry.status == "playing":
            state = await room_state(registry, entry.room_id)
            if state == "running":
                summary = await registry.summary(entry.room_id)
                if summary is not None:
                    response.status_code = 200
                    return _room_answer(summary, day, ranked=True, resumed=True,
                                        secret=secret)
            if state == "gone":
                await store.abandon_daily_entry(entry.room_id)
        try:
            actor, ranked = await _open_room(rules, day, player, ranked=entry is None,
                                             registry=registry, store=store,
                                             settings=settings, secret=secret)
        except RoomError as err:
            raise ApiError(503, err.code, err.message, reason=err.reason, rule=err.rule,
                           params=err.params) from err
    log.info("daily_opened", extra={"fields": {"room": actor.core.room_id, "game": game,
                                               "date": day.isoformat(), "player": player.id,
                                               "ranked": ranked}})
    response.status_code = 201
    return _room_answer(actor.core.summary(), day, ranked=ranked, resumed=False, secret=secret)


def _room_answer(summary: dict[str, Any], day: dt.date, *, ranked: bool, resumed: bool,
                 secret: str) -> dict[str, Any]:
    game = summary["game"]
    return {
        "room_id": summary["room_id"], "game": game, "date": day.isoformat(),
        "ranked": ranked, "resumed": resumed, "seat": 0, "seats": summary["seats"],
        "status": summary["status"],
        "options": {k: v for k, v in summary["options"].items() if k != "seed"},
        "seed_hash": seed_hash(game, day, day_seed(secret, game, day)),
    }


def _seed_facts(game: str, day: dt.date, now: dt.date, secret: str) -> dict[str, Any]:
    seed = day_seed(secret, game, day)
    over = day_is_over(day, now)
    # The seed is a 63-bit number; ``seed_text`` carries it exactly to
    # JavaScript, whose numbers hold 53 bits.
    return {"date": day.isoformat(), "seed_hash": seed_hash(game, day, seed),
            "seed": seed if over else None, "seed_text": str(seed) if over else None}


@router.get("/api/daily/{game}")
async def daily_info(game: str, request: Request, registry: Registry, store: StoreDep,
                     settings: SettingsDep, player: OptionalPlayer, day: DayQuery = None
                     ) -> dict[str, Any]:
    """A day's daily deal of ``game``: its seed hash, its seed once the day is over."""
    rules = _game(game)
    now = today(request.app)
    day = day or now
    secret = await daily_secret(request.app)
    seats, options = _setup(rules, settings)
    you: dict[str, Any] | None = None
    if player is not None:
        entry = await store.ranked_daily_entry(game, day, player.id)
        if entry is not None:
            you = {"status": await effective_status(entry, registry), "room_id": entry.room_id,
                   "score": entry.score, "rank": await _rank(store, entry)}
    return {
        "game": game, **_seed_facts(game, day, now, secret), "options": options,
        "seats": seats, "ranking": ranking(rules),
        "you": you, "yesterday": _seed_facts(game, day - dt.timedelta(days=1), now, secret),
    }


async def _rank(store: Store, entry: DailyEntryRecord) -> int | None:
    if entry.rank_key is None:
        return None
    return await store.daily_rank(entry.game, entry.date, entry.rank_key)


@router.get("/api/leaderboard/{game}")
async def leaderboard(
    game: str, request: Request, registry: Registry, store: StoreDep, player: OptionalPlayer,
    day: DayQuery = None,
    limit: Annotated[int, Query(ge=1, le=LEADERBOARD_MAX)] = LEADERBOARD_DEFAULT,
) -> dict[str, Any]:
    """The day's ranking of ``game`` (default today), best first, and the caller's place."""
    rules = _game(game)
    day = day or today(request.app)
    # Counted before the lines are read: a game finishing in between then
    # shows in the lines without being missing from a total that counts it.
    total = await store.board_size(game, day)
    lines = await store.leaderboard(game, day, limit)
    you: dict[str, Any] | None = None
    if player is not None:
        entry = await store.ranked_daily_entry(game, day, player.id)
        if entry is not None:
            you = {"player_id": player.id, "name": player.name,
                   "status": await effective_status(entry, registry), "score": entry.score,
                   "rank": await _rank(store, entry)}
    entries: list[dict[str, Any]] = [
        {"rank": line.rank, "player_id": line.player_id, "name": line.name,
         "score": line.score} for line in lines]
    if day_is_over(day, today(request.app)):
        # The day's replays are public now: each line links to its game.
        rooms = await store.board_rooms(game, day, [line.player_id for line in lines])
        for entry_line in entries:
            entry_line["room_id"] = rooms.get(entry_line["player_id"])
    return {
        "game": game, "date": day.isoformat(),
        "ranking": ranking(rules),
        "entries": entries,
        "total": total,
        "you": you,
    }


@router.get("/api/players/{player_id}/stats")
async def player_stats(player_id: str, store: StoreDep,
                       game: Annotated[str | None, Query()] = None) -> dict[str, Any]:
    """A player's ranked daily games per game: how many, the best score, the mean."""
    if game is not None:
        _game(game)
    names = await store.player_names([player_id])
    if player_id not in names:
        raise ApiError(404, "unknown_player", f"there is no player {player_id!r}",
                       params={"player": player_id})
    stats = {s.game: s for s in await store.daily_stats(player_id, game)}
    games = [game] if game is not None else sorted(stats)
    out = []
    for name in games:
        line = stats.get(name)
        rules = find_game(name)
        # The stats may name a game this server no longer serves: its best is its highest.
        lowest_wins = rules is not None and rules.lowest_wins
        best = None if line is None else (line.low if lowest_wins else line.high)
        average = None if line is None or line.average is None else round(line.average, 2)
        out.append({"game": name, "played": 0 if line is None else line.played,
                    "best": best, "average": average})
    return {"player_id": player_id, "name": names[player_id], "games": out}


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page(request: Request) -> RedirectResponse:
    """The leaderboards live in the client's daily page; old links land there."""
    query = "&".join(f"{k}={v}" for k, v in request.query_params.items()
                     if k in ("game", "date", "limit"))
    return RedirectResponse(f"/?daily{'&' + query if query else ''}", status_code=307)
