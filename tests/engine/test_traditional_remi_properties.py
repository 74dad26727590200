"""Traditional Remi properties, checked over random games played through the Game interface.

Each example sets up a match (shuffled from a seed, or a random scenario with
a short stock so that the pile is reshuffled into a new stock often), then
plays steps drawn by Hypothesis: a legal action picked by index, the bot's
action (so that deals also reach their end), or sometimes a random (usually
illegal) action from a random seat. After every step come the checks every
rummy game keeps (:class:`tests.engine.rummy_harness.RummyChecks`): the 104
cards (or a scenario's) each in one place, no hidden card in a view or an
event, refused actions change nothing, offered and accepted actions agree,
the state survives a JSON snapshot; and Traditional Remi's own: no meld or
lay-off leaves a player without a card to discard (TR-10), the pot and the
payouts in every view (TR-14). The same seed and actions give the same
states (the reshuffles included).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.bots.traditional_remi import choose
from engine.cards import standard_deck
from engine.game import View
from engine.games.rummy import RummyState
from engine.games.traditional_remi import TraditionalRemi, prize_payouts
from tests.engine.rummy_harness import RummyChecks, pick_legal, random_actions
from tests.examples import examples

GAME = TraditionalRemi()
DECK = standard_deck(2)
SETTINGS = settings(
    max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


class TraditionalRemiChecks(RummyChecks):
    game = GAME
    deck = DECK
    decks = 2
    random_action = random_actions(
        [*DECK, "ZZ", "", "AH", "AH3", "10H1"], ["m1", "m2", "m3", "x", 1],
        [None, "draw", [], 3, {}, {"kind": 1}, {"kind": "take"},
         {"kind": "meld", "cards": "AS1"}, {"kind": "discard"}])
    steps = 7
    milestones = ("stock_shuffled", "deal_over", "game_over")
    lowest_wins = True  # TR-13: the lowest total wins

    def draw_options(self, draw: st.DrawFn) -> dict[str, Any]:
        return {"deals": draw(st.sampled_from([1, 1, 2, 3])),
                "stake": draw(st.sampled_from([0, 0, 100, 7]))}

    def check_view(self, state: RummyState, seat: int | None, view: View, own: set[str],
                   public: set[str]) -> None:
        assert view["must_not_discard"] is None  # TR: the taken card may be discarded
        assert view["pot"] == state.options["stake"] * state.players
        if state.phase == "game_over" and state.options["stake"]:
            assert view["payouts"] == prize_payouts(view["pot"], state.scores)
            assert sum(view["payouts"]) == view["pot"]
        else:
            assert view["payouts"] is None

    def after_apply(self, before: RummyState, seat: int, action: dict[str, Any],
                    after: RummyState, events: list[dict[str, Any]]) -> None:
        kinds = [e["kind"] for e in events]
        if action["kind"] in ("meld", "lay_off"):
            # TR-10: a meld or lay-off never empties the hand; only a discard ends a deal.
            assert after.hands[seat] and "deal_over" not in kinds
        if "deal_over" in kinds and after.result is not None and after.result["hunt"]:
            event("reached a hunt")

    def check_state(self, state: RummyState) -> None:
        if state.phase == "playing" and state.step == "draw":
            assert state.stock or len(state.discard) >= 2  # else the deal would be void

    def pick(self, state: RummyState, seat: int, mode: int, data: st.DataObject) -> Any:
        if mode <= 6:
            action = choose(GAME.view(state, seat))
            assert action is not None
            return action
        return pick_legal(GAME.legal_actions(state, seat), data)


CHECKS = TraditionalRemiChecks()


# The checks every rummy game keeps (see the module doc), as this game's tests.
test_random_games_conserve_cards_and_hide_hands = CHECKS.random_games_test(SETTINGS, steps=150)
test_same_seed_and_actions_give_identical_states = CHECKS.replay_test(SETTINGS, steps=60)
test_deals_from_the_same_seed_are_identical = CHECKS.same_seed_test()


@settings(max_examples=examples(200), deadline=None)
@given(pot=st.integers(0, 4_000_000), totals=st.lists(st.integers(0, 400), min_size=2,
                                                       max_size=4))
def test_the_prize_pool_is_shared_out_exactly(pot: int, totals: list[int]) -> None:
    payouts = prize_payouts(pot, totals)
    assert sum(payouts) == pot and min(payouts) >= 0
    best = min(totals)
    winners = [s for s, t in enumerate(totals) if t == best]
    # TR-14: the winner(s) keep at least 75% of the pot between them.
    assert 100 * sum(payouts[s] for s in winners) >= 75 * pot
    for seat, total in enumerate(totals):
        if total - best >= 80:
            assert payouts[seat] == 0
