"""The load generator of bench.load: many WebSocket clients in one asyncio process.

Terms:

- *server kind*: ``kartu`` (the real server, its real protocol) or ``raw``
  (bench.raw_server, the baseline that only broadcasts). A :class:`Dialect`
  holds what differs between them: how rooms are set up, whose turn it is,
  what to play, and how a view is traced back to the action that caused it.
- *shape*: ``turn`` (Basic Rummy rooms of 4 players and some spectators;
  the player whose turn it is plays :func:`quick_move` of its own view, or
  with ``moves="bot"`` :func:`engine.bots.basic_rummy.choose`, a real
  player's moves at about 100 us of the generator's CPU each),
  ``realtime`` (Remmi Demmi rooms of traders offering 1-3 cards on a fixed
  schedule) or ``idle`` (rooms of connected clients that do
  nothing).
- *pacing*: a turn-based room acts on a beat of ``rooms / rate`` seconds
  from a random phase (and no sooner than ``think_ms`` after the player saw
  its turn; a beat missed waiting for an answer is skipped); a trader
  offers every ``rooms * traders / rate`` seconds, from a random phase,
  skipping a beat while its previous offer is unanswered. The achieved rate
  is measured, not assumed.
- *window*: the measured part of a run (:meth:`LoadGenerator.begin_window`
  to :meth:`LoadGenerator.end_window`). Latencies are kept for actions sent
  inside it; views are counted when they arrive inside it. The generator's
  garbage collector is off inside it (its pauses are not the server's). Errors and
  server-initiated closes are counted for the whole run, set-up included.

Latency. Each seat has at most one action in flight. When it is sent, its
time is noted against the seat. The version it produced is learnt from the
first frame that names the seat: kartu's public event (``drew``, ``melded``,
``laid_off``, ``discarded``, ``offered``, carrying ``seat`` and the room
``version``), or the baseline's state (``view.by``). Each socket's receipt of
the ``state`` of that version is one sample: on the actor's own socket
*action-to-own-view*, on every other socket of the room
*action-to-others'-view*. Times are taken when the frame is read, so they
include queueing in this process: watch its CPU figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import random
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.leanws import LeanSocket
from engine.bots.basic_rummy import choose as basic_rummy_choose

TURN_EVENTS = frozenset({"drew", "melded", "laid_off", "discarded"})
TRADE_EVENTS = frozenset({"offered"})
ACTION_TIMEOUT_S = 10.0  # an action unanswered this long counts as an error
HTTP_CONCURRENCY = 16
CONNECT_CONCURRENCY = 64
VERSIONS_KEPT = 512  # per room: versions still traced back to their action
TABLES_KEPT = 8  # per room: versions whose table (phase, turn) is remembered

# Options that keep a Basic Rummy match going for the whole run: nobody's
# clock, no pause between deals, the longest match by deals.
TURN_OPTIONS = {"bot_delay_ms": 0, "turn_clock_s": 0, "deals": 50, "deal_pause_ms": 0}
# A Remmi Demmi round lasts the longest timer; no pause between rounds.
TRADE_OPTIONS = {"bot_delay_ms": 0, "timer_s": 600, "round_pause_ms": 0, "rounds": 20}


def _ms(seconds: float) -> float:
    return seconds * 1000.0


# --- frames -------------------------------------------------------------------------------

_TYPE_AT = len(b'{"type":"')


def frame_type(frame: bytes) -> str:
    """The ``type`` of a frame from its first bytes (kartu and the baseline put it first)."""
    if frame.startswith(b'{"type":"'):
        end = frame.find(b'"', _TYPE_AT)
        if end > 0:
            return frame[_TYPE_AT:end].decode()
    parsed = orjson.loads(frame)
    return str(parsed.get("type")) if isinstance(parsed, dict) else ""


def frame_version(frame: bytes) -> int:
    """The ``version`` of a state or event frame, read from its head when it is there."""
    at = frame.find(b'"version":', 0, 160)
    if at >= 0:
        start = at + len(b'"version":')
        end = start
        while end < len(frame) and 48 <= frame[end] <= 57:
            end += 1
        if end > start:
            return int(frame[start:end])
    return int(orjson.loads(frame).get("version", -1))


def trader_view(frame: bytes) -> dict[str, Any] | None:
    """What :func:`quick_offer` reads of a Remmi Demmi trader's state frame
    (``stage``, ``hand``, ``my_offer``, ``locked``), without parsing the
    trades its view lists: 4.7 KB of a 6 KB frame, and parsing them all was a
    third of the generator's work in the realtime shape (the baseline's views
    are one string of padding). It reads the frame as kartu lays it out (the
    table's part with ``stage`` first, then the seat's own from ``you`` on,
    ``trades`` then ``locked`` last in it); None for any other layout (parse
    the whole view then)."""
    stage = frame.find(b'"stage":')
    start = frame.find(b',"you":', stage)
    cut = frame.find(b',"trades":[', start)
    locked = frame.find(b'"locked":[', cut)
    if start < 0 or cut < 0 or locked < 0 or stage < 0:
        return None
    try:
        view: dict[str, Any] = orjson.loads(b"{" + frame[start + 1:cut] + b"}")
        view["locked"] = orjson.loads(
            frame[locked + len(b'"locked":'):frame.index(b"]", locked) + 1])
        view["stage"] = orjson.loads(
            frame[stage + len(b'"stage":'):frame.index(b",", stage)])
    except (ValueError, orjson.JSONDecodeError):
        return None
    return view


# --- figures ------------------------------------------------------------------------------


@dataclass
class Stats:
    """What one run of the generator saw."""

    recording: bool = False
    own_ms: list[float] = field(default_factory=list)
    others_ms: list[float] = field(default_factory=list)
    ack_ms: list[float] = field(default_factory=list)
    sent: int = 0  # actions sent in the window
    actions: int = 0  # of those, acknowledged
    refused: int = 0  # of those, answered with an error
    views: int = 0  # state frames received in the window
    frames: int = 0  # frames of any type received in the window
    frame_bytes: int = 0
    state_bytes: int = 0
    skipped: int = 0  # realtime beats skipped: the trader's last offer was unanswered
    errors: Counter[str] = field(default_factory=Counter)  # by code, whole run
    server_closes: Counter[str] = field(default_factory=Counter)  # by close code, whole run
    rooms_finished: int = 0


def percentile(samples: list[float], q: float) -> float | None:
    """The q-quantile (0..1) by the nearest-rank method; None without samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 1))))
    return ordered[rank - 1]


# --- clients ------------------------------------------------------------------------------


@dataclass
class Pending:
    """An action in flight: who sent it, when, and (once known) the version it made.

    It stays in flight until it is answered *and*, if acknowledged, its state
    has reached the actor's own socket: with Redis between the room and the
    socket the ``ack`` may come first, and the actor must not play its next
    move from a view that does not show its last one yet.
    """

    ref: int
    seat: int
    sent_at: float
    counted: bool  # sent inside the window
    version: int | None = None
    answered: bool = False
    seen_own: bool = False


class Client:
    """One WebSocket to a server: a player (seated) or a spectator."""

    def __init__(self, gen: LoadGenerator, room: Room, ws_url: str, token: str | None,
                 role: str) -> None:
        self.gen = gen
        self.room = room
        self.ws_url = ws_url
        self.token = token
        self.role = role
        self.seat: int | None = None
        self.ws: ClientConnection | None = None  # with compression: the websockets client
        self.lean: LeanSocket | None = None  # without: bench.leanws
        self.state_frame: bytes | None = None
        self.state_version = -1
        self.state_at = 0.0
        self._view: dict[str, Any] | None = None
        self._view_version = -2
        self._refs = itertools.count(1)
        self._waiters: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self.closing = False
        self.error_version = -2  # the state version an action of ours was refused at

    async def open(self) -> None:
        url = f"{self.ws_url}/ws" + (f"?token={self.token}" if self.token else "")
        if self.gen.compression is None:
            self.lean = await LeanSocket.connect(url, self._message, self._closed, timeout=30)
            return
        self.ws = await connect(url, compression=self.gen.compression, proxy=None,
                                open_timeout=30, ping_interval=None, close_timeout=2,
                                max_size=2**20)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    def _message(self, frame: bytes) -> None:
        try:
            self.gen.on_frame(self, frame, time.perf_counter())
        except Exception as err:  # a frame this client cannot handle is an error
            self.gen.stats.errors[f"client:{type(err).__name__}"] += 1

    def _closed(self) -> None:
        if not self.closing:
            socket = self.lean or self.ws
            code = socket.close_code if socket and socket.close_code is not None else 1006
            self.gen.stats.server_closes[str(code)] += 1
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_exception(ConnectionError("socket closed"))

    def send_soon(self, message: dict[str, Any]) -> None:
        """Sends without waiting: written at once on a lean socket."""
        if self.lean is not None:
            self.lean.send(orjson.dumps(message))
        else:
            self.gen.spawn(self.send(message))

    def view(self) -> dict[str, Any] | None:
        """The latest state's view, parsed on demand."""
        if self._view_version != self.state_version and self.state_frame is not None:
            self._view = orjson.loads(self.state_frame)["view"]
            self._view_version = self.state_version
        return self._view

    def next_ref(self) -> int:
        return next(self._refs)

    async def send(self, message: dict[str, Any]) -> None:
        if self.lean is not None:
            self.send_soon(message)
            return
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed):  # the reader counts the close
            await self.ws.send(orjson.dumps(message), text=True)

    async def request(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Sends a set-up message and waits for its ack or error."""
        ref = self.next_ref()
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters[ref] = waiter
        try:
            await self.send({**message, "ref": ref})
            return await asyncio.wait_for(waiter, timeout)
        finally:
            self._waiters.pop(ref, None)

    async def _read(self) -> None:
        assert self.ws is not None
        ws = self.ws
        try:
            while True:  # until the socket closes
                self._message(await ws.recv(decode=False))
        except ConnectionClosed:
            pass
        finally:
            self._closed()

    def answered(self, message: dict[str, Any]) -> bool:
        """Hands an ack/error/pong to the set-up call waiting for it, if any."""
        ref = message.get("ref")
        waiter = self._waiters.pop(ref, None) if isinstance(ref, int) else None
        if waiter is None:
            return False
        if not waiter.done():
            waiter.set_result(message)
        return True

    async def close(self) -> None:
        self.closing = True
        if self.lean is not None:
            with contextlib.suppress(Exception):
                await self.lean.close()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(self._reader, 2)


# --- rooms --------------------------------------------------------------------------------


class Room:
    """One room under load: its clients, their actions in flight, their pacing."""

    def __init__(self, gen: LoadGenerator, index: int, players: int, spectators: int) -> None:
        self.gen = gen
        self.index = index
        self.player_count = players
        self.spectator_count = spectators
        self.room_id = f"{gen.tag}r{index}"
        self.owner_token: str | None = None
        self.tokens: list[str | None] = [None] * players
        self.clients: list[Client] = []
        self.players: list[Client] = []
        self.pending: dict[int, Pending] = {}
        self.by_version: dict[int, Pending] = {}
        self.tables: dict[int, tuple[Any, ...]] = {}  # version -> Dialect.read_table
        self.active = False
        self.finished = False
        self.next_at = 0.0  # turn-based: the earliest moment of the next action
        self._timer: asyncio.TimerHandle | None = None
        self._beats: dict[int, float] = {}  # realtime: each trader's next beat
        # Moves on at each stop: a beat scheduled before a pause must not
        # run on beside the ones started after it.
        self.epoch = 0

    @property
    def server(self) -> int:
        return self.index % len(self.gen.http_urls)

    def server_of(self, client_index: int) -> int:
        """Which server a client of this room connects to (``spread``)."""
        if self.gen.spread == "conn":
            return (self.index + client_index) % len(self.gen.ws_urls)
        return self.server

    # -- tracing ---------------------------------------------------------------------------

    def trace(self, seat: int, version: int) -> None:
        """Version ``version`` was made by ``seat``'s action in flight, if it has one."""
        pending = self.pending.get(seat)
        if pending is None or pending.version is not None or version in self.by_version:
            return
        pending.version = version
        self.by_version[version] = pending
        if len(self.by_version) > VERSIONS_KEPT:
            del self.by_version[next(iter(self.by_version))]

    def on_state(self, client: Client, version: int, now: float) -> None:
        pending = self.by_version.get(version)
        if pending is not None:
            own = client.seat == pending.seat and client.role == "player"
            if pending.counted:
                sample = _ms(now - pending.sent_at)
                (self.gen.stats.own_ms if own else self.gen.stats.others_ms).append(sample)
            if own:
                pending.seen_own = True
                self._settle(pending)
        if self.active and client.role == "player":
            self.gen.shape_on_state(self, client)

    def on_reply(self, client: Client, message: dict[str, Any], now: float) -> None:
        if client.seat is None:
            return
        pending = self.pending.get(client.seat)
        if pending is None or pending.ref != message.get("ref") or pending.answered:
            return
        pending.answered = True
        stats = self.gen.stats
        acked = message.get("type") == "ack"
        if pending.counted:
            if acked:
                stats.actions += 1
                stats.ack_ms.append(_ms(now - pending.sent_at))
            else:
                stats.refused += 1
        if not acked:
            client.error_version = client.state_version
            pending.seen_own = True  # nothing changed: no state to wait for
        self._settle(pending)

    def _settle(self, pending: Pending) -> None:
        """Ends an action's flight once it is answered and its actor has seen it."""
        if not (pending.answered and pending.seen_own):
            return
        if self.pending.get(pending.seat) is pending:
            del self.pending[pending.seat]
            if self.active:
                self.gen.shape_on_reply(self)

    def expire(self, now: float) -> None:
        """Gives up on actions unanswered for too long (each counts as an error)."""
        for seat, pending in list(self.pending.items()):
            if now - pending.sent_at > ACTION_TIMEOUT_S:
                del self.pending[seat]
                self.gen.stats.errors["timeout"] += 1
                if self.active:
                    self.gen.shape_on_reply(self)

    # -- acting ------------------------------------------------------------------------------

    def act(self, client: Client, action: dict[str, Any]) -> None:
        assert client.seat is not None
        now = time.perf_counter()
        ref = client.next_ref()
        counted = self.gen.stats.recording
        self.pending[client.seat] = Pending(ref, client.seat, now, counted)
        if counted:
            self.gen.stats.sent += 1
        client.send_soon({"type": "act", "room": self.room_id, "action": action, "ref": ref})

    def call_at(self, when: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + max(0.0, when - time.perf_counter()), callback,
                            *args)

    # turn-based

    def kick(self) -> None:
        """Lets the player whose turn it is act, when the pacing allows."""
        if not self.active or self.finished or self.pending or self._timer is not None:
            return
        dialect = self.gen.dialect
        for client in self.players:
            if not dialect.my_turn(client):
                if dialect.finished(client):
                    self.finished = True
                    self.gen.stats.rooms_finished += 1
                    return
                continue
            if client.error_version == client.state_version:
                return  # refused on this very view: wait for a newer one, do not loop
            now = time.perf_counter()
            at = max(self.next_at, client.state_at + self.gen.think_s)
            if at > now + 0.0005:
                self._timer = self.call_at(at, self._fire)
                return
            action = dialect.next_action(client)
            if action is None:
                return
            self.next_at = self._next_slot(now)
            self.act(client, action)
            return

    def _fire(self) -> None:
        self._timer = None
        self.kick()

    def _next_slot(self, now: float) -> float:
        """The room's next moment on its own beat, one interval after the last.

        The beat keeps the room's random phase: were the next action timed
        from this one, a stall that delays many rooms at once would line
        them all up on one phase, and the run would turn into bursts that
        measure the generator, not the server. A slot missed is skipped,
        not made up for.
        """
        interval = self.gen.interval_s
        if interval <= 0:
            return now
        slot = self.next_at + interval
        if slot <= now:
            slot += ((now - slot) // interval + 1) * interval
        return slot

    # realtime

    def start_beats(self) -> None:
        interval = self.gen.interval_s
        now = time.perf_counter()
        for client in self.players:
            assert client.seat is not None
            first = now + self.gen.rng.uniform(0, interval)
            self._beats[client.seat] = first
            self.call_at(first, self._beat, client, self.epoch)

    def _beat(self, client: Client, epoch: int) -> None:
        if not self.active or epoch != self.epoch or client.seat is None:
            return
        # A beat that comes late is not made up for: no bursts to catch up.
        beat = max(self._beats[client.seat] + self.gen.interval_s, time.perf_counter())
        self._beats[client.seat] = beat
        self.call_at(beat, self._beat, client, epoch)
        if client.seat in self.pending:
            if self.gen.stats.recording:
                self.gen.stats.skipped += 1
            return
        action = self.gen.dialect.offer(client, self.gen.rng)
        if action is None:
            if self.gen.stats.recording:
                self.gen.stats.skipped += 1
            return
        self.act(client, action)

    def stop(self) -> None:
        self.active = False
        self.epoch += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


# --- dialects -----------------------------------------------------------------------------


class Dialect:
    """What differs between kartu and the baseline."""

    kind = ""

    async def prepare(self, gen: LoadGenerator) -> None:
        """Work before anything is measured (kartu: guests)."""

    async def create(self, gen: LoadGenerator) -> None:
        """Creates the rooms (kartu: over HTTP)."""

    async def join(self, gen: LoadGenerator, room: Room) -> None:
        raise NotImplementedError

    async def start(self, gen: LoadGenerator, room: Room) -> None:
        """Starts the room's game (kartu: the owner's ``start``)."""

    def on_event(self, room: Room, version: int, frame: bytes) -> None:
        """An event frame arrived (kartu traces actions by them)."""

    def on_state(self, room: Room, version: int, frame: bytes) -> None:
        """A state frame arrived, before it is counted (the baseline traces by it)."""

    def my_turn(self, client: Client) -> bool:
        raise NotImplementedError

    def finished(self, client: Client) -> bool:
        return False

    def next_action(self, client: Client) -> dict[str, Any] | None:
        raise NotImplementedError

    def read_table(self, view: dict[str, Any]) -> tuple[Any, ...]:
        """What every player's view of one version shows alike (the phase, whose turn)."""
        raise NotImplementedError

    def table(self, client: Client) -> tuple[Any, ...] | None:
        """``read_table`` of the client's latest view, read from the first view of
        that version any player of the room asked for: asking whose turn it is
        after every state costs one parse a version, not one per player."""
        room, version = client.room, client.state_version
        table = room.tables.get(version)
        if table is None:
            view = client.view()
            if view is None:
                return None
            table = room.tables[version] = self.read_table(view)
            if len(room.tables) > TABLES_KEPT:
                del room.tables[next(iter(room.tables))]
        return table

    def offer(self, client: Client, rng: random.Random) -> dict[str, Any] | None:
        raise NotImplementedError


def quick_move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal Basic Rummy move that costs the generator next to nothing: draw
    from the stock, then discard the last card of the hand (BR-9 forbids only
    the card just taken from the discard pile, and this never takes one)."""
    if view.get("step") == "draw":
        return {"kind": "draw", "from": "stock"}
    hand = [c for c in view.get("hand") or () if c != view.get("must_not_discard")]
    return {"kind": "discard", "card": hand[-1]}


class KartuDialect(Dialect):
    kind = "kartu"

    def __init__(self, game: str, moves: str = "quick") -> None:
        self.game = game
        self.moves = moves
        self.trace_kinds = TURN_EVENTS if game == "basic_rummy" else TRADE_EVENTS

    async def prepare(self, gen: LoadGenerator) -> None:
        async def guests(room: Room) -> None:
            for i in range(room.player_count):
                body = await gen.http_post(room.server, "/api/guests",
                                           {"name": f"r{room.index}p{i}"})
                room.tokens[i] = body["token"]
            room.owner_token = room.tokens[0]

        await gen.each_room(guests)

    async def create(self, gen: LoadGenerator) -> None:
        options = TURN_OPTIONS if self.game == "basic_rummy" else TRADE_OPTIONS

        async def create(room: Room) -> None:
            body = await gen.http_post(
                room.server, "/api/rooms",
                {"game": self.game, "seats": room.player_count, "options": options},
                token=room.owner_token)
            room.room_id = body["room_id"]

        await gen.each_room(create)

    async def join(self, gen: LoadGenerator, room: Room) -> None:
        await gen.connect_room(room, {})

    async def start(self, gen: LoadGenerator, room: Room) -> None:
        owner = room.players[0]
        reply = await owner.request({"type": "start", "room": room.room_id})
        if reply.get("type") != "ack":
            raise RuntimeError(f"start refused: {reply}")
        if self.game != "remmi_demmi":
            return
        # The dealer starts the timer at once, then everybody may trade.
        timer_started = False
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            for client in room.players:
                view = client.view()
                if not timer_started and view and view.get("stage") == "dealt" \
                        and view.get("dealer") == view.get("you"):
                    reply = await client.request({"type": "act", "room": room.room_id, "action": {
                        "kind": "start_timer", "speed": "snail"}})
                    if reply.get("type") != "ack":
                        raise RuntimeError(f"start_timer refused: {reply}")
                    timer_started = True
            views = [c.view() for c in room.players]
            if all(v and v.get("stage") == "trading" for v in views):
                return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"room {room.room_id}: the trading timer did not start")

    def on_event(self, room: Room, version: int, frame: bytes) -> None:
        if version in room.by_version or not room.pending:
            return
        event = orjson.loads(frame).get("event") or {}
        seat = event.get("seat")
        if isinstance(seat, int) and event.get("kind") in self.trace_kinds:
            room.trace(seat, version)

    def read_table(self, view: dict[str, Any]) -> tuple[Any, ...]:
        return view.get("phase"), view.get("turn")

    def my_turn(self, client: Client) -> bool:
        table = self.table(client)
        return bool(table and table[0] == "playing" and client.seat is not None
                    and table[1] == client.seat)

    def finished(self, client: Client) -> bool:
        table = self.table(client)
        return bool(table and table[0] == "game_over")

    def next_action(self, client: Client) -> dict[str, Any] | None:
        view = client.view()
        if view is None:
            return None
        return basic_rummy_choose(view) if self.moves == "bot" else quick_move(view)

    def offer(self, client: Client, rng: random.Random) -> dict[str, Any] | None:
        frame = client.state_frame
        view = (trader_view(frame) if frame is not None else None) or client.view()
        return None if view is None else quick_offer(view, rng)


def quick_offer(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A Remmi Demmi trader's offer from its view, or None if it cannot offer now.

    Cards outside the open offer cannot be traded away under the trader, and
    offers of one colour or one figure make trades nobody may return.
    """
    if view.get("stage") != "trading":
        return None
    mine = set((view.get("my_offer") or {}).get("cards") or ())
    locked = set(view.get("locked") or ())
    free = [c for c in view.get("hand") or () if c not in mine and c not in locked]
    if not free:
        return None
    size = rng.randint(1, 3)
    groups: dict[str, list[str]] = {}
    for card in free:
        groups.setdefault("c" + card[0], []).append(card)
        groups.setdefault("f" + card[1], []).append(card)
    fitting = [g for g in groups.values() if len(g) >= size]
    cards = rng.sample(rng.choice(fitting), size) if fitting else [rng.choice(free)]
    return {"kind": "offer", "cards": cards, "to": None}


class RawDialect(Dialect):
    """The baseline: turns pass round the table, draw then discard, like Basic Rummy."""

    kind = "raw"

    def __init__(self, pad: int) -> None:
        self.pad = pad

    async def join(self, gen: LoadGenerator, room: Room) -> None:
        await gen.connect_room(room, {"pad": self.pad})

    async def repad(self, gen: LoadGenerator, pad: int) -> None:
        """Pads every room's views with ``pad`` bytes from now on."""
        self.pad = pad

        async def one(room: Room) -> None:
            reply = await room.clients[0].request({"type": "pad", "room": room.room_id,
                                                   "pad": pad})
            if reply.get("type") != "ack":
                raise RuntimeError(f"pad refused: {reply}")

        await gen.each_room(one)

    def on_state(self, room: Room, version: int, frame: bytes) -> None:
        at = frame.find(b'"view":{"by":', 0, 200)
        if at < 0:
            return
        start = at + len(b'"view":{"by":')
        end = frame.find(b",", start)
        with contextlib.suppress(ValueError):
            room.trace(int(frame[start:end]), version)

    def read_table(self, view: dict[str, Any]) -> tuple[Any, ...]:
        action = view.get("action")
        return (0 if action is None else action.get("next"),)  # nobody acted yet: seat 0

    def my_turn(self, client: Client) -> bool:
        table = self.table(client)
        return bool(table and client.seat is not None and table[0] == client.seat)

    def next_action(self, client: Client) -> dict[str, Any] | None:
        view = client.view() or {}
        seat, players = client.seat or 0, client.room.player_count
        drew = (view.get("action") or {}).get("kind") == "draw" and view.get("by") == seat
        if drew:
            return {"kind": "discard", "card": "KH", "next": (seat + 1) % players}
        return {"kind": "draw", "from": "stock", "next": seat}

    def offer(self, client: Client, rng: random.Random) -> dict[str, Any] | None:
        return {"kind": "offer", "cards": ["OR1", "OR2", "OR3"][: rng.randint(1, 3)],
                "to": None}


# --- the generator ------------------------------------------------------------------------


def quiet_collector() -> None:
    """Collects now, freezes what is left out of later collections and turns the
    collector off (until :meth:`LoadGenerator.end_window`)."""
    gc.collect()
    gc.freeze()
    gc.disable()


class LoadGenerator:
    """Runs one shape against one set of servers of one kind."""

    def __init__(self, dialect: Dialect, shape: str, http_urls: list[str], rooms: int,
                 players: list[int], spectators: int, rate: float, think_ms: float,
                 compression: str | None, spread: str = "room", seed: int = 1) -> None:
        self.dialect = dialect
        self.shape = shape
        self.http_urls = http_urls
        self.ws_urls = [u.replace("http://", "ws://") for u in http_urls]
        self.compression = compression
        self.spread = spread
        self.think_s = think_ms / 1000.0
        self.rng = random.Random(seed)
        self.tag = f"g{seed}-{self.rng.randrange(1 << 30):x}-"  # names this run's rooms
        self.stats = Stats()
        self.rooms = [Room(self, i, players[i % len(players)], spectators)
                      for i in range(rooms)]
        connections = sum(r.player_count + r.spectator_count for r in self.rooms)
        self.connections = connections
        if rate <= 0:
            self.interval_s = 0.0
        elif shape == "realtime":
            self.interval_s = sum(r.player_count for r in self.rooms) / rate
        else:
            self.interval_s = rooms / rate
        self._tasks: set[asyncio.Task[Any]] = set()
        self._http: list[httpx.AsyncClient] = []
        self._sweeper: asyncio.Task[None] | None = None

    # -- helpers -----------------------------------------------------------------------------

    def spawn(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            await work

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def http_post(self, server: int, path: str, body: dict[str, Any],
                        token: str | None = None) -> dict[str, Any]:
        if not self._http:
            self._http = [
                httpx.AsyncClient(base_url=u, trust_env=False, timeout=60,
                                  limits=httpx.Limits(max_connections=HTTP_CONCURRENCY))
                for u in self.http_urls
            ]
        headers = {"Authorization": f"Bearer {token}"} if token else None
        for attempt in range(3):
            try:
                response = await self._http[server].post(path, json=body, headers=headers)
            except httpx.TransportError:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5)
                continue
            if response.status_code >= 400:
                self.stats.errors[f"http:{response.status_code}"] += 1
                raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:200]}")
            answer: dict[str, Any] = response.json()
            return answer
        raise RuntimeError("unreachable")

    async def each_room(self, work: Any, concurrency: int = HTTP_CONCURRENCY) -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(room: Room) -> None:
            async with gate:
                await work(room)

        await asyncio.gather(*(one(r) for r in self.rooms))

    async def connect_room(self, room: Room, extra: dict[str, Any]) -> None:
        """Opens the room's sockets and joins: players first (in turn), then spectators."""
        for i in range(room.player_count):
            client = Client(self, room, self.ws_urls[room.server_of(i)], room.tokens[i], "player")
            room.clients.append(client)
            room.players.append(client)
        for i in range(room.spectator_count):
            server = room.server_of(room.player_count + i)
            room.clients.append(Client(self, room, self.ws_urls[server], None, "spectator"))
        for client in room.clients:
            try:
                await client.open()
            except Exception as err:
                self.stats.errors[f"connect:{type(err).__name__}"] += 1
                raise
            reply = await client.request({"type": "join", "room": room.room_id,
                                          "role": client.role, **extra})
            if reply.get("type") != "ack":
                raise RuntimeError(f"join refused: {reply}")
            client.seat = reply.get("seat")

    # -- phases ------------------------------------------------------------------------------

    async def prepare(self) -> None:
        await self.dialect.prepare(self)

    async def create(self) -> None:
        await self.dialect.create(self)

    async def join(self) -> None:
        await self.each_room(lambda room: self.dialect.join(self, room),
                             CONNECT_CONCURRENCY // 4)

    async def start(self) -> None:
        await self.each_room(lambda room: self.dialect.start(self, room),
                             CONNECT_CONCURRENCY // 4)

    def activate(self) -> None:
        """Rooms start acting (not in the idle shape); again after :meth:`stop`, they resume."""
        if self.shape == "idle":
            return
        now = time.perf_counter()
        for room in self.rooms:
            room.active = True
            if self.shape == "realtime":
                room.start_beats()
            else:
                # Each room starts at its own moment, so that they do not act in step.
                room.next_at = now + self.rng.uniform(0, self.interval_s)
                room.kick()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(1)
            now = time.perf_counter()
            for room in self.rooms:
                room.expire(now)

    def begin_window(self, fresh: bool = True) -> None:
        """Starts recording; ``fresh=False`` adds to what earlier windows recorded
        (the slices of an interleaved run)."""
        if fresh:
            errors, closes = self.stats.errors, self.stats.server_closes
            self.stats = Stats(recording=True, errors=errors, server_closes=closes,
                               rooms_finished=self.stats.rooms_finished)
        else:
            self.stats.recording = True
        # This process's collector would stop it for up to ~100 ms at a time
        # (tens of thousands of pending actions, sockets and samples), and
        # every frame read meanwhile would look that much later: the
        # instrument's pauses, not the server's. Sockets and rooms made so
        # far are frozen out of collection, and the window runs without it.
        # bench.load does this before the load starts (quiet_collector):
        # done here, with actions in flight, the collection itself would be
        # such a pause. Here only if no one did.
        if gc.isenabled():
            quiet_collector()

    def end_window(self) -> None:
        self.stats.recording = False
        gc.enable()
        gc.unfreeze()

    async def stop(self, drain_s: float = 2.0) -> None:
        """Stops acting and waits (bounded) for the answers still in flight
        (:meth:`activate` resumes)."""
        for room in self.rooms:
            room.stop()
        deadline = time.monotonic() + drain_s
        while time.monotonic() < deadline and any(r.pending for r in self.rooms):
            await asyncio.sleep(0.05)
        if self._sweeper is not None:
            self._sweeper.cancel()

    async def close(self, limit_s: float = 30.0) -> None:
        """Closes every socket politely, in batches; whatever is left at ``limit_s`` is cut."""
        clients = [c for r in self.rooms for c in r.clients]
        deadline = time.monotonic() + limit_s
        for start in range(0, len(clients), 500):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(
                    *(c.close() for c in clients[start:start + 500]), return_exceptions=True),
                    left)
        for client in clients:
            client.closing = True
            if client.ws is not None and client.ws.transport is not None:
                client.ws.transport.abort()
            if client.lean is not None and client.lean.transport is not None:
                client.lean.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        for http in self._http:
            await http.aclose()

    # -- frames ------------------------------------------------------------------------------

    def on_frame(self, client: Client, frame: bytes, now: float) -> None:
        stats = self.stats
        if stats.recording:
            stats.frames += 1
            stats.frame_bytes += len(frame)
        kind = frame_type(frame)
        room = client.room
        if kind == "state":
            version = frame_version(frame)
            if version <= client.state_version:
                return
            client.state_frame, client.state_version, client.state_at = frame, version, now
            if stats.recording:
                stats.views += 1
                stats.state_bytes += len(frame)
            self.dialect.on_state(room, version, frame)
            room.on_state(client, version, now)
        elif kind == "event":
            self.dialect.on_event(room, frame_version(frame), frame)
        elif kind in ("ack", "error", "pong"):
            message = orjson.loads(frame)
            if kind == "error":
                stats.errors[str(message.get("code"))] += 1
            if not client.answered(message):
                room.on_reply(client, message, now)

    # -- shapes ------------------------------------------------------------------------------

    def shape_on_state(self, room: Room, client: Client) -> None:
        if self.shape == "turn":
            room.kick()

    def shape_on_reply(self, room: Room) -> None:
        if self.shape == "turn":
            room.kick()

