"""Runs and sets: the meld checks shared by every rummy game.

A *meld* is a group of cards laid face up: a *run* (three or more cards of
one suit in sequence) or a *set* (three or more cards of one rank). The
games differ only in details, which they pass in as a :class:`MeldRules`:

- which rank orders a run may follow (``sequences``): Basic Rummy's ace is
  low only (``A..K``); Traditional Remi's ace is low or high but never
  both (``A..K`` or ``2..A``); Indonesian Remi allows ``2..10`` and
  ``J..K`` and never an ace;
- how large a set may be and whether its suits must differ (two decks).

``arrange_run`` returns a run's cards in rank order, which is how a meld is
kept on the table so that laying off at either end is a plain check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import rank_of, suit_of

LOW_ACE = "A23456789TJQK"
HIGH_ACE = "23456789TJQKA"


@dataclass(frozen=True)
class MeldRules:
    """What counts as a meld in one game."""

    sequences: tuple[str, ...] = (LOW_ACE,)
    min_size: int = 3
    max_set_size: int = 4
    set_suits_distinct: bool = False


BASIC = MeldRules()


def _run_order(cards: Sequence[str], rules: MeldRules) -> list[str] | None:
    if len(cards) < rules.min_size:
        return None
    suit = suit_of(cards[0])
    if any(suit_of(c) != suit for c in cards):
        return None
    ranks = [rank_of(c) for c in cards]
    if len(set(ranks)) != len(ranks):
        return None
    for seq in rules.sequences:
        if not all(r in seq for r in ranks):
            continue
        positions = sorted(seq.index(r) for r in ranks)
        if positions[-1] - positions[0] == len(positions) - 1:
            by_rank = {rank_of(c): c for c in cards}
            return [by_rank[seq[p]] for p in positions]
    return None


def is_run(cards: Sequence[str], rules: MeldRules = BASIC) -> bool:
    """Three or more cards of one suit whose ranks are consecutive in one allowed order."""
    return _run_order(cards, rules) is not None


def arrange_run(cards: Sequence[str], rules: MeldRules = BASIC) -> list[str]:
    """The cards of a valid run in sequence order; ValueError if they are no run."""
    ordered = _run_order(cards, rules)
    if ordered is None:
        raise ValueError("not a run")
    return ordered


def is_set(cards: Sequence[str], rules: MeldRules = BASIC) -> bool:
    """Three (or more, up to ``max_set_size``) cards of one rank."""
    if not rules.min_size <= len(cards) <= rules.max_set_size:
        return False
    if len({rank_of(c) for c in cards}) != 1:
        return False
    if len(set(cards)) != len(cards):
        return False
    return not (rules.set_suits_distinct and len({suit_of(c) for c in cards}) != len(cards))


def meld_kind(cards: Sequence[str], rules: MeldRules = BASIC) -> str | None:
    """``"run"``, ``"set"`` or None. Three cards of one rank are a set, never a run."""
    if is_set(cards, rules):
        return "set"
    if is_run(cards, rules):
        return "run"
    return None


def arrange(cards: Sequence[str], kind: str, rules: MeldRules = BASIC) -> list[str]:
    """A meld's cards in table order: runs by sequence, sets as given."""
    return arrange_run(cards, rules) if kind == "run" else list(cards)


def extended(meld_cards: Sequence[str], kind: str, card: str, rules: MeldRules = BASIC
             ) -> list[str] | None:
    """The meld with ``card`` laid off on it, in table order, or None if that breaks it.

    A meld keeps its kind: a card laid off on a set must keep it a set, on a
    run must keep it a run (BR-8: melds are never rearranged).
    """
    cards = [*meld_cards, card]
    if kind == "set":
        return cards if is_set(cards, rules) else None
    return _run_order(cards, rules)
