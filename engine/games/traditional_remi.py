"""Traditional Remi (rules TR-1..TR-14 in ``docs/rules/traditional-remi.md``).

The turn skeleton, the words it uses (deal, stock, pile, meld, lay off...)
and the state live in :mod:`engine.games.rummy`; this module is Traditional
Remi's rules object, its scoring and its prize pool. In short: two 52-card
decks (card ids carry the deck number: ``AH1``, ``AH2``), ten cards each and
an upcard, sets of 3-4 cards of different suits, runs with the ace low or
high, any number of melds and lay-offs a turn, and a deal won only by
discarding the last card.

Terms:

- *penalty points*: what a player collects in a deal; the card values are
  2-10 at face value, J Q K 10, A 11 (TR-2). The lowest match total wins.
- *gradual win*: the winner laid cards down over several turns; every other
  player is penalised by the value of their hand (TR-11).
- *hunt*: the winner laid every card down in the winning turn, with no meld
  or lay-off earlier in the deal; every other player gets their hand's value
  plus ``HUNT_BONUS`` (TR-12).
- *stake*, *pot*: with the ``stake`` option each player pays the stake in,
  so the pot is stake x players. *Payouts* share it out at the end (TR-14).
- *gap*: a player's final total minus the winner's.

Decisions beyond the written rules:

- The first dealer is drawn from the seeded rng; after that the deal passes
  to the next seat, and the player after the dealer starts (TR-3b).
- TR sets no rule against discarding the card just taken from the pile, so
  it may be discarded in the same turn (unlike Basic Rummy's BR-12).
- TR-4: the stock is rebuilt when a player draws from the empty stock (the
  player may take the pile's top card instead): every pile card but the top
  one is shuffled with the rng carried in the state (event
  ``stock_shuffled``), and the top card stays as the pile.
- If the stock is empty and the pile holds fewer than two cards when a
  player must draw, no stock can be rebuilt: the deal ends void (no
  penalties) and still counts as one of the match's deals.
- TR-10: a meld or lay-off that would leave no card to discard is refused.
- TR-14 with a tie for the lowest total: the tied players are all winners,
  the others' shares use their gap to that total, and what is left is split
  evenly between the winners (a chip that does not divide goes to the first
  of them by seat).
- The extension action ``next_deal`` lets any seat skip the pause after a
  deal; otherwise :meth:`TraditionalRemi.on_timeout` starts it at
  ``next_deal_at``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar

from engine.game import View
from engine.games.rummy import (
    DEFAULT_DEAL_PAUSE_MS,
    GAME_OVER,
    RESHUFFLE,
    RummyGame,
    RummyRules,
    RummyState,
)
from engine.melds import HIGH_ACE, LOW_ACE, MeldRules
from engine.options import check_int

HAND_SIZE = 10  # TR-3
HUNT_BONUS = 25  # TR-12
DEFAULT_DEALS = 5  # TR-13
MAX_STAKE = 1_000_000
# TR-14: the winner keeps at least WINNER_SHARE percent of the pot; the rest
# goes to players less than GAP_LIMIT points behind, the closer the more.
WINNER_SHARE = 75
GAP_LIMIT = 80

# TR-5, TR-6: runs with the ace low or high (never both, never round the
# corner); sets of 3 or 4 cards, all of different suits.
MELDS = MeldRules(sequences=(LOW_ACE, HIGH_ACE), max_set_size=4, set_suits_distinct=True)

RULES = RummyRules(
    decks=2,  # TR-1
    hand_sizes=MappingProxyType({2: HAND_SIZE, 3: HAND_SIZE, 4: HAND_SIZE}),  # TR-3
    upcard=True,  # TR-3
    dealer_starts=False,  # TR-3b
    melds=MELDS,
    melds_per_turn=None,  # TR-8
    lay_off=True,  # TR-8
    go_out_without_discard=False,  # TR-10
    discard_taken_card=True,
    stock_out=RESHUFFLE,  # TR-4
    max_turnovers=None,
    rank_values=(11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),  # TR-2
    lowest_wins=True,  # TR-13
    cites=MappingProxyType({
        "draw": "TR-7", "meld": "TR-5, TR-6", "lay_off": "TR-8",
        "out": "TR-10", "hand_size": "TR-3",
    }),
    meld_help="a meld is a run (3+ cards of one suit in sequence, the ace low or high "
              "but not both) or a set (3 or 4 cards of one rank, all of different suits)",
)


def prize_payouts(pot: int, totals: list[int]) -> list[int]:
    """TR-14: each seat's share of ``pot`` given the final ``totals`` (lowest wins).

    With ``n`` players a non-winner whose gap ``g`` to the winner is under
    ``GAP_LIMIT`` gets ``pot*25*(80-g) // (100*(n-1)*80)`` chips; everything
    not given out goes to the winner (split evenly between tied winners).
    The worked example: pot 400, four players, gaps 20, 60 and 95 ->
    25 + 8 + 0 to the others and 367 to the winner.
    """
    n = len(totals)
    best = min(totals)
    winners = [s for s, total in enumerate(totals) if total == best]
    payouts = [0] * n
    for seat, total in enumerate(totals):
        gap = total - best
        if seat not in winners and gap < GAP_LIMIT:
            payouts[seat] = (
                pot * (100 - WINNER_SHARE) * (GAP_LIMIT - gap) // (100 * (n - 1) * GAP_LIMIT)
            )
    share, odd = divmod(pot - sum(payouts), len(winners))
    for i, seat in enumerate(winners):
        payouts[seat] = share + (1 if i < odd else 0)
    return payouts


class TraditionalRemi(RummyGame):
    """Traditional Remi for 2-4 players, two 52-card decks."""

    name: ClassVar[str] = "traditional_remi"
    title: ClassVar[str] = "Traditional Remi"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_seats: ClassVar[int] = 4
    turn_based: ClassVar[bool] = True
    rules: ClassVar[RummyRules] = RULES
    option_keys: ClassVar[frozenset[str]] = frozenset({"deals", "stake"})
    view_option_keys: ClassVar[tuple[str, ...]] = ("deals", "stake")

    def default_options(self) -> dict[str, Any]:
        return {"deals": DEFAULT_DEALS, "stake": 0, "deal_pause_ms": DEFAULT_DEAL_PAUSE_MS}

    def match_options(self, options: dict[str, Any], merged: dict[str, Any]) -> None:
        if "deals" in options:
            merged["deals"] = check_int("deals", options["deals"], 1, 50)
        if "stake" in options:
            merged["stake"] = check_int("stake", options["stake"], 0, MAX_STAKE)

    def score_deal(
        self, state: RummyState, winner: int | None, hand_values: list[int]
    ) -> tuple[list[int], dict[str, Any]]:
        """TR-11: every other player takes their hand's value; TR-12: plus 25 on a hunt."""
        if winner is None:
            return [0] * state.players, {"penalties": [0] * state.players, "hunt": False}
        hunt = self.went_out_in_one_turn(state, winner)
        bonus = HUNT_BONUS if hunt else 0
        penalties = [
            0 if seat == winner else value + bonus for seat, value in enumerate(hand_values)
        ]
        return penalties, {"penalties": list(penalties), "hunt": hunt}

    def pot(self, state: RummyState) -> int:
        return int(state.options["stake"]) * state.players

    def payouts(self, state: RummyState) -> list[int] | None:
        """The prize pool shared out (TR-14), once the match is over and has a stake."""
        if state.phase != GAME_OVER or not state.options["stake"]:
            return None
        return prize_payouts(self.pot(state), state.scores)

    def extend_public_view(self, view: View, state: RummyState) -> None:
        view["pot"] = self.pot(state)
        view["payouts"] = self.payouts(state)

    def outcome_details(self, state: RummyState) -> dict[str, Any]:
        return {"pot": self.pot(state), "payouts": self.payouts(state)}
