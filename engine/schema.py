"""Action schemas: what each game's actions may carry, declared as plain data.

Terms:

- *action schema*: per action kind, the fields the game reads and the shape
  each may have (:class:`ActionField`). A game publishes it as its
  ``action_fields`` (kind -> field name -> ActionField).
- *shape*: the JSON type and size bounds of a value, not whether it is legal
  now (that a card is in the hand, that it is your turn): the rules decide
  that in ``apply``.

The server checks a client's action against the schema before the action
reaches a room (app/actions.py), so that a room, its action log and its
replays only ever see fields the game knows, of bounded size. Nothing here
parses or serialises: it is data for the edge to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

# The JSON shapes a field may have.
Shape = Literal["str", "int", "bool", "str_list", "str_lists"]

# Bounds that fit every game's values with room to spare: card ids are 2-4
# characters (``OR3``, ``TD1``), meld and trade ids a few more; no hand or
# meld comes near 64 cards (two decks are 104).
ID_CHARS = 16
LIST_ITEMS = 64
GROUPS = 16


@dataclass(frozen=True, slots=True)
class ActionField:
    """The shape of one field of an action.

    ``shape``: ``str`` (at most ``max_chars``), ``int`` (``low``..``high``,
    never a bool), ``bool``, ``str_list`` (at most ``max_items`` strings of at
    most ``max_chars``), ``str_lists`` (at most ``max_groups`` such lists).
    ``nullable``: null is accepted too (the rules read it as "left out").
    """

    shape: Shape
    nullable: bool = False
    max_chars: int = ID_CHARS
    max_items: int = LIST_ITEMS
    max_groups: int = GROUPS
    low: int = 0
    high: int = 1_000_000


ActionFields = Mapping[str, Mapping[str, ActionField]]

CARD = ActionField("str")
CARDS = ActionField("str_list")
ID = ActionField("str")
# "from": "stock" | "discard"; which values are allowed is a rule, not a shape.
SOURCE = ActionField("str", max_chars=16)


def action_fields(kinds: Mapping[str, Mapping[str, ActionField]]) -> ActionFields:
    """A schema, read-only (it is shared by every room of the game)."""
    return MappingProxyType({kind: MappingProxyType(dict(fields))
                             for kind, fields in kinds.items()})
