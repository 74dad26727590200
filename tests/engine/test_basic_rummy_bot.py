"""The Basic Rummy bot: hand-built positions, then whole seeded deals through the rules.

Positions are views as :meth:`BasicRummy.view` builds them for the bot's seat
(seat 0, on turn). Hands are written as space-separated card ids.
"""

from __future__ import annotations

import copy
from functools import partial

import pytest

from engine.bots.basic_rummy import choose, melds_in
from engine.bots.random_legal import choose_random
from engine.games.basic_rummy import BasicRummy
from engine.games.rummy import RummyState
from engine.rng import Rng
from tests.engine.rummy_harness import (
    ONE_DEAL,
    STOCK,
    RummyTable,
    cards,
    discard,
    meld,
    seat0_view,
)
from tests.engine.rummy_harness import normal_meld as normal

GAME = BasicRummy()
TABLE = RummyTable(GAME, choose=choose)
TURN_CAP = 400  # turns; a deal between bots normally ends in under 60

# A one-deal match with a fixed deal (seat 1 deals, so seat 0 plays first);
# the bot's whole turn, checked against legal_actions (the state and its actions).
scenario_deal = TABLE.one_deal
bot_turn = TABLE.bot_turn


# Seat 0's view on its own turn: view(hand, step=, melds=, discard=, must=, can_meld=,
# stock_count=); ``melds`` are (kind, cards) owned by seat 1.
view = partial(seat0_view, "basic_rummy", discard="KC", stock_count=20, opponent_cards=7,
               options={"deals": 1, "target": None})


# --- when to act ----------------------------------------------------------------------


def test_waits_unless_it_is_playing_and_on_turn() -> None:
    assert choose({**view("2C 3D 9S"), "turn": 1}) is None
    assert choose({**view("2C 3D 9S"), "phase": "deal_over", "turn": None}) is None
    assert choose({**view("2C 3D 9S"), "phase": "game_over", "turn": None}) is None


def test_same_view_same_action_and_the_view_is_left_alone() -> None:
    position = view("7H 7D 7C 2S 3S 4S 9D KC", melds=[("run", "4D 5D 6D")])
    before = copy.deepcopy(position)
    assert choose(position) == choose(position)
    assert position == before


# --- the draw -------------------------------------------------------------------------


def test_takes_the_discard_that_completes_a_set() -> None:
    assert choose(view("7H 7D 2S 9S KD", step="draw", discard="4C 7C")) == {
        "kind": "draw", "from": "discard"}


def test_takes_the_discard_that_extends_a_run_in_hand() -> None:
    assert choose(view("4S 5S 6S 9D KH", step="draw", discard="7S")) == {
        "kind": "draw", "from": "discard"}


def test_takes_the_discard_that_lays_off_on_the_table() -> None:
    position = view("2C 9S KH", step="draw", discard="7D", melds=[("run", "4D 5D 6D")])
    assert choose(position) == {"kind": "draw", "from": "discard"}


def test_draws_from_the_stock_when_the_discard_is_no_use() -> None:
    assert choose(view("7H 7D 2S 9S KD", step="draw", discard="7C QC")) == {
        "kind": "draw", "from": "stock"}
    assert choose(view("7H 7D 2S", step="draw", discard="")) == {"kind": "draw", "from": "stock"}


def test_takes_the_completing_discard_in_a_real_deal() -> None:
    state = scenario_deal(
        ["7H 7D 2S 5S 9S JS AC 4C TD 3D", "3S 6S 8S QS 2C 5C 8C AD 4D 9D"],
        stock="KC QC", discard="7C",
    )
    state, actions = bot_turn(state)
    assert actions[0] == {"kind": "draw", "from": "discard"}
    assert normal(actions[1]) == {"kind": "meld", "cards": ["7C", "7D", "7H"]}
    assert actions[-1]["kind"] == "discard"


# --- melds and lay-offs ---------------------------------------------------------------


def test_lays_the_meld_that_sheds_the_most_points() -> None:
    action = choose(view("KH KD KC 2S 3S 4S 9D 5C"))
    assert normal(action or {}) == {"kind": "meld", "cards": ["KC", "KD", "KH"]}


def test_lays_a_whole_run_at_once() -> None:
    action = choose(view("2S 3S 4S 5S 6S 9D KC"))
    assert action == {"kind": "meld", "cards": ["2S", "3S", "4S", "5S", "6S"]}


def test_lays_no_second_meld_in_a_turn() -> None:
    action = choose(view("KH KD KC 9D 5C", can_meld=False))
    assert action is not None and action["kind"] == "discard"
    assert action["card"] in ("9D", "5C")


def test_lays_off_every_card_that_fits() -> None:
    melds = [("run", "4S 5S 6S"), ("set", "3H 3S 3C")]
    assert choose(view("7S 3D 9C KH", can_meld=False, melds=melds)) == {
        "kind": "lay_off", "card": "7S", "meld": "m1"}
    melds = [("run", "4S 5S 6S 7S"), ("set", "3H 3S 3C")]
    assert choose(view("3D 9C KH", can_meld=False, melds=melds)) == {
        "kind": "lay_off", "card": "3D", "meld": "m2"}
    melds = [("run", "4S 5S 6S 7S"), ("set", "3H 3S 3C 3D")]
    assert choose(view("9C KH", can_meld=False, melds=melds)) == {
        "kind": "discard", "card": "KH"}


def test_lays_off_on_an_opponents_meld_in_a_real_deal() -> None:
    state = scenario_deal(
        ["7S 3D 9C KH 2H 5D 8D JD QC AC", "4S 5S 6S 3H 3S 3C 8C 8H TS JS"],
        stock="KD QD JH", discard="2C",
    )
    state = TABLE.play_turn(state, 0, STOCK, discard("KD"))
    state = TABLE.play_turn(state, 1, STOCK, meld("4S 5S 6S"), discard("QD"))
    state, actions = bot_turn(state)
    assert {"kind": "lay_off", "card": "7S", "meld": "m1"} in actions
    assert state.melds[0].cards == ("4S", "5S", "6S", "7S")


def test_keeps_a_set_in_hand_rather_than_break_it_for_a_lay_off() -> None:
    position = view("7S 7H 7D 2C 9C", can_meld=False, melds=[("run", "4S 5S 6S")])
    action = choose(position)
    assert action is not None and action["kind"] == "discard"
    assert action["card"] == "9C"


# --- the discard ----------------------------------------------------------------------


def test_discards_the_highest_deadwood_card_outside_near_melds() -> None:
    # KH KD wait for KS or KC; 5C 6C for 4C or 7C; QS stands alone.
    action = choose(view("KH KD QS 5C 6C 2D", can_meld=False))
    assert action == {"kind": "discard", "card": "QS"}


def test_a_near_meld_whose_cards_are_gone_is_no_reason_to_keep() -> None:
    # Both other kings are in the discard pile, so KH KD is a dead pair.
    action = choose(view("KH KD QS QC 2D", can_meld=False, discard="KS KC 4H"))
    assert action is not None and action["card"] in ("KH", "KD")


def test_never_discards_the_card_taken_from_the_discard_pile() -> None:
    # KS is the worst card in hand, but it was just taken (BR-12).
    action = choose(view("KS 2C 3C 2H 3H", can_meld=False, must="KS"))
    assert action is not None and action["kind"] == "discard"
    assert action["card"] != "KS"


def test_never_leaves_only_the_taken_card() -> None:
    # Laying off 7S would leave only 9D, which may not be discarded this turn.
    action = choose(view("7S 9D", must="9D", melds=[("run", "4S 5S 6S")]))
    assert action == {"kind": "discard", "card": "7S"}


def test_breaks_a_near_meld_when_the_stock_is_empty() -> None:
    # With the pile about to come round again unshuffled, waiting on the same
    # pair could go on for ever: the bot gives up its second choice.
    assert choose(view("AD AH 9D", can_meld=False, stock_count=20)) == {
        "kind": "discard", "card": "9D"}
    action = choose(view("AD AH 9D", can_meld=False, stock_count=0))
    assert action is not None and action["card"] in ("AD", "AH")


# --- going out ------------------------------------------------------------------------


def test_goes_out_by_melding_the_whole_hand() -> None:
    state = scenario_deal(
        ["AH 2H 3H 4H 5H 6H 7H 8H 9H TH", "3S 6S 9S QS 2C 5C 8C AD 4D 9D"],
        stock="KC QC", discard="JH",
    )
    state, actions = bot_turn(state)
    assert [a["kind"] for a in actions] == ["draw", "meld"]
    assert state.result is not None
    assert state.result["winner"] == 0 and state.result["rummy"]  # BR-16: in one turn


def test_goes_out_by_discarding_the_last_card() -> None:
    position = view("5H 5D 5C QD", can_meld=True)
    assert normal(choose(position) or {}) == {"kind": "meld", "cards": ["5C", "5D", "5H"]}
    assert choose(view("QD", can_meld=False)) == {"kind": "discard", "card": "QD"}


def test_lays_off_the_taken_card_first_when_melding_first_would_strand_it() -> None:
    # Melding 5H 5D 5C first would leave only 8S, taken from the discard pile:
    # refused (BR-12). Laying 8S off first, then melding, empties the hand.
    position = view("5H 5D 5C 8S", must="8S", melds=[("run", "5S 6S 7S")])
    assert choose(position) == {"kind": "lay_off", "card": "8S", "meld": "m1"}
    position = view("5H 5D 5C", must="8S", melds=[("run", "5S 6S 7S 8S")])
    assert normal(choose(position) or {}) == {"kind": "meld", "cards": ["5C", "5D", "5H"]}


def test_breaks_a_set_in_hand_when_laying_it_all_off_goes_out() -> None:
    # 7S 7H 7D is a set in hand, but no meld may be laid this turn: laying off
    # 7S and 7H leaves one card to discard, which wins the deal.
    melds = [("run", "4S 5S 6S"), ("run", "8H 9H TH")]
    assert choose(view("7S 7H 7D", can_meld=False, melds=melds)) == {
        "kind": "lay_off", "card": "7S", "meld": "m1"}
    melds = [("run", "4S 5S 6S 7S"), ("run", "8H 9H TH")]
    assert choose(view("7H 7D", can_meld=False, melds=melds)) == {
        "kind": "lay_off", "card": "7H", "meld": "m2"}
    melds = [("run", "4S 5S 6S 7S"), ("run", "7H 8H 9H TH")]
    assert choose(view("7D", can_meld=False, melds=melds)) == {"kind": "discard", "card": "7D"}


def test_melds_in_finds_every_run_and_set() -> None:
    found = {frozenset(m) for m in melds_in(cards("AS 2S 3S 4S 4H 4D QC KC"))}
    assert frozenset(cards("AS 2S 3S")) in found
    assert frozenset(cards("2S 3S 4S")) in found
    assert frozenset(cards("AS 2S 3S 4S")) in found
    assert frozenset(cards("4S 4H 4D")) in found
    assert len(found) == 4
    assert melds_in(cards("QC KC AC")) == []  # BR-6: ace low only


# --- whole deals through the rules ----------------------------------------------------


def play_deal(seed: int, players: dict[int, str], rng: Rng) -> RummyState:
    """Plays one seeded deal; ``players`` maps a seat to "bot" or "random"."""
    return TABLE.play_deal(seed, players, rng, turn_cap=TURN_CAP)


@pytest.mark.parametrize("seeds", [range(k, k + 30) for k in (0, 30, 60, 90)],
                         ids=lambda r: f"{r.start}-{r.stop - 1}")
def test_bot_against_bot_plays_only_legal_actions(seeds: range) -> None:
    finished = 0
    for seed in seeds:
        state = play_deal(seed, {0: "bot", 1: "bot"}, Rng(seed))
        finished += state.phase == "game_over"
    # A deal can reach a position nobody can ever go out from; nearly all end.
    assert finished >= len(seeds) - 1


def test_bot_beats_the_random_legal_player_by_a_wide_margin() -> None:
    wins = {"bot": 0, "random": 0}
    for winner, _, _ in TABLE.won_against_random(100, turn_cap=TURN_CAP):
        wins[winner] += 1
    decided = wins["bot"] + wins["random"]
    assert decided >= 90
    assert wins["bot"] > 0.75 * decided


def test_random_legal_player_is_legal_and_repeatable() -> None:
    state = GAME.setup(ONE_DEAL, 2, 3, 0)
    first, second = Rng(42), Rng(42)
    for _ in range(60):
        if not GAME.to_act(state):
            break
        seat = GAME.to_act(state)[0]
        action = choose_random(GAME, state, seat, first)
        assert action == choose_random(GAME, state, seat, second)
        assert action in GAME.legal_actions(state, seat)
        state, _ = GAME.apply(state, seat, action, 0)
