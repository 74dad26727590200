"""Basic Rummy (rules BR-1..BR-18 in ``docs/rules/basic-rummy.md``).

The turn skeleton, the words it uses (deal, stock, pile, meld, lay off,
going out...) and the state live in :mod:`engine.games.rummy`; this module is
Basic Rummy's rules object and its scoring. In short: one 52-card deck, ace
low only, an upcard, at most one new meld a turn, lay-offs on anyone's melds,
going out by melding, laying off or discarding the last card (BR-14).

- *going rummy*: going out in a single turn without having melded or laid off
  earlier in the deal; it scores double (BR-16).
- *deadwood*: the cards left in the losers' hands when a deal ends; the winner
  scores their value (BR-15).

Decisions beyond the written rules:

- BR-12 forbids discarding the card just taken from the pile. A meld or
  lay-off that would leave that card alone in the hand is allowed only when
  the card can be laid off at once, on a meld as the table is after the move
  (so the player goes out through a chain of lay-offs, BR-14); otherwise it
  is refused, because the player could not end the turn. (One card cannot be
  a new meld, so a lay-off is the only way on.)
- Endless deals: BR-17 turns the pile over unshuffled, so two players can
  pass the same cards round for ever. The turnovers of a deal are counted:
  when the stock runs out after the pile has already been turned over
  three times in that deal (``MAX_TURNOVERS``), the deal ends void, no score,
  before the next player draws.
- A void deal (also: stock and pile both empty when a player must draw,
  BR-17) still counts as one of the match's deals.
- The first dealer is drawn from the seeded rng (BR-3).
- The extension action ``next_deal`` lets any seat skip the pause after a
  deal; otherwise :meth:`BasicRummy.on_timeout` starts it at
  ``next_deal_at``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from engine.errors import BadOptions
from engine.games.rummy import (
    DEAL_OVER,
    DEFAULT_DEAL_PAUSE_MS,
    DRAW,
    GAME_OVER,
    PIP_VALUES,
    PLAY,
    PLAYING,
    TURN_OVER,
    Meld,
    RummyGame,
    RummyRules,
    RummyState,
)
from engine.melds import BASIC
from engine.options import check_int

__all__ = [
    "DEAL_OVER", "DRAW", "GAME_OVER", "HAND_SIZES", "PLAY", "PLAYING", "RULES", "BasicRummy",
    "Meld",
]

# BR-2: cards per hand by number of players.
HAND_SIZES: dict[int, int] = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
DEFAULT_TARGET = 100
MAX_TURNOVERS = 3  # pile turnovers a deal may have before an empty stock ends it void

RULES = RummyRules(
    decks=1,  # BR-1
    hand_sizes=MappingProxyType(HAND_SIZES),
    upcard=True,  # BR-4
    dealer_starts=False,  # BR-9
    melds=BASIC,  # BR-6, BR-7: ace low only; sets of 3 or 4
    melds_per_turn=1,  # BR-11
    lay_off=True,  # BR-11
    go_out_without_discard=True,  # BR-14
    discard_taken_card=False,  # BR-12
    stock_out=TURN_OVER,  # BR-17
    max_turnovers=MAX_TURNOVERS,
    rank_values=PIP_VALUES,  # BR-15
    lowest_wins=False,  # BR-18
    cites=MappingProxyType({
        "draw": "BR-10", "meld": "BR-6, BR-7", "melds_per_turn": "BR-11",
        "lay_off": "BR-11", "taken": "BR-12", "out": "BR-14", "hand_size": "BR-2",
    }),
    meld_help="a meld is a run (3+ cards of one suit in sequence, ace low) "
              "or a set (3 or 4 cards of one rank)",
)



class BasicRummy(RummyGame):
    """Basic Rummy for 2-6 players, one 52-card deck."""

    name: ClassVar[str] = "basic_rummy"
    title: ClassVar[str] = "Basic Rummy"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6
    default_seats: ClassVar[int] = 4
    turn_based: ClassVar[bool] = True
    short_options: ClassVar[Mapping[str, Any]] = MappingProxyType({"deals": 3})
    rules: ClassVar[RummyRules] = RULES
    option_keys: ClassVar[frozenset[str]] = frozenset({"deals", "target"})
    view_option_keys: ClassVar[tuple[str, ...]] = ("deals", "target")

    def default_options(self) -> dict[str, Any]:
        return {"deals": None, "target": DEFAULT_TARGET, "deal_pause_ms": DEFAULT_DEAL_PAUSE_MS}

    def match_options(self, options: dict[str, Any], merged: dict[str, Any]) -> None:
        deals = options.get("deals")
        if deals is not None:
            merged["deals"] = check_int("deals", deals, 1, 50)
        # BR-5: a match is fixed by deals, by target, or both (whichever comes first).
        # Asking for a number of deals without a target means deals only.
        if "target" in options:
            target = options["target"]
            merged["target"] = None if target is None else check_int("target", target, 1, 10_000)
        elif deals is not None:
            merged["target"] = None
        if merged["deals"] is None and merged["target"] is None:
            raise BadOptions(reason="needs_deals_or_target", rule="BR-5")

    def score_deal(
        self, state: RummyState, winner: int | None, hand_values: list[int]
    ) -> tuple[list[int], dict[str, Any]]:
        """BR-15: the winner scores the opponents' deadwood; BR-16: doubled for rummy."""
        changes = [0] * state.players
        if winner is None:
            return changes, {"points": 0, "rummy": False}
        points = sum(v for s, v in enumerate(hand_values) if s != winner)
        rummy = self.went_out_in_one_turn(state, winner)
        if rummy:
            points *= 2
        changes[winner] = points
        return changes, {"points": points, "rummy": rummy}
