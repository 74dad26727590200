"""Indonesian Remi properties, checked over random games played through the Game interface.

Each example sets up a game (shuffled from a seed, or a random scenario with
a short stock and a few discards, so that takes and empty stocks come often),
then plays steps drawn by Hypothesis: a legal action picked by index, the
bot's action (so that deals also end by closing), or a random (usually
illegal) action from a random seat. After every step come the checks every
rummy game keeps (:class:`tests.engine.rummy_harness.RummyChecks`): the 52
cards (or a scenario's) each in one place, no hidden card in a view or an
event, refused actions change nothing, offered and accepted actions agree,
the state survives a JSON snapshot; and Indonesian Remi's own: the takeable
cards and ``can_close`` in every view, every player keeps a card, each
deal's points add up.

Then: the same seed and actions give the same game, and
:func:`engine.melds.best_partition` agrees with a brute force over every
partition of random hands.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bots.indonesian_remi import choose
from engine.cards import standard_deck
from engine.game import Outcome, View
from engine.games.indonesian_remi import MELDS, IndonesianRemi, card_value
from engine.games.rummy import RummyState
from engine.melds import (
    HIGH_ACE,
    LOW_ACE,
    MeldRules,
    SetsAllowed,
    best_partition,
    brute_force_partition_score,
    is_run,
    is_set,
)
from tests.engine.rummy_harness import (
    Match,
    RummyChecks,
    normal_any_order,
    pick_legal,
    random_actions,
)
from tests.examples import examples

GAME = IndonesianRemi()
DECK = standard_deck()
SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CARD = st.sampled_from([*DECK, "ZZ", "", "10H", "as"])
CARDS = st.lists(CARD, max_size=5)


class IndonesianRemiChecks(RummyChecks):
    game = GAME
    deck = DECK
    random_action = random_actions(
        [*DECK, "ZZ", "", "10H", "as"], ["m1", "m2", "x", 1],
        [None, "draw", [], 3, {}, {"kind": 1}, {"kind": "pass"},
         {"kind": "take", "card": "AS", "with": "2S 3S"},
         {"kind": "close", "melds": [["AS"]]}, {"kind": "discard"}],
        st.just({"kind": "draw"}),
        st.builds(lambda c, w: {"kind": "take", "card": c, "with": w}, CARD, CARDS),
        st.builds(lambda ms, c: {"kind": "close", "melds": ms, "card": c},
                  st.lists(CARDS, max_size=3), CARD))
    rotations = True
    hands_public_after_deal = True
    milestones = ("took", "closed", "stock_out", "deal_over", "game_over")

    def normal(self, action: Any) -> Any:
        return normal_any_order(action)

    def draw_options(self, draw: st.DrawFn) -> dict[str, Any]:
        options: dict[str, Any] = {"deals": draw(st.sampled_from([None, 1, 2, 3])),
                                   "hand_melds_count": draw(st.booleans())}
        if options["deals"] is None:
            options["target"] = draw(st.sampled_from([50, 150]))
        return options

    def check_view(self, state: RummyState, seat: int | None, view: View, own: set[str],
                   public: set[str]) -> None:
        if seat is None:
            assert view["can_close"] is False
        assert view["takeable"] == (state.discard[-3:] if state.phase == "playing" else [])
        if state.phase == "playing":
            closes = seat == state.turn and any(
                a["kind"] == "close" for a in GAME.legal_actions(state, state.turn))
            assert view["can_close"] == closes

    def draw_hides_card(self, happened: dict[str, Any]) -> bool:
        return True  # IR draws only from the stock

    def check_state(self, state: RummyState) -> None:
        if state.phase == "playing":
            assert all(state.hands), "a player on turn or waiting has no card"
        else:
            assert state.result is not None
            assert [s["points"] for s in state.result["seats"]] == state.result["points"]

    def pick(self, state: RummyState, seat: int, mode: int, data: st.DataObject) -> Any:
        if mode >= 3:
            action = choose(GAME.view(state, seat))
            assert action is not None
            return action
        return pick_legal(GAME.legal_actions(state, seat), data)

    def check_outcome(self, match: Match, outcome: Outcome) -> None:
        assert outcome.scores == [
            sum(r["points"][s] for r in match.state.results)
            for s in range(match.state.players)]


CHECKS = IndonesianRemiChecks()


# The checks every rummy game keeps (see the module doc), as this game's tests.
test_random_games_conserve_cards_and_hide_hands = CHECKS.random_games_test(SETTINGS, steps=120)
test_same_seed_and_actions_give_identical_views = CHECKS.replay_test(SETTINGS, steps=50)
test_deals_from_the_same_seed_are_identical = CHECKS.same_seed_test()


# --- the best partition against a brute force -------------------------------------------


@st.composite
def hands(draw: st.DrawFn) -> list[str]:
    """Up to eight cards, often crowded into few suits and ranks so that melds overlap."""
    pool = DECK
    if draw(st.booleans()):
        suits = draw(st.sampled_from(["S", "SH", "HD"]))
        ranks = draw(st.sampled_from(["A2345678", "789TJQKA", "23456789TJQKA"]))
        pool = [c for c in DECK if c[1] in suits or c[0] in ranks[:3]]
    return draw(st.lists(st.sampled_from(pool), max_size=8, unique=True))


SETS_ALLOWED: list[SetsAllowed] = [True, False, "with_run"]
RULES = [MELDS, MeldRules(), MeldRules(sequences=(LOW_ACE, HIGH_ACE))]


@settings(max_examples=examples(400), deadline=None)
@given(hand=hands(), sets_allowed=st.sampled_from(SETS_ALLOWED),
       rules=st.sampled_from(RULES), values=st.sampled_from(["indonesian", "flat"]))
def test_best_partition_matches_a_brute_force_over_every_partition(
    hand: list[str], sets_allowed: SetsAllowed, rules: MeldRules, values: str
) -> None:
    value = card_value if values == "indonesian" else _flat
    found = best_partition(hand, rules, value, sets_allowed=sets_allowed)
    assert found.score == brute_force_partition_score(hand, rules, value,
                                                      sets_allowed=sets_allowed)
    # The partition is a real one, and its score is what it says.
    laid = [c for m in found.melds for c in m.cards]
    assert len(laid) == len(set(laid))
    assert sorted(laid + list(found.rest)) == sorted(hand)
    for meld in found.melds:
        assert (is_run if meld.kind == "run" else is_set)(list(meld.cards), rules)
    kinds = {m.kind for m in found.melds}
    if sets_allowed is False:
        assert "set" not in kinds
    if sets_allowed == "with_run" and "set" in kinds:
        assert "run" in kinds
    plus = sum(value(c) for c in laid)
    assert found.score == plus - sum(value(c) for c in found.rest)
    # The same hand in another order gives the same answer.
    again = best_partition(list(reversed(hand)), rules, value, sets_allowed=sets_allowed)
    assert again == found


def _flat(card: str) -> int:
    return 1
