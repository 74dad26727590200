"""Basic Rummy (rules BR-1..BR-18 in ``shared/rules/basic-rummy.md``).

Terms:

- *deal*: one hand of play, from dealing the cards until a player goes out
  (or the cards run out); a *match* is a series of deals.
- *stock*: the face-down pile players draw from. Only its size is public.
  In the state the **top of the stock is the last element** of the list, so a
  draw is a cheap ``pop()``. (A scenario lists its stock top first; it is
  reversed when the deal is laid out.)
- *upcard*: the card turned face up after the deal to start the discard
  pile (BR-4). The discard pile is kept bottom to top.
- *meld*: a run (3+ cards of one suit in sequence, ace low only) or a set
  (3 or 4 cards of one rank) laid face up in front of the player who made it.
  Melds have ids ``"m1"``, ``"m2"``... unique within a deal and are kept in
  table order (runs by rank).
- *lay off*: adding one card from the hand to any meld on the table, as long
  as the meld stays a meld of the same kind.
- *going out*: emptying the hand (by melding, laying off or discarding the
  last card); the player wins the deal at once (BR-14).
- *going rummy*: going out in a single turn without having melded or laid off
  earlier in the deal; it scores double (BR-16).
- *deadwood*: the cards left in the losers' hands when a deal ends; the winner
  scores their value (BR-15).

A turn has two steps: ``draw`` (take one card, BR-10) and ``play`` (at most
one new meld, any lay-offs, then a discard, BR-11/12).

Decisions beyond the written rules:

- A meld or lay-off that would leave only the card just taken from the
  discard pile in the hand is refused: that card may not be discarded this
  turn (BR-12), so the player would be stuck.
- A void deal (stock and discard pile both empty when a player must draw,
  BR-17) still counts as one of the match's deals.
- The extension action ``next_deal`` lets any seat skip the pause after a
  deal; otherwise :meth:`BasicRummy.on_timeout` starts it at
  ``next_deal_at``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, ClassVar

from engine.cards import is_standard_card, pip_value, rank_index, rank_of, standard_deck, suit_of
from engine.errors import BadOptions, IllegalAction, NotYourTurn
from engine.game import Action, Event, Outcome, View
from engine.melds import BASIC, arrange, extended, meld_kind
from engine.rng import Rng

# BR-2: cards per hand by number of players.
HAND_SIZES: dict[int, int] = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}

PLAYING = "playing"
DEAL_OVER = "deal_over"
GAME_OVER = "game_over"
DRAW = "draw"
PLAY = "play"

DEFAULT_TARGET = 100
DEFAULT_DEAL_PAUSE_MS = 6000
_OPTION_KEYS = frozenset({"deals", "target", "deal_pause_ms", "scenario"})
_SCENARIO_KEYS = frozenset({"dealer", "hands", "stock", "discard"})
_ACTION_KINDS = ("draw", "meld", "lay_off", "discard", "next_deal")
SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class Meld:
    """A meld on the table. Frozen: a lay-off replaces it, so states can share it."""

    id: str
    kind: str  # "run" | "set"
    cards: tuple[str, ...]
    owner: int


@dataclass
class BasicRummyState:
    """Everything about a Basic Rummy match, as plain data.

    ``apply`` copies the containers before changing anything, so a state
    handed out is never changed afterwards.
    """

    options: dict[str, Any]  # deals, target, deal_pause_ms (never mutated)
    players: int
    rng: int  # Rng.state after the last shuffle: the next deal continues from it
    dealer: int
    deal: int  # 1-based
    phase: str  # playing | deal_over | game_over
    turn: int
    step: str  # draw | play
    hands: list[list[str]]  # per seat, in dealt/drawn order
    stock: list[str]  # face down; the TOP is the LAST element
    discard: list[str]  # face up, bottom -> top
    melds: list[Meld]  # table order (order of creation)
    meld_serial: int  # melds created this deal, for the next id
    scores: list[int]  # match totals
    laid_down_before: list[bool]  # per seat: melded or laid off in an EARLIER turn (BR-16)
    laid_down_this_turn: bool
    melded_this_turn: bool  # BR-11: at most one new meld per turn
    taken_from_discard: str | None  # BR-12: may not be discarded this turn
    result: dict[str, Any] | None  # the last deal's breakdown, once it is over
    results: list[dict[str, Any]]  # every finished deal's summary
    next_deal_at: int | None  # epoch ms, while deal_over
    winners: list[int] | None  # once game_over


# --- snapshots --------------------------------------------------------------------------


def to_snapshot(state: BasicRummyState) -> dict[str, Any]:
    """A JSON-serialisable copy of ``state`` (lists and dicts of str/int/bool/None)."""
    return {
        "version": SNAPSHOT_VERSION,
        "options": dict(state.options),
        "players": state.players,
        "rng": state.rng,
        "dealer": state.dealer,
        "deal": state.deal,
        "phase": state.phase,
        "turn": state.turn,
        "step": state.step,
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "discard": list(state.discard),
        "melds": [
            {"id": m.id, "kind": m.kind, "cards": list(m.cards), "owner": m.owner}
            for m in state.melds
        ],
        "meld_serial": state.meld_serial,
        "scores": list(state.scores),
        "laid_down_before": list(state.laid_down_before),
        "laid_down_this_turn": state.laid_down_this_turn,
        "melded_this_turn": state.melded_this_turn,
        "taken_from_discard": state.taken_from_discard,
        "result": _copy_result(state.result),
        "results": [dict(r) for r in state.results],
        "next_deal_at": state.next_deal_at,
        "winners": None if state.winners is None else list(state.winners),
    }


def from_snapshot(data: dict[str, Any]) -> BasicRummyState:
    """The state that :func:`to_snapshot` saved; ValueError if it is not one."""
    if not isinstance(data, dict) or data.get("version") != SNAPSHOT_VERSION:
        raise ValueError("not a Basic Rummy snapshot of a known version")
    try:
        return BasicRummyState(
            options=dict(data["options"]),
            players=int(data["players"]),
            rng=int(data["rng"]),
            dealer=int(data["dealer"]),
            deal=int(data["deal"]),
            phase=str(data["phase"]),
            turn=int(data["turn"]),
            step=str(data["step"]),
            hands=[list(h) for h in data["hands"]],
            stock=list(data["stock"]),
            discard=list(data["discard"]),
            melds=[
                Meld(str(m["id"]), str(m["kind"]), tuple(m["cards"]), int(m["owner"]))
                for m in data["melds"]
            ],
            meld_serial=int(data["meld_serial"]),
            scores=[int(s) for s in data["scores"]],
            laid_down_before=[bool(b) for b in data["laid_down_before"]],
            laid_down_this_turn=bool(data["laid_down_this_turn"]),
            melded_this_turn=bool(data["melded_this_turn"]),
            taken_from_discard=data["taken_from_discard"],
            result=_copy_result(data["result"]),
            results=[dict(r) for r in data["results"]],
            next_deal_at=data["next_deal_at"],
            winners=None if data["winners"] is None else list(data["winners"]),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"broken Basic Rummy snapshot: {exc!r}") from exc


def _copy_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        **result,
        "hand_values": list(result["hand_values"]),
        "hands": [list(h) for h in result["hands"]],
    }


# --- options ----------------------------------------------------------------------------


def _check_int(name: str, value: object, low: int, high: int) -> int:
    # bool is an int in Python; `true` is no number of deals.
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadOptions(f"{name} must be a whole number from {low} to {high}")
    return value


def _card_list(name: str, value: object) -> list[str]:
    if not isinstance(value, list):
        raise BadOptions(f"scenario {name} must be a list of card ids")
    for card in value:
        if not is_standard_card(card):
            raise BadOptions(f"scenario {name}: {card!r} is not a card id (e.g. 'TD', 'AS')")
    return list(value)


def _validate_scenario(scenario: object, players: int) -> dict[str, Any]:
    if not isinstance(scenario, dict):
        raise BadOptions("scenario must be an object")
    unknown = set(scenario) - _SCENARIO_KEYS
    if unknown:
        raise BadOptions(f"unknown scenario key(s): {', '.join(sorted(map(str, unknown)))}")
    result: dict[str, Any] = {}
    if scenario.get("dealer") is not None:
        result["dealer"] = _check_int("scenario dealer", scenario["dealer"], 0, players - 1)
    hands = scenario.get("hands")
    if not isinstance(hands, list) or len(hands) != players:
        raise BadOptions(f"scenario hands must be a list of {players} hands, one per seat")
    size = HAND_SIZES[players]
    result["hands"] = []
    for seat, hand in enumerate(hands):
        cards = _card_list(f"hand {seat}", hand)
        if len(cards) != size:
            raise BadOptions(
                f"scenario hand {seat} has {len(cards)} cards; "
                f"{players} players get {size} each (BR-2)"
            )
        result["hands"].append(cards)
    result["stock"] = _card_list("stock", scenario.get("stock", []))
    result["discard"] = _card_list("discard", scenario.get("discard", []))
    named = [c for h in result["hands"] for c in h] + result["stock"] + result["discard"]
    seen: set[str] = set()
    for card in named:
        if card in seen:
            raise BadOptions(f"scenario names {card} twice; the deck has one of each card")
        seen.add(card)
    return result


# --- the game ---------------------------------------------------------------------------


class BasicRummy:
    """Basic Rummy for 2-6 players, one 52-card deck."""

    name: ClassVar[str] = "basic_rummy"
    title: ClassVar[str] = "Basic Rummy"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    turn_based: ClassVar[bool] = True

    # -- options and setup --

    def default_options(self) -> dict[str, Any]:
        return {"deals": None, "target": DEFAULT_TARGET, "deal_pause_ms": DEFAULT_DEAL_PAUSE_MS}

    def validate_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise BadOptions("options must be an object")
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(f"{self.title} is for 2 to 6 players")
        unknown = set(options) - _OPTION_KEYS
        if unknown:
            raise BadOptions(
                f"unknown option(s) for {self.title}: {', '.join(sorted(map(str, unknown)))}"
            )
        merged = self.default_options()
        deals = options.get("deals")
        if deals is not None:
            merged["deals"] = _check_int("deals", deals, 1, 50)
        # BR-5: a match is fixed by deals, by target, or both (whichever comes first).
        # Asking for a number of deals without a target means deals only.
        if "target" in options:
            target = options["target"]
            merged["target"] = None if target is None else _check_int("target", target, 1, 10_000)
        elif deals is not None:
            merged["target"] = None
        if merged["deals"] is None and merged["target"] is None:
            raise BadOptions("the match needs a number of deals or a target score (BR-5)")
        if "deal_pause_ms" in options:
            merged["deal_pause_ms"] = _check_int(
                "deal_pause_ms", options["deal_pause_ms"], 0, 60_000
            )
        if options.get("scenario") is not None:
            merged["scenario"] = _validate_scenario(options["scenario"], players)
        return merged

    def setup(
        self, options: dict[str, Any], players: int, seed: int, now: int
    ) -> BasicRummyState:
        # The room may hand over its full options; only the game's own matter here.
        opts = self.validate_options(
            {k: v for k, v in options.items() if k in _OPTION_KEYS}, players
        )
        scenario = opts.pop("scenario", None)
        rng = Rng(seed)
        dealer = rng.below(players)  # BR-3: the first dealer is chosen at random
        state = BasicRummyState(
            options=opts,
            players=players,
            rng=rng.state,
            dealer=dealer,
            deal=1,
            phase=PLAYING,
            turn=0,
            step=DRAW,
            hands=[[] for _ in range(players)],
            stock=[],
            discard=[],
            melds=[],
            meld_serial=0,
            scores=[0] * players,
            laid_down_before=[False] * players,
            laid_down_this_turn=False,
            melded_this_turn=False,
            taken_from_discard=None,
            result=None,
            results=[],
            next_deal_at=None,
            winners=None,
        )
        if scenario is None:
            _deal_shuffled(state)
        else:
            if "dealer" in scenario:
                state.dealer = scenario["dealer"]
            _lay_out(
                state,
                [list(h) for h in scenario["hands"]],
                list(reversed(scenario["stock"])),
                list(scenario["discard"]),
            )
        _check_drawable(state, now, [])
        return state

    # -- playing --

    def apply(
        self, state: BasicRummyState, seat: int, action: Action, now: int
    ) -> tuple[BasicRummyState, list[Event]]:
        if not isinstance(action, dict):
            raise IllegalAction('an action must be an object like {"kind": "draw", ...}')
        kind = action.get("kind")
        if kind not in _ACTION_KINDS:
            raise IllegalAction(
                f"unknown action kind {kind!r}; expected one of {', '.join(_ACTION_KINDS)}"
            )
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
            raise IllegalAction(f"there is no seat {seat!r} at this table")
        if kind == "next_deal":
            if state.phase != DEAL_OVER:
                raise IllegalAction("the next deal can only start once a deal is over")
            return _next_deal(state)
        if state.phase == DEAL_OVER:
            raise IllegalAction("the deal is over; wait for the next one")
        if state.phase != PLAYING:
            raise IllegalAction("the game is over")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn}'s turn, not yours")
        if kind == "draw":
            return _draw(state, seat, action)
        if state.step != PLAY:
            raise IllegalAction("draw a card first (BR-10)")
        if kind == "meld":
            return _meld(state, seat, action, now)
        if kind == "lay_off":
            return _lay_off(state, seat, action, now)
        return _discard(state, seat, action, now)

    def view(self, state: BasicRummyState, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < state.players:
            raise ValueError(f"no seat {seat} at this table")
        playing = state.phase == PLAYING
        on_turn = playing and seat is not None and seat == state.turn
        view: View = {
            "game": self.name,
            "phase": state.phase,
            "step": state.step if playing else None,
            "you": seat,
            "dealer": state.dealer,
            "turn": state.turn if playing else None,
            "deal": state.deal,
            "options": {"deals": state.options["deals"], "target": state.options["target"]},
            "seats": [
                {
                    "seat": s,
                    "hand_count": len(state.hands[s]),
                    "score": state.scores[s],
                    "melds": [
                        {"id": m.id, "kind": m.kind, "cards": list(m.cards)}
                        for m in state.melds
                        if m.owner == s
                    ],
                }
                for s in range(state.players)
            ],
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        view.update(
            {
                "stock_count": len(state.stock),
                "discard": list(state.discard),
                "melds": [
                    {"id": m.id, "kind": m.kind, "cards": list(m.cards), "owner": m.owner}
                    for m in state.melds
                ],
                "must_not_discard": state.taken_from_discard if on_turn else None,
                "can_meld": on_turn and state.step == PLAY and not state.melded_this_turn,
                "result": _copy_result(state.result),
                "results": [dict(r) for r in state.results],
                "next_deal_at": state.next_deal_at,
                "winners": None if state.winners is None else list(state.winners),
            }
        )
        return view

    def to_act(self, state: BasicRummyState) -> list[int]:
        return [state.turn] if state.phase == PLAYING else []

    def next_deadline(self, state: BasicRummyState) -> int | None:
        # While playing the room runs the turn clock; the game only times the pause.
        return state.next_deal_at if state.phase == DEAL_OVER else None

    def on_timeout(
        self, state: BasicRummyState, now: int
    ) -> tuple[BasicRummyState, list[Event]]:
        due = state.next_deal_at
        if state.phase == DEAL_OVER and due is not None and now >= due:
            return _next_deal(state)
        return state, []

    def legal_actions(self, state: BasicRummyState, seat: int) -> list[Action]:
        if not 0 <= seat < state.players:
            return []
        if state.phase == DEAL_OVER:
            return [{"kind": "next_deal"}]
        if state.phase != PLAYING or seat != state.turn:
            return []
        if state.step == DRAW:
            actions: list[Action] = []
            # An empty stock is turned over from the discard pile (BR-17).
            if state.stock or state.discard:
                actions.append({"kind": "draw", "from": "stock"})
            if state.discard:
                actions.append({"kind": "draw", "from": "discard"})
            return actions
        hand = state.hands[seat]
        taken = state.taken_from_discard
        actions = []
        if not state.melded_this_turn:
            for cards in possible_melds(hand):
                rest = [c for c in hand if c not in cards]
                if _can_still_discard(rest, taken):
                    actions.append({"kind": "meld", "cards": cards})
        for card in hand:
            if not _can_still_discard([c for c in hand if c != card], taken):
                continue
            for meld in state.melds:
                if extended(meld.cards, meld.kind, card, BASIC) is not None:
                    actions.append({"kind": "lay_off", "card": card, "meld": meld.id})
        actions.extend({"kind": "discard", "card": c} for c in hand if c != taken)
        return actions

    def outcome(self, state: BasicRummyState) -> Outcome | None:
        if state.phase != GAME_OVER or state.winners is None:
            return None
        return Outcome(
            scores=list(state.scores),
            winners=list(state.winners),
            details={"deals": [dict(r) for r in state.results]},
        )

    def bot_action(self, view: View, seed: int) -> Action | None:
        from engine.bots.basic_rummy import choose

        action: Action | None = choose(view)
        return action

    # -- persistence --

    def snapshot(self, state: BasicRummyState) -> dict[str, Any]:
        return to_snapshot(state)

    def restore(self, data: dict[str, Any]) -> BasicRummyState:
        return from_snapshot(data)


# --- melds a hand can make --------------------------------------------------------------


def possible_melds(hand: list[str]) -> list[list[str]]:
    """Every meld that can be laid from ``hand``, cards in table order.

    Runs: every stretch of 3 or more consecutive ranks of one suit (so a
    five-card run also yields its 3- and 4-card parts). Sets: every 3 and 4
    cards of one rank.
    """
    melds: list[list[str]] = []
    by_suit: dict[str, list[str]] = {}
    by_rank: dict[str, list[str]] = {}
    for card in hand:
        by_suit.setdefault(suit_of(card), []).append(card)
        by_rank.setdefault(rank_of(card), []).append(card)
    for suited in by_suit.values():
        cards = sorted(suited, key=rank_index)
        start = 0
        for i in range(1, len(cards) + 1):
            if i < len(cards) and rank_index(cards[i]) == rank_index(cards[i - 1]) + 1:
                continue
            block = cards[start:i]  # a maximal stretch of consecutive ranks
            for lo in range(len(block)):
                for hi in range(lo + 3, len(block) + 1):
                    melds.append(block[lo:hi])
            start = i
    for cards in by_rank.values():
        for size in (3, 4):
            melds.extend(list(combo) for combo in combinations(cards, size))
    return melds


def _can_still_discard(rest: list[str], taken: str | None) -> bool:
    """Whether a hand left as ``rest`` can end the turn: empty (gone out) or a legal discard."""
    return not rest or any(c != taken for c in rest)


# --- transitions (each works on a copy) -------------------------------------------------


def _clone(state: BasicRummyState) -> BasicRummyState:
    # Melds are frozen and results are never changed once appended, so copying
    # the containers is enough to keep the original untouched.
    return replace(
        state,
        hands=[list(h) for h in state.hands],
        stock=list(state.stock),
        discard=list(state.discard),
        melds=list(state.melds),
        scores=list(state.scores),
        laid_down_before=list(state.laid_down_before),
        results=list(state.results),
        winners=None if state.winners is None else list(state.winners),
    )


def _card_arg(action: Action, key: str = "card") -> str:
    card = action.get(key)
    if not isinstance(card, str):
        raise IllegalAction(f'this action needs "{key}": a card id such as "TD"')
    return card


def _draw(
    state: BasicRummyState, seat: int, action: Action
) -> tuple[BasicRummyState, list[Event]]:
    if state.step != DRAW:
        raise IllegalAction("you have already drawn this turn (BR-10)")
    source = action.get("from")
    if source not in ("stock", "discard"):
        raise IllegalAction('draw needs "from": "stock" or "discard"')
    if source == "discard":
        if not state.discard:
            raise IllegalAction("the discard pile is empty")
        new = _clone(state)
        card = new.discard.pop()
        new.hands[seat].append(card)
        new.taken_from_discard = card
        new.step = PLAY
        return new, [{"kind": "drew", "seat": seat, "from": "discard", "card": card}]
    if not state.stock and not state.discard:
        # Unreachable in play: such a deal ends void before anyone is asked to draw.
        raise IllegalAction("there is nothing left to draw")
    new = _clone(state)
    events: list[Event] = []
    if not new.stock:
        # BR-17: the pile is turned over, not shuffled, so its bottom card
        # (the first element) becomes the top of the stock (the last element).
        new.stock = new.discard[::-1]
        new.discard = []
        events.append({"kind": "stock_turned", "count": len(new.stock)})
    new.hands[seat].append(new.stock.pop())
    new.step = PLAY
    events.append({"kind": "drew", "seat": seat, "from": "stock"})
    return new, events


def _meld(
    state: BasicRummyState, seat: int, action: Action, now: int
) -> tuple[BasicRummyState, list[Event]]:
    cards = action.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise IllegalAction('meld needs "cards": a list of card ids')
    if state.melded_this_turn:
        raise IllegalAction("you may lay down only one new meld per turn (BR-11)")
    if len(set(cards)) != len(cards):
        raise IllegalAction("a card appears twice in that meld")
    hand = state.hands[seat]
    missing = [c for c in cards if c not in hand]
    if missing:
        raise IllegalAction(f"you do not hold {', '.join(missing)}")
    kind = meld_kind(cards, BASIC)
    if kind is None:
        raise IllegalAction(
            "a meld is a run (3+ cards of one suit in sequence, ace low) "
            "or a set (3 or 4 cards of one rank) (BR-6, BR-7)"
        )
    rest = [c for c in hand if c not in cards]
    _require_discard_left(rest, state.taken_from_discard)
    new = _clone(state)
    new.meld_serial += 1
    meld = Meld(f"m{new.meld_serial}", kind, tuple(arrange(cards, kind, BASIC)), seat)
    new.melds.append(meld)
    new.hands[seat] = rest
    new.melded_this_turn = True
    new.laid_down_this_turn = True
    events: list[Event] = [
        {
            "kind": "melded",
            "seat": seat,
            "meld": {"id": meld.id, "kind": meld.kind, "cards": list(meld.cards)},
        }
    ]
    if not rest:
        _end_deal(new, seat, now, events)  # BR-14
    return new, events


def _lay_off(
    state: BasicRummyState, seat: int, action: Action, now: int
) -> tuple[BasicRummyState, list[Event]]:
    card = _card_arg(action)
    meld_id = action.get("meld")
    if not isinstance(meld_id, str):
        raise IllegalAction('lay_off needs "meld": the id of a meld on the table')
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction(f"you do not hold {card}")
    index = next((i for i, m in enumerate(state.melds) if m.id == meld_id), None)
    if index is None:
        raise IllegalAction(f"there is no meld {meld_id} on the table")
    meld = state.melds[index]
    grown = extended(meld.cards, meld.kind, card, BASIC)
    if grown is None:
        raise IllegalAction(f"{card} does not fit on that {meld.kind} (BR-11)")
    rest = [c for c in hand if c != card]
    _require_discard_left(rest, state.taken_from_discard)
    new = _clone(state)
    new.melds[index] = replace(meld, cards=tuple(grown))
    new.hands[seat] = rest
    new.laid_down_this_turn = True
    events: list[Event] = [{"kind": "laid_off", "seat": seat, "card": card, "meld": meld_id}]
    if not rest:
        _end_deal(new, seat, now, events)  # BR-14
    return new, events


def _discard(
    state: BasicRummyState, seat: int, action: Action, now: int
) -> tuple[BasicRummyState, list[Event]]:
    card = _card_arg(action)
    if card not in state.hands[seat]:
        raise IllegalAction(f"you do not hold {card}")
    if card == state.taken_from_discard:
        raise IllegalAction(
            f"{card} was just taken from the discard pile and cannot be discarded "
            "this turn (BR-12)"
        )
    new = _clone(state)
    new.hands[seat].remove(card)
    new.discard.append(card)
    events: list[Event] = [{"kind": "discarded", "seat": seat, "card": card}]
    if not new.hands[seat]:
        _end_deal(new, seat, now, events)  # BR-14: discarding the last card goes out
        return new, events
    if new.laid_down_this_turn:
        new.laid_down_before[seat] = True
    new.laid_down_this_turn = False
    new.melded_this_turn = False
    new.taken_from_discard = None
    new.turn = (seat + 1) % new.players
    new.step = DRAW
    return new, events


def _require_discard_left(rest: list[str], taken: str | None) -> None:
    if not _can_still_discard(rest, taken):
        raise IllegalAction(
            f"that would leave you only {taken}, which you took from the discard pile "
            "and may not discard this turn (BR-12)"
        )


def _next_deal(state: BasicRummyState) -> tuple[BasicRummyState, list[Event]]:
    new = _clone(state)
    # BR-3: with two players the deal alternates, with more it passes clockwise;
    # both mean the next seat.
    new.dealer = (state.dealer + 1) % state.players
    new.deal = state.deal + 1
    _deal_shuffled(new)
    events: list[Event] = [{"kind": "deal_started", "deal": new.deal, "dealer": new.dealer}]
    # A shuffled full deck always leaves a stock, so the deal cannot be void here.
    return new, events


def _deal_shuffled(state: BasicRummyState) -> None:
    """Shuffles a fresh deck from the state's rng and deals it (BR-2..BR-4), in place."""
    rng = Rng(state.rng)
    deck = standard_deck()
    rng.shuffle(deck)
    state.rng = rng.state
    n = state.players
    dealt = n * HAND_SIZES[n]
    hands: list[list[str]] = [[] for _ in range(n)]
    # BR-3: one card at a time, starting with the player left of the dealer.
    for i, card in enumerate(deck[:dealt]):
        hands[(state.dealer + 1 + i) % n].append(card)
    upcard = deck[dealt]
    # The next undealt card is the top, and the top is the list's end.
    stock = deck[dealt + 1 :][::-1]
    _lay_out(state, hands, stock, [upcard])


def _lay_out(
    state: BasicRummyState, hands: list[list[str]], stock: list[str], discard: list[str]
) -> None:
    """Starts a deal with these cards (stock top last), in place."""
    state.hands = hands
    state.stock = stock
    state.discard = discard
    state.melds = []
    state.meld_serial = 0
    state.laid_down_before = [False] * state.players
    state.laid_down_this_turn = False
    state.melded_this_turn = False
    state.taken_from_discard = None
    state.result = None
    state.next_deal_at = None
    state.phase = PLAYING
    # BR-9: the player after the dealer starts (with two, the non-dealer).
    state.turn = (state.dealer + 1) % state.players
    state.step = DRAW


def _check_drawable(state: BasicRummyState, now: int, events: list[Event]) -> None:
    # A turn always ends with a discard, so the pile is empty at a draw only when
    # a deal starts without one; with no stock either nobody can draw (BR-17).
    if state.phase == PLAYING and not state.stock and not state.discard:
        _end_deal(state, None, now, events)


def _end_deal(state: BasicRummyState, winner: int | None, now: int, events: list[Event]) -> None:
    """Scores the deal (BR-15, BR-16) and decides whether the match goes on (BR-18), in place."""
    hand_values = [sum(pip_value(c) for c in hand) for hand in state.hands]
    rummy = False
    points = 0
    if winner is not None:
        points = sum(v for s, v in enumerate(hand_values) if s != winner)
        rummy = not state.laid_down_before[winner]
        if rummy:
            points *= 2
        state.scores[winner] += points
    summary = {
        "deal": state.deal,
        "winner": winner,
        "points": points,
        "rummy": rummy,
        "void": winner is None,
    }
    state.results.append(summary)
    state.result = {
        **summary,
        "hand_values": hand_values,
        "hands": [list(h) for h in state.hands],
    }
    state.taken_from_discard = None
    state.laid_down_this_turn = False
    state.melded_this_turn = False
    events.append({"kind": "deal_over", **summary})
    deals = state.options.get("deals")
    target = state.options.get("target")
    if (deals is not None and state.deal >= deals) or (
        target is not None and max(state.scores) >= target
    ):
        best = max(state.scores)
        state.winners = [s for s, total in enumerate(state.scores) if total == best]
        state.phase = GAME_OVER
        state.next_deal_at = None
        events.append(
            {"kind": "game_over", "scores": list(state.scores), "winners": list(state.winners)}
        )
    else:
        state.phase = DEAL_OVER
        state.next_deal_at = now + int(state.options["deal_pause_ms"])
