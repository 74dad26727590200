"""Remmi Demmi (rules RD-1..RD-20 in ``docs/rules/remmi-demmi.md``).

A real-time trading game: everybody acts at once while a timer runs.

Terms:

- *card*: colour (``O`` orange, ``P`` purple, ``G`` green) + figure (``R``
  running, ``J`` jumping, ``L`` lying) + copy number 1-9, e.g. ``OR3``. A
  colour and a figure together make one of the nine *kinds*.
- *cards in play*: the copies used for a player count (RD-2): copies 1-5 with
  4-5 players, 1-7 with 6-7, all nine with 8-9.
- *Demmi* (RD-10): one or more cards all of one colour, or all of one figure.
- *Remmi* (RD-9): exactly nine cards of one colour showing at most two
  figures, or of one figure showing at most two colours.
- *round*: cards are dealt (stage ``dealt``), the dealer starts the *timer*
  (stage ``trading``), and the round ends when every point man is taken or
  the timer runs out; then the *check* scores it (phase ``deal_over``).
- *offer*: the cards a player puts up for trade, optionally aimed at one seat;
  everybody sees its size and target, only its owner sees its cards. Each
  player has at most one open offer. Open offers are kept in arrival order.
- *trade*: two matching offers (same size, different players, targets
  respected) swapped in one step.
- *return window*: after a trade in which a side received cards that are not
  a Demmi, that side may ``return`` (undo the trade) or ``keep`` it until the
  window closes. Meanwhile the cards each side received are *locked*: they
  cannot be offered or claimed with.
- *point man*: the 4, 3 and 2 point tokens (RD-3; no 2 with four players).
  A *claim* takes the highest one left (RD-13); the check decides who keeps
  what (RD-15).
- *frantic* (RD-20): hands are dealt face down until the dealer's ``reveal``.

Decisions beyond the written rules:

- Time is given by the caller as ``now`` (epoch ms). Every deadline (automatic
  timer start, the timer's end, return windows, the pause between rounds) is
  an absolute time in the state; whatever is due is applied, oldest first,
  by :meth:`RemmiDemmi.on_timeout` and also before any action, so an action
  that arrives late sees the state as it is at its ``now``.
- The automatic start (RD-7) happens 10 s after the deal, at the room's
  default ``speed``. A custom ``timer_s`` sets the length whatever the speed.
- Claims, like trades, are only possible while the timer runs.
- A claim needs no ``cards`` when the hand holds exactly nine cards.
- A claimer has laid their cards down: their hand is empty and they take no
  further part in the round (:meth:`RemmiDemmi.to_act` leaves them out).
  Offers aimed at a claimer are cancelled.
- In frantic, starting the timer turns the cards face up (it is the sign that
  trading begins), so a forgotten ``reveal`` cannot block a round. An offer
  before the timer runs costs 1 point and is not placed; the action itself is
  accepted (the penalty is the rules' answer), and so is a ``peek``.
- When a return window runs out (or the round ends) the trade stands: its
  status becomes ``kept``.
- Between rounds the check is shown for ``round_pause_ms``; any seat may skip
  the pause with ``next_deal``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from types import MappingProxyType
from typing import Any, ClassVar

from engine.errors import BadOptions, IllegalAction, NotYourTurn
from engine.game import Action, Event, Outcome, View, copy_json, shallow_copy
from engine.options import check_int
from engine.rng import Rng
from engine.schema import CARDS, ID, ActionField, ActionFields, action_fields

COLOURS = "OPG"
FIGURES = "RJL"
REMMI_SIZE = 9

SPEEDS: dict[str, int] = {"snail": 120_000, "lightning": 70_000}  # RD-4, in ms
AUTO_START_MS = 10_000  # RD-7 decision
INVALID_REMMI_POINTS = -5  # RD-15
FRANTIC_PENALTY = -1  # RD-20

PLAYING = "playing"
DEAL_OVER = "deal_over"
GAME_OVER = "game_over"
DEALT = "dealt"
TRADING = "trading"

# Trade statuses.
DONE = "done"  # both sides received a Demmi: nothing to return
RETURNABLE = "returnable"  # a return window is open; both sides' cards are locked
RETURNED = "returned"
KEPT = "kept"  # kept by choice, or the window (or the round) ended

_OPTION_KEYS = frozenset(
    {"speed", "timer_s", "frantic", "return_window_s", "round_pause_ms", "rounds", "scenario"}
)
_ACTION_KINDS = (
    "start_timer", "reveal", "peek", "offer", "withdraw", "return", "keep", "claim", "next_deal",
)
# The fields each kind reads (the _start_timer ... _claim handlers below).
_ACTION_FIELDS = action_fields({
    "start_timer": {"speed": ActionField("str", max_chars=16)},
    "reveal": {},
    "peek": {},
    "offer": {"cards": CARDS, "to": ActionField("int", nullable=True, high=63)},
    "withdraw": {},
    "return": {"trade": ID},
    "keep": {"trade": ID},
    "claim": {"cards": ActionField("str_list", nullable=True)},
    "next_deal": {},
})
SNAPSHOT_VERSION = 1


# --- cards ------------------------------------------------------------------------------


def copies_in_play(players: int) -> int:
    """RD-2: how many copies of each kind are used with ``players`` players."""
    if players <= 5:
        return 5
    if players <= 7:
        return 7
    return 9


def hand_size(players: int) -> int:
    """RD-5 / RD-19: nine cards each, ten with four players."""
    return 10 if players == 4 else 9


def point_men_for(players: int) -> list[int]:
    """RD-3 / RD-19: the point men on the table at the start of a round."""
    return [4, 3] if players == 4 else [4, 3, 2]


def deck_for(players: int) -> list[str]:
    """The cards in play for ``players`` players, in a fixed order."""
    copies = copies_in_play(players)
    return [c + f + str(n) for c in COLOURS for f in FIGURES for n in range(1, copies + 1)]


def is_card(card: object, players: int = 9) -> bool:
    """Whether ``card`` names a card in play with ``players`` players."""
    return (
        isinstance(card, str)
        and len(card) == 3
        and card[0] in COLOURS
        and card[1] in FIGURES
        and card[2] in "123456789"
        and int(card[2]) <= copies_in_play(players)
    )


def colour_of(card: str) -> str:
    return card[0]


def figure_of(card: str) -> str:
    return card[1]


def is_demmi(cards: list[str] | tuple[str, ...]) -> bool:
    """RD-10: one or more cards, all one colour or all one figure."""
    if not cards:
        return False
    return len({colour_of(c) for c in cards}) == 1 or len({figure_of(c) for c in cards}) == 1


def is_remmi(cards: list[str] | tuple[str, ...]) -> bool:
    """RD-9: nine cards, one colour with at most two figures, or the other way round."""
    if len(cards) != REMMI_SIZE:
        return False
    colours = {colour_of(c) for c in cards}
    figures = {figure_of(c) for c in cards}
    return (len(colours) == 1 and len(figures) <= 2) or (len(figures) == 1 and len(colours) <= 2)


def find_remmi(hand: list[str]) -> list[str] | None:
    """Nine cards of ``hand`` that make a Remmi (hand order), or None."""
    if len(hand) < REMMI_SIZE:
        return None
    for chosen in combinations(hand, REMMI_SIZE):
        if is_remmi(chosen):
            return list(chosen)
    return None


# --- state --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Offer:
    """An open offer. Frozen: states share it; a new offer replaces it."""

    id: str
    seat: int
    cards: tuple[str, ...]
    to: int | None
    at: int


@dataclass(frozen=True)
class Trade:
    """A swap between ``seats[0]`` and ``seats[1]``; ``gave[i]`` is what ``seats[i]`` gave.

    ``invalid[i]``: ``seats[i]`` received cards that are not a Demmi (RD-12).
    ``pending[i]``: ``seats[i]`` may still return or keep them.
    """

    id: str
    seats: tuple[int, int]
    gave: tuple[tuple[str, ...], tuple[str, ...]]
    at: int
    invalid: tuple[bool, bool]
    pending: tuple[bool, bool]
    return_until: int | None
    status: str
    returned_by: int | None = None

    def side(self, seat: int) -> int:
        return self.seats.index(seat)

    def received(self, side: int) -> tuple[str, ...]:
        return self.gave[1 - side]


@dataclass(frozen=True)
class Claim:
    """A Remmi-Demmi: the nine cards laid face down, the point man taken (RD-13)."""

    seat: int
    cards: tuple[str, ...]
    aside: tuple[str, ...]  # the tenth card with four players
    point_man: int
    at: int


@dataclass
class RemmiDemmiState:
    """Everything about a game of Remmi Demmi, as plain data.

    ``apply`` works on a copy (:func:`_clone`); the frozen offers, trades and
    claims are replaced, never changed, so states can share them. So is each
    seat's hand: a new list, never one changed in place.
    """

    options: dict[str, Any]  # the game's validated options (never mutated)
    players: int
    rng: int  # Rng.state after the last shuffle
    dealer: int
    deal: int  # 1-based round number
    phase: str  # playing | deal_over | game_over
    stage: str | None  # dealt | trading while playing
    hands: list[list[str]]
    dealt_at: int
    auto_start_at: int | None  # RD-7: while dealt
    timer_started_at: int | None
    deadline: int | None  # when the timer runs out
    speed: str | None  # the speed the timer was started at
    offers: list[Offer]  # open offers, oldest first
    # This round's, in order; in a long round only those still read
    # (_drop_settled_history). The room's action log keeps them all.
    trades: list[Trade]
    claims: list[Claim]  # this round's, in claim order
    point_men: list[int]  # still on the table, highest first
    offer_serial: int
    trade_serial: int
    scores: list[int]
    penalties: list[dict[str, Any]]  # this round's frantic penalties
    revealed: bool  # frantic: the dealer gave the sign (always True otherwise)
    peeked: list[bool]
    result: dict[str, Any] | None  # the last round's check, while deal_over / game_over
    results: list[dict[str, Any]]
    next_deal_at: int | None  # while deal_over
    winners: list[int] | None
    # No trade before this index is returnable: the round's settled history,
    # which reading the returnable trades (views, deadlines, after every
    # change) skips. Trades only ever leave "returnable", so it only moves
    # on within a round; the transitions move it (_settle). Not saved and not
    # compared: 0 is always right.
    settled: int = field(default=0, compare=False, repr=False)
    # Where each seat's trades are in ``trades`` (indices, oldest first), so
    # that a view finds its seat's latest trades without a scan of the
    # round's. Derived from ``trades``: _swap and _start_round keep it, None
    # means not built yet (after a restore; :func:`_seat_trades` builds it).
    # Tuples, so that states share it. Not saved and not compared.
    seat_trades: tuple[tuple[int, ...], ...] | None = field(
        default=None, compare=False, repr=False)


def _clone(state: RemmiDemmiState) -> RemmiDemmiState:
    new = shallow_copy(state)
    new.hands = list(state.hands)  # each replaced, never changed in place
    new.offers = list(state.offers)
    # Not the trades: most actions leave them alone, and a long round keeps
    # up to a hundred or so. The transitions that change them copy them
    # (_set_trade, _swap).
    new.claims = list(state.claims)
    new.point_men = list(state.point_men)
    new.scores = list(state.scores)
    new.penalties = list(state.penalties)
    new.peeked = list(state.peeked)
    new.results = list(state.results)
    new.winners = None if state.winners is None else list(state.winners)
    return new


# --- snapshots ----------------------------------------------------------------------------


def to_snapshot(state: RemmiDemmiState) -> dict[str, Any]:
    """A JSON-serialisable copy of ``state``. The tuples of offers, trades and
    claims go in as they are (JSON arrays all the same): they never change,
    and a round's trades are what a snapshot is mostly made of."""
    return {
        "version": SNAPSHOT_VERSION,
        "options": dict(state.options),
        "players": state.players,
        "rng": state.rng,
        "dealer": state.dealer,
        "deal": state.deal,
        "phase": state.phase,
        "stage": state.stage,
        "hands": [list(h) for h in state.hands],
        "dealt_at": state.dealt_at,
        "auto_start_at": state.auto_start_at,
        "timer_started_at": state.timer_started_at,
        "deadline": state.deadline,
        "speed": state.speed,
        "offers": [
            {"id": o.id, "seat": o.seat, "cards": o.cards, "to": o.to, "at": o.at}
            for o in state.offers
        ],
        "trades": [
            {
                "id": t.id, "seats": t.seats, "gave": t.gave, "at": t.at,
                "invalid": t.invalid, "pending": t.pending, "return_until": t.return_until,
                "status": t.status, "returned_by": t.returned_by,
            }
            for t in state.trades
        ],
        "claims": [
            {"seat": c.seat, "cards": c.cards, "aside": c.aside, "point_man": c.point_man,
             "at": c.at}
            for c in state.claims
        ],
        "point_men": list(state.point_men),
        "offer_serial": state.offer_serial,
        "trade_serial": state.trade_serial,
        "scores": list(state.scores),
        "penalties": [dict(p) for p in state.penalties],
        "revealed": state.revealed,
        "peeked": list(state.peeked),
        "result": copy_json(state.result),
        "results": copy_json(state.results),
        "next_deal_at": state.next_deal_at,
        "winners": None if state.winners is None else list(state.winners),
    }


def _pair(value: Any) -> tuple[Any, Any]:
    first, second = value
    return first, second


# A trade keeps a pair of seats and two pairs of flags for as long as the
# state keeps it (_drop_settled_history). Made anew for each trade, they
# were two of the seven objects a swap leaves for Python's cyclic collector
# to walk (and each pass of it holds every room of the process); there are
# only so many of them, so they are shared: a pair is a key here, and the
# value is the one pair of its kind.
# Seats and flags apart: (0, 1) == (False, True), and a view must say which.
_SEAT_PAIRS: dict[tuple[int, int], tuple[int, int]] = {}
_FLAG_PAIRS: dict[tuple[bool, bool], tuple[bool, bool]] = {}


def _seats(pair: tuple[int, int]) -> tuple[int, int]:
    """The one tuple of these two seats."""
    return _SEAT_PAIRS.setdefault(pair, pair)


def _flags(pair: tuple[bool, bool]) -> tuple[bool, bool]:
    """The one tuple of these two flags."""
    return _FLAG_PAIRS.setdefault(pair, pair)


def from_snapshot(data: dict[str, Any]) -> RemmiDemmiState:
    """The state that :func:`to_snapshot` saved; ValueError if it is not one."""
    if not isinstance(data, dict) or data.get("version") != SNAPSHOT_VERSION:
        raise ValueError("not a Remmi Demmi snapshot of a known version")
    try:
        return RemmiDemmiState(
            options=dict(data["options"]),
            players=int(data["players"]),
            rng=int(data["rng"]),
            dealer=int(data["dealer"]),
            deal=int(data["deal"]),
            phase=str(data["phase"]),
            stage=data["stage"],
            hands=[list(h) for h in data["hands"]],
            dealt_at=int(data["dealt_at"]),
            auto_start_at=data["auto_start_at"],
            timer_started_at=data["timer_started_at"],
            deadline=data["deadline"],
            speed=data["speed"],
            offers=[
                Offer(str(o["id"]), int(o["seat"]), tuple(o["cards"]), o["to"], int(o["at"]))
                for o in data["offers"]
            ],
            trades=[
                Trade(
                    id=str(t["id"]),
                    seats=_seats(_pair(int(s) for s in t["seats"])),
                    gave=_pair(tuple(g) for g in t["gave"]),
                    at=int(t["at"]),
                    invalid=_flags(_pair(bool(b) for b in t["invalid"])),
                    pending=_flags(_pair(bool(b) for b in t["pending"])),
                    return_until=t["return_until"],
                    status=str(t["status"]),
                    returned_by=t["returned_by"],
                )
                for t in data["trades"]
            ],
            claims=[
                Claim(int(c["seat"]), tuple(c["cards"]), tuple(c["aside"]),
                      int(c["point_man"]), int(c["at"]))
                for c in data["claims"]
            ],
            point_men=[int(p) for p in data["point_men"]],
            offer_serial=int(data["offer_serial"]),
            trade_serial=int(data["trade_serial"]),
            scores=[int(s) for s in data["scores"]],
            penalties=[dict(p) for p in data["penalties"]],
            revealed=bool(data["revealed"]),
            peeked=[bool(p) for p in data["peeked"]],
            result=copy_json(data["result"]),
            results=copy_json(list(data["results"])),
            next_deal_at=data["next_deal_at"],
            winners=None if data["winners"] is None else [int(w) for w in data["winners"]],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"broken Remmi Demmi snapshot: {exc!r}") from exc


# --- options ------------------------------------------------------------------------------


def _validate_scenario(scenario: object, players: int) -> dict[str, Any]:
    if not isinstance(scenario, dict):
        raise BadOptions("scenario must be an object")
    unknown = set(scenario) - {"hands", "stock", "discard"}
    if unknown:
        raise BadOptions(
            f"unknown scenario key(s) for Remmi Demmi: {', '.join(sorted(map(str, unknown)))}"
        )
    for pile in ("stock", "discard"):
        if scenario.get(pile) not in (None, []):
            raise BadOptions(f"Remmi Demmi has no {pile}: a scenario gives only hands")
    hands = scenario.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise BadOptions(f"scenario hands must be a list of {players} hands, one per seat")
    size = hand_size(players)
    seen: set[str] = set()
    result: list[list[str]] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            raise BadOptions(f"scenario hand {seat} must be a list of card ids")
        if len(hand) != size:
            raise BadOptions(
                f"scenario hand {seat} has {len(hand)} cards; "
                f"{players} players get {size} each", rule="RD-5, RD-19"
            )
        for card in hand:
            if not is_card(card, players):
                raise BadOptions(
                    f"scenario hand {seat}: {card!r} is not a card in play with {players} "
                    f"players (ids like 'OR3', copies 1-{copies_in_play(players)})", rule="RD-2"
                )
            if card in seen:
                raise BadOptions(f"scenario names {card} twice; there is one of each card")
            seen.add(card)
        result.append(list(hand))
    return {"hands": result}


# --- the game -----------------------------------------------------------------------------


class RemmiDemmi:
    """Remmi Demmi for 4-9 players, played in real time."""

    name: ClassVar[str] = "remmi_demmi"
    title: ClassVar[str] = "Remmi Demmi"
    min_players: ClassVar[int] = 4
    max_players: ClassVar[int] = 9
    default_seats: ClassVar[int] = 4
    fill_bots_by_default: ClassVar[bool] = False
    turn_based: ClassVar[bool] = False
    # RD-17: the most points win.
    lowest_wins: ClassVar[bool] = False
    # Three lightning rounds.
    short_options: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {"rounds": 3, "speed": "lightning"})
    action_kinds: ClassVar[tuple[str, ...]] = _ACTION_KINDS
    action_fields: ClassVar[ActionFields] = _ACTION_FIELDS

    # -- options and setup --

    def default_options(self) -> dict[str, Any]:
        return {
            "speed": "snail",
            "timer_s": None,
            "frantic": False,
            "return_window_s": 10,
            "round_pause_ms": 8000,
            "rounds": 7,
        }

    def validate_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise BadOptions("options must be an object")
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(f"{self.title} is for 4 to 9 players")
        unknown = set(options) - _OPTION_KEYS
        if unknown:
            raise BadOptions(
                f"unknown option(s) for {self.title}: {', '.join(sorted(map(str, unknown)))}"
            )
        merged = self.default_options()
        if "speed" in options:
            if options["speed"] not in SPEEDS:
                raise BadOptions('speed must be "snail" or "lightning"')
            merged["speed"] = options["speed"]
        if options.get("timer_s") is not None:
            merged["timer_s"] = check_int("timer_s", options["timer_s"], 10, 600)
        if "frantic" in options:
            if not isinstance(options["frantic"], bool):
                raise BadOptions("frantic must be true or false")
            merged["frantic"] = options["frantic"]
        if "return_window_s" in options:
            merged["return_window_s"] = check_int(
                "return_window_s", options["return_window_s"], 1, 60
            )
        if "round_pause_ms" in options:
            merged["round_pause_ms"] = check_int(
                "round_pause_ms", options["round_pause_ms"], 0, 60_000
            )
        if "rounds" in options:
            merged["rounds"] = check_int("rounds", options["rounds"], 1, 20)
        if options.get("scenario") is not None:
            merged["scenario"] = _validate_scenario(options["scenario"], players)
        return merged

    def setup(
        self, options: dict[str, Any], players: int, seed: int, now: int
    ) -> RemmiDemmiState:
        opts = self.validate_options(
            {k: v for k, v in options.items() if k in _OPTION_KEYS}, players
        )
        scenario = opts.pop("scenario", None)
        state = RemmiDemmiState(
            options=opts,
            players=players,
            rng=Rng(seed).state,
            dealer=0,  # RD-6
            deal=0,
            phase=PLAYING,
            stage=DEALT,
            hands=[[] for _ in range(players)],
            dealt_at=now,
            auto_start_at=None,
            timer_started_at=None,
            deadline=None,
            speed=None,
            offers=[],
            trades=[],
            claims=[],
            point_men=[],
            offer_serial=0,
            trade_serial=0,
            scores=[0] * players,
            penalties=[],
            revealed=not opts["frantic"],
            peeked=[False] * players,
            result=None,
            results=[],
            next_deal_at=None,
            winners=None,
        )
        hands = None if scenario is None else [list(h) for h in scenario["hands"]]
        _start_round(state, now, [], hands)
        return state

    # -- playing --

    def apply(
        self, state: RemmiDemmiState, seat: int, action: Action, now: int
    ) -> tuple[RemmiDemmiState, list[Event]]:
        if not isinstance(action, dict):
            raise IllegalAction.of("not_an_action")
        kind = action.get("kind")
        if not isinstance(kind, str) or kind not in _ACTION_KINDS:
            raise IllegalAction.of("unknown_action", kind=str(kind),
                                   expected=list(_ACTION_KINDS))
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
            raise IllegalAction.of("no_such_seat", seat=str(seat))
        new = _clone(state)
        events = _advance(new, now)
        if kind == "next_deal":
            if new.phase != DEAL_OVER:
                raise IllegalAction.of("round_not_over")
            _start_round(new, now, events)
        elif new.phase == DEAL_OVER:
            raise IllegalAction.of("round_over")
        elif new.phase != PLAYING:
            raise IllegalAction.of("game_over")
        else:
            _HANDLERS[kind](new, seat, action, now, events)
        _settle(new)
        return new, events

    def view(self, state: RemmiDemmiState, seat: int | None) -> View:
        """The table as everyone sees it (:meth:`public_view`) and ``seat``'s
        own part (:meth:`own_view`)."""
        if seat is not None and not 0 <= seat < state.players:
            raise ValueError(f"no seat {seat} at this table")
        return {**self.public_view(state), **self.own_view(state, seat)}

    def public_view(self, state: RemmiDemmiState) -> View:
        """Offers by size and addressee, claims, timer and scores."""
        playing = state.phase == PLAYING
        offer_of = {o.seat: o for o in state.offers}
        claimed = {c.seat: c.point_man for c in state.claims}
        hands, scores, peeked = state.hands, state.scores, state.peeked
        seats = []
        for s in range(state.players):
            offer = offer_of.get(s)
            seats.append({
                "seat": s,
                "hand_count": len(hands[s]),
                "score": scores[s],
                "melds": [],
                "claimed": claimed.get(s),
                "offer": None if offer is None else len(offer.cards),
                "offer_to": None if offer is None else offer.to,
                "peeked": peeked[s],
            })
        speed = state.speed or state.options["speed"]
        return {
            "game": self.name,
            "phase": state.phase,
            "stage": state.stage if playing else None,
            "dealer": state.dealer,
            "turn": None,
            "deal": state.deal,
            "rounds": state.options["rounds"],
            "seats": seats,
            "melds": [],
            "stock_count": 0,
            "discard": [],
            "deadline": state.deadline if playing else None,
            "timer_started_at": state.timer_started_at if playing else None,
            "auto_start_at": state.auto_start_at if playing and state.stage == DEALT else None,
            "speed": speed,
            "timer_ms": _timer_ms(state, speed),
            "timer_s": state.options["timer_s"],
            "return_window_s": state.options["return_window_s"],
            "offers": [
                {"id": o.id, "seat": o.seat, "size": len(o.cards), "to": o.to, "at": o.at}
                for o in state.offers
            ],
            "point_men": list(state.point_men),
            "claims": [{"seat": c.seat, "points": c.point_man} for c in state.claims],
            "result": copy_json(state.result),
            "results": copy_json(state.results),
            "scores": list(state.scores),
            "next_deal_at": state.next_deal_at,
            "winners": None if state.winners is None else list(state.winners),
            "frantic": state.options["frantic"],
            "revealed": state.revealed,
        }

    def own_view(self, state: RemmiDemmiState, seat: int | None) -> View:
        """``seat``'s hand, its offer's cards, its claim and its trades.
        ``locked`` (RD-12): what it received in trades still returnable."""
        if seat is None:
            return {"you": None, "my_offer": None, "my_claim": None, "trades": [], "locked": []}
        trades = _trades_shown(state, seat)
        mine, claim = _offer_of(state, seat), _claim_of(state, seat)
        hidden = _hidden(state, seat)
        return {
            "you": seat,
            "hand": [] if hidden else list(state.hands[seat]),
            "hand_hidden": hidden,
            "my_offer": None if mine is None else {
                "id": mine.id, "cards": list(mine.cards), "to": mine.to, "at": mine.at,
            },
            "my_claim": None if claim is None else {
                "cards": list(claim.cards), "aside": list(claim.aside),
                "points": claim.point_man,
            },
            "trades": [_trade_view(trade, seat) for trade in trades],
            "locked": sorted(locked_cards(state, seat)),
        }

    def own_key(self, state: RemmiDemmiState, seat: int | None) -> Hashable:
        """What :meth:`own_view` is made of: the hand (and whether it is face
        down), the seat's offer, claim and the trades it shows, all frozen.
        The cards it has locked come from those trades (every returnable one
        is shown)."""
        if seat is None:
            return ()  # a spectator's is always the same
        return (tuple(state.hands[seat]), _hidden(state, seat), _offer_of(state, seat),
                _claim_of(state, seat), tuple(_trades_shown(state, seat)))

    def to_act(self, state: RemmiDemmiState) -> list[int]:
        if state.phase != PLAYING:
            return []
        claimed = {c.seat for c in state.claims}
        return [s for s in range(state.players) if s not in claimed]

    def next_deadline(self, state: RemmiDemmiState) -> int | None:
        due = _next_due(state)
        return None if due is None else due[0]

    def on_timeout(
        self, state: RemmiDemmiState, now: int
    ) -> tuple[RemmiDemmiState, list[Event]]:
        due = _next_due(state)
        if due is None or due[0] > now:
            return state, []
        new = _clone(state)
        events = _advance(new, now)
        _settle(new)
        return new, events

    def legal_actions(self, state: RemmiDemmiState, seat: int) -> list[Action]:
        if not 0 <= seat < state.players:
            return []
        if state.phase == DEAL_OVER:
            return [{"kind": "next_deal"}]
        if state.phase != PLAYING or any(c.seat == seat for c in state.claims):
            return []
        actions: list[Action] = []
        if state.stage == DEALT:
            if seat == state.dealer:
                if not state.revealed:
                    actions.append({"kind": "reveal"})
                actions.extend({"kind": "start_timer", "speed": s} for s in SPEEDS)
            if not state.revealed and not state.peeked[seat]:
                actions.append({"kind": "peek"})
            return actions
        hand = state.hands[seat]
        locked = locked_cards(state, seat)
        mine = _offer_of(state, seat)
        for trade in _open_trades(state, seat):
            if trade.pending[trade.side(seat)]:
                actions.append({"kind": "return", "trade": trade.id})
                actions.append({"kind": "keep", "trade": trade.id})
        if mine is None and not locked:
            remmi = find_remmi(hand)
            if remmi is not None:
                actions.append({"kind": "claim", "cards": remmi})
        if mine is not None:
            actions.append({"kind": "withdraw"})
        free = [c for c in hand if c not in locked]
        invalid: list[list[str]] = []
        for size in range(1, min(3, len(free)) + 1):
            first_invalid = None
            for combo in combinations(free, size):
                if is_demmi(combo):
                    actions.append({"kind": "offer", "cards": list(combo), "to": None})
                elif first_invalid is None:
                    first_invalid = list(combo)
            if first_invalid is not None:
                invalid.append(first_invalid)
        actions.extend({"kind": "offer", "cards": cards, "to": None} for cards in invalid)
        if free:
            claimed = {c.seat for c in state.claims}
            actions.extend(
                {"kind": "offer", "cards": [free[0]], "to": other}
                for other in range(state.players)
                if other != seat and other not in claimed
            )
        return actions

    def outcome(self, state: RemmiDemmiState) -> Outcome | None:
        if state.phase != GAME_OVER or state.winners is None:
            return None
        return Outcome(
            scores=list(state.scores),
            winners=list(state.winners),
            details={"rounds": [dict(r) for r in state.results]},
        )

    # -- persistence --

    def snapshot(self, state: RemmiDemmiState) -> dict[str, Any]:
        return to_snapshot(state)

    def restore(self, data: dict[str, Any]) -> RemmiDemmiState:
        return from_snapshot(data)


# --- reading the state --------------------------------------------------------------------


def locked_cards(state: RemmiDemmiState, seat: int) -> set[str]:
    """RD-12: cards ``seat`` received in trades whose return window is open."""
    locked: set[str] = set()
    for trade in _open_trades(state, seat):
        locked.update(trade.received(trade.side(seat)))
    return locked


def _seat_trades(state: RemmiDemmiState) -> tuple[tuple[int, ...], ...]:
    """``state.seat_trades``, built first if it is not yet."""
    index = state.seat_trades
    if index is None:
        lists: list[list[int]] = [[] for _ in range(state.players)]
        for at, trade in enumerate(state.trades):
            for seat in trade.seats:
                lists[seat].append(at)
        index = state.seat_trades = tuple(tuple(mine) for mine in lists)
    return index


def _open_trades(state: RemmiDemmiState, seat: int) -> list[Trade]:
    """``seat``'s trades still returnable (RD-12), oldest first."""
    mine = _seat_trades(state)[seat]
    trades = state.trades
    return [trades[at] for at in mine[bisect_left(mine, state.settled):]
            if trades[at].status == RETURNABLE]


# A view lists the viewer's latest trades (and every one still returnable):
# the whole round's history would make each view, sent to every trader after
# every change, grow without bound; eight is what a phone's trades drawer
# shows at a glance, and it keeps a nine-trader room's frames small.
RECENT_TRADES = 8


def _trades_shown(state: RemmiDemmiState, seat: int) -> list[Trade]:
    """The trades ``seat``'s view lists, oldest first: its RECENT_TRADES latest
    and every one still returnable."""
    mine = _seat_trades(state)[seat]
    trades = state.trades
    cut = len(mine) - RECENT_TRADES
    if cut <= 0:
        return [trades[at] for at in mine]
    older = [trades[at] for at in mine[bisect_left(mine, state.settled):cut]
             if trades[at].status == RETURNABLE]
    return older + [trades[at] for at in mine[cut:]]


def _drop_settled_history(state: RemmiDemmiState) -> None:
    """Keeps only the trades anything still reads: every one returnable (RD-12)
    and each seat's RECENT_TRADES latest (its view), in order.

    A state that kept a brisk round's every trade would grow for the whole
    round, and each swap copies the list: kept to what is read, a room's
    state, its snapshots and the collector's passes over them stay bounded.
    For memory and latency: against keeping every trade, RSS 0.84x and time
    paused by the collector 0.17x in bench.load's realtime shape.
    Called once the list is twice what every seat's view may list, so its
    cost is spread over as many swaps as it drops. A trade dropped is
    refused as a settled one is.
    """
    trades, index = state.trades, _seat_trades(state)
    kept = {at for mine in index for at in mine[-RECENT_TRADES:]}
    kept.update(at for at in range(state.settled, len(trades))
                if trades[at].status == RETURNABLE)
    state.trades = [trades[at] for at in sorted(kept)]
    state.seat_trades = None  # made again from the list kept, when next read
    state.settled = 0
    _settle(state)


def _offer_of(state: RemmiDemmiState, seat: int) -> Offer | None:
    for offer in state.offers:
        if offer.seat == seat:
            return offer
    return None


def _claim_of(state: RemmiDemmiState, seat: int) -> Claim | None:
    for claim in state.claims:
        if claim.seat == seat:
            return claim
    return None


def _hidden(state: RemmiDemmiState, seat: int) -> bool:
    """RD-20: the hand is face down (frantic, before the reveal, unless peeked)."""
    return not state.revealed and not state.peeked[seat]


def _settle(state: RemmiDemmiState) -> None:
    """Moves ``state.settled`` past the trades no longer returnable, after a transition."""
    trades, at = state.trades, state.settled
    while at < len(trades) and trades[at].status != RETURNABLE:
        at += 1
    state.settled = at


def _trade_view(trade: Trade, seat: int) -> dict[str, Any]:
    side, other = (0, 1) if trade.seats[0] == seat else (1, 0)
    status, gave, invalid, until = trade.status, trade.gave, trade.invalid, trade.return_until
    returnable = status == RETURNABLE
    can_return = returnable and trade.pending[side]
    return {
        "id": trade.id,
        "with": trade.seats[other],
        "gave": list(gave[side]),
        "got": list(gave[other]),
        "size": len(gave[side]),
        "at": trade.at,
        "invalid_received": invalid[side],
        "invalid_given": invalid[other],
        "return_until": until if can_return else None,
        "locked_until": until if returnable else None,
        "can_return": can_return,
        "status": status,
        "returned_by": trade.returned_by,
    }


def _timer_ms(state: RemmiDemmiState, speed: str) -> int:
    """RD-4: the timer's length; a custom ``timer_s`` wins over the speed."""
    custom = state.options.get("timer_s")
    return int(custom) * 1000 if custom is not None else SPEEDS[speed]


def _next_due(state: RemmiDemmiState) -> tuple[int, str, str | None] | None:
    """The earliest pending deadline: (time, what, trade id)."""
    if state.phase == DEAL_OVER:
        return None if state.next_deal_at is None else (state.next_deal_at, "deal", None)
    if state.phase != PLAYING:
        return None
    if state.stage == DEALT:
        return None if state.auto_start_at is None else (state.auto_start_at, "start", None)
    trades = state.trades
    if state.settled == len(trades):  # no trade is returnable: the timer alone
        return None if state.deadline is None else (state.deadline, "timer", None)
    due: list[tuple[int, str, str | None]] = [
        (t.return_until, "window", t.id)
        for t in (trades[i] for i in range(state.settled, len(trades)))
        if t.status == RETURNABLE and t.return_until is not None
    ]
    if state.deadline is not None:
        due.append((state.deadline, "timer", None))
    # Windows before the timer at the same moment; then oldest trade first.
    return min(due, key=lambda d: (d[0], d[1] == "timer")) if due else None


# --- transitions (each works in place on a clone) ------------------------------------------


def _advance(state: RemmiDemmiState, now: int) -> list[Event]:
    """Applies every deadline due at ``now``, each at its own time, oldest first."""
    events: list[Event] = []
    while True:
        due = _next_due(state)
        if due is None or due[0] > now:
            return events
        at, what, trade_id = due
        if what == "deal":
            _start_round(state, at, events)
        elif what == "start":
            _run_timer(state, at, state.options["speed"], None, events)
        elif what == "window":
            index = next(i for i, t in enumerate(state.trades) if t.id == trade_id)
            _set_trade(state, index, replace(
                state.trades[index], status=KEPT, pending=(False, False)))
            events.append({"kind": "kept", "trade": trade_id, "by": None, "expired": True})
        else:
            _end_round(state, at, "timer", events)


def _start_round(
    state: RemmiDemmiState, now: int, events: list[Event], hands: list[list[str]] | None = None
) -> None:
    """Deals a round (RD-5, RD-6), in place. ``hands`` fixes the deal (a scenario)."""
    if state.deal > 0:
        state.dealer = (state.dealer + 1) % state.players  # RD-6
    state.deal += 1
    if hands is None:
        rng = Rng(state.rng)
        deck = deck_for(state.players)
        rng.shuffle(deck)
        state.rng = rng.state
        size = hand_size(state.players)
        hands = [[] for _ in range(state.players)]
        # One card at a time from the dealer's left; the rest is out of play.
        for i, card in enumerate(deck[: size * state.players]):
            hands[(state.dealer + 1 + i) % state.players].append(card)
    state.hands = hands
    state.phase = PLAYING
    state.stage = DEALT
    state.dealt_at = now
    state.auto_start_at = now + AUTO_START_MS
    state.timer_started_at = None
    state.deadline = None
    state.speed = None
    state.offers = []
    state.trades = []
    state.settled = 0
    state.seat_trades = ((),) * state.players
    state.claims = []
    state.point_men = point_men_for(state.players)
    state.penalties = []
    state.revealed = not state.options["frantic"]
    state.peeked = [False] * state.players
    state.result = None
    state.next_deal_at = None
    events.append({
        "kind": "round_started", "deal": state.deal, "dealer": state.dealer,
        "auto_start_at": state.auto_start_at,
    })


def _run_timer(
    state: RemmiDemmiState, now: int, speed: str, by: int | None, events: list[Event]
) -> None:
    if not state.revealed:
        # Frantic: starting the timer is the sign that the cards may be looked at.
        state.revealed = True
        events.append({"kind": "revealed", "by": by})
    state.stage = TRADING
    state.speed = speed
    state.timer_started_at = now
    state.deadline = now + _timer_ms(state, speed)
    state.auto_start_at = None
    events.append({
        "kind": "timer_started", "speed": speed, "deadline": state.deadline, "by": by,
    })


def _set_trade(state: RemmiDemmiState, index: int, trade: Trade) -> None:
    """Replaces a trade, in a new list: the state this one was made from keeps its own."""
    trades = state.trades = list(state.trades)
    trades[index] = trade


def _require_dealer(state: RemmiDemmiState, seat: int, reason: str, rule: str) -> None:
    if seat != state.dealer:
        raise NotYourTurn.of(reason, rule, dealer=state.dealer)


def _require_trading(state: RemmiDemmiState, seat: int) -> None:
    if state.stage != TRADING:
        raise IllegalAction.of("timer_not_running", "RD-8")
    if any(c.seat == seat for c in state.claims):
        raise IllegalAction.of("claimed_out", "RD-13")


def _penalise(state: RemmiDemmiState, seat: int, reason: str, events: list[Event]) -> None:
    state.scores[seat] += FRANTIC_PENALTY
    penalty = {"seat": seat, "points": FRANTIC_PENALTY, "reason": reason}
    state.penalties.append(penalty)
    events.append({"kind": "penalty", **penalty})


def _start_timer(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    _require_dealer(state, seat, "dealer_starts_timer", "RD-7")
    if state.stage != DEALT:
        raise IllegalAction.of("timer_running")
    speed = action.get("speed", state.options["speed"])
    if not isinstance(speed, str) or speed not in SPEEDS:
        raise IllegalAction.of("missing_speed", "RD-4")
    _run_timer(state, now, speed, seat, events)


def _reveal(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    if not state.options["frantic"]:
        raise IllegalAction.of("not_frantic")
    _require_dealer(state, seat, "dealer_reveals", "RD-20")
    if state.revealed:
        raise IllegalAction.of("already_face_up")
    state.revealed = True
    events.append({"kind": "revealed", "by": seat})


def _peek(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    if not state.options["frantic"]:
        raise IllegalAction.of("not_frantic")
    if state.revealed:
        raise IllegalAction.of("already_face_up")
    if state.peeked[seat]:
        raise IllegalAction.of("already_peeked")
    state.peeked[seat] = True
    events.append({"kind": "peeked", "seat": seat})
    _penalise(state, seat, "looked at the cards before the sign", events)


def _card_list(action: Action, what: str) -> list[str]:
    cards = action.get("cards")
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise IllegalAction.of("missing_cards", field="cards", action=what)
    if len(set(cards)) != len(cards):
        raise IllegalAction.of("card_twice")
    return cards


def _require_holds(state: RemmiDemmiState, seat: int, cards: list[str]) -> None:
    missing = [c for c in cards if c not in state.hands[seat]]
    if missing:
        raise IllegalAction.of("not_held", cards=missing)
    locked = locked_cards(state, seat) & set(cards)
    if locked:
        raise IllegalAction.of("cards_locked", "RD-12", cards=sorted(locked))


def _offer(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    if state.stage == DEALT and state.options["frantic"]:
        # RD-20: trying to trade before the timer costs a point; no offer is placed.
        _penalise(state, seat, "tried to trade before the timer started", events)
        return
    _require_trading(state, seat)
    cards = _card_list(action, "offer")
    hand = state.hands[seat]
    if len(cards) > len(hand):
        raise IllegalAction.of("offer_too_big", count=len(hand))
    _require_holds(state, seat, cards)
    target = action.get("to")
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, int) or \
                not 0 <= target < state.players:
            raise IllegalAction.of("bad_trade_seat", last=state.players - 1)
        if target == seat:
            raise IllegalAction.of("trade_with_self")
        if any(c.seat == target for c in state.claims):
            raise IllegalAction.of("seat_claimed_out", "RD-13", seat=target)
    replaced = any(o.seat == seat for o in state.offers)
    state.offers = [o for o in state.offers if o.seat != seat]
    state.offer_serial += 1
    offer = Offer(f"o{state.offer_serial}", seat, tuple(cards), target, now)
    events.append({
        "kind": "offered", "seat": seat, "size": len(cards), "to": target,
        "offer": offer.id, "replaced": replaced,
    })
    match = next((o for o in state.offers if _matches(o, offer)), None)
    if match is None:
        state.offers.append(offer)
        return
    state.offers.remove(match)
    _swap(state, match, offer, now, events)


def _matches(older: Offer, new: Offer) -> bool:
    """RD-11: same size, different players, and each target (if any) is the other."""
    return (
        older.seat != new.seat
        and len(older.cards) == len(new.cards)
        and (new.to is None or new.to == older.seat)
        and (older.to is None or older.to == new.seat)
    )


def _swap(state: RemmiDemmiState, a: Offer, b: Offer, now: int, events: list[Event]) -> None:
    """The atomic swap of two matched offers (RD-11), with its return window (RD-12)."""
    for giver, receiver in ((a, b), (b, a)):
        hand = [c for c in state.hands[giver.seat] if c not in giver.cards]
        state.hands[giver.seat] = hand + list(receiver.cards)
    invalid = _flags((not is_demmi(b.cards), not is_demmi(a.cards)))
    returnable = any(invalid)
    state.trade_serial += 1
    trade = Trade(
        id=f"t{state.trade_serial}",
        seats=_seats((a.seat, b.seat)),
        gave=(a.cards, b.cards),
        at=now,
        invalid=invalid,
        pending=invalid,
        return_until=now + int(state.options["return_window_s"]) * 1000 if returnable else None,
        status=RETURNABLE if returnable else DONE,
    )
    state.trades = [*state.trades, trade]  # a new list: the old state keeps its own
    index = state.seat_trades
    if index is not None:
        at = len(state.trades) - 1
        state.seat_trades = tuple(
            (*mine, at) if seat in trade.seats else mine for seat, mine in enumerate(index))
    if len(state.trades) > 2 * state.players * RECENT_TRADES:
        _drop_settled_history(state)
    events.append({
        "kind": "traded", "a": a.seat, "b": b.seat, "size": len(a.cards), "trade": trade.id,
        "returnable": returnable, "return_until": trade.return_until,
    })


def _withdraw(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    if not any(o.seat == seat for o in state.offers):
        raise IllegalAction.of("no_open_offer")
    state.offers = [o for o in state.offers if o.seat != seat]
    events.append({"kind": "withdrawn", "seat": seat})


def _open_trade(state: RemmiDemmiState, seat: int, action: Action, what: str) -> int:
    trade_id = action.get("trade")
    if not isinstance(trade_id, str):
        raise IllegalAction.of("missing_trade", action=what)
    index = next((i for i, t in enumerate(state.trades) if t.id == trade_id), None)
    if index is None or seat not in state.trades[index].seats:
        # Also a trade of a long round's settled history (_drop_settled_history).
        raise IllegalAction.of("no_such_trade", trade=trade_id)
    trade = state.trades[index]
    side = trade.side(seat)
    if not trade.invalid[side]:
        raise IllegalAction.of("valid_demmi", "RD-12")
    if trade.status == RETURNED:
        raise IllegalAction.of("already_returned")
    if trade.status != RETURNABLE or not trade.pending[side]:
        raise IllegalAction.of("return_window_closed")
    return index


def _return(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    index = _open_trade(state, seat, action, "return")
    trade = state.trades[index]
    # Both players get back exactly what they gave; the cards were locked, so
    # they are all still where the swap put them.
    for side in (0, 1):
        owner = trade.seats[side]
        received = trade.received(side)
        hand = [c for c in state.hands[owner] if c not in received]
        state.hands[owner] = hand + list(trade.gave[side])
    _set_trade(state, index, replace(
        trade, status=RETURNED, pending=(False, False), returned_by=seat))
    events.append({"kind": "returned", "trade": trade.id, "by": seat})


def _keep(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    index = _open_trade(state, seat, action, "keep")
    trade = state.trades[index]
    pending = list(trade.pending)
    pending[trade.side(seat)] = False
    _set_trade(state, index, replace(
        trade, pending=_flags((pending[0], pending[1])),
        status=KEPT if not any(pending) else RETURNABLE))
    events.append({"kind": "kept", "trade": trade.id, "by": seat})


def _claim(
    state: RemmiDemmiState, seat: int, action: Action, now: int, events: list[Event]
) -> None:
    _require_trading(state, seat)
    hand = state.hands[seat]
    if any(o.seat == seat for o in state.offers):
        raise IllegalAction.of("withdraw_before_claim", "RD-13")
    if locked_cards(state, seat):
        raise IllegalAction.of("locked_before_claim", "RD-13")
    if action.get("cards") is None and len(hand) == REMMI_SIZE:
        cards = list(hand)
    else:
        cards = _card_list(action, "claim")
        if len(cards) != REMMI_SIZE:
            raise IllegalAction.of("remmi_size", "RD-13", count=REMMI_SIZE)
        _require_holds(state, seat, cards)
    point_man = state.point_men.pop(0)
    claim = Claim(seat, tuple(cards), tuple(c for c in hand if c not in cards), point_man, now)
    state.claims.append(claim)
    state.hands[seat] = []
    events.append({"kind": "claimed", "seat": seat, "points": point_man})
    for offer in [o for o in state.offers if o.to == seat]:
        state.offers.remove(offer)
        events.append({"kind": "withdrawn", "seat": offer.seat, "reason": "target claimed"})
    if not state.point_men:
        _end_round(state, now, "claims", events)  # RD-14


def _end_round(state: RemmiDemmiState, now: int, ended_by: str, events: list[Event]) -> None:
    """RD-14..RD-18: closes the round, checks the claims, scores, decides what comes next."""
    cancelled = len(state.offers)
    state.offers = []
    state.trades = [
        replace(t, status=KEPT, pending=(False, False)) if t.status == RETURNABLE else t
        for t in state.trades
    ]
    events.append({
        "kind": "round_over", "deal": state.deal, "ended_by": ended_by,
        "offers_cancelled": cancelled,
    })
    # RD-15: valid claimers, in claim order, get the point men from the highest down.
    men = point_men_for(state.players)
    points = [0] * state.players
    checked: list[dict[str, Any]] = []
    awarded_count = 0
    for claim in state.claims:
        valid = is_remmi(claim.cards)
        awarded = None
        if valid:
            awarded = men[awarded_count]
            awarded_count += 1
            delta = awarded
        else:
            delta = INVALID_REMMI_POINTS
        points[claim.seat] += delta
        checked.append({
            "seat": claim.seat, "cards": list(claim.cards), "aside": list(claim.aside),
            "valid": valid, "point_man": claim.point_man, "awarded": awarded, "points": delta,
        })
    for seat, delta in enumerate(points):
        state.scores[seat] += delta  # RD-16
    claimed = {c.seat: c for c in state.claims}
    hands = [
        list(claimed[s].cards) + list(claimed[s].aside) if s in claimed else list(state.hands[s])
        for s in range(state.players)
    ]
    penalties = [dict(p) for p in state.penalties]
    summary: dict[str, Any] = {
        "deal": state.deal,
        "ended_by": ended_by,
        "points": points,
        "penalties": penalties,
        "claims": [
            {k: c[k] for k in ("seat", "valid", "point_man", "awarded", "points")}
            for c in checked
        ],
    }
    state.results.append(summary)
    state.result = {
        **summary, "claims": checked, "hands": hands, "scores": list(state.scores),
    }
    events.append({
        "kind": "checked", "deal": state.deal, "claims": checked, "points": points,
        "scores": list(state.scores),
    })
    state.stage = None
    state.auto_start_at = None
    # RD-17 / RD-18: the game ends after its rounds once exactly one player leads.
    best = max(state.scores)
    leaders = [s for s, total in enumerate(state.scores) if total == best]
    if state.deal >= state.options["rounds"] and len(leaders) == 1:
        state.phase = GAME_OVER
        state.winners = leaders
        state.next_deal_at = None
        events.append({
            "kind": "game_over", "scores": list(state.scores), "winners": list(leaders),
        })
    else:
        state.phase = DEAL_OVER
        state.next_deal_at = now + int(state.options["round_pause_ms"])
        state.result["tie_round_next"] = state.deal >= state.options["rounds"]


_HANDLERS = {
    "start_timer": _start_timer,
    "reveal": _reveal,
    "peek": _peek,
    "offer": _offer,
    "withdraw": _withdraw,
    "return": _return,
    "keep": _keep,
    "claim": _claim,
}
