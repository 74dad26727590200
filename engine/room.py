"""The room: who sits where, the game being played, and the actor that runs it.

Terms:

- *room*: a table for one game, with a fixed number of *seats*. A seat is
  taken by a player, a bot, or nobody yet. An *owner* (the player who made
  the room) adds bots and starts the game.
- *spectator*: a connection that watches; it sees the view of seat ``None``.
- *version*: a counter that grows by one on every change to the room, so a
  client can tell a stale or missed message (resync by snapshot).
- *change*: what one command or timer did: the new version, the public
  events, and the views to send. A :class:`RoomSink` carries it out of here.
- *turn clock*: in turn-based games, how long a human has for a turn. When it
  runs out the seat is marked *away* and its bot plays for it until the
  player acts again.
- *action log*: every applied action and timeout in order, with its ``now``:
  with the seed and options it replays the game exactly
  (:func:`engine.replay.replay`). Each entry is kept as its JSON bytes, as
  it is saved: a room's history only grows, and as dicts it would be
  thousands of objects per room for the garbage collector to walk again and
  again (:meth:`RoomCore.log_entries` reads them back).

:class:`RoomCore` holds the logic and is synchronous: it takes ``now`` for
everything, so tests drive it with a fake clock. :class:`RoomActor` wraps it
in an asyncio task that applies one command at a time from a bounded queue
and wakes itself for deadlines (game timers, turn clocks, bot moves). Nothing
here performs I/O; the sink decides where changes go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from engine.errors import GameError
from engine.game import Action, Event, Game, Outcome, OwnPart, View, kept_json, plain

log = logging.getLogger("kartu.room")

BOT_NAMES = ("Ada", "Bram", "Cleo", "Dara", "Emil", "Fenna", "Gus", "Hana", "Ivo")


class RoomError(Exception):
    """A refused room command; ``code`` goes on the wire. Nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Seat:
    index: int
    player_id: str | None = None
    name: str | None = None
    bot: bool = False
    # Ids of the connections holding this seat ("<process>:<n>"), so that a
    # room moved to another process can tell which of them are still alive.
    connections: set[str] = field(default_factory=set)
    away: bool = False

    @property
    def is_free(self) -> bool:
        return self.player_id is None and not self.bot

    @property
    def plays_by_bot(self) -> bool:
        return self.bot or self.away


@dataclass
class Change:
    """One change to a room, ready to be sent: public events and fresh views.

    The views come in two parts (:meth:`RoomCore.view_parts`): ``shared``,
    what every audience sees, and ``own``, for each audience (a seat; None:
    spectators), what only it sees. Only seats held by humans get a view:
    bots read the game directly.
    """

    room_id: str
    version: int
    events: list[Event]
    shared: View
    own: Mapping[int | None, OwnPart]

    @property
    def views(self) -> dict[int | None, View]:
        """Each audience's whole view."""
        return {audience: {**self.shared, **plain(own)} for audience, own in self.own.items()}


class RoomSink(Protocol):
    """Where a room's changes go (the app publishes them; tests collect them)."""

    def changed(self, room: RoomCore, change: Change) -> None: ...

    def finished(self, room: RoomCore, outcome: Outcome) -> None: ...


# --- commands -------------------------------------------------------------


# Every changing command may carry a ``command_id``: a command retried with
# the same id (after its reply was lost, e.g. when the room moved to another
# process) gets the first reply again instead of being applied twice.


@dataclass(frozen=True)
class Join:
    player_id: str | None
    name: str | None
    role: str  # "player" | "spectator"
    conn: str = ""
    command_id: str | None = None


@dataclass(frozen=True)
class Leave:
    player_id: str | None
    seat: int | None  # the seat the leaving connection held (None: a spectator)
    disconnect: bool = False  # the socket went away (vs. an explicit leave)
    conn: str = ""
    command_id: str | None = None


@dataclass(frozen=True)
class AddBot:
    player_id: str | None
    command_id: str | None = None


@dataclass(frozen=True)
class Start:
    player_id: str | None
    command_id: str | None = None


@dataclass(frozen=True)
class Act:
    player_id: str | None
    seat: int | None
    action: Action
    command_id: str | None = None


@dataclass(frozen=True)
class Snapshot:
    seat: int | None
    command_id: str | None = None


Command = Join | Leave | AddBot | Start | Act | Snapshot


@dataclass(slots=True)
class _RoomFacts:
    """What a room's views show of the room itself, and who is sent its changes:
    made once per change to the room (:meth:`RoomCore._room_facts`)."""

    room_changes: int
    status: str
    seats: list[dict[str, Any]]  # per seat: name, bot, connected, away
    room: dict[str, Any]  # the views' ``room`` object
    audiences: list[int | None]  # connected seats, then None if anyone watches
    bot_seats: frozenset[int]  # the seats a bot plays (Seat.plays_by_bot)


@dataclass(slots=True)
class Checkpoint:
    """A room as it was before a command or timer (:meth:`RoomCore.checkpoint`),
    to put it back whole if the command fails or its save does not land.

    Cheap to take: the game state is kept by reference (``Game.apply`` makes
    a new state, never changes one), the action log by its length (it only
    grows), and the replies to retried commands by what changed in them.
    """

    state: Any
    version: int
    room_changes: int
    status: str
    seats: list[Seat]
    watchers: set[str]
    started_at: int | None
    turn_deadline: int | None
    bot_due: int | None
    last_activity: int
    log_length: int
    turn_key: tuple[Any, ...] | None
    last_bot: int
    facts: _RoomFacts | None
    # The replies remembered since (to drop) and the ones pushed out (to put back).
    added: list[str] = field(default_factory=list)
    evicted: list[tuple[str, Any]] = field(default_factory=list)


@dataclass
class RoomCore:
    """A room's whole state and the rules for changing it. Synchronous; ``now`` in ms."""

    room_id: str
    game: Game
    options: dict[str, Any]
    seat_count: int
    owner_id: str | None
    seed: int
    sink: RoomSink
    created_at: int
    # A private room cannot be watched and is left out of the lobby (daily deals).
    private: bool = False
    seats: list[Seat] = field(default_factory=list)
    status: str = "waiting"  # waiting | playing | finished
    state: Any = None
    version: int = 0
    watchers: set[str] = field(default_factory=set)  # spectators' connection ids
    started_at: int | None = None
    action_log: list[bytes] = field(default_factory=list)  # entries as JSON
    turn_deadline: int | None = None
    bot_due: int | None = None
    last_activity: int = 0
    # Counts the changes to the room itself (seats, watchers, away, status),
    # as opposed to the game: between two of them, the action log describes
    # every change (the registry saves a full snapshot only when this moved).
    room_changes: int = 0
    _turn_key: tuple[Any, ...] | None = None
    _last_bot: int = -1
    # Replies to the latest commands that carried an id (oldest first). An
    # OrderedDict drops its oldest in constant time; a dict's first entry
    # lies past every one deleted before it, a scan of hundreds of empty
    # slots on every command once the room has seen RECENT_LIMIT of them.
    recent: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    _public_options: dict[str, Any] | None = field(default=None, init=False, repr=False)
    # What every view shows of the room itself and who is sent changes (see
    # _room_facts), and the room_changes and status they were made at.
    _facts: _RoomFacts | None = field(default=None, init=False, repr=False)
    # The checkpoint taken before the command or timer being applied, if any.
    _checkpoint: Checkpoint | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [Seat(i) for i in range(self.seat_count)]
        self.last_activity = self.created_at

    # --- reading -----------------------------------------------------------

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.index
        return None

    @property
    def spectators(self) -> int:
        return len(self.watchers)

    @property
    def seats_taken(self) -> int:
        return sum(not s.is_free for s in self.seats)

    @property
    def bot_delay_ms(self) -> int:
        return int(self.options.get("bot_delay_ms", 800))

    @property
    def turn_clock_ms(self) -> int:
        if not self.game.turn_based:
            return 0
        return int(self.options.get("turn_clock_s", 0)) * 1000

    @property
    def public_options(self) -> dict[str, Any]:
        """The options anyone may see (a scenario would give a deal away).

        Made once: a room's options never change, and every view shows them.
        """
        if self._public_options is None:
            self._public_options = {k: v for k, v in self.options.items() if k != "scenario"}
        return self._public_options

    def summary(self) -> dict[str, Any]:
        """The lobby's line for this room."""
        return {
            "room_id": self.room_id,
            "game": self.game.name,
            "title": self.game.title,
            "seats": self.seat_count,
            "seats_taken": self.seats_taken,
            "status": self.status,
            "spectators": self.spectators,
            "players": [s.name for s in self.seats if not s.is_free],
            "owner_id": self.owner_id,
            "options": self.public_options,
            "created_at": self.created_at,
            "private": self.private,
        }

    def view_for(self, seat: int | None, now: int) -> View:
        """The game's view for ``seat`` with the room's own facts merged in."""
        shared, own = self.view_parts([seat], now)
        return {**shared, **plain(own[seat])}

    def view_parts(self, seats: list[int | None], now: int
                   ) -> tuple[View, Mapping[int | None, OwnPart]]:
        """The views of ``seats`` as the part they all show and each one's own
        (:meth:`engine.game.Game.view_parts`: for sending, some values may be
        JSON already), with the room's facts merged in."""
        own: Mapping[int | None, OwnPart]
        if self.state is None:
            shared, own = self._waiting_view_parts(seats)
        else:
            shared, own = self.game.view_parts(self.state, seats)
        room_facts = self._room_facts()
        # The seat list is shown to all, so it is in the shared part only.
        for entry, facts in zip(shared["seats"], room_facts.seats, strict=True):
            entry.update(facts)
        shared["room"] = room_facts.room
        shared["turn_deadline"] = self.turn_deadline
        shared["server_time"] = now
        return shared, own

    def _room_facts(self) -> _RoomFacts:
        """What the views show of the room itself (each seat's facts, merged
        into the game's seat list, and the ``room`` object), the audiences
        a change goes to and the seats bots play. Made again only when the
        room changed, not the game: everything they read changes only with a
        change counted in :attr:`room_changes` (or the status). Views share
        them: read, never change them."""
        facts = self._facts
        if facts is None or facts.room_changes != self.room_changes \
                or facts.status != self.status:
            seats = self.seats
            room = {"id": self.room_id, "status": self.status, "owner_id": self.owner_id,
                    "spectators": self.spectators, "seats": self.seat_count,
                    "options": self.public_options, "private": self.private}
            audiences: list[int | None] = [s.index for s in seats
                                           if s.player_id is not None and s.connections]
            if self.watchers:
                audiences.append(None)
            facts = self._facts = _RoomFacts(
                self.room_changes, self.status,
                [{"name": s.name, "bot": s.bot, "connected": s.bot or bool(s.connections),
                  "away": s.away} for s in seats],
                room, audiences, frozenset(s.index for s in seats if s.plays_by_bot))
        return facts

    def _waiting_view_parts(self, seats: list[int | None]
                            ) -> tuple[View, dict[int | None, View]]:
        shared: View = {
            "game": self.game.name, "phase": "waiting", "dealer": None,
            "turn": None, "step": None, "deal": 0, "stock_count": 0, "discard": [],
            "melds": [],
            "result": None,
            "seats": [{"seat": s.index, "hand_count": 0, "score": 0, "melds": []}
                      for s in self.seats],
        }
        own: dict[int | None, View] = {
            seat: {"you": seat} if seat is None else {"you": seat, "hand": []}
            for seat in seats}
        return shared, own

    # --- commands ----------------------------------------------------------

    RECENT_LIMIT = 512

    def handle(self, command: Command, now: int) -> Any:
        """Applies one command. Raises RoomError (nothing changed) or returns a reply."""
        if isinstance(command, Snapshot):
            return self.version, self.view_for(command.seat, now)
        if command.command_id is not None and command.command_id in self.recent:
            return self.recent[command.command_id]
        result = self._dispatch(command, now)
        if command.command_id is not None:
            self._remember(command.command_id, result)
        return result

    def _remember(self, command_id: str, result: Any) -> None:
        """Keeps ``result`` as the reply to a retry of ``command_id`` (the latest
        RECENT_LIMIT commands)."""
        recent = self.recent
        checkpoint = self._checkpoint
        if checkpoint is not None and command_id not in recent:
            checkpoint.added.append(command_id)
        recent[command_id] = result
        if len(recent) > self.RECENT_LIMIT:
            evicted = recent.popitem(last=False)
            if checkpoint is not None:
                checkpoint.evicted.append(evicted)

    # --- all or nothing --------------------------------------------------------

    def checkpoint(self) -> Checkpoint:
        """Where to come back to if what is applied next fails or is not saved."""
        checkpoint = self._checkpoint = Checkpoint(
            self.state, self.version, self.room_changes, self.status,
            [Seat(s.index, s.player_id, s.name, s.bot, set(s.connections), s.away)
             for s in self.seats],
            set(self.watchers), self.started_at, self.turn_deadline, self.bot_due,
            self.last_activity, len(self.action_log), self._turn_key, self._last_bot,
            self._facts)
        return checkpoint

    def rollback(self, checkpoint: Checkpoint, *, keep_version: bool = False) -> None:
        """Puts the room back as it was at ``checkpoint``.

        ``keep_version``: the version stays where the undone changes took it,
        so that the next change has a version above any of theirs (a save that
        failed may still have landed and been sent; see RoomActor._commit).
        """
        version = max(self.version, checkpoint.version) if keep_version else checkpoint.version
        self.state, self.version = checkpoint.state, version
        self.room_changes, self.status = checkpoint.room_changes, checkpoint.status
        self.seats, self.watchers = checkpoint.seats, checkpoint.watchers
        self.started_at = checkpoint.started_at
        self.turn_deadline, self.bot_due = checkpoint.turn_deadline, checkpoint.bot_due
        self.last_activity = checkpoint.last_activity
        del self.action_log[checkpoint.log_length:]
        self._turn_key, self._last_bot = checkpoint.turn_key, checkpoint.last_bot
        self._facts = checkpoint.facts
        recent = self.recent
        for command_id in checkpoint.added:
            recent.pop(command_id, None)
        for command_id, reply in reversed(checkpoint.evicted):
            recent[command_id] = reply
            recent.move_to_end(command_id, last=False)
        self._checkpoint = None

    def release(self) -> None:
        """What was applied since the checkpoint is kept: forget the checkpoint."""
        self._checkpoint = None

    def _dispatch(self, command: Command, now: int) -> Any:
        if isinstance(command, Act):  # first: nearly every command is one
            return self._act(command, now)
        if isinstance(command, Join):
            return self._join(command, now)
        if isinstance(command, Leave):
            return self._leave(command, now)
        if isinstance(command, AddBot):
            return self._add_bot(command, now)
        if isinstance(command, Start):
            return self._start(command, now)
        raise RoomError("bad_message", "unknown command")

    def _join(self, cmd: Join, now: int) -> int | None:
        if cmd.role == "spectator":
            if self.private:
                raise RoomError("forbidden", "this room cannot be watched")
            self.watchers.add(cmd.conn)
            self._emit(now, [{"kind": "spectator_joined", "spectators": self.spectators}])
            return None
        if cmd.player_id is None:
            raise RoomError("forbidden", "sign in as a guest to take a seat; anyone may watch")
        seat = self.seat_of(cmd.player_id)
        if seat is None:
            if self.status != "waiting":
                raise RoomError("room_full", "the game has started: you can watch it")
            free = [s for s in self.seats if s.is_free]
            if not free:
                raise RoomError("room_full", "every seat is taken: you can watch")
            chosen = free[0]
            chosen.player_id, chosen.name = cmd.player_id, cmd.name
            seat = chosen.index
            event: Event = {"kind": "joined", "seat": seat, "name": cmd.name}
        else:
            event = {"kind": "reconnected", "seat": seat, "name": self.seats[seat].name}
        self.seats[seat].connections.add(cmd.conn)
        self._emit(now, [event])
        return seat

    def _leave(self, cmd: Leave, now: int) -> None:
        if cmd.seat is None:
            self.watchers.discard(cmd.conn)
            self._emit(now, [{"kind": "spectator_left", "spectators": self.spectators}])
            return
        seat = self.seats[cmd.seat]
        if seat.player_id != cmd.player_id:
            raise RoomError("forbidden", "that is not your seat")
        seat.connections.discard(cmd.conn)
        event: Event = {"kind": "disconnected" if cmd.disconnect else "left", "seat": seat.index}
        if self.status == "waiting" and not cmd.disconnect and not seat.connections:
            # Before the game starts, leaving gives the seat up.
            seat.player_id = seat.name = None
        self._emit(now, [event])

    def _require_owner(self, player_id: str | None, what: str) -> None:
        if player_id is None or player_id != self.owner_id:
            raise RoomError("forbidden", f"only the room's owner can {what}")

    def _add_bot(self, cmd: AddBot, now: int) -> int:
        self._require_owner(cmd.player_id, "add bots")
        if self.status != "waiting":
            raise RoomError("illegal_action", "bots can only be added before the game starts")
        free = [s for s in self.seats if s.is_free]
        if not free:
            raise RoomError("room_full", "every seat is taken")
        seat = self._seat_bot(free[0])
        self._emit(now, [{"kind": "bot_added", "seat": seat.index, "name": seat.name}])
        return seat.index

    def _seat_bot(self, seat: Seat) -> Seat:
        used = {s.name for s in self.seats}
        name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used),
                    f"Bot {seat.index + 1}")
        seat.bot, seat.name = True, name
        return seat

    def _start(self, cmd: Start, now: int) -> None:
        self._require_owner(cmd.player_id, "start the game")
        if self.status != "waiting":
            raise RoomError("illegal_action", "the game has already started")
        free = [s for s in self.seats if s.is_free]
        if free and not self.options.get("fill_bots"):
            raise RoomError(
                "illegal_action",
                f"{len(free)} seat(s) still empty: add bots or wait for players",
            )
        state = self.game.setup(self.options, self.seat_count, self.seed, now)
        for seat in free:
            self._seat_bot(seat)
        self.state = state
        self.status = "playing"
        self.started_at = now
        self._emit(now, [{"kind": "started", "players": self.seat_count}])

    def _act(self, cmd: Act, now: int) -> None:
        # The seat the gateway says is the player's (a player has at most one).
        if cmd.seat is None or cmd.player_id is None or not 0 <= cmd.seat < self.seat_count \
                or self.seats[cmd.seat].player_id != cmd.player_id:
            raise RoomError("forbidden", "only seated players can act")
        if self.status != "playing":
            raise RoomError("illegal_action", "the game is not being played")
        seat = self.seats[cmd.seat]
        self._apply(cmd.seat, cmd.action, now, by_bot=False, command_id=cmd.command_id)
        if seat.away:
            # Acting again takes the seat back from the bot.
            seat.away = False
            self._emit(now, [{"kind": "back", "seat": seat.index}])

    def _apply(self, seat: int, action: Action, now: int, *, by_bot: bool,
               command_id: str | None = None) -> None:
        try:
            state, events = self.game.apply(self.state, seat, action, now)
        except GameError as err:
            raise RoomError(err.code, err.message) from err
        self.state = state
        entry: dict[str, Any] = {"seat": seat, "action": action, "at": now}
        if by_bot:
            entry["bot"] = True
        if command_id is not None:
            entry["cid"] = command_id  # lets a saved room recognise a retried command
        self.action_log.append(kept_json(entry))
        self._emit(now, events, game_only=True)

    # --- time --------------------------------------------------------------

    def next_wakeup(self) -> int | None:
        """The earliest moment :meth:`tick` has something to do."""
        times = [t for t in (self.turn_deadline, self.bot_due) if t is not None]
        if self.state is not None and self.status == "playing":
            deadline = self.game.next_deadline(self.state)
            if deadline is not None:
                times.append(deadline)
        return min(times) if times else None

    def tick(self, now: int) -> None:
        """Runs whatever is due at ``now``: game deadline, turn clock, bot moves."""
        if self.status != "playing":
            return
        deadline = self.game.next_deadline(self.state)
        if deadline is not None and now >= deadline:
            self.state, events = self.game.on_timeout(self.state, now)
            self.action_log.append(kept_json({"timeout": True, "at": now}))
            self._emit(now, events, game_only=True)
            return
        if self.turn_deadline is not None and now >= self.turn_deadline:
            for seat_index in self.game.to_act(self.state):
                seat = self.seats[seat_index]
                if not seat.plays_by_bot:
                    seat.away = True
                    self._emit(now, [{"kind": "away", "seat": seat_index}])
            self.bot_due = now
            self.turn_deadline = None
            return
        if self.bot_due is not None and now >= self.bot_due:
            self.bot_due = None
            self._play_bots(now)

    def _play_bots(self, now: int) -> None:
        actors = self.game.to_act(self.state)
        # Start after the bot that moved last, so that in a real-time game
        # every bot gets its turn to move.
        actors = sorted(actors, key=lambda s: (s <= self._last_bot, s))
        for seat_index in actors:
            seat = self.seats[seat_index]
            if not seat.plays_by_bot:
                continue
            view = self.game.view(self.state, seat_index)
            view["server_time"] = now  # bots pace themselves by the room's clock
            action = self.game.bot_action(view, self.seed + len(self.action_log))
            if action is None:
                continue
            self._last_bot = seat_index
            try:
                self._apply(seat_index, action, now, by_bot=True)
            except RoomError as err:
                # A bot must never stall a table: fall back to any legal move.
                log.error("bot in room %s seat %d played %r: %s", self.room_id, seat_index,
                          action, err.message)
                legal = self.game.legal_actions(self.state, seat_index)
                if not legal:
                    continue
                self._apply(seat_index, legal[0], now, by_bot=True)
            self._last_bot = seat_index
            return  # one bot action per wake-up keeps a human pace
        if not self.game.turn_based and any(self.seats[a].plays_by_bot for a in actors):
            # In real time a bot that waits now may want to move later even if
            # nothing else happens: look again after a pause.
            self.bot_due = now + max(self.bot_delay_ms, 250)

    # --- after every change ------------------------------------------------

    def _emit(self, now: int, events: list[Event], *, game_only: bool = False) -> None:
        """Sends one change out. ``game_only``: only the game state changed, as
        the action log's newest entry says (see :attr:`room_changes`)."""
        self.version += 1
        if not game_only:
            self.room_changes += 1
        self.last_activity = now
        self._schedule(now)
        # The seats with a connection, then the spectators (None) if any.
        audiences = self._room_facts().audiences
        shared, own = self.view_parts(audiences, now) if audiences else ({}, {})
        self.sink.changed(self, Change(self.room_id, self.version, events, shared, own))
        if self.status == "playing":
            outcome = self.game.outcome(self.state)
            if outcome is not None:
                self.status = "finished"
                self.room_changes += 1
                self.turn_deadline = self.bot_due = None
                self.sink.finished(self, outcome)

    def _schedule(self, now: int) -> None:
        """Sets the turn clock and the next bot move after a change."""
        if self.status != "playing":
            self.turn_deadline = self.bot_due = None
            return
        actors = self.game.to_act(self.state)
        bots = self._room_facts().bot_seats
        key = (getattr(self.state, "deal", None), tuple(actors))
        if key != self._turn_key:
            self._turn_key = key
            humans = [a for a in actors if a not in bots]
            self.turn_deadline = (now + self.turn_clock_ms
                                  if humans and self.turn_clock_ms > 0 else None)
        if not bots or bots.isdisjoint(actors):
            self.bot_due = None
        elif self.bot_due is None or self.bot_due <= now:
            # Keep a pending bot move where it is: in a real-time game others'
            # actions must not push the bots' moves back for ever.
            self.bot_due = now + self.bot_delay_ms

    # --- persistence of a running room ---------------------------------------

    SNAPSHOT_FORMAT = 1

    def to_snapshot(self) -> dict[str, Any]:
        """Everything needed to run this room on (another process, after a restart).

        The action log is not included: it only grows, so it is saved apart,
        entry by entry (``log_length`` says how many entries belong to it).
        """
        return {
            "format": self.SNAPSHOT_FORMAT,
            "room_id": self.room_id, "game": self.game.name, "options": self.options,
            "seat_count": self.seat_count, "owner_id": self.owner_id, "seed": self.seed,
            "created_at": self.created_at, "private": self.private, "status": self.status,
            "version": self.version, "started_at": self.started_at,
            "turn_deadline": self.turn_deadline, "bot_due": self.bot_due,
            "last_activity": self.last_activity,
            "turn_key": list(self._turn_key) if self._turn_key is not None else None,
            "last_bot": self._last_bot,
            "seats": [{"index": s.index, "player_id": s.player_id, "name": s.name,
                       "bot": s.bot, "away": s.away, "connections": sorted(s.connections)}
                      for s in self.seats],
            "watchers": sorted(self.watchers),
            "recent": list(self.recent.items()),
            "log_length": len(self.action_log),
            "state": None if self.state is None else self.game.snapshot(self.state),
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any], game: Game, sink: RoomSink,
                      action_log: list[bytes]) -> RoomCore:
        if data.get("format") != cls.SNAPSHOT_FORMAT:
            raise ValueError(f"unknown room snapshot format {data.get('format')!r}")
        seats = [Seat(s["index"], s["player_id"], s["name"], s["bot"], set(s["connections"]),
                      s["away"]) for s in data["seats"]]
        room = cls(
            room_id=data["room_id"], game=game, options=data["options"],
            seat_count=data["seat_count"], owner_id=data["owner_id"], seed=data["seed"],
            sink=sink, created_at=data["created_at"], private=data["private"], seats=seats,
            status=data["status"], version=data["version"], started_at=data["started_at"],
            action_log=list(action_log[: data["log_length"]]),
            turn_deadline=data["turn_deadline"], bot_due=data["bot_due"],
            watchers=set(data["watchers"]),
            state=None if data["state"] is None else game.restore(data["state"]),
        )
        room.last_activity = data["last_activity"]
        room._turn_key = tuple(data["turn_key"]) if data["turn_key"] is not None else None
        room._last_bot = data["last_bot"]
        room.recent = OrderedDict(
            (k, tuple(v) if isinstance(v, list) else v) for k, v in data["recent"])
        return room

    def drop_connections(self, keep: Callable[[str], bool], now: int) -> None:
        """Forgets connections for which ``keep`` is false (their process is gone)."""
        lost = [s.index for s in self.seats if any(not keep(c) for c in s.connections)]
        for seat in self.seats:
            seat.connections = {c for c in seat.connections if keep(c)}
        watchers = {c for c in self.watchers if keep(c)}
        if lost or watchers != self.watchers:
            self.watchers = watchers
            self._emit(now, [{"kind": "disconnected", "seat": i} for i in lost])

    def replay_record(self) -> dict[str, Any]:
        """What the replay endpoint serves: enough to replay the game exactly."""
        return {
            "game": self.game.name,
            "options": self.options,
            "seed": self.seed,
            "players": self.seat_count,
            "started_at": self.started_at,
            "actions": [{k: v for k, v in e.items() if k != "cid"} for e in self.log_entries()],
        }

    def log_entries(self, start: int = 0) -> list[dict[str, Any]]:
        """The action log from entry ``start`` on, as dicts."""
        return [orjson.loads(entry) for entry in self.action_log[start:]]

    def catch_up(self, entries: list[bytes], now: int) -> None:
        """Replays log entries saved after this room's snapshot (a room resumed).

        Between snapshots a room saves only the new entries of its action log
        when nothing but the game changed; each entry is one change, so the
        game state, the log, the version and the replies to retried commands
        come back exactly. Timers restart from ``now``.
        """
        if not entries:
            return
        for raw in entries:
            entry = orjson.loads(raw)
            if entry.get("timeout"):
                self.state, _ = self.game.on_timeout(self.state, entry["at"])
            else:
                self.state, _ = self.game.apply(self.state, entry["seat"], entry["action"],
                                                entry["at"])
            self.action_log.append(raw)
            self.version += 1
            if "cid" in entry:
                self._remember(entry["cid"], None)
        self._turn_key = None
        self.bot_due = None
        self._schedule(now)


Clock = Callable[[], int]


Commit = Callable[["RoomCore"], Awaitable[bool]]


class Unavailable(Exception):
    """Raised by a commit whose save did not land because a store cannot be
    reached: expected during an outage (the store's health says so once), so
    the actor neither logs it nor stops; the change is undone."""


class RoomActor:
    """Runs a :class:`RoomCore`: one command at a time, and its timers.

    Handlers call :meth:`call`. When the room is idle the command is applied
    at once in the caller's task; otherwise it is queued for the actor's own
    task, which also fires the room's timers. A lock keeps it one command (or
    timer) at a time either way. The queue is bounded: a room that cannot
    keep up refuses work (``busy``) rather than growing without limit.

    ``commit`` runs after every command or timer that changed the room and
    before its reply: it saves the room and sends its changes, so a reply
    (an ``ack``) is only given for a change that is kept. It returns False
    when this process no longer owns the room; the actor then stops, and
    callers get ``moved`` and try again wherever the room now lives.

    A command or timer is all or nothing: the room takes a checkpoint before
    it (:meth:`RoomCore.checkpoint`) and goes back to it if the work fails
    halfway or its save raises. A caller whose save failed gets
    ``unavailable`` (nothing changed, nothing was sent); ``rolled_back`` is
    told, so that the sink drops the undone changes. After a failed save the
    room's timers wait (from RETRY_FIRST_S, doubling to RETRY_MOST_S) and are
    tried again, so the room goes on by itself once the store is back.
    """

    QUEUE_SIZE = 1024
    RETRY_FIRST_S = 0.25
    RETRY_MOST_S = 2.0
    TICK_FAILED_S = 1.0  # a timer that raised is not tried again sooner

    def __init__(self, core: RoomCore, clock: Clock, commit: Commit | None = None,
                 rolled_back: Callable[[RoomCore], None] | None = None) -> None:
        self.core = core
        self.clock = clock
        self.commit = commit
        self.rolled_back = rolled_back
        # (None, None) in the queue only wakes the task to look at the room's timers again.
        self._queue: asyncio.Queue[tuple[Command | None, asyncio.Future[Any] | None]] = (
            asyncio.Queue(self.QUEUE_SIZE))
        # Held while a command or timer is applied and committed: one at a time.
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        # The room's next wakeup as the actor's task last looked (it sleeps
        # until then): a command applied in a caller's task that moves it
        # wakes the task to look again.
        self._armed: int | None = None
        self.stopped = False
        # Saves failed in a row, and the event-loop time before which the
        # room's timers are not run again (see RETRY_FIRST_S).
        self.failures = 0
        self._retry_at = 0.0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"room-{self.core.room_id}"
        )

    async def stop(self) -> None:
        self.stopped = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._refuse_waiting()

    def _refuse_waiting(self) -> None:
        while not self._queue.empty():
            _, future = self._queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(RoomError("moved", "the room moved; try again"))

    async def call(self, command: Command) -> Any:
        if self.stopped:
            raise RoomError("moved", "the room moved; try again")
        if not self._lock.locked() and self._queue.empty():
            # The room is idle: apply the command in the caller's task, which
            # saves two task switches (and two loop turns) on the way to the
            # reply. The lock keeps it one command at a time all the same.
            # acquire() and release() rather than "async with": this runs for
            # every command, and the lock is free (acquire returns at once).
            await self._lock.acquire()
            try:
                return await self._execute(command)
            finally:
                self._lock.release()
                if self.core.next_wakeup() != self._armed:
                    self._poke()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait((command, future))
        except asyncio.QueueFull:
            raise RoomError("busy", "the room is too busy; try again") from None
        return await future

    def _poke(self) -> None:
        """Wakes the actor's task to look at the room's timers again."""
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait((None, None))

    async def _execute(self, command: Command) -> Any:
        """Applies and commits one command (the lock is held); its reply or RoomError."""
        if self.stopped:
            raise RoomError("moved", "the room moved; try again")
        core = self.core
        if isinstance(command, Snapshot):  # reads only
            return core.handle(command, self.clock())
        checkpoint = core.checkpoint()
        version = core.version
        try:
            result = core.handle(command, self.clock())
        except RoomError:
            # Refused: normally before any change, but a command may refuse
            # after a first step; either way the room is as it was.
            self._undo(checkpoint)
            raise
        except Exception as err:  # a bug must not kill the room for everyone
            log.exception("room %s failed on %r", core.room_id, command)
            self._undo(checkpoint)
            raise RoomError("internal_error", f"server error: {err}") from err
        if core.version == version:
            core.release()
            return result
        await self._commit(checkpoint)
        return result

    def _undo(self, checkpoint: Checkpoint, *, keep_version: bool = False) -> None:
        self.core.rollback(checkpoint, keep_version=keep_version)
        if self.rolled_back is not None:
            self.rolled_back(self.core)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopped:
            wakeup = self._armed = self.core.next_wakeup()
            try:
                if wakeup is None:
                    command, future = await self._queue.get()
                else:
                    delay = max(0.0, (wakeup - self.clock()) / 1000,
                                self._retry_at - loop.time())
                    async with asyncio.timeout(delay):
                        command, future = await self._queue.get()
            except TimeoutError:
                async with self._lock:
                    if self.stopped:
                        break
                    await self._tick()
                continue
            if command is None or future is None or future.cancelled():
                continue
            async with self._lock:
                try:
                    result = await self._execute(command)
                except RoomError as err:
                    if not future.done():
                        future.set_exception(err)
                    continue
            if not future.done():
                future.set_result(result)
        self._refuse_waiting()

    async def _commit(self, checkpoint: Checkpoint) -> None:
        """Saves what was applied since ``checkpoint``, or undoes it and raises
        RoomError: ``unavailable`` (not saved) or ``moved`` (not ours any more)."""
        core = self.core
        if self.commit is None:
            core.release()
            return
        try:
            kept = await self.commit(core)
        except Exception as err:
            if not isinstance(err, Unavailable):
                log.exception("room %s could not be saved", core.room_id)
            # The save may have landed all the same (its answer was lost):
            # the version stays ahead, so the next change is newer than any
            # of these to whoever may have been sent them.
            self._undo(checkpoint, keep_version=True)
            self.failures += 1
            self._retry_at = asyncio.get_running_loop().time() + min(
                self.RETRY_MOST_S, self.RETRY_FIRST_S * 2 ** min(self.failures - 1, 8))
            raise RoomError("unavailable", "the game cannot be saved right now, so nothing "
                                           "changed: try again shortly") from err
        core.release()
        if not kept:
            self.stopped = True
            raise RoomError("moved", "the room moved; try again")
        if self.failures:
            self.failures, self._retry_at = 0, 0.0

    async def _tick(self) -> None:
        core = self.core
        checkpoint = core.checkpoint()
        version = core.version
        try:
            core.tick(self.clock())
        except Exception:
            log.exception("room %s failed on a timer", core.room_id)
            self._undo(checkpoint)
            # Drop the room's own timers and back off, so that a failing timer
            # cannot spin the event loop; commands are still served meanwhile.
            core.turn_deadline = core.bot_due = None
            self._retry_at = asyncio.get_running_loop().time() + self.TICK_FAILED_S
            return
        if core.version == version:
            core.release()
            return
        # Not saved: undone, and tried again after the back-off (see _commit).
        with contextlib.suppress(RoomError):
            await self._commit(checkpoint)
