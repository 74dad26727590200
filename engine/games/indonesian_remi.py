"""Indonesian Remi (rules IR-1..IR-21 in ``docs/rules/indonesian-remi.md``).

The turn skeleton, the words it uses (deal, stock, pile, meld...) and the
state live in :mod:`engine.games.rummy`; this module is Indonesian Remi's
rules object and the hooks where its rules truly differ. In short: one
52-card deck, seven cards each, no upcard, the dealer plays first, any
number of melds a turn, nothing laid off, and a deal that ends with a close
or with an empty stock, where every player scores.

Terms:

- *sequence*: a run of 3+ cards of one suit, either number cards from 2 to
  10 or J-Q-K; 10 does not touch J and aces are never in one (IR-6). A *set*
  is 3 or 4 cards of one rank, aces allowed (IR-7). A player may lay a set
  only once they have a sequence on the table (IR-8).
- *take*: instead of drawing from the stock, a player takes one of the top
  three cards of the pile (the *takeable* cards) and at once lays it down in
  a new meld with at least two cards that were in their hand before the take;
  the cards above it in the pile go into their hand (IR-10, IR-11).
- *close*: after the draw or take, laying every card but one down in melds
  and discarding the last, the *closing card* (IR-14). Emptying the hand by a
  discard, after melds laid one by one, is the same close. The closer scores
  10 x the closing card's value (IR-17).
- *partition*: a split of the cards left in a hand into melds and the rest;
  a hand is scored by its best one (IR-16, :func:`engine.melds.best_partition`).

Decisions beyond the written rules:

- IR-10: a take is the action ``take`` ``{"card", "with"}``; ``draw`` is the
  stock only. The taken card is in its meld at once; the cards that came
  from above it are ordinary hand cards and may be discarded the same turn.
- IR-12: no take, meld or close may leave the hand empty before the discard,
  so a deal ends by discarding the last card, never by melding it.
- IR-15: when a player's turn starts with an empty stock, the deal ends at
  once if they have no legal take (they cannot); otherwise they may take, or
  play ``draw``, which then ends the deal (they do not).
- A ``close`` lays its sequences before its sets, so a close that brings a
  player's first sequence may hold sets too (IR-8: a sequence laid earlier in
  the same turn counts). A one-card hand (after melding or taking) closes by
  discarding it; ``close`` with no melds does the same.
- IR-16: the cards in hand are split by :func:`engine.melds.best_partition`;
  for a player with no sequence on the table its sets count only when that
  split holds a sequence too. With ``hand_melds_count=false`` every card in
  hand counts minus. A set on the table always counts: it was laid after a
  sequence (IR-8).
- IR-18: the totals after the deal decide the next dealer; ties go to the
  tied player first clockwise after the previous dealer.
- IR-19: ``deals`` (default 8) and ``target`` (default none): with both, the
  first one reached ends the game; giving ``target`` alone means target only.
- The deal's ``result`` shows the closing card and, per seat, the table
  melds, the hand's best partition, the minus cards, the closing bonus and
  the deal's points. The summary kept in ``results`` (and sent in the
  ``deal_over`` event) has the points only, no card ids: it stays visible
  while later deals are played. Its ``winner`` is the closer (None after an
  empty stock); no deal is void, every one is scored.
- The first dealer is drawn from the seeded rng. The extension action
  ``next_deal`` lets any seat skip the pause after a deal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from engine.cards import rank_index
from engine.errors import BadOptions, IllegalAction
from engine.game import Action, Event, View
from engine.games.rummy import (
    DEFAULT_DEAL_PAUSE_MS,
    DRAW,
    NO_REBUILD,
    PLAY,
    PLAYING,
    Meld,
    RummyGame,
    RummyRules,
    RummyState,
)
from engine.melds import (
    HandMeld,
    MeldRules,
    Partition,
    all_melds,
    arrange,
    best_partition,
    meld_kind,
)
from engine.options import check_int
from engine.schema import CARD, CARDS, ID, SOURCE, ActionField, ActionFields, action_fields

HAND_SIZE = 7  # IR-3
DEFAULT_DEALS = 8  # IR-19
TAKE_DEPTH = 3  # IR-10: the top three cards of the pile may be taken
CLOSE_BONUS = 10  # IR-17: the closer adds 10 x the closing card's value
# IR-5 by rank, ace first: A 15, 2-10 5, J Q K 10.
RANK_VALUES: tuple[int, ...] = (15, 5, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10)
# IR-6, IR-7: sequences of number cards 2-10 or of J Q K, never an ace; sets of 3 or 4.
MELDS = MeldRules(sequences=("23456789T", "JQK"))

RULES = RummyRules(
    decks=1,  # IR-1
    hand_sizes=MappingProxyType({2: HAND_SIZE, 3: HAND_SIZE, 4: HAND_SIZE}),  # IR-2, IR-3
    upcard=False,  # IR-3
    dealer_starts=True,  # IR-4
    melds=MELDS,
    melds_per_turn=None,  # IR-13
    lay_off=False,  # IR-9
    go_out_without_discard=False,  # IR-12
    discard_taken_card=True,  # the taken card is melded at once; the ones above may go
    stock_out=NO_REBUILD,  # IR-15
    max_turnovers=None,
    rank_values=RANK_VALUES,  # IR-5
    lowest_wins=False,  # IR-19
    cites=MappingProxyType({
        "draw": "IR-10", "play": "IR-13", "meld": "IR-6, IR-7", "lay_off": "IR-9",
        "out": "IR-12", "hand_size": "IR-3",
    }),
    meld_help="a meld is a sequence (3+ cards of one suit in a row, either 2 to 10 or "
              "J Q K, never an ace) or a set (3 or 4 cards of one rank)",
)

# Wire names of the ways a deal ends.
CLOSED = "closed"
STOCK_OUT = "stock_out"


def card_value(card: str) -> int:
    """IR-5: 2-10 are worth 5, J Q K 10, an ace 15."""
    return RANK_VALUES[rank_index(card) - 1]


def has_sequence(state: RummyState, seat: int) -> bool:
    """Whether ``seat`` has a sequence on the table (IR-8, IR-11)."""
    return any(m.owner == seat and m.kind == "run" for m in state.melds)


def hand_partition(hand: Sequence[str], sequence_on_table: bool) -> Partition:
    """The best split of ``hand`` into melds and the rest, as IR-16 scores it."""
    return best_partition(hand, MELDS, card_value,
                          sets_allowed=True if sequence_on_table else "with_run")


def legal_takes(hand: Sequence[str], pile: Sequence[str], sequence_on_table: bool
                ) -> Iterator[tuple[int, HandMeld]]:
    """Every legal take (IR-10, IR-11, IR-12): the pile index taken and the meld it makes.

    One of the top ``TAKE_DEPTH`` cards of ``pile`` with hand cards; sets only
    with a sequence on the table; and a card must be left to discard, counting
    the cards above the taken one, which come into the hand.
    """
    for index in range(max(0, len(pile) - TAKE_DEPTH), len(pile)):
        card = pile[index]
        above = len(pile) - 1 - index
        for meld in all_melds([*hand, card], MELDS, sets=sequence_on_table):
            if card in meld.cards and len(hand) - (len(meld.cards) - 1) + above > 0:
                yield index, meld


def closing_splits(cards: Sequence[str], sequence_on_table: bool) -> Iterator[list[HandMeld]]:
    """Every way to lay all of ``cards`` down as melds (IR-14), sequences first.

    Sets are allowed if the player has a sequence on the table or the split
    itself holds one (IR-8). No cards: one empty split.
    """
    pool = frozenset(cards)
    melds = all_melds(cards, MELDS)
    by_card: dict[str, list[HandMeld]] = {}
    for meld in melds:
        for card in meld.cards:
            by_card.setdefault(card, []).append(meld)
    order = sorted(pool, key=lambda c: (rank_index(c), c))

    def splits(left: frozenset[str]) -> Iterator[list[HandMeld]]:
        if not left:
            yield []
            return
        lowest = next(c for c in order if c in left)
        for meld in by_card.get(lowest, ()):
            if left.issuperset(meld.cards):
                for rest in splits(left.difference(meld.cards)):
                    yield [meld, *rest]

    for split in splits(pool):
        if sequence_on_table or not split or any(m.kind == "run" for m in split):
            yield sorted(split, key=lambda m: m.kind != "run")


def can_close(hand: Sequence[str], sequence_on_table: bool) -> bool:
    """Whether every card of ``hand`` but one can be laid down in melds (IR-14).

    A one-card hand closes by discarding it. The best partition of the other
    cards leaves nothing out exactly when they can all be laid down.
    """
    return any(not hand_partition([c for c in hand if c != card], sequence_on_table).rest
               for card in hand)


class IndonesianRemi(RummyGame):
    """Indonesian Remi for 2-4 players, one 52-card deck."""

    name: ClassVar[str] = "indonesian_remi"
    title: ClassVar[str] = "Indonesian Remi"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_seats: ClassVar[int] = 4  # IR-2
    fill_bots_by_default: ClassVar[bool] = True  # IR-2
    turn_based: ClassVar[bool] = True
    rules: ClassVar[RummyRules] = RULES
    option_keys: ClassVar[frozenset[str]] = frozenset({"deals", "target", "hand_melds_count"})
    view_option_keys: ClassVar[tuple[str, ...]] = ("deals", "target", "hand_melds_count")
    action_kinds: ClassVar[tuple[str, ...]] = (
        "draw", "take", "meld", "lay_off", "discard", "close", "next_deal",
    )
    action_fields: ClassVar[ActionFields] = action_fields({
        "draw": {"from": SOURCE},  # read only to refuse anything but "stock"
        "take": {"card": CARD, "with": CARDS},
        "meld": {"cards": CARDS},
        "lay_off": {"card": CARD, "meld": ID},  # refused by the rules (IR: no lay-offs)
        "discard": {"card": CARD},
        "close": {"melds": ActionField("str_lists"), "card": CARD},
        "next_deal": {},
    })

    # -- options --

    def default_options(self) -> dict[str, Any]:
        return {"deals": DEFAULT_DEALS, "target": None, "hand_melds_count": True,
                "deal_pause_ms": DEFAULT_DEAL_PAUSE_MS}

    def match_options(self, options: dict[str, Any], merged: dict[str, Any]) -> None:
        if "deals" in options:
            deals = options["deals"]
            merged["deals"] = None if deals is None else check_int("deals", deals, 1, 50)
        if "target" in options:
            target = options["target"]
            merged["target"] = None if target is None else check_int("target", target, 1, 10_000)
            if target is not None and "deals" not in options:
                merged["deals"] = None  # a target alone sets the game's length
        if merged["deals"] is None and merged["target"] is None:
            raise BadOptions(reason="needs_deals_or_target", rule="IR-19")
        if "hand_melds_count" in options:
            if not isinstance(options["hand_melds_count"], bool):
                raise BadOptions("hand_melds_count must be true or false")
            merged["hand_melds_count"] = options["hand_melds_count"]

    # -- the turn --

    def play(
        self, state: RummyState, seat: int, kind: str, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        if kind == "draw":
            return self.draw_stock(state, seat, action, now)
        if kind == "take":
            return self.take(state, seat, action)
        if state.step != PLAY:
            raise IllegalAction.of("draw_or_take_first", "IR-10")
        if kind == "close":
            return self.close(state, seat, action, now)
        return super().play(state, seat, kind, action, now)

    def draw_stock(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        """Draws the top card of the stock; from an empty stock, ends the deal (IR-15)."""
        if state.step != DRAW:
            raise IllegalAction.of("already_drew_or_took", "IR-10")
        if action.get("from", "stock") != "stock":
            raise IllegalAction.of("take_to_use_discard", "IR-10")
        new = self._clone(state)
        if not new.stock:
            events: list[Event] = [{"kind": STOCK_OUT, "seat": seat}]
            self._end_deal(new, None, now, events)
            return new, events
        new.hands[seat] = [*new.hands[seat], new.stock.pop()]
        new.step = PLAY
        return new, [{"kind": "drew", "seat": seat, "from": "stock"}]

    def take(self, state: RummyState, seat: int, action: Action
             ) -> tuple[RummyState, list[Event]]:
        """IR-10, IR-11: takes a top-three pile card and melds it at once with hand cards."""
        if state.step != DRAW:
            raise IllegalAction.of("already_drew_or_took", "IR-10")
        card = action.get("card")
        if not isinstance(card, str):
            raise IllegalAction.of("missing_card", field="card")
        used = action.get("with")
        if not isinstance(used, list) or not all(isinstance(c, str) for c in used):
            raise IllegalAction.of("missing_cards", field="with")
        if card not in state.discard[-TAKE_DEPTH:]:
            raise IllegalAction.of("not_in_top_three", "IR-10", card=card)
        if len(set(used)) != len(used):
            raise IllegalAction.of("card_twice")
        if len(used) < 2:
            raise IllegalAction.of("take_needs_two", "IR-10")
        hand = state.hands[seat]
        missing = [c for c in used if c not in hand]
        if missing:
            raise IllegalAction.of("take_from_hand_only", "IR-10", cards=missing)
        cards = [card, *used]
        kind = meld_kind(cards, MELDS)
        if kind is None:
            raise RULES.not_a_meld(cards)
        if kind == "set" and not has_sequence(state, seat):
            raise IllegalAction.of("take_set_needs_sequence", "IR-11")
        index = state.discard.index(card)
        above = state.discard[index + 1:]
        rest = [c for c in hand if c not in used] + above
        if not rest:
            raise IllegalAction.of("keep_a_discard", "IR-12")
        new = self._clone(state)
        new.discard = state.discard[:index]
        new.meld_serial += 1
        meld = Meld(f"m{new.meld_serial}", kind, tuple(arrange(cards, kind, MELDS)), seat)
        new.melds.append(meld)
        new.hands[seat] = rest
        new.melds_this_turn += 1
        new.laid_down_this_turn = True
        new.taken_from_discard = card
        new.step = PLAY
        return new, [{
            "kind": "took", "seat": seat, "card": card, "above": list(above),
            "meld": {"id": meld.id, "kind": meld.kind, "cards": list(meld.cards)},
        }]

    def close(self, state: RummyState, seat: int, action: Action, now: int
              ) -> tuple[RummyState, list[Event]]:
        """IR-14: lays every card but the closing card down in melds, then discards it."""
        card = action.get("card")
        if not isinstance(card, str):
            raise IllegalAction.of("missing_card", field="card")
        groups = action.get("melds")
        if not isinstance(groups, list) or not all(
                isinstance(g, list) and all(isinstance(c, str) for c in g) for g in groups):
            raise IllegalAction.of("missing_cards", field="melds")
        hand = state.hands[seat]
        laid = [c for g in groups for c in g]
        if card not in hand:
            raise IllegalAction.of("not_held", cards=[card])
        if len(laid) + 1 != len(hand) or set(laid) | {card} != set(hand):
            raise IllegalAction.of("close_lay_everything", "IR-14")
        kinds = [meld_kind(g, MELDS) for g in groups]
        if None in kinds:
            wrong = next(g for g, k in zip(groups, kinds, strict=True) if k is None)
            raise RULES.not_a_meld(wrong)
        # Sequences first: one laid earlier in the same turn lets sets follow (IR-8).
        ordered = [g for g, k in zip(groups, kinds, strict=True) if k == "run"]
        ordered += [g for g, k in zip(groups, kinds, strict=True) if k == "set"]
        events: list[Event] = []
        new = state
        for group in ordered:
            new, melded = self.meld(new, seat, {"kind": "meld", "cards": list(group)}, now)
            events.extend(melded)
        new, discarded = self.discard(new, seat, {"kind": "discard", "card": card}, now)
        return new, events + discarded

    def discard(
        self, state: RummyState, seat: int, action: Action, now: int
    ) -> tuple[RummyState, list[Event]]:
        new, events = super().discard(state, seat, action, now)
        if not new.hands[seat]:
            card = new.discard[-1]
            # IR-14: the last card discarded is the closing card; say so before the score.
            events.insert(1, {"kind": CLOSED, "seat": seat, "card": card,
                              "bonus": CLOSE_BONUS * card_value(card)})
        return new, events

    def check_meld(self, state: RummyState, seat: int, cards: list[str], kind: str) -> None:
        if kind == "set" and not has_sequence(state, seat):
            raise IllegalAction.of("set_needs_sequence", "IR-8")

    def is_deal_blocked(self, state: RummyState) -> bool:
        # IR-15: an empty stock ends the deal when the player cannot take instead.
        return not state.stock and not self.take_actions(state, state.turn)

    # -- legal actions --

    def draw_actions(self, state: RummyState, seat: int) -> list[Action]:
        # From an empty stock, "draw" is the choice not to take, which ends the deal.
        return [{"kind": "draw"}, *self.take_actions(state, seat)]

    def take_actions(self, state: RummyState, seat: int) -> list[Action]:
        """Every legal take of ``seat`` (IR-10, IR-11, IR-12)."""
        pile = state.discard
        return [{"kind": "take", "card": pile[index],
                 "with": [c for c in meld.cards if c != pile[index]]}
                for index, meld in legal_takes(state.hands[seat], pile,
                                               has_sequence(state, seat))]

    def play_actions(self, state: RummyState, seat: int) -> list[Action]:
        actions = super().play_actions(state, seat)
        hand = state.hands[seat]
        sequence = has_sequence(state, seat)
        for card in hand:
            for split in closing_splits([c for c in hand if c != card], sequence):
                actions.append({"kind": "close", "melds": [list(m.cards) for m in split],
                                "card": card})
        return actions

    # -- the end of a deal --

    def score_deal(
        self, state: RummyState, winner: int | None, hand_values: list[int]
    ) -> tuple[list[int], dict[str, Any]]:
        """IR-16, IR-17: every seat scores its melds plus, the rest minus; the closer's bonus."""
        seats = self.breakdown(state, winner)
        points = [s["points"] for s in seats]
        # No card ids here: the summary stays in ``results`` while later deals are
        # played, when a card it named may be in someone's hand.
        return points, {
            "points": points,
            "ended": CLOSED if winner is not None else STOCK_OUT,
            "bonus": seats[winner]["bonus"] if winner is not None else 0,
            "void": False,
        }

    def breakdown(self, state: RummyState, winner: int | None) -> list[dict[str, Any]]:
        """Each seat's score for the deal that just ended, and what it is made of."""
        count_hand = bool(state.options.get("hand_melds_count", True))
        result = []
        for seat, hand in enumerate(state.hands):
            table = [m for m in state.melds if m.owner == seat]
            if count_hand:
                partition = hand_partition(hand, has_sequence(state, seat))
                in_hand = list(partition.melds)
                minus_cards = list(partition.rest)
            else:
                in_hand, minus_cards = [], list(hand)
            table_points = sum(card_value(c) for m in table for c in m.cards)
            hand_points = sum(card_value(c) for m in in_hand for c in m.cards)
            minus = sum(card_value(c) for c in minus_cards)
            bonus = CLOSE_BONUS * card_value(state.discard[-1]) if seat == winner else 0
            result.append({
                "seat": seat,
                "table_melds": [{"kind": m.kind, "cards": list(m.cards)} for m in table],
                "table_points": table_points,
                "hand_melds": [{"kind": m.kind, "cards": list(m.cards)} for m in in_hand],
                "hand_points": hand_points,
                "minus_cards": minus_cards,
                "minus_points": minus,
                "bonus": bonus,
                "points": table_points + hand_points - minus + bonus,
            })
        return result

    def result_details(self, state: RummyState, winner: int | None) -> dict[str, Any]:
        seats = self.breakdown(state, winner)
        for entry in seats:
            entry["total"] = state.scores[entry["seat"]]
        return {"closing_card": state.discard[-1] if winner is not None else None,
                "seats": seats}

    def next_dealer(self, state: RummyState) -> int:
        """IR-18: the lowest total deals; ties go first clockwise after the last dealer."""
        low = min(state.scores)
        n = state.players
        return next(s for k in range(1, n + 1)
                    if state.scores[s := (state.dealer + k) % n] == low)

    # -- views --

    def extend_public_view(self, view: View, state: RummyState) -> None:
        playing = state.phase == PLAYING
        view["takeable"] = list(state.discard[-TAKE_DEPTH:]) if playing else []
        for entry in view["seats"]:
            entry["has_sequence"] = has_sequence(state, entry["seat"])

    def extend_own_view(self, view: View, state: RummyState, seat: int | None) -> None:
        view["can_close"] = (
            state.phase == PLAYING and seat is not None and seat == state.turn
            and state.step == PLAY and can_close(state.hands[seat], has_sequence(state, seat))
        )
