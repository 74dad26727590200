"""The rummy family's turn skeleton: one engine, configured per game by a rules object.

Basic Rummy and Traditional Remi (and Indonesian Remi, which adds its own ways
to draw and to close) play the same turn: draw a card, lay melds and lay off,
discard. What differs between them is mostly data, kept in a frozen
:class:`RummyRules`; the few rules that truly differ are hook methods of
:class:`RummyGame` that a game's subclass overrides.

Terms:

- *deal*: one hand of play, from dealing the cards until a player goes out (or
  the deal ends void); a *match* is a series of deals.
- *stock*: the face-down pile players draw from. Only its size is public. In
  the state the **top of the stock is the last element** of the list, so a
  draw is a cheap ``pop()``. (A scenario lists its stock top first; it is
  reversed when the deal is laid out.)
- *pile* (the discard pile): face up, kept bottom to top. The *upcard* is the
  card turned face up after the deal to start it, in games that have one.
- *taken card*: the card drawn from the pile this turn. Some games forbid
  discarding it in the same turn (Basic Rummy's BR-12).
- *meld*: a run or a set (what counts is the game's :class:`MeldRules`) laid
  face up in front of the player who made it. Melds have ids ``"m1"``,
  ``"m2"``... unique within a deal and are kept in table order.
- *lay off*: add one card from the hand to any meld on the table, keeping it
  a meld of the same kind.
- *going out*: emptying the hand. Where the rules allow it, melding or laying
  off the last card wins at once; otherwise a deal is won only by discarding
  the last card, and a meld or lay-off that would leave no card is refused.
- *rebuilding the stock*: when the stock runs out, the pile becomes the new
  stock, either turned over as it lies (its bottom card on top) or shuffled
  with the rules' seeded rng while its top card stays as the pile. A
  *turnover* counts one such rebuild.
- *one-turn win*: a winner who laid down every card in the winning turn, with
  no meld or lay-off earlier in the deal (Basic Rummy's rummy, Traditional
  Remi's hunt).
- *void deal*: a deal that ends with no winner and no score, because nobody
  can draw any more.

A turn has two steps: ``draw`` (take one card) and ``play`` (melds, lay-offs
and the closing discard). Hooks a game may override:

- :meth:`RummyGame.match_options` checks the game's own options (match length...);
- :meth:`RummyGame.score_deal` says how a finished deal changes the totals;
- :meth:`RummyGame.draw_actions` and :meth:`RummyGame.play` are where another
  way of drawing (a take from the top three of the pile) or of ending a turn
  (a close) plugs in, with ``action_kinds`` listing the action names;
- :meth:`RummyGame.check_meld` adds conditions on laying a new meld;
- :meth:`RummyGame.can_go_out` decides whether a meld or lay-off may leave the
  hand where it does without a discard to close the turn;
- :meth:`RummyGame.can_rebuild_stock` and :meth:`RummyGame.rebuild_stock`
  handle a stock that ran out, and :meth:`RummyGame.is_deal_blocked` says
  when the player to draw cannot go on, which ends the deal;
- :meth:`RummyGame.next_dealer` picks the dealer of the next deal;
- :meth:`RummyGame.result_details` adds a game's own fields to a finished
  deal's ``result`` (a ``void`` field from :meth:`RummyGame.score_deal`
  overrides the default, no winner);
- :meth:`RummyGame.extend_public_view` (what everyone sees),
  :meth:`RummyGame.extend_own_view` (what one seat alone sees) and
  :meth:`RummyGame.outcome_details` add a game's own fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar

from engine.cards import is_standard_card, rank_index, standard_deck
from engine.errors import BadOptions, IllegalAction, NotYourTurn
from engine.game import Action, Event, Outcome, View, copy_json, shallow_copy
from engine.melds import BASIC, MeldRules, all_melds, arrange, extended, meld_kind
from engine.options import check_int
from engine.rng import Rng
from engine.schema import CARD, CARDS, ID, SOURCE, ActionFields, action_fields

PLAYING = "playing"
DEAL_OVER = "deal_over"
GAME_OVER = "game_over"
DRAW = "draw"
PLAY = "play"

# What happens when the stock runs out (RummyRules.stock_out).
TURN_OVER = "turn_over"  # the pile becomes the stock as it lies, unshuffled
RESHUFFLE = "reshuffle"  # the pile but its top card is shuffled into a new stock
NO_REBUILD = "no_rebuild"  # the stock is not rebuilt

DEFAULT_DEAL_PAUSE_MS = 6000
SNAPSHOT_VERSION = 2
_SCENARIO_KEYS = frozenset({"dealer", "hands", "stock", "discard"})
_BASE_ACTION_KINDS = ("draw", "meld", "lay_off", "discard", "next_deal")
# The fields each of those kinds reads (draw, meld, lay_off, discard below).
_BASE_ACTION_FIELDS = action_fields({
    "draw": {"from": SOURCE},
    "meld": {"cards": CARDS},
    "lay_off": {"card": CARD, "meld": ID},
    "discard": {"card": CARD},
    "next_deal": {},
})

# Penalty values by rank, ace first: ace 1, two to ten at face value, J Q K 10.
PIP_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


@dataclass(frozen=True)
class RummyRules:
    """Everything that tells one rummy game's turn skeleton from another's, as data."""

    decks: int  # 52-card decks in play (two-deck card ids carry the deck number)
    hand_sizes: Mapping[int, int]  # cards dealt to each player, by number of players
    upcard: bool = True  # a card is turned up after the deal to start the pile
    dealer_starts: bool = False  # else the player after the dealer starts
    melds: MeldRules = BASIC  # what a run and a set are
    melds_per_turn: int | None = 1  # new melds a player may lay in one turn (None: any)
    lay_off: bool = True  # cards may be added to melds on the table
    go_out_without_discard: bool = True  # else a deal is won only by a discard
    discard_taken_card: bool = False  # the taken card may be discarded the same turn
    stock_out: str = TURN_OVER  # TURN_OVER | RESHUFFLE | NO_REBUILD
    max_turnovers: int | None = None  # rebuilds allowed in one deal (None: no limit)
    rank_values: tuple[int, ...] = PIP_VALUES  # a card's value by rank, ace first
    lowest_wins: bool = False  # totals are penalties (lowest wins) or points (highest)
    # Where the written rules say so, by topic: "draw", "meld", "melds_per_turn",
    # "lay_off", "taken", "out", "hand_size".
    cites: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    meld_help: str = "a meld is a run (3+ cards of one suit in sequence) or a set"

    def hand_size(self, players: int) -> int:
        return self.hand_sizes[players]

    def value(self, card: str) -> int:
        return self.rank_values[rank_index(card) - 1]

    def cite(self, topic: str) -> str:
        """`` (BR-12)`` for a topic the rules number, else nothing (option errors)."""
        rule = self.cites.get(topic)
        return f" ({rule})" if rule else ""

    def rule_for(self, topic: str) -> str | None:
        """The rule id(s) a refusal on ``topic`` enforces (``"BR-12"``), or None."""
        return self.cites.get(topic)

    def not_a_meld(self, cards: Sequence[str]) -> IllegalAction:
        """The refusal of ``cards`` as a meld; in English it says what a meld is."""
        return IllegalAction(f"{', '.join(cards)} is not a meld: {self.meld_help}.",
                             reason="not_a_meld", rule=self.rule_for("meld"),
                             params={"cards": list(cards)})


@dataclass(frozen=True)
class Meld:
    """A meld on the table. Frozen: a lay-off replaces it, so states can share it."""

    id: str
    kind: str  # "run" | "set"
    cards: tuple[str, ...]
    owner: int


@dataclass
class RummyState:
    """Everything about a rummy match, as plain data.

    ``apply`` copies the containers before changing anything, so a state
    handed out is never changed afterwards.
    """

    options: dict[str, Any]  # the game's own options (never mutated)
    players: int
    rng: int  # Rng.state after the last shuffle: the next one continues from it
    dealer: int
    deal: int  # 1-based
    phase: str  # playing | deal_over | game_over
    turn: int
    step: str  # draw | play
    hands: list[list[str]]  # per seat, in dealt/drawn order; replaced, never changed in place
    stock: list[str]  # face down; the TOP is the LAST element
    discard: list[str]  # face up, bottom -> top
    melds: list[Meld]  # table order (order of creation)
    meld_serial: int  # melds created this deal, for the next id
    scores: list[int]  # match totals
    laid_down_before: list[bool]  # per seat: melded or laid off in an EARLIER turn
    laid_down_this_turn: bool
    melds_this_turn: int  # new melds laid this turn
    taken_from_discard: str | None  # the taken card, this turn
    turnovers: int  # times the stock was rebuilt from the pile this deal
    result: dict[str, Any] | None  # the last deal's breakdown, once it is over
    results: list[dict[str, Any]]  # every finished deal's summary
    next_deal_at: int | None  # epoch ms, while deal_over
    winners: list[int] | None  # once game_over


# --- plain-data helpers -----------------------------------------------------------------


def _card_arg(action: Action, key: str = "card") -> str:
    card = action.get(key)
    if not isinstance(card, str):
        raise IllegalAction.of("missing_card", field=key)
    return card


def possible_melds(hand: Sequence[str], rules: MeldRules = BASIC) -> list[list[str]]:
    """Every meld that can be laid from ``hand``, cards in table order, each once.

    Every stretch of ``min_size`` or more consecutive ranks of one suit in an
    allowed order (so a five-card run also yields its shorter parts; with two
    decks, every choice among the copies of a rank) and every set. The order
    is :func:`engine.melds.all_melds`'s: longest first, then by cards.
    """
    return [list(meld.cards) for meld in all_melds(hand, rules)]


# --- the game ---------------------------------------------------------------------------


class RummyGame:
    """The turn skeleton of the rummy family. A game subclasses it with its ``rules``.

    Subclasses set ``name``, ``title``, ``min_players``, ``max_players``,
    ``default_seats``, ``rules`` and ``option_keys`` (their own options
    besides ``deal_pause_ms`` and ``scenario``), may set ``short_options``
    (none: a game at its defaults is short already), and implement
    :meth:`default_options`, :meth:`match_options` and :meth:`score_deal`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_seats: ClassVar[int]
    fill_bots_by_default: ClassVar[bool] = False
    turn_based: ClassVar[bool] = True
    short_options: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    rules: ClassVar[RummyRules]
    option_keys: ClassVar[frozenset[str]] = frozenset()
    # Options echoed in the view (``options``), in this order.
    view_option_keys: ClassVar[tuple[str, ...]] = ()
    action_kinds: ClassVar[tuple[str, ...]] = _BASE_ACTION_KINDS
    # Per kind in action_kinds, the fields its transition reads and their
    # shapes (engine.schema): the server drops anything else before a room sees it.
    action_fields: ClassVar[ActionFields] = _BASE_ACTION_FIELDS

    @property
    def lowest_wins(self) -> bool:
        return self.rules.lowest_wins

    # -- hooks --------------------------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """The game's own options with their defaults."""
        return {"deal_pause_ms": DEFAULT_DEAL_PAUSE_MS}

    def match_options(self, options: dict[str, Any], merged: dict[str, Any]) -> None:
        """Checks the game's own options in ``options`` into ``merged`` (the defaults)."""

    def score_deal(
        self, state: RummyState, winner: int | None, hand_values: list[int]
    ) -> tuple[list[int], dict[str, Any]]:
        """What a finished deal adds to each seat's total, and the summary's own fields.

        ``winner`` is None for a void deal. ``hand_values`` are the values of
        the cards left in each hand.
        """
        raise NotImplementedError

    def is_match_over(self, state: RummyState) -> bool:
        """After a deal is scored: whether the match ends (``deals`` played, ``target`` hit)."""
        deals = state.options.get("deals")
        target = state.options.get("target")
        return (deals is not None and state.deal >= deals) or (
            target is not None and max(state.scores) >= target
        )

    def draw_actions(self, state: RummyState, seat: int) -> list[Action]:
        """The legal ways to start a turn (the seat is on turn, in the draw step)."""
        actions: list[Action] = []
        if state.stock or self.can_rebuild_stock(state):
            actions.append({"kind": "draw", "from": "stock"})
        if state.discard:
            actions.append({"kind": "draw", "from": "discard"})
        return actions

    def play(
        self, state: RummyState, seat: int, kind: str, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        """Plays one action of the seat on turn; a game with more action kinds adds them here."""
        if kind == "draw":
            return self.draw(state, seat, action)
        if state.step != PLAY:
            raise IllegalAction.of("draw_first", self.rules.rule_for("draw"))
        if kind == "meld":
            return self.meld(state, seat, action, now)
        if kind == "lay_off":
            return self.lay_off(state, seat, action, now)
        return self.discard(state, seat, action, now)

    def check_meld(self, state: RummyState, seat: int, cards: list[str], kind: str) -> None:
        """Raises IllegalAction if the seat may not lay this meld now, though it is one.

        The shape of a meld and the number of melds a turn are checked already;
        this is for a game's further conditions (a set only after a run...).
        """

    def can_go_out(self, rest: Sequence[str], taken: str | None, melds: Sequence[Meld]) -> bool:
        """Whether the player can go out from ``rest`` without a discard.

        Asked when a meld or lay-off would leave no card the player may
        discard, with ``melds`` as the table is after that move. Only where the
        rules let a player go out without a discard, and then if the hand is
        empty or its last card fits a meld on the table at once. (The one card
        that may not be discarded is the taken card, so ``rest`` is empty or
        just that card; a single card can never be a new meld, so it goes out
        only by a lay-off.)
        """
        if not self.rules.go_out_without_discard:
            return False
        if not rest:
            return True
        return (
            self.rules.lay_off
            and len(rest) == 1
            and any(
                extended(m.cards, m.kind, rest[0], self.rules.melds) is not None for m in melds
            )
        )

    def can_rebuild_stock(self, state: RummyState) -> bool:
        """Whether an empty stock can be rebuilt from the pile for the next draw."""
        rules = self.rules
        if rules.max_turnovers is not None and state.turnovers >= rules.max_turnovers:
            return False
        if rules.stock_out == TURN_OVER:
            return bool(state.discard)
        if rules.stock_out == RESHUFFLE:
            return len(state.discard) >= 2  # the top card stays, the rest must make a stock
        return False

    def rebuild_stock(self, state: RummyState, events: list[Event]) -> None:
        """Makes the pile the new stock, in place (only when :meth:`can_rebuild_stock`)."""
        if self.rules.stock_out == RESHUFFLE:
            top = state.discard[-1]
            stock = state.discard[:-1]
            rng = Rng(state.rng)
            rng.shuffle(stock)
            state.rng = rng.state
            state.stock = stock
            state.discard = [top]
            events.append({"kind": "stock_shuffled", "count": len(stock)})
        else:
            # Turned over, not shuffled: the pile's bottom card (its first element)
            # becomes the top of the stock (the last element).
            state.stock = state.discard[::-1]
            state.discard = []
            events.append({"kind": "stock_turned", "count": len(state.stock)})
        state.turnovers += 1

    def is_deal_blocked(self, state: RummyState) -> bool:
        """Whether the player to draw cannot go on (checked when a turn starts).

        If so the deal ends at once, scored with no winner. By default: the
        stock is empty and cannot be rebuilt.
        """
        return not state.stock and not self.can_rebuild_stock(state)

    def next_dealer(self, state: RummyState) -> int:
        """The dealer of the deal after ``state``'s; by default the next seat clockwise."""
        # With two players that means the deal alternates.
        return (state.dealer + 1) % state.players

    def result_details(self, state: RummyState, winner: int | None) -> dict[str, Any]:
        """The game's own fields of a finished deal's ``result`` (where every hand is shown).

        Called once the deal's totals have been added to ``state.scores``.
        """
        return {}

    def extend_public_view(self, view: View, state: RummyState) -> None:
        """Adds the game's own public fields to a view, in place."""

    def extend_own_view(self, view: View, state: RummyState, seat: int | None) -> None:
        """Adds the game's own fields for ``seat`` alone to its part of a view, in place."""

    def outcome_details(self, state: RummyState) -> dict[str, Any]:
        """The game's own fields of the final outcome's ``details``."""
        return {}

    # -- options and setup --------------------------------------------------------------

    def validate_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise BadOptions("options must be an object")
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(
                f"{self.title} is for {self.min_players} to {self.max_players} players"
            )
        known = self.option_keys | {"deal_pause_ms", "scenario"}
        unknown = set(options) - known
        if unknown:
            raise BadOptions(
                f"unknown option(s) for {self.title}: {', '.join(sorted(map(str, unknown)))}"
            )
        merged = self.default_options()
        self.match_options(options, merged)
        if "deal_pause_ms" in options:
            merged["deal_pause_ms"] = check_int(
                "deal_pause_ms", options["deal_pause_ms"], 0, 60_000
            )
        if options.get("scenario") is not None:
            merged["scenario"] = self.validate_scenario(options["scenario"], players)
        return merged

    def validate_scenario(self, scenario: object, players: int) -> dict[str, Any]:
        """A scenario (a fixed first deal) checked against the rules; BadOptions if wrong."""
        if not isinstance(scenario, dict):
            raise BadOptions("scenario must be an object")
        unknown = set(scenario) - _SCENARIO_KEYS
        if unknown:
            raise BadOptions(f"unknown scenario key(s): {', '.join(sorted(map(str, unknown)))}")
        result: dict[str, Any] = {}
        if scenario.get("dealer") is not None:
            result["dealer"] = check_int("scenario dealer", scenario["dealer"], 0, players - 1)
        hands = scenario.get("hands")
        if not isinstance(hands, list) or len(hands) != players:
            raise BadOptions(f"scenario hands must be a list of {players} hands, one per seat")
        size = self.rules.hand_size(players)
        result["hands"] = []
        for seat, hand in enumerate(hands):
            cards = self._card_list(f"hand {seat}", hand)
            if len(cards) != size:
                raise BadOptions(
                    f"scenario hand {seat} has {len(cards)} cards; "
                    f"{players} players get {size} each{self.rules.cite('hand_size')}"
                )
            result["hands"].append(cards)
        result["stock"] = self._card_list("stock", scenario.get("stock", []))
        result["discard"] = self._card_list("discard", scenario.get("discard", []))
        named = [c for h in result["hands"] for c in h] + result["stock"] + result["discard"]
        seen: set[str] = set()
        for card in named:
            if card in seen:
                raise BadOptions(f"scenario names {card} twice; the deck has one of each card")
            seen.add(card)
        return result

    def _card_list(self, name: str, value: object) -> list[str]:
        if not isinstance(value, list):
            raise BadOptions(f"scenario {name} must be a list of card ids")
        decks = self.rules.decks
        for card in value:
            if not is_standard_card(card, decks):
                example = "'TD', 'AS'" if decks == 1 else "'TD1', 'AS2'"
                raise BadOptions(f"scenario {name}: {card!r} is not a card id (e.g. {example})")
        return list(value)

    def setup(self, options: dict[str, Any], players: int, seed: int, now: int) -> RummyState:
        # The room may hand over its full options; only the game's own matter here.
        own = self.option_keys | {"deal_pause_ms", "scenario"}
        opts = self.validate_options({k: v for k, v in options.items() if k in own}, players)
        scenario = opts.pop("scenario", None)
        rng = Rng(seed)
        dealer = rng.below(players)  # the first dealer is chosen at random
        state = RummyState(
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
            melds_this_turn=0,
            taken_from_discard=None,
            turnovers=0,
            result=None,
            results=[],
            next_deal_at=None,
            winners=None,
        )
        if scenario is None:
            self._deal_shuffled(state)
        else:
            if "dealer" in scenario:
                state.dealer = scenario["dealer"]
            self._lay_out(
                state,
                [list(h) for h in scenario["hands"]],
                list(reversed(scenario["stock"])),
                list(scenario["discard"]),
            )
        self._check_drawable(state, now, [])
        return state

    # -- playing ------------------------------------------------------------------------

    def apply(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        if not isinstance(action, dict):
            raise IllegalAction.of("not_an_action")
        kind = action.get("kind")
        if kind not in self.action_kinds:
            raise IllegalAction.of("unknown_action", kind=str(kind),
                                   expected=list(self.action_kinds))
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
            raise IllegalAction.of("no_such_seat", seat=str(seat))
        if kind == "next_deal":
            if state.phase != DEAL_OVER:
                raise IllegalAction.of("deal_not_over")
            return self._next_deal(state)
        if state.phase == DEAL_OVER:
            raise IllegalAction.of("deal_over")
        if state.phase != PLAYING:
            raise IllegalAction.of("game_over")
        if seat != state.turn:
            raise NotYourTurn.of("not_your_turn", turn=state.turn)
        return self.play(state, seat, str(kind), action, now)

    def view(self, state: RummyState, seat: int | None) -> View:
        """The public part (:meth:`public_view`) and ``seat``'s own (:meth:`own_view`)."""
        if seat is not None and not 0 <= seat < state.players:
            raise ValueError(f"no seat {seat} at this table")
        return {**self.public_view(state), **self.own_view(state, seat)}

    def public_view(self, state: RummyState) -> View:
        """What every seat and spectator sees alike."""
        playing = state.phase == PLAYING
        # Each seat's melds, in one pass over the table's (not one per seat).
        seat_melds: list[list[dict[str, Any]]] = [[] for _ in range(state.players)]
        for m in state.melds:
            seat_melds[m.owner].append({"id": m.id, "kind": m.kind, "cards": list(m.cards)})
        options = {k: state.options.get(k) for k in self.view_option_keys}
        view: View = {
            "game": self.name,
            "phase": state.phase,
            "step": state.step if playing else None,
            "dealer": state.dealer,
            "turn": state.turn if playing else None,
            "deal": state.deal,
            "options": options,
            "seats": [
                {"seat": s, "hand_count": len(hand), "score": score, "melds": melds}
                for s, hand, score, melds in zip(
                    range(state.players), state.hands, state.scores, seat_melds, strict=True)
            ],
            "stock_count": len(state.stock),
            "discard": list(state.discard),
            "melds": [
                {"id": m.id, "kind": m.kind, "cards": list(m.cards), "owner": m.owner}
                for m in state.melds
            ],
            "result": copy_json(state.result),
            "results": copy_json(state.results),
            "next_deal_at": state.next_deal_at,
            "winners": None if state.winners is None else list(state.winners),
        }
        self.extend_public_view(view, state)
        return view

    def own_view(self, state: RummyState, seat: int | None) -> View:
        """What only ``seat`` sees (None: a spectator): its hand and its options."""
        on_turn = state.phase == PLAYING and seat is not None and seat == state.turn
        limit = self.rules.melds_per_turn
        view: View = {
            "you": seat,
            "must_not_discard": (
                state.taken_from_discard
                if on_turn and not self.rules.discard_taken_card
                else None
            ),
            "can_meld": on_turn
            and state.step == PLAY
            and (limit is None or state.melds_this_turn < limit),
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        self.extend_own_view(view, state, seat)
        return view

    def own_key(self, state: RummyState, seat: int | None) -> None:
        """None: a hand and two flags cost little more to make than to key."""
        return None

    def to_act(self, state: RummyState) -> list[int]:
        return [state.turn] if state.phase == PLAYING else []

    def next_deadline(self, state: RummyState) -> int | None:
        # While playing the room runs the turn clock; the game only times the pause.
        return state.next_deal_at if state.phase == DEAL_OVER else None

    def on_timeout(self, state: RummyState, now: int) -> tuple[RummyState, list[Event]]:
        due = state.next_deal_at
        if state.phase == DEAL_OVER and due is not None and now >= due:
            return self._next_deal(state)
        return state, []

    def legal_actions(self, state: RummyState, seat: int) -> list[Action]:
        if not 0 <= seat < state.players:
            return []
        if state.phase == DEAL_OVER:
            return [{"kind": "next_deal"}]
        if state.phase != PLAYING or seat != state.turn:
            return []
        if state.step == DRAW:
            return self.draw_actions(state, seat)
        return self.play_actions(state, seat)

    def play_actions(self, state: RummyState, seat: int) -> list[Action]:
        """The legal melds, lay-offs and discards of the seat on turn, after its draw."""
        rules = self.rules
        hand = state.hands[seat]
        taken = state.taken_from_discard
        actions: list[Action] = []
        limit = rules.melds_per_turn
        if limit is None or state.melds_this_turn < limit:
            for cards in possible_melds(hand, rules.melds):
                kind = meld_kind(cards, rules.melds)
                assert kind is not None
                try:
                    self.check_meld(state, seat, cards, kind)
                except IllegalAction:
                    continue
                rest = [c for c in hand if c not in cards]
                new_meld = Meld("", kind, tuple(arrange(cards, kind, rules.melds)), seat)
                if self._may_leave(rest, taken, [*state.melds, new_meld]):
                    actions.append({"kind": "meld", "cards": cards})
        if rules.lay_off:
            for card in hand:
                rest = [c for c in hand if c != card]
                for index, meld in enumerate(state.melds):
                    grown = extended(meld.cards, meld.kind, card, rules.melds)
                    if grown is None:
                        continue
                    after = list(state.melds)
                    after[index] = replace(meld, cards=tuple(grown))
                    if self._may_leave(rest, taken, after):
                        actions.append({"kind": "lay_off", "card": card, "meld": meld.id})
        actions.extend(
            {"kind": "discard", "card": c}
            for c in hand
            if c != taken or rules.discard_taken_card
        )
        return actions

    def outcome(self, state: RummyState) -> Outcome | None:
        if state.phase != GAME_OVER or state.winners is None:
            return None
        return Outcome(
            scores=list(state.scores),
            winners=list(state.winners),
            details={"deals": copy_json(state.results), **self.outcome_details(state)},
        )

    # -- persistence --------------------------------------------------------------------

    def snapshot(self, state: RummyState) -> dict[str, Any]:
        """A JSON-serialisable copy of ``state`` (lists and dicts of str/int/bool/None)."""
        data: dict[str, Any] = {"version": SNAPSHOT_VERSION, "game": self.name}
        for f in fields(state):
            value = getattr(state, f.name)
            if f.name == "melds":
                value = [
                    {"id": m.id, "kind": m.kind, "cards": list(m.cards), "owner": m.owner}
                    for m in value
                ]
            data[f.name] = copy_json(value)
        return data

    def restore(self, data: dict[str, Any]) -> RummyState:
        """The state that :meth:`snapshot` saved; ValueError if it is not one."""
        if not isinstance(data, dict) or data.get("version") not in (1, SNAPSHOT_VERSION):
            raise ValueError(f"not a {self.title} snapshot of a known version")
        if data.get("game", self.name) != self.name:
            raise ValueError(f"a {data.get('game')!r} snapshot is no {self.title} state")
        try:
            melds_this_turn = (
                int(data["melds_this_turn"]) if "melds_this_turn" in data
                else int(bool(data["melded_this_turn"]))  # version 1
            )
            return RummyState(
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
                melds_this_turn=melds_this_turn,
                taken_from_discard=data["taken_from_discard"],
                turnovers=int(data.get("turnovers", 0)),
                result=copy_json(data["result"]),
                results=copy_json(data["results"]),
                next_deal_at=data["next_deal_at"],
                winners=None if data["winners"] is None else list(data["winners"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"broken {self.title} snapshot: {exc!r}") from exc

    # -- transitions (each works on a copy) ---------------------------------------------

    def draw(self, state: RummyState, seat: int, action: Action) -> tuple[RummyState, list[Event]]:
        """Takes the top of the stock or of the pile (the draw step)."""
        if state.step != DRAW:
            raise IllegalAction.of("already_drew", self.rules.rule_for("draw"))
        source = action.get("from")
        if source not in ("stock", "discard"):
            raise IllegalAction.of("missing_draw_source")
        if source == "discard":
            if not state.discard:
                raise IllegalAction.of("discard_pile_empty")
            new = self._clone(state)
            card = new.discard.pop()
            new.hands[seat] = [*new.hands[seat], card]
            new.taken_from_discard = card
            new.step = PLAY
            return new, [{"kind": "drew", "seat": seat, "from": "discard", "card": card}]
        if not state.stock and not self.can_rebuild_stock(state):
            # Unreachable in play: such a deal ends void before anyone is asked to draw.
            raise IllegalAction.of("nothing_to_draw")
        new = self._clone(state)
        events: list[Event] = []
        if not new.stock:
            self.rebuild_stock(new, events)
        new.hands[seat] = [*new.hands[seat], new.stock.pop()]
        new.step = PLAY
        events.append({"kind": "drew", "seat": seat, "from": "stock"})
        return new, events

    def meld(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        """Lays a new meld from the hand."""
        rules = self.rules
        cards = action.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction.of("missing_cards")
        limit = rules.melds_per_turn
        if limit is not None and state.melds_this_turn >= limit:
            raise IllegalAction.of("melds_per_turn", rules.rule_for("melds_per_turn"),
                                   limit=limit)
        if len(set(cards)) != len(cards):
            raise IllegalAction.of("card_twice")
        hand = state.hands[seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise IllegalAction.of("not_held", cards=missing)
        kind = meld_kind(cards, rules.melds)
        if kind is None:
            raise rules.not_a_meld(cards)
        self.check_meld(state, seat, cards, kind)
        rest = [c for c in hand if c not in cards]
        meld = Meld(f"m{state.meld_serial + 1}", kind,
                    tuple(arrange(cards, kind, rules.melds)), seat)
        self._require_may_leave(rest, state.taken_from_discard, [*state.melds, meld])
        new = self._clone(state)
        new.meld_serial += 1
        new.melds.append(meld)
        new.hands[seat] = rest
        new.melds_this_turn += 1
        new.laid_down_this_turn = True
        events: list[Event] = [
            {
                "kind": "melded",
                "seat": seat,
                "meld": {"id": meld.id, "kind": meld.kind, "cards": list(meld.cards)},
            }
        ]
        if not rest:
            self._end_deal(new, seat, now, events)  # went out by melding
        return new, events

    def lay_off(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        """Adds one card from the hand to a meld on the table."""
        rules = self.rules
        if not rules.lay_off:
            raise IllegalAction.of("no_lay_off", rules.rule_for("lay_off"))
        card = _card_arg(action)
        meld_id = action.get("meld")
        if not isinstance(meld_id, str):
            raise IllegalAction.of("missing_meld")
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalAction.of("not_held", cards=[card])
        index = next((i for i, m in enumerate(state.melds) if m.id == meld_id), None)
        if index is None:
            raise IllegalAction.of("no_such_meld", meld=meld_id)
        meld = state.melds[index]
        grown = extended(meld.cards, meld.kind, card, rules.melds)
        if grown is None:
            raise IllegalAction.of("does_not_fit", rules.rule_for("lay_off"), card=card,
                                   meld=meld_id, meld_kind=meld.kind)
        rest = [c for c in hand if c != card]
        after = list(state.melds)
        after[index] = replace(meld, cards=tuple(grown))
        self._require_may_leave(rest, state.taken_from_discard, after)
        new = self._clone(state)
        new.melds = after
        new.hands[seat] = rest
        new.laid_down_this_turn = True
        events: list[Event] = [{"kind": "laid_off", "seat": seat, "card": card, "meld": meld_id}]
        if not rest:
            self._end_deal(new, seat, now, events)  # went out by laying off
        return new, events

    def discard(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        """Discards one card, which ends the turn (and the deal, if it was the last card)."""
        card = _card_arg(action)
        if card not in state.hands[seat]:
            raise IllegalAction.of("not_held", cards=[card])
        if card == state.taken_from_discard and not self.rules.discard_taken_card:
            raise IllegalAction.of("card_just_taken", self.rules.rule_for("taken"), card=card)
        new = self._clone(state)
        rest = list(new.hands[seat])
        rest.remove(card)
        new.hands[seat] = rest
        new.discard.append(card)
        events: list[Event] = [{"kind": "discarded", "seat": seat, "card": card}]
        if not new.hands[seat]:
            self._end_deal(new, seat, now, events)  # discarding the last card goes out
            return new, events
        self.end_turn(new, seat)
        self._check_drawable(new, now, events)
        return new, events

    def end_turn(self, state: RummyState, seat: int) -> None:
        """Passes the turn on, clockwise, after ``seat``'s discard, in place."""
        if state.laid_down_this_turn:
            state.laid_down_before[seat] = True
        state.laid_down_this_turn = False
        state.melds_this_turn = 0
        state.taken_from_discard = None
        state.turn = (seat + 1) % state.players
        state.step = DRAW

    # -- helpers ------------------------------------------------------------------------

    def _clone(self, state: RummyState) -> RummyState:
        # Melds are frozen and results are never changed once appended, so copying
        # the containers is enough to keep the original untouched. A hand is
        # replaced, never changed in place: the hands nobody touched are shared.
        new = shallow_copy(state)
        new.hands = list(state.hands)
        new.stock = list(state.stock)
        new.discard = list(state.discard)
        new.melds = list(state.melds)
        new.scores = list(state.scores)
        new.laid_down_before = list(state.laid_down_before)
        new.results = list(state.results)
        new.winners = None if state.winners is None else list(state.winners)
        return new

    def _may_leave(self, rest: list[str], taken: str | None, melds: Sequence[Meld]) -> bool:
        """Whether a meld or lay-off may leave the hand as ``rest`` (``melds`` after it)."""
        if any(c != taken or self.rules.discard_taken_card for c in rest):
            return True  # a card is left to discard
        return self.can_go_out(rest, taken, melds)

    def _require_may_leave(self, rest: list[str], taken: str | None,
                           melds: Sequence[Meld]) -> None:
        if self._may_leave(rest, taken, melds):
            return
        if not rest:
            raise IllegalAction.of("keep_a_discard", self.rules.rule_for("out"))
        raise IllegalAction.of("only_taken_card_left", self.rules.rule_for("taken"), card=taken)

    def went_out_in_one_turn(self, state: RummyState, winner: int) -> bool:
        """Whether the winner laid nothing down before the winning turn (rummy, hunt)."""
        return not state.laid_down_before[winner]

    def _next_deal(self, state: RummyState) -> tuple[RummyState, list[Event]]:
        new = self._clone(state)
        new.dealer = self.next_dealer(state)
        new.deal = state.deal + 1
        self._deal_shuffled(new)
        events: list[Event] = [{"kind": "deal_started", "deal": new.deal, "dealer": new.dealer}]
        # A shuffled full deck always leaves a stock, so the deal cannot be void here.
        return new, events

    def _deal_shuffled(self, state: RummyState) -> None:
        """Shuffles fresh decks from the state's rng and deals them, in place."""
        rng = Rng(state.rng)
        deck = standard_deck(self.rules.decks)
        rng.shuffle(deck)
        state.rng = rng.state
        n = state.players
        dealt = n * self.rules.hand_size(n)
        hands: list[list[str]] = [[] for _ in range(n)]
        # One card at a time, starting with the player after the dealer.
        for i, card in enumerate(deck[:dealt]):
            hands[(state.dealer + 1 + i) % n].append(card)
        rest = deck[dealt:]
        pile = [rest.pop(0)] if self.rules.upcard else []
        # The next undealt card is the top, and the top is the list's end.
        self._lay_out(state, hands, rest[::-1], pile)

    def _lay_out(
        self, state: RummyState, hands: list[list[str]], stock: list[str], discard: list[str]
    ) -> None:
        """Starts a deal with these cards (stock top last), in place."""
        state.hands = hands
        state.stock = stock
        state.discard = discard
        state.melds = []
        state.meld_serial = 0
        state.laid_down_before = [False] * state.players
        state.laid_down_this_turn = False
        state.melds_this_turn = 0
        state.taken_from_discard = None
        state.turnovers = 0
        state.result = None
        state.next_deal_at = None
        state.phase = PLAYING
        state.turn = (state.dealer if self.rules.dealer_starts
                      else (state.dealer + 1) % state.players)
        state.step = DRAW

    def _check_drawable(self, state: RummyState, now: int, events: list[Event]) -> None:
        """Ends the deal, with no winner, when the player to draw cannot go on."""
        if state.phase == PLAYING and self.is_deal_blocked(state):
            self._end_deal(state, None, now, events)

    def _end_deal(self, state: RummyState, winner: int | None, now: int,
                  events: list[Event]) -> None:
        """Scores the deal and decides whether the match goes on, in place."""
        hand_values = [sum(self.rules.value(c) for c in hand) for hand in state.hands]
        changes, own = self.score_deal(state, winner, hand_values)
        for seat, change in enumerate(changes):
            state.scores[seat] += change
        summary = {"deal": state.deal, "winner": winner, **own}
        summary.setdefault("void", winner is None)
        state.results.append(summary)
        state.result = {
            **copy_json(summary),
            "hand_values": hand_values,
            "hands": [list(h) for h in state.hands],
            **self.result_details(state, winner),
        }
        state.taken_from_discard = None
        state.laid_down_this_turn = False
        state.melds_this_turn = 0
        events.append({"kind": "deal_over", **copy_json(summary)})
        if self.is_match_over(state):
            pick = min if self.rules.lowest_wins else max
            best = pick(state.scores)
            state.winners = [s for s, total in enumerate(state.scores) if total == best]
            state.phase = GAME_OVER
            state.next_deal_at = None
            events.append(
                {"kind": "game_over", "scores": list(state.scores),
                 "winners": list(state.winners)}
            )
        else:
            state.phase = DEAL_OVER
            state.next_deal_at = now + int(state.options["deal_pause_ms"])
