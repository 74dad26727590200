"""A Traditional Remi bot: a patient hunter working from its own view.

Terms:

- a *placement* puts hand cards down: a new meld from the hand, or a group of
  cards laid off on one meld of the table (a run extended at either end, a
  set filled up to four suits);
- a *plan* is a set of disjoint placements; the cards it leaves are the
  hand's *deadwood*, and the best plan leaves the least deadwood value (every
  card counts, so an empty deadwood means the whole hand could go down);
- a *near-meld* is two deadwood cards one card short of a meld whose missing
  card is still *live*: with two decks a card is gone only when both copies
  are in the discard pile or on the table (a pair of one rank waits for any
  copy of a third suit; two cards of a suit one or two ranks apart, in the
  ace-low or the ace-high order, wait for the card that joins them).

Strategy, one action per call:

- Go out whenever it can: if all cards but one can be placed, it places them
  (melds first, then lay-offs in an order that keeps every meld valid) and
  discards the last card (TR-10). Done in one turn with nothing laid before,
  that is a hunt (TR-12).
- Hunt: while it has laid nothing down this deal and no opponent is near
  going out (``DANGER_CARDS`` cards or fewer in hand), it holds its melds
  back and only discards, building a hand that is all melds so that it can
  lay everything down in one turn and win with a discard. It holds back from
  the first turn, not only once the hand is nearly complete: over 300
  bench deals against random-legal play, holding back only at three
  deadwood cards or fewer brought 2 hunts, holding from the start 290, in
  fewer turns (37 against 39 a deal); bot against bot, the bot holding from
  the start took half the penalty points of one holding only when close.
  Melds laid early cannot be rearranged, and a hand cut down to two or three
  cards needs exact draws to finish.
- Otherwise (an opponent is close, or it has already laid down) it plays
  gradually: it lays down every placement of the best plan for the hand
  without its discard, cutting the penalty it would take if someone else
  went out. Once the hand is small (``OUTS_HAND`` cards after the draw) it
  discards the card that leaves the most *outs*: unseen cards that, drawn
  next turn, would let it go out.
- Draw: the top of the discard pile when, with it, the turn can end with
  fewer cards outside placements (or as many, worth less) than with a useless
  card from the stock; else the stock.
- Discard: the card whose loss raises the deadwood least, then one outside
  any live near-meld, then the highest value (an ace counts 11).

The bot is pure: no randomness and no clock, so the same view always gives
the same action. Plans are searched exactly, memoized per call; a hand holds
at most eleven cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.bots.rummy_common import (
    TableMeld,
    completions,
    copies_left,
    costliest_first,
    is_near_meld,
    rank_discards,
    read_turn,
)
from engine.cards import RANKS, SUITS, rank_of, sort_key, suit_of
from engine.game import Action, View
from engine.games.rummy import possible_melds
from engine.games.traditional_remi import HAND_SIZE, MELDS, RULES
from engine.melds import extended

DANGER_CARDS = 3  # an opponent with this many cards or fewer may go out any turn
OUTS_HAND = 5  # hands (after the draw) this small choose their discard by counting outs

Hand = frozenset[str]


def choose(view: View) -> Action | None:
    """The next action for the viewer's seat, or None when it is not this seat's turn."""
    turn = read_turn(view)
    if turn is None:
        return None
    planner = _Planner(turn.hand, turn.table)
    if turn.drawing:
        return _draw(turn.hand, turn.table, turn.discard, planner)
    others = [s["hand_count"] for s in view["seats"] if s["seat"] != view.get("you")]
    return _play(planner, frozenset(turn.hand), turn.table, turn.seen,
                 danger=min(others, default=99) <= DANGER_CARDS)


def value(card: str) -> int:
    return RULES.value(card)


# --- plans ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Cards put down in one go: a new meld (``meld`` None) or lay-offs on table meld ``meld``."""

    meld: str | None
    cards: tuple[str, ...]  # a new meld's cards, or the lay-offs in a valid order


@dataclass(frozen=True)
class Plan:
    deadwood: int  # total value left in hand
    left: Hand
    placements: tuple[Placement, ...]


class _Planner:
    """The best plans for the sub-hands of one hand against one table, memoized."""

    def __init__(self, hand: Iterable[str], table: Sequence[TableMeld]) -> None:
        cards = sorted(set(hand), key=sort_key)
        self._with: dict[str, list[tuple[int | None, Hand, Placement]]] = {}
        for meld in possible_melds(cards, MELDS):
            placement = Placement(None, tuple(meld))
            for card in meld:
                self._with.setdefault(card, []).append((None, frozenset(meld), placement))
        for index, (meld_id, kind, on_table) in enumerate(table):
            for group, order in _extensions(on_table, kind, cards).items():
                placement = Placement(meld_id, order)
                for card in group:
                    self._with.setdefault(card, []).append((index, group, placement))
        self._memo: dict[tuple[Hand, frozenset[int]], Plan] = {}

    def best(self, cards: Hand, used: frozenset[int] = frozenset()) -> Plan:
        """The plan for ``cards`` that leaves the least deadwood (table melds in ``used`` taken)."""
        if not cards:
            return Plan(0, frozenset(), ())
        key = (cards, used)
        known = self._memo.get(key)
        if known is not None:
            return known
        # The lowest card is either left in hand or in one placement that holds it.
        card = min(cards, key=sort_key)
        rest = self.best(cards - {card}, used)
        best = Plan(rest.deadwood + value(card), rest.left | {card}, rest.placements)
        for table_index, group, placement in self._with.get(card, ()):
            if not group <= cards or (table_index is not None and table_index in used):
                continue
            taken = used if table_index is None else used | {table_index}
            rest = self.best(cards - group, taken)
            if rest.deadwood < best.deadwood or (
                rest.deadwood == best.deadwood and len(rest.placements) + 1 < len(best.placements)
            ):
                best = Plan(rest.deadwood, rest.left, (placement, *rest.placements))
        self._memo[key] = best
        return best

    def can_go_out(self, cards: Hand) -> bool:
        """Whether all of ``cards`` but one can be placed (the one is the discard)."""
        # A card in no placement at all must be the discard; two such cards never go out.
        loose = [c for c in cards
                 if not any(group <= cards for _, group, _ in self._with.get(c, ()))]
        if len(loose) > 1:
            return False
        return any(not self.best(cards - {d}).left for d in (loose or cards))


def _extensions(on_table: tuple[str, ...], kind: str, hand: Sequence[str]
                ) -> dict[Hand, tuple[str, ...]]:
    """Every group of hand cards that can be laid off on one table meld, with a valid order."""
    found: dict[Hand, tuple[str, ...]] = {}
    # Only cards of the run's suit or of the set's rank can ever join the meld.
    sample = on_table[0]
    fitting = [c for c in hand if (suit_of(c) == suit_of(sample) if kind == "run"
                                   else rank_of(c) == rank_of(sample))]
    frontier: list[tuple[tuple[str, ...], tuple[str, ...]]] = [(on_table, ())]
    while frontier:
        cards, added = frontier.pop()
        for card in fitting:
            if card in added:
                continue
            grown = extended(cards, kind, card, MELDS)
            if grown is None:
                continue
            order = (*added, card)
            group = frozenset(order)
            if group not in found:
                found[group] = order
                frontier.append((tuple(grown), order))
    return found


# --- the draw -------------------------------------------------------------------------


def _draw(hand: list[str], table: list[TableMeld], discard: list[str],
          planner: _Planner) -> Action:
    if discard:
        top = discard[-1]
        cards = frozenset(hand)
        with_top = _Planner([*hand, top], table)
        # Taking the top card is worth it when the turn can end with fewer cards
        # left outside placements (or as few, worth less) than a useless draw gives.
        best_with = min(_left(with_top.best(cards | {top} - {d})) for d in cards | {top})
        if best_with < _left(planner.best(cards)):
            return {"kind": "draw", "from": "discard"}
    return {"kind": "draw", "from": "stock"}


def _left(plan: Plan) -> tuple[int, int]:
    """How far a plan is from going out: cards left in hand, then their value."""
    return len(plan.left), plan.deadwood


# --- the play step --------------------------------------------------------------------


def _play(planner: _Planner, hand: Hand, table: list[TableMeld], seen: list[str],
          danger: bool) -> Action:
    whole = planner.best(hand)
    # What each possible discard leaves: the best plan of the rest of the hand.
    after = {card: planner.best(hand - {card}) for card in hand}
    out = [card for card in costliest_first(hand, value) if not after[card].left]
    if out:
        return _first_step(after[out[0]], out[0])  # goes out (TR-10)
    dead = whole.left

    def live(rank: str, suit: str) -> bool:
        return copies_left(rank, suit, (*hand, *seen), RULES.decks) > 0

    ranked = rank_discards(hand, whole.deadwood, lambda card: after[card].deadwood, value,
                           lambda card: is_near_meld(card, dead, MELDS.sequences, live))
    if len(hand) == HAND_SIZE + 1 and not danger:
        # Nothing laid down yet this deal: hold everything back for the hunt.
        return {"kind": "discard", "card": ranked[0]}
    if len(hand) <= OUTS_HAND:
        # Near the end what counts is how many draws would let the hand go out
        # next turn, with the melds laid this turn on the table too.
        known: dict[Hand, int] = {}

        def outs(card: str) -> int:
            plan = after[card]
            if plan.left not in known:
                known[plan.left] = _outs(plan.left, _laid(table, plan), seen)
            return known[plan.left]

        card = max(ranked, key=outs)  # max keeps the first of equals
    else:
        card = ranked[0]
    return _first_step(after[card], card)


def _outs(cards: Hand, table: list[TableMeld], seen: list[str]) -> int:
    """How many unseen cards, drawn next turn, would let a hand of ``cards`` go out.

    Only a card that could be placed can help: one laid off on the table, or
    one making a new meld with two of ``cards``. Any other card changes
    nothing, since ``cards`` are what is left once everything that could go
    down has gone down.
    """
    wanted: set[tuple[str, str]] = set()  # (rank, suit)
    for _, kind, on_table in table:
        sample = on_table[0]
        probes = ([r + suit_of(sample) for r in RANKS] if kind == "run"
                  else [rank_of(sample) + s for s in SUITS])
        wanted.update((p[0], p[1]) for p in probes if _fits(on_table, kind, p + "1"))
    for first, second in combinations(sorted(cards, key=sort_key), 2):
        wanted.update(completions(first, second, MELDS.sequences))
    gone = Counter(c[:2] for c in (*cards, *seen))
    draws: dict[str, int] = {}  # one id per card that may come, and its copies left
    for rank, suit in sorted(wanted):
        left = RULES.decks - gone[rank + suit]
        if left > 0:
            held = {c for c in (*cards, *seen) if c[:2] == rank + suit}
            draws[next(f"{rank}{suit}{d}" for d in range(1, RULES.decks + 1)
                       if f"{rank}{suit}{d}" not in held)] = left
    # One planner over the hand and every draw, asked about each draw in turn.
    planner = _Planner(cards | set(draws), table)
    return sum(left for drawn, left in draws.items() if planner.can_go_out(cards | {drawn}))


def _fits(on_table: tuple[str, ...], kind: str, card: str) -> bool:
    """Whether ``card`` can be laid off on a table meld as it is."""
    sample = on_table[0]
    if (suit_of(card) != suit_of(sample)) if kind == "run" else (rank_of(card) != rank_of(sample)):
        return False
    return extended(on_table, kind, card, MELDS) is not None


def _laid(table: list[TableMeld], plan: Plan) -> list[TableMeld]:
    """The table once the plan's placements are down (new melds get made-up ids)."""
    after = list(table)
    for number, placement in enumerate(plan.placements):
        if placement.meld is None:
            cards = placement.cards
            kind = "set" if len({rank_of(c) for c in cards}) == 1 else "run"
            after.append((f"new{number}", kind, cards))
            continue
        index = next(i for i, (meld_id, _, _) in enumerate(after) if meld_id == placement.meld)
        meld_id, kind, cards = after[index]
        for card in placement.cards:
            grown = extended(cards, kind, card, MELDS)
            assert grown is not None
            cards = tuple(grown)
        after[index] = (meld_id, kind, cards)
    return after


def _first_step(plan: Plan, discard: str) -> Action:
    """The plan's first placement (melds before lay-offs), or the discard once all are down."""
    ordered = sorted(plan.placements, key=lambda p: p.meld is not None)
    if not ordered:
        return {"kind": "discard", "card": discard}
    first = ordered[0]
    if first.meld is None:
        return {"kind": "meld", "cards": list(first.cards)}
    return {"kind": "lay_off", "card": first.cards[0], "meld": first.meld}
