"""What the rummy bots share: reading their own view, and judging the cards in hand.

Terms, as the bots use them:

- a *near-meld* is two cards one card short of a meld: a pair of one rank
  (in two suits) waiting for a third suit, or two cards of one suit one or
  two ranks apart, in one of the game's rank orders, waiting for the card
  that joins them into a three-card run; the cards that would complete it
  are its *completions*;
- a completion is *live* while a copy of it may still come into the hand;
  what counts as gone is the bot's business (one deck or two), so the
  checks here take a ``live(rank, suit)`` callable.

Every function is pure, like the bots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import SUITS, rank_of, sort_key, suit_of
from engine.game import View

# A table meld as a bot tracks it: (meld id, kind, cards in table order). A
# meld a bot plans to lay this turn has no id yet (None).
TableMeld = tuple[Any, str, tuple[str, ...]]


def on_turn(view: View) -> bool:
    """Whether the view is its seat's own turn of a deal in play."""
    return bool(view.get("phase") == "playing" and view.get("turn") == view.get("you"))


@dataclass(frozen=True)
class Turn:
    """What a bot reads from its own view on its turn."""

    hand: list[str]
    table: list[TableMeld]
    discard: list[str]  # the pile, bottom to top
    drawing: bool  # the turn's draw is still to come

    @property
    def seen(self) -> list[str]:
        """The cards face up: the pile, then the table melds'."""
        return self.discard + [c for _, _, cards in self.table for c in cards]


def read_turn(view: View) -> Turn | None:
    """The viewer's turn, or None when it is not this seat's turn of a deal in play."""
    if not on_turn(view):
        return None
    table = [(m["id"], m["kind"], tuple(m["cards"])) for m in view["melds"]]
    return Turn(list(view["hand"]), table, list(view["discard"]), view.get("step") == "draw")


def run_gaps(first: str, second: str, sequences: Sequence[str]) -> list[str]:
    """The ranks that make a three-card run with ranks ``first`` and ``second``.

    Any of the rank orders in ``sequences`` counts (Traditional Remi's ace
    low and ace high); an order holding only one of the two ranks does not.
    """
    wanted: list[str] = []
    for seq in sequences:
        if first not in seq or second not in seq:
            continue
        a, b = sorted((seq.index(first), seq.index(second)))
        if b - a == 1:
            wanted += [seq[i] for i in (a - 1, b + 1) if 0 <= i < len(seq)]
        elif b - a == 2:
            wanted.append(seq[a + 1])
    return list(dict.fromkeys(wanted))


def completions(card: str, other: str, sequences: Sequence[str]) -> list[tuple[str, str]]:
    """The (rank, suit) of every card that would make a meld of ``card`` and ``other``.

    Two copies of one card (two decks) make no near-meld at all.
    """
    rank, suit = rank_of(card), suit_of(card)
    if rank_of(other) == rank:
        if suit_of(other) == suit:
            return []
        return [(rank, s) for s in SUITS if s not in (suit, suit_of(other))]
    if suit_of(other) == suit:
        return [(r, suit) for r in run_gaps(rank, rank_of(other), sequences)]
    return []


def is_near_meld(card: str, dead: Iterable[str], sequences: Sequence[str],
                 live: Callable[[str, str], bool]) -> bool:
    """Whether ``card`` and another of the ``dead`` cards still wait for a live third card."""
    return any(
        live(rank, suit)
        for other in dead if other != card
        for rank, suit in completions(card, other, sequences)
    )


def copies_left(rank: str, suit: str, gone: Iterable[str], decks: int) -> int:
    """How many copies of rank+suit may still come, with the cards in ``gone`` accounted for."""
    held = sum(1 for c in gone if rank_of(c) == rank and suit_of(c) == suit)
    return max(0, decks - held)


def rank_discards(cards: Iterable[str], deadwood: int, deadwood_without: Callable[[str], int],
                  value: Callable[[str], int], near_meld: Callable[[str], bool]) -> list[str]:
    """``cards`` in the order a bot would discard them, best first.

    First the card whose loss adds least to the deadwood by breaking a meld
    (nothing, for a deadwood card: the hand's ``deadwood`` drops by its
    value), then one outside any live near-meld, then the highest value,
    then card order.
    """
    def key(card: str) -> tuple[int, bool, int, tuple[int, int, int]]:
        breakage = deadwood_without(card) - (deadwood - value(card))
        return breakage, near_meld(card), -value(card), sort_key(card)

    return sorted(cards, key=key)


def costliest_first(cards: Iterable[str], value: Callable[[str], int]) -> list[str]:
    """``cards`` by value, highest first, then in card order."""
    return sorted(cards, key=lambda c: (-value(c), sort_key(c)))
