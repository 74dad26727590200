"""The room registry: the rooms this process runs, and the way to any room.

Each room is a :class:`engine.room.RoomActor` owned by exactly one process.
An action flows one way: the actor applies a command to its room, takes the
room's changes and hands them to the registry's *commit*, which frames
each change once per audience (:class:`app.frames.RoomFrames`), saves the
room (its snapshot and new log entries, :mod:`app.snapshots`), then sends
the frames: to this process's connections through its :class:`app.feeds.Feeds`,
and (with Redis) to the other processes' in the save itself, which
publishes them. Only then does the actor reply, and the gateway ack. So a
client never sees, and is never acknowledged, a change that a crash could
take back. While it runs a room, the registry *hosts* the room's channels on
the broker (:meth:`app.broker.Broker.host`): this process does not listen
to them in Redis, since it is where they come from.

:meth:`RoomRegistry.call` is how the gateway reaches a room: the local actor
when this process owns it, else the owner through :mod:`app.cluster` (with
Redis), retrying while a room moves from a dead process to a live one.

Without Redis there is one process: it owns every room, saves them in its
journal file (SQLite) or the database (PostgreSQL), and on start-up resumes
the rooms still open (waiting or being played).

A save that fails (the store cannot be reached) sends nothing: the actor
undoes the change (:class:`engine.room.RoomActor`). The next save of that
room is then a full snapshot that also *rewrites* the log from where the
last landed save ended (the failed one may have landed all the same). What
a change sets off beyond the room (the game's record when it ends, its
status in the rooms table, the change listeners) runs only once the change
is saved; the game's record and the status wait out an outage of the
database, tried again until they land. A room whose saved state cannot be
read back is *unrecoverable*: logged at ERROR with its id and counted in
``/healthz``, never dropped silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy.exc import IntegrityError

from app.broker import Broker
from app.cluster import Cluster
from app.feeds import Feeds
from app.frames import (
    RoomFrames,
    dumps,
    envelope_of,
    kept,
    loads,
    room_channels,
    seat_channel,
    state,
    watch_channel,
)
from app.frames import spectators as spectators_frame
from app.health import StoreHealth, is_outage
from app.members import Members
from app.retries import APPLIED, Replies
from app.settings import Settings
from app.snapshots import DbSnapshots, JournalSnapshots, RoomSave, SnapshotStore
from app.store import FinishedGame, RoomRecord, Store
from app.wsprotocol import wire
from engine.game import Game, Outcome
from engine.games import find_game
from engine.room import (
    Change,
    Command,
    History,
    LogPacking,
    RoomActor,
    RoomCore,
    RoomError,
    Snapshot,
    Unavailable,
)

log = logging.getLogger("kartu.rooms")

ACTIVE = ("waiting", "playing")

# The rooms' logs kept as the JSON they are saved as: no container per entry
# for the garbage collector to walk, and nothing to serialise again to save.
JSON_LOG = LogPacking(pack=kept, unpack=loads)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _utc(ms: int | None) -> datetime:
    return datetime.fromtimestamp((ms or now_ms()) / 1000, UTC)


async def _awaited(work: Awaitable[Any]) -> Any:
    return await work


@dataclass(frozen=True, slots=True)
class Tag:
    """What the registry's commit needs to know of the command it saves (the
    room never reads it): its id across processes (:mod:`app.retries`), and
    the connection that sent a join or leave (:mod:`app.members`)."""

    command_id: str | None = None
    conn: str | None = None
    command: Command | None = None


class RoomRegistry:
    CALL_PATIENCE_S = 12.0  # how long a command may wait for a room that is moving
    # Between full snapshots a room saves only its new log entries (see _commit).
    # A room resumed from a snapshot replays the entries after it (at most
    # 250); a full snapshot is the costlier save and grows with the game, so
    # the entries bound it, not the clock: the minute is only a backstop.
    # Each room's bound is its own, from 150 to 249 entries: rooms started
    # together and played at one pace would otherwise all snapshot at once,
    # a stall for every room of the process.
    SNAPSHOT_EVERY_MS = 60_000
    SNAPSHOT_EVERY_ENTRIES = 200
    SNAPSHOT_SPREAD = 100
    # A write the players already saw the cause of (a game's record, a room's
    # status) that meets an outage is tried again: first after this long,
    # then twice as long each time, up to the second figure.
    STORE_RETRY_S = (0.5, 10.0)

    def __init__(self, settings: Settings, broker: Broker, store: Store,
                 snapshots: SnapshotStore, cluster: Cluster | None = None,
                 health: StoreHealth | None = None) -> None:
        self.settings = settings
        self.health = health or StoreHealth()
        # The store the rooms in progress are saved in, as the health names it.
        self.snapshot_store = ("redis" if cluster is not None
                               else "journal" if isinstance(snapshots, JournalSnapshots)
                               else "database" if isinstance(snapshots, DbSnapshots)
                               else "snapshots")
        self.health.add(self.snapshot_store)
        self.health.up_listeners.append(self._store_up)
        self._resyncing: asyncio.Task[None] | None = None
        # Rooms whose saved state could not be read back: room id -> why.
        self.unrecoverable: dict[str, str] = {}
        # Rooms whose last save failed: the next one is full and rewrites the log.
        self._rewrite: set[str] = set()
        self.broker = broker
        self.store = store
        self.snapshots = snapshots
        self.cluster = cluster
        if cluster is not None and not snapshots.carries_messages:
            # The saves are the only way a room's changes reach other processes.
            raise ValueError("several processes need a snapshot store that carries messages")
        # Names this run of this process: connection and command ids start
        # with it, so that none is ever reused across processes or restarts.
        self.process_id = cluster.process_id if cluster else secrets.token_hex(6)
        # A command may reach a room twice only when rooms move between
        # processes: only then is it named, and its reply remembered.
        self.replies = Replies() if cluster is not None else None
        self.members = Members()
        self._commands = itertools.count(1)
        self.rooms: dict[str, RoomActor] = {}
        # This process's connections to rooms, wherever the rooms run: the
        # changes of the rooms run here are handed to them directly.
        self.feeds = Feeds(broker)
        self._saved_log: dict[str, int] = {}
        # How each room run here frames its changes (own parts kept as JSON).
        self._frames: dict[str, RoomFrames] = {}
        # Per room: RoomCore.room_changes and when at its last full snapshot,
        # and the log length at which the next one is due.
        self._snapshotted: dict[str, tuple[int, int, int]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = asyncio.Event()
        self._statuses: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None
        self._taking_over: set[str] = set()
        # Rooms whose spectator count frame is scheduled (_count_changed).
        self._counts_due: set[str] = set()
        # Called with (room, outcome, its record) when a game ends, after it is
        # recorded. The listener may run later (an outage waited out): the record
        # says when the game ended and who sat where; of the room, read only
        # what never changes (its id, game, privacy).
        self.finish_listeners: list[
            Callable[[RoomCore, Outcome, FinishedGame], Awaitable[None]]] = []
        # Called with (room, change) on every change of a room run here; a
        # returned awaitable runs in the background.
        self.change_listeners: list[
            Callable[[RoomCore, Change], Awaitable[Any] | None]] = []

    async def start(self) -> None:
        if self.cluster is not None:
            await self.cluster.start(self)
        else:
            await self._resume_all()
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def close(self) -> None:
        self._closing.set()  # writes waiting out an outage try once more, then give up
        if self._janitor is not None:
            self._janitor.cancel()
        if self._resyncing is not None:
            self._resyncing.cancel()
        if self.cluster is not None:
            await self.cluster.close()
        for actor in list(self.rooms.values()):
            await actor.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.snapshots.close()

    # --- rooms -------------------------------------------------------------

    async def create(self, game: Game, seats: int, options: dict[str, Any],
                     owner_id: str | None, *, private: bool = False,
                     seed: int | None = None) -> RoomActor:
        """A new room, saved and running here. ``seed`` (else ``options['seed']``,
        else a random one) fixes the deals."""
        room_id = secrets.token_urlsafe(6)
        if seed is None:
            seed = options.get("seed")
        if seed is None:
            seed = secrets.randbits(63)
        core = RoomCore(room_id=room_id, game=game, options=options, seat_count=seats,
                        owner_id=owner_id, seed=seed, created_at=now_ms(), private=private,
                        packing=JSON_LOG)
        await self.store.save_room(RoomRecord(
            id=room_id, game=game.name, options=options, seats=seats, owner_id=owner_id,
            status=core.status, seed=seed,
        ))
        if self.cluster is not None and not await self.cluster.acquire(room_id):
            raise RoomError.of("busy", "busy")
        actor = self._run(core)
        await actor.save()  # fenced, it stops: _commit has let the room go
        self._statuses[room_id] = core.status
        log.info("room_created", extra={"fields": {"room": room_id, "game": game.name,
                                                   "seats": seats, "owner": owner_id,
                                                   "process": self.process_id}})
        return actor

    def _run(self, core: RoomCore) -> RoomActor:
        actor = RoomActor(core, now_ms, commit=self._commit)
        actor.start()
        self.rooms[core.room_id] = actor
        self.broker.host(room_channels(core.room_id, core.seat_count))
        return actor

    async def _stop_hosting(self, core: RoomCore) -> None:
        """Hands the room's channels back to the broker: whoever runs the room
        next publishes them, and this process's connections hear it through Redis."""
        await self.broker.unhost(room_channels(core.room_id, core.seat_count))

    def get(self, room_id: str) -> RoomActor | None:
        """The room's actor if this process runs it."""
        actor = self.rooms.get(room_id)
        return None if actor is None or actor.stopped else actor

    async def call(self, room_id: str, command: Command, conn: str | None = None) -> Any:
        """Runs ``command`` in the room, wherever it lives; raises RoomError.

        ``conn``: the id of the connection that sends a join or a leave."""
        command_id = None
        if self.replies is not None and not isinstance(command, Snapshot | History):
            command_id = f"{self.process_id}:{next(self._commands)}"
        actor = self.rooms.get(room_id)
        if actor is not None and not actor.stopped:  # the common case: the room is here
            try:
                return await self._run_here(room_id, actor, command, command_id, conn)
            except RoomError as err:
                if err.code != "moved":
                    raise
        give_up = time.monotonic() + self.CALL_PATIENCE_S
        while True:
            try:
                return await self._call_once(room_id, command, command_id, conn)
            except RoomError as err:
                if err.code != "moved":
                    raise
            except TimeoutError:
                pass  # the owner did not answer: it may be dead; the room will move
            if time.monotonic() > give_up:
                raise RoomError.of("busy", "busy")
            await asyncio.sleep(0.2)

    async def answer(self, room_id: str, command: Command, command_id: str | None,
                     conn: str | None = None) -> Any:
        """Runs a command another process routed here; ``moved`` if the room is not here."""
        actor = self.get(room_id)
        if actor is None:
            raise RoomError.of("moved", "moved")
        return await self._run_here(room_id, actor, command, command_id, conn)

    async def _run_here(self, room_id: str, actor: RoomActor, command: Command,
                        command_id: str | None, conn: str | None) -> Any:
        """Runs ``command`` on this process's actor, once per command id."""
        replies = self.replies
        tag = Tag(command_id, conn, command) if command_id is not None or conn else None
        if command_id is None or replies is None:
            return await actor.call(command, tag)
        if replies.known(room_id, command_id):
            return replies.reply(room_id, command_id)
        result = await actor.call(command, tag)
        replies.remember(room_id, command_id, result)
        return result

    async def _call_once(self, room_id: str, command: Command, command_id: str | None,
                         conn: str | None) -> Any:
        try:
            return await self._route(room_id, command, command_id, conn)
        except (RoomError, TimeoutError):
            raise
        except Exception as err:
            if not is_outage(err):
                raise
            # Finding the room's owner takes Redis: said once per outage.
            self.health.failed("redis", err)
            raise RoomError.of("unavailable", "unavailable") from err

    async def _route(self, room_id: str, command: Command, command_id: str | None,
                     conn: str | None) -> Any:
        actor = self.get(room_id)
        if actor is not None:
            return await self._run_here(room_id, actor, command, command_id, conn)
        if self.cluster is None:
            raise RoomError.of("unknown_room", "unknown_room", room=room_id)
        owner = await self.cluster.owner(room_id)
        if owner is not None and owner != self.process_id:
            return await self.cluster.call(owner, room_id, command, command_id, conn)
        if owner is None and await self.cluster.is_active(room_id):
            await self.take_over(room_id)
            raise RoomError.of("moved", "moved")
        if owner is None and not await self.cluster.exists(room_id):
            raise RoomError.of("unknown_room", "unknown_room", room=room_id)
        if owner is None:
            raise RoomError.of("unknown_room", "room_over", room=room_id)
        raise RoomError.of("moved", "moved")

    async def lobby(self) -> list[dict[str, Any]]:
        if self.cluster is not None:
            summaries = await self.cluster.snapshots.lobby()
        else:
            summaries = [actor.core.summary() for actor in self.rooms.values()]
        return sorted((s for s in summaries if s["status"] in ACTIVE and not s["private"]),
                      key=lambda s: s["created_at"])

    async def summary(self, room_id: str) -> dict[str, Any] | None:
        actor = self.get(room_id)
        if actor is not None:
            return actor.core.summary()
        if self.cluster is not None:
            return await self.cluster.snapshots.summary(room_id)
        return None

    # --- moving rooms ----------------------------------------------------------

    async def take_over(self, room_id: str) -> bool:
        """Claims a room whose owner is gone and runs it from its last snapshot."""
        assert self.cluster is not None
        if room_id in self._taking_over or room_id in self.rooms \
                or not self.cluster.may_adopt:
            return False
        self._taking_over.add(room_id)
        try:
            if not await self.cluster.acquire(room_id):
                return False
            alive = await self.cluster.alive_processes()
            alive.add(self.process_id)
            try:
                resumed = await self._resume(room_id,
                                             lambda conn: conn.split(":")[0] in alive)
            except Exception as err:
                if is_outage(err):
                    raise
                self._unrecoverable(room_id, err)
                resumed = False
            if not resumed:
                await self.cluster.release(room_id)
                return False
            log.info("room_taken_over", extra={"fields": {"room": room_id,
                                                          "process": self.process_id}})
            return True
        finally:
            self._taking_over.discard(room_id)

    async def _resume(self, room_id: str, alive: Callable[[str], bool]) -> bool:
        """Runs a room here from its saved state; its connections that are not
        ``alive`` (their process is gone) are counted gone."""
        loaded = await self.snapshots.load(room_id)
        if loaded is None:
            return False
        data, saved_log = loaded
        action_log = [loads(entry) for entry in saved_log]
        if self.replies is not None:
            # Older snapshots kept the replies in the room's own part ("recent").
            self.replies.restore(room_id, data.get("retries", data.get("recent", [])))
            for entry in action_log[data["log_length"]:]:
                if "cid" in entry:
                    self.replies.remember(room_id, entry["cid"], APPLIED)
        for entry in action_log:
            entry.pop("cid", None)
        game = find_game(data["game"])
        if game is None:
            raise ValueError(f"unknown game {data['game']!r}")
        core = RoomCore.from_snapshot(data, game, action_log, JSON_LOG)
        core.catch_up(action_log[data["log_length"]:], now_ms())
        self.unrecoverable.pop(room_id, None)
        self._saved_log[room_id] = len(core.action_log)
        self._statuses[room_id] = core.status
        self.members.restore(room_id, data)
        core.drop_connections(self.members.drop(room_id, alive), now_ms())
        actor = self._run(core)
        with contextlib.suppress(Unavailable):  # it runs; its next save is full (_commit)
            await actor.save()  # fenced, it stops: _commit has let the room go
        return True

    async def _resume_all(self) -> None:
        """One process, just started: every room still open (waiting or being
        played) goes on."""
        for room_id in await self.snapshots.active_rooms():
            try:
                if await self._resume(room_id, lambda conn: False):
                    log.info("room_resumed", extra={"fields": {"room": room_id}})
            except Exception as err:
                self._unrecoverable(room_id, err)

    def _unrecoverable(self, room_id: str, error: BaseException) -> None:
        """A room whose saved state cannot be run again: said loudly, and kept
        in ``unrecoverable`` (``/healthz`` counts them) rather than dropped."""
        first = room_id not in self.unrecoverable
        self.unrecoverable[room_id] = f"{type(error).__name__}: {error}"[:300]
        if first:
            log.error("room_unrecoverable %s: could not resume it from its saved state",
                      room_id, exc_info=error,
                      extra={"fields": {"room": room_id, "error": self.unrecoverable[room_id]}})

    async def drop_local(self, room_id: str) -> None:
        """Stops running a room here (its lease was lost: it lives elsewhere now)."""
        actor = self.rooms.pop(room_id, None)
        self._forget(room_id)
        if actor is not None:
            await actor.stop()
            await self._stop_hosting(actor.core)

    # --- after an outage ---------------------------------------------------------

    RESYNC_AFTER_S = (1.0, 2.0, 4.0, 8.0)  # after Redis is back, since the outage ended

    def _store_up(self, store: str) -> None:
        """Redis is back: messages published while this process's subscriptions
        were still down are lost, so its connections are sent their rooms'
        current state, a few times while the broker subscribes again."""
        if store != "redis" or self.cluster is None:
            return
        self.cluster.hold_adoptions()
        if self._resyncing is None or self._resyncing.done():
            self._resyncing = asyncio.get_running_loop().create_task(self._resync_later())

    async def _resync_later(self) -> None:
        waited = 0.0
        for at in self.RESYNC_AFTER_S:
            await asyncio.sleep(at - waited)
            waited = at
            try:
                await self.resync()
            except Exception as err:
                if not is_outage(err):
                    log.exception("resync after an outage failed")

    async def resync(self) -> int:
        """Sends every audience this process has connections in its room's
        current state (a client ignores one it already has); how many."""
        sent = 0
        for channel in self.feeds.channel_names():
            parts = channel.split(":")
            if len(parts) < 3 or parts[0] != "room":
                continue
            room_id, audience = parts[1], (int(parts[3]) if parts[2] == "seat" else None)
            try:
                version, view = await self.call(room_id, Snapshot(audience))
            except RoomError:
                continue
            self.feeds.send(version, [(channel, wire(state(room_id, version, view)))])
            sent += 1
        return sent

    # --- commit ----------------------------------------------------------------

    def _noted(self, core: RoomCore, changes: list[Change]) -> None:
        """What the registry does with changes once they are kept: status lines
        in the log and the database, the listeners, finished games recorded."""
        for change in changes:
            for listener in self.change_listeners:
                work = listener(core, change)
                if work is not None:
                    self._background(work)
            if self._statuses.get(core.room_id) != change.status:
                self._statuses[core.room_id] = change.status
                # A finished game is logged and stored with its scores (_finished).
                if change.status != "finished":
                    log.info(f"room_{change.status}", extra={"fields": {
                        "room": core.room_id, "game": core.game.name}})
                    self._store_later(f"room {core.room_id} {change.status}", partial(
                        self.store.set_room_status, core.room_id, change.status))
            if change.outcome is not None:
                self._finished(core, change.outcome)

    async def _commit(self, core: RoomCore, changes: list[Change],
                      tag: Tag | None = None) -> bool:
        """Saves the room, then sends out ``changes`` (what changed since the
        last commit) and its new chat lines; ``tag`` says what the registry
        knows of the command that made them (None: a timer)."""
        room_id = core.room_id
        chat = core.take_chat()
        command_id = tag.command_id if tag is not None else None
        members = (self.members.after(core, tag.conn, tag.command)
                   if tag is not None and tag.conn else None)
        base = self._saved_log.get(room_id, 0)
        now = now_ms()
        last = self._snapshotted.get(room_id)
        active = core.status in ACTIVE
        # A full snapshot when the room itself changed (seats, watchers, status,
        # chat) or the last one is old; otherwise the new log entries describe
        # the change completely (RoomCore.catch_up).
        rewrite = room_id in self._rewrite
        full = (rewrite or members is not None or last is None or bool(chat)
                or last[0] != core.room_changes or not active
                or now - last[1] >= self.SNAPSHOT_EVERY_MS
                or len(core.action_log) >= last[2])
        framing = self._frames.get(room_id)
        if framing is None:
            framing = self._frames[room_id] = RoomFrames()
        outgoing = [(change.version, framing.frames(change)) for change in changes]
        entries: list[bytes] = core.action_log[base:]  # JSON already (JSON_LOG)
        replies = self.replies if command_id is not None else None
        if replies is not None and command_id is not None and entries:
            # Kept with the room, so that wherever it runs next knows the
            # command was applied (app.retries).
            entries = [*entries[:-1], _with_cid(entries[-1], command_id)]
        snapshot = core.to_snapshot() if full else None
        if snapshot is not None:
            snapshot["members"] = self.members.saved(room_id, members)
        if snapshot is not None and self.replies is not None:
            retries = self.replies.saved(room_id)
            if replies is not None:
                retries.append([command_id, APPLIED])
            snapshot["retries"] = retries
        try:
            kept = await self.snapshots.save(RoomSave(
                room_id=room_id, snapshot=snapshot, log_base=base,
                log_entries=entries,
                summary=core.summary() if full else None, active=active, rewrite=rewrite,
                messages=[(channel, envelope_of(version, data))
                          for version, frames in outgoing for channel, data in frames]
                if self.snapshots.carries_messages else [],
            ))
        except Exception as err:
            # Nothing is sent; the actor undoes the change. The save may have
            # landed all the same: the next one rewrites what it may have left.
            self._rewrite.add(room_id)
            if is_outage(err):
                self.health.failed(self.snapshot_store, err)
                raise Unavailable(str(err)) from err
            raise
        self.health.ok(self.snapshot_store)
        self._rewrite.discard(room_id)
        if members is not None:
            self.members.keep(room_id, members)
        if replies is not None and command_id is not None:
            replies.remember(room_id, command_id, APPLIED)
        if not kept:
            log.warning("room_fenced", extra={"fields": {"room": room_id}})
            if self.rooms.pop(room_id, None) is not None:
                self._background(self._stop_hosting(core))
            self._forget(room_id)
            return False
        self._saved_log[room_id] = len(core.action_log)
        if full:
            self._snapshotted[room_id] = (core.room_changes, now, len(core.action_log)
                                          + self._snapshot_entries(room_id))
        # The save published them to the other processes if the store carries
        # messages (with one process there are none); this process's own
        # connections get them here.
        for version, frames in outgoing:
            self.feeds.send(version, frames)
        self._noted(core, changes)
        if chat:
            self._send_chat(core, chat)
        if core.take_spectators_moved():
            self._count_changed(core)
        return True

    def _send_chat(self, core: RoomCore, lines: list[dict[str, Any]]) -> None:
        """Sends chat lines to their readers: the players' channel to every
        audience, the spectators' to the spectators only, once they are saved
        (in the room's snapshot). Through the broker (which hands them to this
        process's connections too), not the save's messages: chat bumps no
        version, and a connection takes a line whatever snapshot it was sent.
        Framed with the next version, so that no connection's floor (the
        version of the snapshot it was sent) hides a line written after it."""
        watch = watch_channel(core.room_id)
        seats = [seat_channel(core.room_id, s.index) for s in core.seats
                 if s.player_id is not None]
        for line in lines:
            data = envelope_of(core.version + 1, wire(dumps(
                {"type": "chat", "room": core.room_id, **line})))
            for channel in ([*seats, watch] if line["channel"] == "players" else [watch]):
                self.broker.publish(channel, data)

    @classmethod
    def _snapshot_entries(cls, room_id: str) -> int:
        """How many log entries ``room_id`` saves between full snapshots."""
        spread = cls.SNAPSHOT_SPREAD
        return (cls.SNAPSHOT_EVERY_ENTRIES - spread // 2
                + zlib.crc32(room_id.encode()) % spread)

    # How long spectator counts of one room are gathered into one frame.
    COUNT_EVERY_S = 0.2

    def _count_changed(self, room: RoomCore) -> None:
        """The spectator count changed, without a new version.

        The members hear it as one small ``spectators`` frame per audience,
        at most one per room every COUNT_EVERY_S with the count as it is
        then: a crowd of spectators arriving at once costs each member a few
        frames, not one per arrival. The room was saved with its watchers first.
        """
        due = self._counts_due
        if room.room_id in due:
            return
        due.add(room.room_id)
        asyncio.get_running_loop().call_later(self.COUNT_EVERY_S, self._send_count, room)

    def _send_count(self, room: RoomCore) -> None:
        """Publishes the room's spectator count on every audience's channel.

        On the broker, which hands it to this process's feeds and (with
        Redis) to the other processes'. Its envelope says the version after
        the room's current one, so that every connection takes it whatever
        snapshot it was sent (a frame at or below a connection's snapshot
        version is dropped as older than it).
        """
        self._counts_due.discard(room.room_id)
        message = envelope_of(room.version + 1, wire(
            spectators_frame(room.room_id, room.version, room.spectators)))
        for channel in room_channels(room.room_id, room.seat_count):
            self.broker.publish(channel, message)

    def _finished(self, room: RoomCore, outcome: Outcome) -> None:
        winners = set(outcome.winners)
        record = room.replay_record()
        log.info("room_finished", extra={"fields": {
            "room": room.room_id, "game": room.game.name, "scores": outcome.scores,
            "winners": outcome.winners, "actions": len(room.action_log)}})
        self._background(self._record_finished(room, outcome, FinishedGame(
            room_id=room.room_id, game=room.game.name, options=room.options, seed=room.seed,
            actions=record["actions"], scores=list(outcome.scores),
            seat_names=[s.name for s in room.seats],
            results=[(s.index, s.player_id, s.name or "", s.bot, outcome.scores[s.index],
                      s.index in winners) for s in room.seats],
            started_at=_utc(room.started_at), finished_at=_utc(None),
            number=room.game_number,
        )))

    async def _record_finished(self, room: RoomCore, outcome: Outcome,
                               finished: FinishedGame) -> None:
        """Stores the game's record, then tells the finish listeners; each
        waits out an outage (:meth:`_until_stored`)."""
        what = f"room {finished.room_id} game {finished.number}"
        tries = 0

        async def record() -> None:
            nonlocal tries
            tries += 1
            try:
                await self.store.save_finished_game(finished)
            except IntegrityError:
                if tries == 1:
                    raise
                # An earlier try landed, but its answer was lost with the connection.

        await self._until_stored(what, record)
        for listener in self.finish_listeners:
            await self._until_stored(f"{what}: finish listener",
                                     partial(listener, room, outcome, finished))

    def _store_later(self, what: str, write: Callable[[], Awaitable[Any]]) -> None:
        """Runs ``write`` in the background until it lands (:meth:`_until_stored`)."""
        self._background(self._until_stored(what, write))

    async def _until_stored(self, what: str, write: Callable[[], Awaitable[Any]]) -> None:
        """Calls ``write`` until it lands, again while the store cannot be
        reached (STORE_RETRY_S): what players saw happen is not lost to an
        outage. When the registry closes it is tried once more; if that
        fails too, ``what`` is logged as lost."""
        delay, longest = self.STORE_RETRY_S
        failed = False
        while True:
            try:
                await write()
                if failed:
                    self.health.ok("database")  # the outage is over: said now, not later
                return
            except Exception as error:
                if not is_outage(error):
                    raise
                self.health.failed("database", error)
                failed = True
                if self._closing.is_set():
                    log.error("store_write_lost", extra={"fields": {"what": what}})
                    return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), delay)
            delay = min(2 * delay, longest)

    def _background(self, coro: Awaitable[Any]) -> None:
        task = asyncio.get_running_loop().create_task(_awaited(coro))
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            if is_outage(error):  # said once per outage, not once per write
                self.health.failed("database", error)
            else:
                log.error("background write failed", exc_info=error)

    # --- eviction ------------------------------------------------------------

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(60)
            try:
                await self.sweep(now_ms())
            except Exception:  # one bad sweep must not end the sweeping
                log.exception("room sweep failed")

    async def sweep(self, now: int) -> None:
        """Drops rooms nobody is in that have been idle too long (finished or abandoned)."""
        idle_ms = self.settings.room_idle_s * 1000

        def idle(core: RoomCore) -> bool:
            watched = core.spectators > 0 or any(s.connections for s in core.seats)
            if watched or now - core.last_activity < idle_ms:
                return False
            # A game with humans in it waits for them.
            return core.status != "playing" or all(s.bot for s in core.seats)

        for room_id, actor in list(self.rooms.items()):
            # Checked again, and saved one last time, by the actor between two
            # commands (a room abandoned or finished is saved as inactive:
            # nobody takes it over).
            if not idle(actor.core) or not await actor.retire(idle):
                continue
            core = actor.core
            if self.rooms.get(room_id) is not actor:
                # Fenced: another process owns the room now, and _commit has
                # already let it go here (the lease is not ours to release).
                continue
            if core.status == "abandoned":
                self._store_later(f"room {room_id} abandoned", partial(
                    self.store.set_room_status, room_id, "abandoned"))
            self.rooms.pop(room_id)
            await self._stop_hosting(core)
            self._forget(room_id)
            if self.cluster is not None:
                await self.cluster.release(room_id)
            log.info("room_evicted", extra={"fields": {"room": room_id, "status": core.status}})

    def _forget(self, room_id: str) -> None:
        """Drops what the registry kept about a room it no longer runs."""
        self._statuses.pop(room_id, None)
        self._rewrite.discard(room_id)
        self._saved_log.pop(room_id, None)
        self._frames.pop(room_id, None)
        if self.replies is not None:
            self.replies.forget(room_id)
        self._snapshotted.pop(room_id, None)
        self.members.forget(room_id)


def _with_cid(entry: bytes, command_id: str) -> bytes:
    """A log entry's JSON (an object, never empty) with the id of the command
    that made it added as ``cid``."""
    return b'%s,"cid":%s}' % (entry[:-1], dumps(command_id))
