"""The room: who sits where, the game being played, and the actor that runs it.

Terms:

- *room*: a table for one game, with a fixed number of *seats*. A seat is
  taken by a player, a bot, or nobody yet. An *owner* (the player who made
  the room) adds bots and starts the game.
- *spectator*: a connection that watches; it sees the view of seat ``None``.
  The room counts connections (per seat, and spectators) and never names
  them: which connection of which process holds what is the app's to know.
- *version*: a counter that grows by one on every change to the room, so a
  client can tell a stale or missed message (resync by snapshot).
- *change*: one step of what a command or timer did: the new version, the
  public events, and each audience's view. A room keeps its changes in its
  *outbox* until its runner takes them (:meth:`RoomCore.take_changes`): the
  room never calls out while it changes.
- *turn clock*: in turn-based games, how long a human has for a turn. When it
  runs out the seat is marked *away* and its bot plays for it until the
  player acts again.
- *action log*: every applied action and timeout in order, with its ``now``:
  with the seed and options it replays the game exactly
  (:func:`engine.replay.replay`). Entries are plain dicts, kept *packed*
  (:class:`LogPacking`: as they are, unless the runner says otherwise).
  A *rematch* (a
  new game in the same room, same seats, new seed) is an entry too
  (``{"rematch": true, "seed", "at"}``): the log only grows, and the current
  game's actions are those after :attr:`RoomCore.game_start`.
- *table log*: the public part of the current game's action log, one line
  per entry: the seat, the action's kind, whether a bot made it, and the
  events it caused, which every viewer is sent anyway (a discard's card, not
  a stock draw's). A client that joins or reloads gets it (:class:`History`).
- *chat*: lines players and spectators write, on two *channels*: ``players``
  (seated players write; everyone reads) and ``spectators`` (spectators
  write; only spectators read, so that watchers cannot coach a player).
  Chat is not game state: it bumps no version and stays out of the action
  log; the room keeps its last :attr:`RoomCore.CHAT_KEEP` lines (in its
  snapshot) and its runner takes new ones apart from changes
  (:meth:`RoomCore.take_chat`), saving the room before it sends them.

:class:`RoomCore` holds the logic and is synchronous: it takes ``now`` for
everything, so tests drive it with a fake clock. :class:`RoomActor` wraps it
in an asyncio task that applies one command at a time (from a bounded queue,
or in the caller's task when the room is idle), wakes itself for deadlines
(game timers, turn clocks, bot moves), and hands each command's changes to
its *commit* (the app saves, then sends them). Nothing here performs I/O.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.bots import Bot, find_bot
from engine.errors import GameError
from engine.game import Action, Event, Game, Outcome, View
from engine.refusals import sentence

log = logging.getLogger("kartu.room")

BOT_NAMES = ("Ada", "Bram", "Cleo", "Dara", "Emil", "Fenna", "Gus", "Hana", "Ivo")


class RoomError(Exception):
    """A refused room command; ``code`` goes on the wire. Nothing was changed.

    Like a game's refusal (:class:`engine.errors.GameError`) it names the
    exact refusal by ``reason`` with its ``params`` (the sentence a client
    says, :mod:`engine.refusals`) and the written ``rule`` it enforces, if any.
    """

    def __init__(self, code: str, message: str | None = None, *, reason: str | None = None,
                 rule: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        self.code = code
        self.reason = reason or code
        self.rule = rule
        self.params: dict[str, Any] = dict(params or {})
        self.message = message if message is not None else sentence(self.reason, self.params)
        super().__init__(self.message)

    @classmethod
    def of(cls, code: str, reason: str, **params: Any) -> RoomError:
        """The refusal ``reason`` under ``code`` (its English sentence from the catalog)."""
        return cls(code, reason=reason, params=params)

    @classmethod
    def from_game(cls, err: GameError) -> RoomError:
        return cls(err.code, err.message, reason=err.reason, rule=err.rule, params=err.params)

    def wire(self) -> dict[str, Any]:
        """The refusal's fields as an error frame or HTTP body carries them."""
        return {"code": self.code, "message": self.message, "rule": self.rule,
                "reason": self.reason, "params": self.params}


@dataclass(frozen=True)
class Seat:
    """One seat of a room. A value: a change replaces it (:meth:`RoomCore.update_seat`)."""

    index: int
    player_id: str | None = None
    name: str | None = None
    bot: bool = False
    # How many connections hold this seat (a player may have several tabs).
    connections: int = 0
    away: bool = False

    @property
    def is_free(self) -> bool:
        return self.player_id is None and not self.bot

    @property
    def plays_by_bot(self) -> bool:
        return self.bot or self.away


@dataclass
class Change:
    """One change to a room: its public events and the views it leaves.

    ``audiences`` are who is sent the change: each seat a human holds with a
    connection, and None (the spectators) if anyone watches; bots read the
    game directly. Each audience's view is ``public`` (the part all see
    alike, the room's facts included) and its own part (``own``), which is
    made only when asked. ``outcome`` is set on the change that ended the
    game. ``status`` is the room's status after the change.
    """

    room_id: str
    version: int
    events: list[Event]
    public: View
    audiences: list[int | None]
    own: OwnParts
    status: str
    outcome: Outcome | None = None

    def view(self, audience: int | None) -> View:
        """The whole view ``audience`` is sent."""
        return {**self.public, **self.own.view(audience)}


@dataclass(frozen=True)
class OwnParts:
    """Each audience's own part of the views of one state of a room
    (:meth:`engine.game.Game.own_view`), made when asked, and the key it is
    the same for (:meth:`engine.game.Game.own_key`). ``state`` is None
    before the first deal. States are never changed once made, so the parts
    can be made after the room moved on."""

    game: Game
    state: Any

    def view(self, audience: int | None) -> View:
        if self.state is None:
            return {"you": audience} if audience is None else {"you": audience, "hand": []}
        return self.game.own_view(self.state, audience)

    def key(self, audience: int | None) -> Hashable | None:
        return None if self.state is None else self.game.own_key(self.state, audience)


# --- commands -------------------------------------------------------------


@dataclass(frozen=True)
class Join:
    player_id: str | None
    name: str | None
    role: str  # "player" | "spectator"


@dataclass(frozen=True)
class Leave:
    player_id: str | None
    seat: int | None  # the seat the leaving connection held (None: a spectator)
    disconnect: bool = False  # the socket went away (vs. an explicit leave)


@dataclass(frozen=True)
class AddBot:
    player_id: str | None


@dataclass(frozen=True)
class Start:
    player_id: str | None


@dataclass(frozen=True)
class Act:
    player_id: str | None
    seat: int | None
    action: Action


@dataclass(frozen=True)
class Snapshot:
    seat: int | None


@dataclass(frozen=True)
class RemoveBot:
    """The owner frees a bot's seat before the game starts."""

    player_id: str | None
    seat: int


@dataclass(frozen=True)
class Rematch:
    """A seated player starts the next game once one is over: same seats, ``seed``."""

    player_id: str | None
    seed: int


@dataclass(frozen=True)
class Chat:
    """A chat line: ``text`` or one of :data:`EMOTES`. ``seat`` None: a spectator."""

    player_id: str | None
    seat: int | None
    name: str | None
    text: str | None = None
    emote: str | None = None


@dataclass(frozen=True)
class History:
    """Reads what a joiner missed: the table log and the chat ``seat`` may read."""

    seat: int | None


Command = Join | Leave | AddBot | Start | Act | Snapshot | RemoveBot | Rematch | Chat | History

# Quick chat lines a client shows (and words) itself.
EMOTES = frozenset({"hi", "gg", "wp", "oops", "thanks", "hurry", "wow", "bye"})
CHAT_LIMIT = 200  # characters of a chat line


@dataclass
class Checkpoint:
    """A room as it was before a command or timer (:meth:`RoomCore.checkpoint`),
    to put it back whole if the command fails or its save does not land.

    Cheap to take: the game state and the chat are kept by reference (a
    command makes a new state or chat list, never changes one), the action
    log by its length (it only grows), the seats by a copy of their list
    (a seat is a value, replaced when it changes).
    """

    state: Any
    version: int
    room_changes: int
    status: str
    seats: list[Seat]
    spectators: int
    started_at: int | None
    turn_deadline: int | None
    bot_due: int | None
    last_activity: int
    log_length: int
    turn_key: tuple[Any, ...] | None
    last_bot: int
    game_number: int
    game_start: int
    spectators_moved: bool
    chat: list[dict[str, Any]]
    chat_serial: int


def _as_is(entry: Any) -> Any:
    return entry


@dataclass(frozen=True)
class LogPacking:
    """How a room keeps the entries of its action log and table log: ``pack``
    makes what is kept of an entry, ``unpack`` gives the entry back.

    By default entries are kept as they are. A server keeps them as JSON
    (:mod:`app.rooms`): a log keeps a few containers per action for the
    whole game, and every pass of Python's garbage collector walks every
    container made since the last one; bytes it never walks.
    """

    pack: Callable[[dict[str, Any]], Any] = _as_is
    unpack: Callable[[Any], dict[str, Any]] = _as_is


AS_IS = LogPacking()


# Room options that deal the cards: whoever knows one knows every hand.
SECRET_OPTIONS = frozenset({"seed", "scenario"})


@dataclass
class RoomCore:
    """A room's whole state and the rules for changing it. Synchronous; ``now`` in ms."""

    room_id: str
    game: Game
    options: dict[str, Any]
    seat_count: int
    owner_id: str | None
    seed: int
    created_at: int
    # A private room cannot be watched and is left out of the lobby (daily deals).
    private: bool = False
    seats: list[Seat] = field(default_factory=list)
    status: str = "waiting"  # waiting | playing | finished | abandoned (abandon)
    state: Any = None
    version: int = 0
    spectators: int = 0  # how many connections watch
    started_at: int | None = None
    # Packed entries (packing): read them with log_entries.
    action_log: list[Any] = field(default_factory=list)
    turn_deadline: int | None = None
    bot_due: int | None = None
    last_activity: int = 0
    # Counts the changes to the room itself (seats, watchers, away, status),
    # as opposed to the game: between two of them, the action log describes
    # every change (the registry saves a full snapshot only when this moved).
    room_changes: int = 0
    _turn_key: tuple[Any, ...] | None = None
    _last_bot: int = -1
    _public_options: dict[str, Any] | None = field(default=None, init=False, repr=False)
    # Changes made and not yet taken by the runner (take_changes).
    outbox: list[Change] = field(default_factory=list, init=False, repr=False)
    # The spectators came or went since the runner last looked (take_spectators_moved).
    spectators_moved: bool = field(default=False, init=False, repr=False)
    # Who plays the bot seats (and absent players' turns), looked up once.
    _bot: Bot = field(init=False, repr=False)
    # The current game: its number in the room (1, then one more per
    # rematch) and where its entries start in the action log.
    game_number: int = 1
    game_start: int = 0
    # The table log of the current game (see the module's terms), its lines
    # packed; None: to be made again from the action log (a room restored
    # from a snapshot).
    _table_log: list[Any] | None = field(default=None, init=False, repr=False)
    # The room's last CHAT_KEEP chat lines, and those its runner has not taken.
    chat: list[dict[str, Any]] = field(default_factory=list)
    chat_serial: int = 0
    chat_outbox: list[dict[str, Any]] = field(default_factory=list, init=False, repr=False)
    packing: LogPacking = field(default=AS_IS, repr=False)

    CHAT_KEEP = 100

    def __post_init__(self) -> None:
        self._bot = find_bot(self.game.name)
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
        """The options anyone may see: all but the deal's makers (a ``seed`` or
        a ``scenario`` would give every hand away; a finished game's replay
        shows its seed).

        Made once: a room's options never change, and every view shows them.
        """
        if self._public_options is None:
            self._public_options = {k: v for k, v in self.options.items()
                                    if k not in SECRET_OPTIONS}
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
        return {**self._public_view(now), **OwnParts(self.game, self.state).view(seat)}

    def _public_view(self, now: int) -> View:
        """The game's public part (:meth:`engine.game.Game.public_view`) with
        the room's own facts merged in: each seat's name, whether a bot plays
        it, is connected or away, and the ``room`` object."""
        view = (self._waiting_view() if self.state is None
                else self.game.public_view(self.state))
        for entry, s in zip(view["seats"], self.seats, strict=True):
            entry["name"] = s.name
            entry["bot"] = s.bot
            entry["connected"] = s.bot or bool(s.connections)
            entry["away"] = s.away
        view["room"] = {"id": self.room_id, "title": self.game.title, "status": self.status,
                        "owner_id": self.owner_id,
                        "spectators": self.spectators, "seats": self.seat_count,
                        "options": self.public_options, "private": self.private}
        view["turn_deadline"] = self.turn_deadline
        view["server_time"] = now
        return view

    def audiences(self) -> list[int | None]:
        """Who is sent changes: each seat a human holds with a connection, then
        None (the spectators) if anyone watches. Bots read the game directly."""
        audiences: list[int | None] = [s.index for s in self.seats
                                       if s.player_id is not None and s.connections]
        if self.spectators:
            audiences.append(None)
        return audiences

    def _waiting_view(self) -> View:
        """The public part of the view before the first deal."""
        return {
            "game": self.game.name, "phase": "waiting", "dealer": None,
            "turn": None, "step": None, "deal": 0, "stock_count": 0, "discard": [],
            "melds": [],
            "result": None,
            "seats": [{"seat": s.index, "hand_count": 0, "score": 0, "melds": []}
                      for s in self.seats],
        }

    # --- commands ----------------------------------------------------------

    def update_seat(self, index: int, **changes: Any) -> Seat:
        """Replaces seat ``index`` by a copy with ``changes``; returns the new seat."""
        seat = self.seats[index] = replace(self.seats[index], **changes)
        return seat

    def handle(self, command: Command, now: int) -> Any:
        """Applies one command. Raises RoomError (nothing changed) or returns a reply."""
        if isinstance(command, Snapshot):
            return self.version, self.view_for(command.seat, now)
        if isinstance(command, History):
            return self.history(command.seat)
        return self._dispatch(command, now)

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
        if isinstance(command, RemoveBot):
            return self._remove_bot(command, now)
        if isinstance(command, Rematch):
            return self._rematch(command, now)
        if isinstance(command, Chat):
            return self._chat(command, now)
        raise RoomError.of("bad_message", "unknown_command")

    def _join(self, cmd: Join, now: int) -> int | None:
        if cmd.role == "spectator":
            if self.private:
                raise RoomError.of("forbidden", "cannot_watch")
            self.spectators += 1
            self._watchers_changed(now)
            return None
        if cmd.player_id is None:
            raise RoomError.of("forbidden", "sign_in_to_play")
        seat = self.seat_of(cmd.player_id)
        if seat is None:
            if self.status != "waiting":
                raise RoomError.of("room_full", "game_started")
            free = [s for s in self.seats if s.is_free]
            if not free:
                raise RoomError.of("room_full", "room_full")
            seat = free[0].index
            self.update_seat(seat, player_id=cmd.player_id, name=cmd.name)
            event: Event = {"kind": "joined", "seat": seat, "name": cmd.name}
        else:
            event = {"kind": "reconnected", "seat": seat, "name": self.seats[seat].name}
        self.update_seat(seat, connections=self.seats[seat].connections + 1)
        self._emit(now, [event])
        return seat

    def _leave(self, cmd: Leave, now: int) -> None:
        if cmd.seat is None:
            self.spectators = max(0, self.spectators - 1)
            self._watchers_changed(now)
            return
        seat = self.seats[cmd.seat]
        if seat.player_id != cmd.player_id:
            raise RoomError.of("forbidden", "not_your_seat")
        seat = self.update_seat(seat.index, connections=max(0, seat.connections - 1))
        event: Event = {"kind": "disconnected" if cmd.disconnect else "left", "seat": seat.index}
        if self.status == "waiting" and not cmd.disconnect and not seat.connections:
            # Before the game starts, leaving gives the seat up.
            seat = self.update_seat(seat.index, player_id=None, name=None)
        events = [event]
        if self.status == "playing" and self.game_number > 1 and not cmd.disconnect \
                and not seat.connections and not seat.away:
            # Leaving a rematch, which started without asking: its bot plays the
            # seat at once, not only once the turn clock runs out. In a game one
            # chose to join, leaving (to look at the lobby, say) keeps the seat.
            self.update_seat(seat.index, away=True)
            events.append({"kind": "away", "seat": seat.index})
        self._emit(now, events)

    def _watchers_changed(self, now: int) -> None:
        """A spectator came or went: only the count, and whether anyone watches.

        Counted in :attr:`room_changes` (views made from now on show the
        count, and the spectators' audience comes or goes) but not in the
        version: the runner saves the room and sends the members one small
        count (:attr:`spectators_moved`) rather than a full state each, as a
        thousand spectators joining must not cost a million states.
        """
        self.room_changes += 1
        self.last_activity = now
        self.spectators_moved = True

    def _require_owner(self, player_id: str | None, what: str) -> None:
        if player_id is None or player_id != self.owner_id:
            raise RoomError.of("forbidden", "owner_only", command=what)

    def _add_bot(self, cmd: AddBot, now: int) -> int:
        self._require_owner(cmd.player_id, "add_bot")
        if self.status != "waiting":
            raise RoomError.of("illegal_action", "bots_before_start")
        free = [s for s in self.seats if s.is_free]
        if not free:
            raise RoomError.of("room_full", "room_full")
        seat = self._seat_bot(free[0])
        self._emit(now, [{"kind": "bot_added", "seat": seat.index, "name": seat.name}])
        return seat.index

    def _remove_bot(self, cmd: RemoveBot, now: int) -> None:
        self._require_owner(cmd.player_id, "remove_bot")
        if self.status != "waiting":
            raise RoomError.of("illegal_action", "bots_before_start")
        if isinstance(cmd.seat, bool) or not isinstance(cmd.seat, int) \
                or not 0 <= cmd.seat < self.seat_count:
            raise RoomError.of("illegal_action", "no_such_seat", seat=str(cmd.seat))
        seat = self.seats[cmd.seat]
        if not seat.bot:
            raise RoomError.of("illegal_action", "not_a_bot_seat", seat=cmd.seat)
        self.update_seat(seat.index, bot=False, name=None)
        self._emit(now, [{"kind": "bot_removed", "seat": seat.index}])

    def _seat_bot(self, seat: Seat) -> Seat:
        used = {s.name for s in self.seats}
        name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used),
                    f"Bot {seat.index + 1}")
        return self.update_seat(seat.index, bot=True, name=name)

    def _start(self, cmd: Start, now: int) -> None:
        self._require_owner(cmd.player_id, "start")
        if self.status != "waiting":
            raise RoomError.of("illegal_action", "already_started")
        free = [s for s in self.seats if s.is_free]
        if free and not self.options.get("fill_bots"):
            raise RoomError.of("illegal_action", "seats_empty", count=len(free))
        state = self.game.setup(self.options, self.seat_count, self.seed, now)
        for seat in free:
            self._seat_bot(seat)
        self.state = state
        self.status = "playing"
        self.started_at = now
        self._emit(now, [{"kind": "started", "players": self.seat_count}])

    def _rematch(self, cmd: Rematch, now: int) -> None:
        """The next game at once, same seats: "play again" is one click for the
        table. Players who do not want it leave; a seat without a connection
        is played by its bot (away) until its player comes back and acts."""
        if self.private:
            # Daily deals: one ranked game per room, and the day's deal is the point.
            raise RoomError.of("illegal_action", "no_rematch_here")
        by = self.seat_of(cmd.player_id)
        if by is None:
            raise RoomError.of("forbidden", "not_seated")
        if self.status != "finished":
            raise RoomError.of("illegal_action", "game_not_over")
        self._new_game(cmd.seed, now)
        self.action_log.append(self.packing.pack({"rematch": True, "seed": cmd.seed, "at": now}))
        self.game_start = len(self.action_log)
        self._table_log = []
        for seat in self.seats:
            self.update_seat(seat.index, away=seat.player_id is not None and not seat.connections)
        self._emit(now, [{"kind": "rematch_offered", "by": by, "name": self.seats[by].name,
                          "game": self.game_number},
                         {"kind": "started", "players": self.seat_count,
                          "game": self.game_number}])

    def _new_game(self, seed: int, now: int) -> None:
        """Deals the room's next game with ``seed`` (a rematch, or one replayed)."""
        self.state = self.game.setup(self.options, self.seat_count, seed, now)
        self.seed = seed
        self.status = "playing"
        self.started_at = now
        self.game_number += 1
        self._turn_key = None
        self.turn_deadline = self.bot_due = None

    def _chat(self, cmd: Chat, now: int) -> dict[str, Any]:
        if cmd.player_id is None or not cmd.name:
            raise RoomError.of("forbidden", "sign_in_to_chat")
        if cmd.seat is not None and (not 0 <= cmd.seat < self.seat_count
                                     or self.seats[cmd.seat].player_id != cmd.player_id):
            raise RoomError.of("forbidden", "not_your_seat")
        line: dict[str, Any] = {
            "id": self.chat_serial + 1,
            "channel": "players" if cmd.seat is not None else "spectators",
            "seat": cmd.seat, "name": cmd.name, "at": now}
        if cmd.emote is not None:
            if cmd.emote not in EMOTES:
                raise RoomError.of("illegal_action", "unknown_emote", emote=cmd.emote)
            line["emote"] = cmd.emote
        else:
            # Shown as text, never as HTML: the server keeps it as written,
            # only without control characters (a line is one line).
            text = "".join(c for c in (cmd.text or "") if c.isprintable()).strip()
            if not text:
                raise RoomError.of("illegal_action", "chat_empty")
            if len(text) > CHAT_LIMIT:
                raise RoomError.of("illegal_action", "chat_too_long", limit=CHAT_LIMIT)
            line["text"] = text
        self.chat_serial += 1
        # A new list, never the old one changed: a checkpoint holds the old.
        self.chat = [*self.chat[1 - self.CHAT_KEEP:], line]
        self.chat_outbox.append(line)
        self.last_activity = now
        return line

    def take_chat(self) -> list[dict[str, Any]]:
        """The chat lines written since the last call (the chat outbox emptied)."""
        lines, self.chat_outbox = self.chat_outbox, []
        return lines

    def take_spectators_moved(self) -> bool:
        """Whether the spectators came or went since the last call (the flag reset)."""
        moved, self.spectators_moved = self.spectators_moved, False
        return moved

    def history(self, seat: int | None) -> dict[str, Any]:
        """What a joiner missed: the current game's table log and the chat
        lines ``seat`` may read (a player: the players' channel; None, a
        spectator: both)."""
        return {"game": self.game_number, "version": self.version,
                "entries": list(self.table_log()),
                "chat": [line for line in self.chat
                         if seat is None or line["channel"] == "players"]}

    def log_entries(self, start: int = 0) -> list[dict[str, Any]]:
        """The action log's entries from ``start`` on, unpacked."""
        unpack = self.packing.unpack
        return [unpack(entry) for entry in self.action_log[start:]]

    def table_log(self) -> list[dict[str, Any]]:
        """The current game's table log, made again from the action log when
        it does not match it (a room restored from a snapshot, or changed
        behind its back)."""
        if self._table_log is None \
                or len(self._table_log) != len(self.action_log) - self.game_start:
            pack = self.packing.pack
            self._table_log = [pack(line) for line in
                               self._replay_table_log(self.log_entries(self.game_start))]
        unpack = self.packing.unpack
        return [unpack(line) for line in self._table_log]

    def _replay_table_log(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.started_at is None or not entries:
            return []
        state = self.game.setup(self.options, self.seat_count, self.seed, self.started_at)
        lines = []
        for entry in entries:
            if entry.get("timeout"):
                state, events = self.game.on_timeout(state, entry["at"])
            else:
                state, events = self.game.apply(state, entry["seat"], entry["action"],
                                                entry["at"])
            lines.append(_table_line(entry, events))
        return lines

    def _act(self, cmd: Act, now: int) -> None:
        # The seat the gateway says is the player's (a player has at most one).
        if cmd.seat is None or cmd.player_id is None or not 0 <= cmd.seat < self.seat_count \
                or self.seats[cmd.seat].player_id != cmd.player_id:
            raise RoomError.of("forbidden", "not_seated")
        if self.status != "playing":
            raise RoomError.of("illegal_action", "not_playing")
        self._apply(cmd.seat, cmd.action, now, by_bot=False)
        if self.seats[cmd.seat].away:
            # Acting again takes the seat back from the bot.
            self.update_seat(cmd.seat, away=False)
            self._emit(now, [{"kind": "back", "seat": cmd.seat}])

    def _apply(self, seat: int, action: Action, now: int, *, by_bot: bool) -> None:
        try:
            state, events = self.game.apply(self.state, seat, action, now)
        except GameError as err:
            raise RoomError.from_game(err) from err
        self.state = state
        entry: dict[str, Any] = {"seat": seat, "action": action, "at": now}
        if by_bot:
            entry["bot"] = True
        self._log(entry, events)
        self._emit(now, events, game_only=True)

    def _log(self, entry: dict[str, Any], events: list[Event]) -> None:
        """Appends ``entry`` to the action log, and its line to the table log."""
        pack = self.packing.pack
        if self._table_log is not None \
                and len(self._table_log) == len(self.action_log) - self.game_start:
            self._table_log.append(pack(_table_line(entry, events)))
        else:
            self._table_log = None  # out of step: made again when next read
        self.action_log.append(pack(entry))

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
            self._log({"timeout": True, "at": now}, events)
            self._emit(now, events, game_only=True)
            return
        if self.turn_deadline is not None and now >= self.turn_deadline:
            for seat_index in self.game.to_act(self.state):
                if not self.seats[seat_index].plays_by_bot:
                    self.update_seat(seat_index, away=True)
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
            action = self._bot(view, self.seed + len(self.action_log))
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
        """Records one change in the outbox, for the runner to take
        (:meth:`take_changes`). ``game_only``: only the game state changed, as
        the action log's newest entry says (see :attr:`room_changes`)."""
        self.version += 1
        if not game_only:
            self.room_changes += 1
        self.last_activity = now
        self._schedule(now)
        outcome = None
        if self.status == "playing":
            outcome = self.game.outcome(self.state)
            if outcome is not None:
                self.status = "finished"
                self.room_changes += 1
                self.turn_deadline = self.bot_due = None
        self.outbox.append(Change(self.room_id, self.version, events, self._public_view(now),
                                  self.audiences(), OwnParts(self.game, self.state),
                                  self.status, outcome))

    def abandon(self) -> None:
        """Closes a room nobody started for good (its runner found it idle)."""
        self.status = "abandoned"
        self.room_changes += 1

    def take_changes(self) -> list[Change]:
        """The changes made since the last call, oldest first (the outbox emptied)."""
        changes, self.outbox = self.outbox, []
        return changes

    # --- all or nothing --------------------------------------------------------

    def checkpoint(self) -> Checkpoint:
        """Where to come back to if what is applied next fails or is not saved."""
        return Checkpoint(
            self.state, self.version, self.room_changes, self.status,
            list(self.seats),
            self.spectators, self.started_at, self.turn_deadline, self.bot_due,
            self.last_activity, len(self.action_log), self._turn_key, self._last_bot,
            self.game_number, self.game_start, self.spectators_moved,
            self.chat, self.chat_serial)

    def rollback(self, checkpoint: Checkpoint, *, keep_version: bool = False) -> None:
        """Puts the room back as it was at ``checkpoint``; its changes since are dropped.

        ``keep_version``: the version stays where the undone changes took it,
        so that the next change has a version above any of theirs (a save that
        failed may still have landed and been sent; see RoomActor._commit).
        """
        version = max(self.version, checkpoint.version) if keep_version else checkpoint.version
        self.state, self.version = checkpoint.state, version
        self.room_changes, self.status = checkpoint.room_changes, checkpoint.status
        self.seats, self.spectators = checkpoint.seats, checkpoint.spectators
        self.started_at = checkpoint.started_at
        self.turn_deadline, self.bot_due = checkpoint.turn_deadline, checkpoint.bot_due
        self.last_activity = checkpoint.last_activity
        del self.action_log[checkpoint.log_length:]
        self._turn_key, self._last_bot = checkpoint.turn_key, checkpoint.last_bot
        self.game_number, self.game_start = checkpoint.game_number, checkpoint.game_start
        self.spectators_moved = checkpoint.spectators_moved
        self.chat, self.chat_serial = checkpoint.chat, checkpoint.chat_serial
        self._table_log = None  # made again from the action log when next read
        self.outbox = []
        self.chat_outbox = []

    def _schedule(self, now: int) -> None:
        """Sets the turn clock and the next bot move after a change."""
        if self.status != "playing":
            self.turn_deadline = self.bot_due = None
            return
        actors = self.game.to_act(self.state)
        bots = {s.index for s in self.seats if s.plays_by_bot}
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

    # 2: connections and spectators are counts (1 listed their ids).
    SNAPSHOT_FORMAT = 2

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
                       "bot": s.bot, "away": s.away, "connections": s.connections}
                      for s in self.seats],
            "spectators": self.spectators,
            "log_length": len(self.action_log),
            "state": None if self.state is None else self.game.snapshot(self.state),
            "game_number": self.game_number, "game_start": self.game_start,
            "chat": self.chat, "chat_serial": self.chat_serial,
        }

    @classmethod
    def from_snapshot(cls, data: dict[str, Any], game: Game,
                      action_log: list[dict[str, Any]],
                      packing: LogPacking = AS_IS) -> RoomCore:
        """The room of ``data`` (:meth:`to_snapshot`), with the first
        ``log_length`` entries of ``action_log`` (unpacked) as its log."""
        if data.get("format") not in (1, cls.SNAPSHOT_FORMAT):
            raise ValueError(f"unknown room snapshot format {data.get('format')!r}")
        seats = [Seat(s["index"], s["player_id"], s["name"], s["bot"],
                      _count(s["connections"]), s["away"]) for s in data["seats"]]
        room = cls(
            room_id=data["room_id"], game=game, options=data["options"],
            seat_count=data["seat_count"], owner_id=data["owner_id"], seed=data["seed"],
            created_at=data["created_at"], private=data["private"], seats=seats,
            status=data["status"], version=data["version"], started_at=data["started_at"],
            action_log=[packing.pack(entry) for entry in action_log[: data["log_length"]]],
            packing=packing,
            turn_deadline=data["turn_deadline"], bot_due=data["bot_due"],
            spectators=_count(data["spectators"] if "spectators" in data
                              else data["watchers"]),
            state=None if data["state"] is None else game.restore(data["state"]),
        )
        room.last_activity = data["last_activity"]
        # Absent from snapshots saved before rematches and chat.
        room.game_number = data.get("game_number", 1)
        room.game_start = data.get("game_start", 0)
        room.chat = list(data.get("chat", []))
        room.chat_serial = data.get("chat_serial", 0)
        room._turn_key = tuple(data["turn_key"]) if data["turn_key"] is not None else None
        room._last_bot = data["last_bot"]
        return room

    def drop_connections(self, lost: Iterable[int | None], now: int) -> None:
        """Forgets connections that went away unannounced (their process is
        gone): one audience per connection, a seat or None (a spectator)."""
        seats: list[int] = []
        spectators = self.spectators
        for audience in lost:
            if audience is None:
                spectators = max(0, spectators - 1)
            elif 0 <= audience < self.seat_count and self.seats[audience].connections:
                self.update_seat(audience, connections=self.seats[audience].connections - 1)
                if audience not in seats:
                    seats.append(audience)
        if seats or spectators != self.spectators:
            self.spectators = spectators
            self._emit(now, [{"kind": "disconnected", "seat": i} for i in seats])

    def replay_record(self) -> dict[str, Any]:
        """What the replay endpoint serves: enough to replay the game exactly."""
        return {
            "game": self.game.name,
            "options": self.options,
            "seed": self.seed,
            "players": self.seat_count,
            "started_at": self.started_at,
            "actions": self.log_entries(self.game_start),
        }

    def catch_up(self, entries: list[dict[str, Any]], now: int) -> None:
        """Replays log entries saved after this room's snapshot (a room resumed).

        Between snapshots a room saves only the new entries of its action log
        when nothing but the game changed; each entry is one change, so the
        game state, the log and the version come back exactly. Timers
        restart from ``now``.
        """
        if not entries:
            return
        for entry in entries:
            if entry.get("rematch"):
                self._new_game(entry["seed"], entry["at"])
                self.game_start = len(self.action_log) + 1
                self._table_log = None
            elif entry.get("timeout"):
                self.state, _ = self.game.on_timeout(self.state, entry["at"])
            else:
                self.state, _ = self.game.apply(self.state, entry["seat"], entry["action"],
                                                entry["at"])
            self.action_log.append(self.packing.pack(entry))
            self.version += 1
        self._turn_key = None
        self.bot_due = None
        self._schedule(now)


def _count(saved: int | list[str]) -> int:
    """A connection count as saved: format 1 listed the connections' ids."""
    return len(saved) if isinstance(saved, list) else saved


def _table_line(entry: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    """The table log's line of an action log entry: only what every viewer
    sees. The action itself may hold hidden cards (a Remmi Demmi offer's, a
    claim's): of it only the kind goes out; the events say the rest, as they
    did to every audience when it was played."""
    if entry.get("timeout"):
        line: dict[str, Any] = {"seat": None, "kind": "timeout"}
    else:
        action = entry.get("action")
        kind = action.get("kind") if isinstance(action, dict) else None
        line = {"seat": entry.get("seat"), "kind": kind if isinstance(kind, str) else None}
    line["at"] = entry["at"]
    if entry.get("bot"):
        line["bot"] = True
    line["events"] = events
    return line


Clock = Callable[[], int]


# Saves a room and sends out its changes (oldest first) and new chat lines
# (RoomCore.take_chat), given the tag of the command that made them (None: a
# timer); False: this process no longer owns the room. Raises if the save did
# not land (Unavailable: a store is down).
Commit = Callable[["RoomCore", list[Change], Any], Awaitable[bool]]


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

    ``commit`` runs after every command or timer that changed the room (or
    wrote chat) and before its reply, with the room's changes (:meth:`RoomCore.take_changes`)
    and the *tag* the caller gave the command (whatever the runner needs to
    know of it when it saves; the room never reads it): it saves the room
    and sends the changes, so a reply (an ``ack``) is only given for a change
    that is kept. It returns False when this process no longer owns the
    room; the actor then stops, and callers get ``moved`` and try again
    wherever the room now lives. The runner's own work on the room goes
    through the actor too (:meth:`save` once started, :meth:`retire` when
    idle), so nothing ever runs beside a command.

    A command or timer is all or nothing: the room takes a checkpoint before
    it (:meth:`RoomCore.checkpoint`) and goes back to it if the work fails
    halfway or its save raises. A caller whose save failed gets
    ``unavailable`` (nothing changed, nothing was sent). After a failed save
    the room's timers wait (from RETRY_FIRST_S, doubling to RETRY_MOST_S) and
    are tried again, so the room goes on by itself once the store is back.
    """

    QUEUE_SIZE = 1024
    RETRY_FIRST_S = 0.25
    RETRY_MOST_S = 2.0
    TICK_FAILED_S = 1.0  # a timer that raised is not tried again sooner

    def __init__(self, core: RoomCore, clock: Clock, commit: Commit | None = None) -> None:
        self.core = core
        self.clock = clock
        self.commit = commit
        # (None, None, None) in the queue only wakes the task to look at the
        # room's timers again.
        self._queue: asyncio.Queue[
            tuple[Command | None, Any, asyncio.Future[Any] | None]] = asyncio.Queue(
                self.QUEUE_SIZE)
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

    async def save(self) -> bool:
        """Commits the room as it is, between two commands: its first save once
        started (created, or resumed here). False: not this process's room any
        more, and the actor has stopped. A failed save raises what the commit
        raised."""
        async with self._lock:
            if self.commit is None:
                return True
            kept = await self.commit(self.core, self.core.take_changes(), None)
            if not kept:
                self.stopped = True  # under the lock: a command behind this one is refused
        if not kept:
            await self.stop()
        return kept

    async def retire(self, idle: Callable[[RoomCore], bool]) -> bool:
        """Stops the actor if ``idle(room)`` holds once no command runs, after
        one last commit (a room still waiting is abandoned first). False: not
        idle, stopped already, or the save did not land: the room runs on."""
        async with self._lock:
            core = self.core
            if self.stopped or not idle(core):
                return False
            checkpoint = core.checkpoint()
            if core.status == "waiting":
                core.abandon()
            try:
                await self._commit(checkpoint)
            except RoomError as err:
                if err.code != "moved":
                    return False
            # Set under the lock: a command waiting behind this one is refused
            # (moved), whether still queued or already taken by the task.
            self.stopped = True
        await self.stop()
        return True

    def _refuse_waiting(self) -> None:
        while not self._queue.empty():
            _, _, future = self._queue.get_nowait()
            if future is not None and not future.done():
                future.set_exception(RoomError.of("moved", "moved"))

    async def call(self, command: Command, tag: Any = None) -> Any:
        """Applies ``command``, commits it with ``tag``; its reply, or RoomError."""
        if self.stopped:
            raise RoomError.of("moved", "moved")
        if not self._lock.locked() and self._queue.empty():
            # The room is idle: apply the command in the caller's task (the
            # lock keeps it one command at a time all the same). For speed
            # only: two task switches fewer, about 10 % less CPU an action in
            # bench.load's turn shape.
            try:
                async with self._lock:
                    return await self._execute(command, tag)
            finally:
                if self.core.next_wakeup() != self._armed:
                    self._poke()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait((command, tag, future))
        except asyncio.QueueFull:
            raise RoomError.of("busy", "busy") from None
        return await future

    def _poke(self) -> None:
        """Wakes the actor's task to look at the room's timers again."""
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait((None, None, None))

    async def _execute(self, command: Command, tag: Any) -> Any:
        """Applies and commits one command (the lock is held); its reply or RoomError."""
        if self.stopped:
            raise RoomError.of("moved", "moved")
        core = self.core
        if isinstance(command, Snapshot | History):  # reads only
            return core.handle(command, self.clock())
        checkpoint = core.checkpoint()
        version = core.version
        try:
            result = core.handle(command, self.clock())
        except RoomError:
            # Refused: normally before any change, but a command may refuse
            # after a first step; either way the room is as it was.
            core.rollback(checkpoint)
            raise
        except Exception as err:  # a bug must not kill the room for everyone
            log.exception("room %s failed on %r", core.room_id, command)
            core.rollback(checkpoint)
            raise RoomError("internal_error", f"server error: {err}",
                            reason="server_error") from err
        if core.version != version or core.spectators_moved or core.chat_outbox:
            await self._commit(checkpoint, tag)
        return result

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopped:
            wakeup = self._armed = self.core.next_wakeup()
            try:
                if wakeup is None:
                    command, tag, future = await self._queue.get()
                else:
                    delay = max(0.0, (wakeup - self.clock()) / 1000,
                                self._retry_at - loop.time())
                    async with asyncio.timeout(delay):
                        command, tag, future = await self._queue.get()
            except TimeoutError:
                async with self._lock:
                    if self.stopped:
                        break
                    await self._tick()
                continue
            if command is None or future is None or future.cancelled():
                continue
            try:
                async with self._lock:
                    result = await self._execute(command, tag)
            except RoomError as err:
                if not future.done():
                    future.set_exception(err)
                continue
            except asyncio.CancelledError:
                # Stopped while this command waited for the lock: out of the
                # queue already, so _refuse_waiting would not answer it.
                if not future.done():
                    future.set_exception(RoomError.of("moved", "moved"))
                raise
            if not future.done():
                future.set_result(result)
        self._refuse_waiting()

    async def _commit(self, checkpoint: Checkpoint, tag: Any = None) -> None:
        """Saves what was applied since ``checkpoint``, or undoes it and raises
        RoomError: ``unavailable`` (not saved) or ``moved`` (not ours any more)."""
        core = self.core
        changes = core.take_changes()
        if self.commit is None:
            return
        try:
            kept = await self.commit(core, changes, tag)
        except Exception as err:
            if not isinstance(err, Unavailable):
                log.exception("room %s could not be saved", core.room_id)
            # The save may have landed all the same (its answer was lost):
            # the version stays ahead, so the next change is newer than any
            # of these to whoever may have been sent them.
            core.rollback(checkpoint, keep_version=True)
            self.failures += 1
            self._retry_at = asyncio.get_running_loop().time() + min(
                self.RETRY_MOST_S, self.RETRY_FIRST_S * 2 ** min(self.failures - 1, 8))
            raise RoomError.of("unavailable", "unavailable") from err
        if not kept:
            self.stopped = True
            raise RoomError.of("moved", "moved")
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
            core.rollback(checkpoint)
            # Drop the room's own timers and back off, so that a failing timer
            # cannot spin the event loop; commands are served meanwhile.
            core.turn_deadline = core.bot_due = None
            self._retry_at = asyncio.get_running_loop().time() + self.TICK_FAILED_S
            return
        if core.version == version and not core.spectators_moved:
            return
        # Not saved: undone, and tried again after the back-off (see _commit).
        with contextlib.suppress(RoomError):
            await self._commit(checkpoint)
