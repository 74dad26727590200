"""Basic Rummy properties, checked over random games played through the Game interface.

Each example sets up a match (shuffled from a seed, or a random scenario with
a short stock so that the pile is turned over often), then plays steps drawn
by Hypothesis: mostly a legal action picked by index (often among the
sensible ones, so that deals end), sometimes a random (usually illegal)
action from a random seat. After every step come the checks every rummy game
keeps (:class:`tests.engine.rummy_harness.RummyChecks`): the 52 cards (or a
scenario's) each in one place, no hidden card in a view or an event, refused
actions change nothing, offered and accepted actions agree, the state
survives a JSON snapshot; and Basic Rummy's own: the card taken from the
discard pile shows only to its holder or on the table (BR-12). The same seed
and actions give the same match.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.cards import standard_deck
from engine.game import View
from engine.games.basic_rummy import BasicRummy
from engine.games.rummy import RummyState
from tests.engine.rummy_harness import RummyChecks, pick_legal, random_actions
from tests.examples import examples

GAME = BasicRummy()
DECK = standard_deck()
SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


class BasicRummyChecks(RummyChecks):
    game = GAME
    deck = DECK
    random_action = random_actions(
        [*DECK, "ZZ", "", "10H", "as"], ["m1", "m2", "m3", "x", 1],
        [None, "draw", [], 3, {}, {"kind": 1}, {"kind": "pass"},
         {"kind": "meld", "cards": "AS"}, {"kind": "discard"}])
    players = (2, 6)
    scenario_stock = 6
    scenario_discard = 3
    own_fields = ("hand", "must_not_discard")
    milestones = ("stock_turned", "deal_over", "game_over")

    def draw_options(self, draw: st.DrawFn) -> dict[str, Any]:
        options: dict[str, Any] = {"deals": draw(st.sampled_from([None, 1, 2, 3]))}
        if options["deals"] is None:
            options["target"] = draw(st.sampled_from([30, 100]))
        return options

    def check_view(self, state: RummyState, seat: int | None, view: View, own: set[str],
                   public: set[str]) -> None:
        if view["must_not_discard"] is not None:
            # The card taken from the discard: in the viewer's hand, or melded since.
            assert view["must_not_discard"] in own | public

    def pick(self, state: RummyState, seat: int, mode: int, data: st.DataObject) -> Any:
        actions = GAME.legal_actions(state, seat)
        if data.draw(st.integers(0, 3), label="guided") > 0:
            actions = guided(state, actions)
        return pick_legal(actions, data)


CHECKS = BasicRummyChecks()


def connections(card: str, hand: list[str]) -> int:
    """How many cards of ``hand`` could share a meld with ``card`` (same rank, near in suit)."""
    rank = "A23456789TJQK".index(card[0])
    return sum(
        1 for other in hand if other != card and (
            other[0] == card[0]
            or (other[1] == card[1] and abs("A23456789TJQK".index(other[0]) - rank) <= 2)))


def guided(state: RummyState, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sensible subset of ``actions``, so that random games also reach the end of deals.

    Take a discard that fits the hand, lay the longest meld, lay off, and
    otherwise throw away one of the least connected cards.
    """
    hand = state.hands[state.turn]
    if state.step == "draw":
        top = state.discard[-1] if state.discard else None
        wanted = top is not None and connections(top, hand) > 0
        return [a for a in actions if a["from"] == ("discard" if wanted else "stock")]
    melds = [a for a in actions if a["kind"] == "meld"]
    if melds:
        longest = max(len(a["cards"]) for a in melds)
        return [a for a in melds if len(a["cards"]) == longest]
    lay_offs = [a for a in actions if a["kind"] == "lay_off"]
    if lay_offs:
        return lay_offs
    discards = [a for a in actions if a["kind"] == "discard"]
    loosest = min(connections(a["card"], hand) for a in discards)
    return [a for a in discards if connections(a["card"], hand) == loosest]


# The checks every rummy game keeps (see the module doc), as this game's tests.
test_random_games_conserve_cards_and_hide_hands = CHECKS.random_games_test(SETTINGS, steps=150)
test_same_seed_and_actions_give_identical_views = CHECKS.replay_test(SETTINGS, steps=60)
test_deals_from_the_same_seed_are_identical = CHECKS.same_seed_test()
