"""A Basic Rummy bot: a steady, deterministic player working from its own view.

Terms: a hand's *deadwood* is what stays outside melds when the hand is split
into disjoint runs and sets as well as it can be (lowest total value); a
*near-meld* is two deadwood cards one card short of a meld (a pair, or two
cards of one suit at most two ranks apart) whose missing card is still
*live* (neither in the discard pile nor on the table).

Strategy, one action per call:

- Draw: take the top discard when it lowers the hand's deadwood by joining a
  meld in hand (completing or extending one) or when it can be laid off on a
  table meld at once; otherwise draw from the stock.
- Play: every possible turn plan is tried: no meld, or any one meld in hand
  (BR-11 allows one new meld a turn) laid before or after the lay-offs, and
  laying off every card that fits a table meld (cards that hold a meld in
  hand together are kept, unless laying them off anyway lets the bot go
  out). A plan that empties the hand, or leaves one card to discard, wins at
  once and is always taken. Otherwise the plan leaving the least deadwood
  after the discard is played, ties going to the one shedding the most
  points, then to the one with fewer actions. The card just taken from the
  discard pile is never left as the only card (BR-12 forbids discarding it).
- Discard: the highest-value deadwood card that is not part of a live
  near-meld; breaking a meld in hand only when nothing else is left. When the
  stock is empty the bot discards its second choice instead: the pile is
  about to be turned over unshuffled (BR-17), and two steady players who
  each hold what the other waits for would otherwise go round for ever.

The bot is pure: no randomness and no clock, so the same view always gives
the same action. A call costs well under a millisecond: hands are at most
eleven cards, and the best split of every sub-hand is memoized per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.bots.rummy_common import (
    TableMeld,
    is_near_meld,
    rank_discards,
    read_turn,
)
from engine.cards import pip_value, sort_key
from engine.game import Action, View
from engine.melds import BASIC, all_melds, arrange, extended, is_set

Hand = frozenset[str]


def choose(view: View) -> Action | None:
    """The next action for the viewer's seat, or None when it is not this seat's turn."""
    turn = read_turn(view)
    if turn is None:
        return None
    if turn.drawing:
        return _draw(turn.hand, turn.table, turn.discard)
    return _play(turn.hand, turn.table, view.get("must_not_discard"), bool(view.get("can_meld")),
                 set(turn.seen), stock_empty=view.get("stock_count") == 0)


# --- hand analysis --------------------------------------------------------------


def melds_in(cards: Iterable[str]) -> list[Hand]:
    """Every run and set that can be formed from ``cards`` (overlapping ones included).

    Sets come first, then runs, each in :func:`engine.melds.all_melds` order.
    """
    found = all_melds(cards, BASIC)
    return [frozenset(m.cards) for m in found if m.kind == "set"] + [
        frozenset(m.cards) for m in found if m.kind == "run"]


class _Splitter:
    """Best splits of the sub-hands of one hand into melds and deadwood, memoized."""

    def __init__(self, cards: Iterable[str]) -> None:
        self.melds = melds_in(cards)
        self._with: dict[str, list[Hand]] = {}
        for meld in self.melds:
            for card in meld:
                self._with.setdefault(card, []).append(meld)
        self._memo: dict[Hand, tuple[int, Hand]] = {}

    def deadwood(self, cards: Hand) -> int:
        """The lowest total value left outside melds when ``cards`` are split."""
        return self._split(cards)[0]

    def deadwood_cards(self, cards: Hand) -> Hand:
        """The cards left outside melds in that best split."""
        return self._split(cards)[1]

    def _split(self, cards: Hand) -> tuple[int, Hand]:
        if not cards:
            return 0, frozenset()
        known = self._memo.get(cards)
        if known is not None:
            return known
        # The lowest card is either deadwood or in one of the melds containing it.
        card = min(cards, key=sort_key)
        value, dead = self._split(cards - {card})
        best = (value + pip_value(card), dead | {card})
        for meld in self._with.get(card, ()):
            if meld <= cards:
                value, dead = self._split(cards - meld)
                if value < best[0]:
                    best = (value, dead)
        self._memo[cards] = best
        return best


def _fitting(table: Sequence[TableMeld], card: str) -> tuple[int, tuple[str, ...]] | None:
    """The first table meld ``card`` can be laid off on (its index, its new cards)."""
    for index, (_, kind, cards) in enumerate(table):
        grown = _grown(cards, kind, card)
        if grown is not None:
            return index, grown
    return None


@lru_cache(maxsize=4096)
def _grown(cards: tuple[str, ...], kind: str, card: str) -> tuple[str, ...] | None:
    # The same few melds are tried against the same few cards by every plan.
    grown = extended(cards, kind, card)
    return None if grown is None else tuple(grown)


# --- the draw -------------------------------------------------------------------


def _draw(hand: list[str], table: list[TableMeld], discard: list[str]) -> Action:
    if discard:
        top = discard[-1]
        if _fitting(table, top) is not None or _joins_meld(hand, top):
            return {"kind": "draw", "from": "discard"}
    return {"kind": "draw", "from": "stock"}


def _joins_meld(hand: list[str], card: str) -> bool:
    """Whether ``card`` lands in a meld of the best split of the hand with it."""
    splitter = _Splitter([*hand, card])
    before = frozenset(hand)
    return splitter.deadwood(before | {card}) < splitter.deadwood(before) + pip_value(card)


# --- the play step ----------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """One way to play the rest of a turn before the discard."""

    # The meld and lay-offs in order. Only the first is ever played from a plan,
    # and it never needs this turn's meld, whose id (None here) is not known yet.
    actions: tuple[Action, ...]
    left: Hand  # the hand once they are all down


def _play(hand: list[str], table: list[TableMeld], must: str | None, can_meld: bool,
          seen: set[str], stock_empty: bool) -> Action:
    cards = frozenset(hand)
    splitter = _Splitter(cards)
    best: tuple[tuple[bool, int, int, int], _Plan] | None = None
    for meld in [None, *(splitter.melds if can_meld else [])]:
        for keep_melds in (True, False):
            for meld_first in (True, False) if meld is not None else (True,):
                plan = _plan(splitter, cards, table, meld, must, keep_melds, meld_first)
                if plan is None:
                    continue
                score = _score(cards, plan, must, splitter)
                if best is None or score > best[0]:
                    best = (score, plan)
    # The plan without a meld always exists: its lay-offs never strand the must card.
    assert best is not None
    plan = best[1]
    if plan.actions:
        return plan.actions[0]
    return {"kind": "discard", "card": _discard(splitter, plan.left, must, seen, stock_empty)}


def _plan(splitter: _Splitter, cards: Hand, table: list[TableMeld], meld: Hand | None,
          must: str | None, keep_melds: bool, meld_first: bool) -> _Plan | None:
    """Lays ``meld`` (if any) and lays off while cards fit; None if the meld is not allowed.

    With ``keep_melds`` a card that holds a meld in hand together stays in hand.
    With ``meld_first`` the meld goes down before any lay-off, otherwise after
    the lay-offs onto the melds already on the table. No step may leave only
    ``must`` in hand: it could not be discarded (BR-12), so the rules refuse it.
    """
    melds = list(table)
    left = cards
    actions: list[Action] = []

    def lay_offs(keep: Hand) -> None:
        nonlocal melds, left
        placed = True
        while placed:
            placed = False
            # The must card first: it cannot be discarded, so shedding it matters most.
            for card in sorted(left - keep, key=lambda c: (c != must, -pip_value(c), sort_key(c))):
                fit = _fitting(melds, card)
                rest = left - {card}
                if fit is None or (must is not None and rest == {must}):
                    continue
                if keep_melds and splitter.deadwood(rest) > splitter.deadwood(left):
                    continue
                index, grown = fit
                meld_id, kind, _ = melds[index]
                melds = [*melds[:index], (meld_id, kind, grown), *melds[index + 1:]]
                left = rest
                actions.append({"kind": "lay_off", "card": card, "meld": meld_id})
                placed = True
                break

    if meld is not None:
        if not meld_first:
            lay_offs(keep=meld)
        left = left - meld
        if must is not None and left == {must}:
            return None
        kind = "set" if is_set(list(meld)) else "run"
        ordered = arrange(sorted(meld, key=sort_key), kind)
        actions.append({"kind": "meld", "cards": ordered})
        melds.append((None, kind, tuple(ordered)))
    lay_offs(keep=frozenset())
    return _Plan(tuple(actions), left)


def _score(cards: Hand, plan: _Plan, must: str | None, splitter: _Splitter
           ) -> tuple[bool, int, int, int]:
    """(goes out, minus the deadwood left after the best discard, points shed, fewer actions)."""
    left = plan.left
    goes_out = not left or (len(left) == 1 and must not in left)
    after_discard = min(
        (splitter.deadwood(left - {c}) for c in left if c != must), default=0
    )
    shed = sum(pip_value(c) for c in cards - left)
    return goes_out, -after_discard, shed, -len(plan.actions)


# --- the discard ----------------------------------------------------------------


def _discard(splitter: _Splitter, left: Hand, must: str | None, seen: set[str],
             stock_empty: bool) -> str:
    dead = splitter.deadwood_cards(left)

    def live(rank: str, suit: str) -> bool:
        # One deck: a card is gone once seen anywhere or held.
        return rank + suit not in seen and rank + suit not in left

    ranked = rank_discards(
        (c for c in left if c != must), splitter.deadwood(left),
        lambda card: splitter.deadwood(left - {card}), pip_value,
        lambda card: is_near_meld(card, dead, BASIC.sequences, live))
    if stock_empty and len(ranked) > 1:
        # The pile is about to become the stock again in the same order (BR-17),
        # so the same play would bring the same cards round again, possibly for
        # ever; changing the hand's make-up once a round breaks such a cycle.
        return ranked[1]
    return ranked[0]
