"""Card ids and decks.

A *card id* is the string that names one physical card everywhere: in the
state, on the wire, in logs.

- Standard cards: rank + suit, ranks ``A23456789TJQK``, suits ``SHDC``
  (``TD`` is the ten of diamonds). Two-deck games append the deck number
  (``TD1``, ``TD2``) so that the two copies stay distinct.
- Remmi Demmi cards: colour + figure + copy (``OR3``); see
  :mod:`engine.games.remmi_demmi`.

The *rank index* runs from 1 (ace) to 13 (king); it is the low-ace order.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def rank_of(card: str) -> str:
    return card[0]


def suit_of(card: str) -> str:
    return card[1]


def rank_index(card: str) -> int:
    """1 for an ace up to 13 for a king."""
    return RANKS.index(card[0]) + 1


def deck_of(card: str) -> int:
    """The deck number of a two-deck card id (``TD2`` -> 2); 1 for a one-deck id."""
    return int(card[2:]) if len(card) > 2 else 1


def is_standard_card(card: object, decks: int = 1) -> bool:
    """Whether ``card`` is a valid id of a game played with ``decks`` decks."""
    if not isinstance(card, str):
        return False
    if decks == 1:
        return len(card) == 2 and card[0] in RANKS and card[1] in SUITS
    return (
        len(card) == 3
        and card[0] in RANKS
        and card[1] in SUITS
        and card[2].isdigit()
        and 1 <= int(card[2]) <= decks
    )


def standard_deck(decks: int = 1) -> list[str]:
    """Every card id of ``decks`` 52-card decks, in a fixed order (suit, then rank)."""
    if decks == 1:
        return [r + s for s in SUITS for r in RANKS]
    return [r + s + str(d) for d in range(1, decks + 1) for s in SUITS for r in RANKS]


def pip_value(card: str) -> int:
    """The common penalty value: ace 1, two to ten at face value, J Q K 10."""
    return min(rank_index(card), 10)


def sort_key(card: str) -> tuple[int, int, int]:
    """Orders a hand by suit, then rank, then deck: how players like to see it."""
    return (SUITS.index(card[1]), rank_index(card), deck_of(card))
