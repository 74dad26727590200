"""The room registry: the rooms this process runs, and the way to any room.

Each room is a :class:`engine.room.RoomActor` owned by exactly one process.
The registry is the :class:`engine.room.RoomSink` of its rooms. It holds a
room's changes until the actor *commits* them: then it saves the room (its
snapshot and new log entries, :mod:`app.snapshots`) and only after that
sends the changes out, once per audience: to this process's connections
straight through its :class:`app.feeds.Feeds`, and (with Redis) to the
other processes' in the save itself, which publishes them. So a client
never sees, and is never acknowledged, a change that a crash could take
back. While it runs a room, the registry *hosts* the room's channels on
the broker (:meth:`app.broker.Broker.host`): this process does not listen
to them in Redis, since it is where they come from.

:meth:`RoomRegistry.call` is how the gateway reaches a room: the local actor
when this process owns it, else the owner through :mod:`app.cluster` (with
Redis), retrying while a room moves from a dead process to a live one.

Without Redis there is one process: it owns every room, saves them in the
database, and on start-up resumes the rooms that were being played.

A save that fails (the store cannot be reached) sends nothing: the actor
undoes the change (:class:`engine.room.RoomActor`) and the registry forgets
what it held for it. The next save of that room is then a full snapshot
that also *rewrites* the log from where the last landed save ended (the
failed one may have landed all the same). What a change sets off beyond the
room (the game's record when it ends, its status in the rooms table, the
change listeners) runs only once the change is saved. A room whose saved
state cannot be read back is *unrecoverable*: logged at ERROR with its id
and counted in ``/healthz``, never dropped silently.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import zlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from app.broker import Broker
from app.cluster import Cluster
from app.feeds import Feeds
from app.frames import change_frames, envelope_of, room_channels, state
from app.health import StoreHealth, is_outage
from app.settings import Settings
from app.snapshots import DbSnapshots, JournalSnapshots, RoomSave, SnapshotStore
from app.store import FinishedGame, RoomRecord, Store
from app.wsprotocol import wire
from engine.game import Game, Outcome
from engine.games import find_game
from engine.room import (
    Change,
    Command,
    RoomActor,
    RoomCore,
    RoomError,
    Snapshot,
    Unavailable,
)

log = logging.getLogger("kartu.rooms")

ACTIVE = ("waiting", "playing")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _utc(ms: int | None) -> datetime:
    return datetime.fromtimestamp((ms or now_ms()) / 1000, UTC)


async def _awaited(work: Awaitable[Any]) -> Any:
    return await work


class RoomRegistry:
    CALL_PATIENCE_S = 12.0  # how long a command may wait for a room that is moving
    # Between full snapshots a room saves only its new log entries (see _commit).
    # A room resumed from a snapshot replays the entries after it: at most
    # 250, a few milliseconds; a full snapshot is the costlier save, and it
    # grows with the game (a long Remmi Demmi round's trades: 100 KB), so
    # the entries bound it, not the clock. The minute is only a backstop.
    # Each room's bound is its own, from 150 to 249 entries: rooms started
    # together and played at one pace would otherwise all snapshot in the
    # same few milliseconds, a stall for every room of the process.
    SNAPSHOT_EVERY_MS = 60_000
    SNAPSHOT_EVERY_ENTRIES = 200
    SNAPSHOT_SPREAD = 100

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
        # Whether a command may reach a room twice (sent again after its room
        # moved to another process): only then does it need an id.
        self.retries_commands = cluster is not None
        self.rooms: dict[str, RoomActor] = {}
        # This process's connections to rooms, wherever the rooms run: the
        # changes of the rooms run here are handed to them directly.
        self.feeds = Feeds(broker)
        self._pending: dict[str, list[Change]] = {}
        # Games ended by changes not saved yet: recorded once they are.
        self._pending_finish: dict[str, list[Outcome]] = {}
        # Rooms whose last save failed: the next one is full and rewrites the log.
        self._rewrite: set[str] = set()
        self._saved_log: dict[str, int] = {}
        # Per room: RoomCore.room_changes and when at its last full snapshot,
        # and the log length at which the next one is due.
        self._snapshotted: dict[str, tuple[int, int, int]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._statuses: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None
        self._taking_over: set[str] = set()
        # Called with (room, outcome) when a game ends, after it is recorded.
        self.finish_listeners: list[Callable[[RoomCore, Outcome], Awaitable[None]]] = []
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
                        owner_id=owner_id, seed=seed, sink=self, created_at=now_ms(),
                        private=private)
        await self.store.save_room(RoomRecord(
            id=room_id, game=game.name, options=options, seats=seats, owner_id=owner_id,
            status=core.status, seed=seed,
        ))
        if self.cluster is not None and not await self.cluster.acquire(room_id):
            raise RoomError("busy", "could not claim the new room; try again")
        actor = self._run(core)
        await self._commit(core)
        self._statuses[room_id] = core.status
        log.info("room_created", extra={"fields": {"room": room_id, "game": game.name,
                                                   "seats": seats, "owner": owner_id,
                                                   "process": self.process_id}})
        return actor

    def _run(self, core: RoomCore) -> RoomActor:
        actor = RoomActor(core, now_ms, commit=self._commit, rolled_back=self._discard)
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

    async def call(self, room_id: str, command: Command) -> Any:
        """Runs ``command`` in the room, wherever it lives; raises RoomError."""
        actor = self.rooms.get(room_id)
        if actor is not None and not actor.stopped:  # the common case: the room is here
            try:
                return await actor.call(command)
            except RoomError as err:
                if err.code != "moved":
                    raise
        give_up = time.monotonic() + self.CALL_PATIENCE_S
        while True:
            try:
                return await self._call_once(room_id, command)
            except RoomError as err:
                if err.code != "moved":
                    raise
            except TimeoutError:
                pass  # the owner did not answer: it may be dead; the room will move
            if time.monotonic() > give_up:
                raise RoomError("busy", "the room is moving to another server; try again")
            await asyncio.sleep(0.2)

    async def _call_once(self, room_id: str, command: Command) -> Any:
        try:
            return await self._route(room_id, command)
        except (RoomError, TimeoutError):
            raise
        except Exception as err:
            if not is_outage(err):
                raise
            # Finding the room's owner takes Redis: said once per outage.
            self.health.failed("redis", err)
            raise RoomError("unavailable", "the server cannot reach the room right now; "
                                           "try again shortly") from err

    async def _route(self, room_id: str, command: Command) -> Any:
        actor = self.get(room_id)
        if actor is not None:
            return await actor.call(command)
        if self.cluster is None:
            raise RoomError("unknown_room", f"there is no room {room_id!r}")
        owner = await self.cluster.owner(room_id)
        if owner is not None and owner != self.process_id:
            return await self.cluster.call(owner, room_id, command)
        if owner is None and await self.cluster.is_active(room_id):
            await self.take_over(room_id)
            raise RoomError("moved", "the room is moving; try again")
        if owner is None and not await self.cluster.exists(room_id):
            raise RoomError("unknown_room", f"there is no room {room_id!r}")
        if owner is None:
            raise RoomError("unknown_room", f"room {room_id!r} is over")
        raise RoomError("moved", "the room is starting here; try again")

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

    async def _resume(self, room_id: str, keep: Callable[[str], bool]) -> bool:
        loaded = await self.snapshots.load(room_id)
        if loaded is None:
            return False
        data, action_log = loaded
        game = find_game(data["game"])
        if game is None:
            log.error("cannot resume room %s: unknown game %s", room_id, data["game"])
            return False
        core = RoomCore.from_snapshot(data, game, self, action_log)
        core.catch_up(action_log[data["log_length"]:], now_ms())
        self.unrecoverable.pop(room_id, None)
        self._saved_log[room_id] = len(core.action_log)
        self._statuses[room_id] = core.status
        core.drop_connections(keep, now_ms())
        self._run(core)
        with contextlib.suppress(Unavailable):  # it runs; its next save is full (_commit)
            await self._commit(core)
        return True

    async def _resume_all(self) -> None:
        """One process, just started: every room that was being played goes on."""
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
        # The feeds are keyed by channel; only their names are read here.
        channels = list(self.feeds._feeds)
        sent = 0
        for channel in channels:
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

    # --- RoomSink and commit ---------------------------------------------------

    def changed(self, room: RoomCore, change: Change) -> None:
        pending = self._pending.get(room.room_id)
        if pending is None:  # (not setdefault: a list made for nothing on every change)
            self._pending[room.room_id] = [change]
        else:
            pending.append(change)

    def _discard(self, room: RoomCore) -> None:
        """The room undid its latest changes: they are neither saved nor sent."""
        self._pending.pop(room.room_id, None)
        self._pending_finish.pop(room.room_id, None)

    def _saved(self, room: RoomCore, changes: list[Change]) -> None:
        """What the saved changes set off beyond the room itself."""
        if self.change_listeners:
            for change in changes:
                for listener in self.change_listeners:
                    work = listener(room, change)
                    if work is not None:
                        self._background(work)
        outcomes = self._pending_finish.pop(room.room_id, None)
        if outcomes is not None:  # first: the game's record sets its status too
            for outcome in outcomes:
                self._record(room, outcome)
        if self._statuses.get(room.room_id) != room.status:
            self._statuses[room.room_id] = room.status
            log.info(f"room_{room.status}", extra={"fields": {"room": room.room_id,
                                                             "game": room.game.name}})
            self._background(self.store.set_room_status(room.room_id, room.status))

    async def _commit(self, core: RoomCore) -> bool:
        """Saves the room, then sends out what changed since the last commit."""
        room_id = core.room_id
        changes = self._pending.pop(room_id, [])
        base = self._saved_log.get(room_id, 0)
        now = now_ms()
        last = self._snapshotted.get(room_id)
        active = core.status in ACTIVE
        # A full snapshot when the room itself changed (seats, watchers, status)
        # or the last one is old; otherwise the new log entries describe the
        # change completely (RoomCore.catch_up).
        full = (last is None or last[0] != core.room_changes or not active
                or now - last[1] >= self.SNAPSHOT_EVERY_MS
                or len(core.action_log) >= last[2])
        rewrite = room_id in self._rewrite
        full = full or rewrite
        outgoing = [(change.version, change_frames(change)) for change in changes]
        try:
            kept = await self.snapshots.save(RoomSave(
                room_id=room_id, snapshot=core.to_snapshot() if full else None, log_base=base,
                log_entries=core.action_log[base:], summary=core.summary() if full else None,
                active=active, rewrite=rewrite,
                messages=[(channel, envelope_of(version, data))
                          for version, frames in outgoing for channel, data in frames]
                if self.snapshots.carries_messages else [],
            ))
        except Exception as err:
            # Nothing is sent; the actor undoes the change. The save may have
            # landed all the same: the next one rewrites what it may have left.
            self._rewrite.add(room_id)
            self._pending_finish.pop(room_id, None)
            if is_outage(err):
                self.health.failed(self.snapshot_store, err)
                raise Unavailable(str(err)) from err
            raise
        self.health.ok(self.snapshot_store)
        if rewrite:
            self._rewrite.discard(room_id)
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
        self._saved(core, changes)
        return True

    @classmethod
    def _snapshot_entries(cls, room_id: str) -> int:
        """How many log entries ``room_id`` saves between full snapshots."""
        spread = cls.SNAPSHOT_SPREAD
        return (cls.SNAPSHOT_EVERY_ENTRIES - spread // 2
                + zlib.crc32(room_id.encode()) % spread)

    def finished(self, room: RoomCore, outcome: Outcome) -> None:
        # Recorded once the change that ended the game is saved (_saved).
        self._pending_finish.setdefault(room.room_id, []).append(outcome)

    def _record(self, room: RoomCore, outcome: Outcome) -> None:
        self._statuses[room.room_id] = room.status
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
        )))

    async def _record_finished(self, room: RoomCore, outcome: Outcome,
                               finished: FinishedGame) -> None:
        await self.store.save_finished_game(finished)
        for listener in self.finish_listeners:
            await listener(room, outcome)

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
        for room_id, actor in list(self.rooms.items()):
            core = actor.core
            watched = core.spectators > 0 or any(s.connections for s in core.seats)
            if watched or now - core.last_activity < idle_ms:
                continue
            if core.status == "playing" and any(not s.bot for s in core.seats):
                continue  # a game with humans in it waits for them
            status = core.status
            if status == "waiting":
                core.status = self._statuses[room_id] = "abandoned"
            try:
                kept = await self._commit(core)  # saved as inactive: nobody takes it over
            except Unavailable:
                core.status = self._statuses[room_id] = status
                continue  # the store is down: evicted by a later sweep
            if status == "waiting":
                self._background(self.store.set_room_status(room_id, "abandoned"))
            await actor.stop()
            if not kept:
                # Fenced: another process owns the room now, and _commit has
                # already let it go here (the lease is not ours to release).
                continue
            self.rooms.pop(room_id, None)
            await self._stop_hosting(core)
            self._forget(room_id)
            if self.cluster is not None:
                await self.cluster.release(room_id)
            log.info("room_evicted", extra={"fields": {"room": room_id, "status": core.status}})

    def _forget(self, room_id: str) -> None:
        """Drops what the registry kept about a room it no longer runs."""
        self._pending.pop(room_id, None)
        self._pending_finish.pop(room_id, None)
        self._rewrite.discard(room_id)
        self._statuses.pop(room_id, None)
        self._saved_log.pop(room_id, None)
        self._snapshotted.pop(room_id, None)
