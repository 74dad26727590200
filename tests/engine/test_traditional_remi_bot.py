"""The Traditional Remi bot: hand-built positions, then whole seeded deals through the rules.

Positions are views as :meth:`TraditionalRemi.view` builds them for the bot's
seat (seat 0, on turn). Hands are written as space-separated card ids.
"""

from __future__ import annotations

import copy
from functools import partial

import pytest

from engine.bots import find_bot
from engine.bots.traditional_remi import choose
from engine.games.rummy import RummyState
from engine.games.traditional_remi import TraditionalRemi
from engine.rng import Rng
from tests.engine.rummy_harness import STOCK, RummyTable, discard, meld, seat0_view

GAME = TraditionalRemi()
TABLE = RummyTable(GAME, choose=choose)
TURN_CAP = 400  # turns; a deal with the bot normally ends in under 60

# A one-deal match with a fixed deal (seat 1 deals, so seat 0 plays first);
# the bot's whole turn, checked against legal_actions (the state and its actions).
scenario_deal = TABLE.one_deal
bot_turn = TABLE.bot_turn


# Seat 0's view on its own turn: view(hand, step=, melds=, discard=, opponent_cards=,
# stock_count=); ``melds`` are (kind, cards) owned by seat 1.
view = partial(seat0_view, "traditional_remi", discard="KC2", stock_count=30,
               opponent_cards=10, options={"deals": 1, "stake": 0}, pot=0, payouts=None)


JUNK = "3S1 6S1 9S1 QS1 2C1 5C1 8C1 AD1 4D1 9D1"
# Eleven cards: a heart run, a set of sevens, and KS1 KD1 QC2 outside any meld.
HOLDING = "AH1 2H1 3H1 4H1 7S1 7D1 7C1 KS1 KD1 QC2 5H1"


# --- when to act ----------------------------------------------------------------------


def test_waits_unless_it_is_playing_and_on_turn() -> None:
    assert choose({**view("2C1 3D1 9S1"), "turn": 1}) is None
    assert choose({**view("2C1 3D1 9S1"), "phase": "deal_over", "turn": None}) is None
    assert choose({**view("2C1 3D1 9S1"), "phase": "game_over", "turn": None}) is None


def test_same_view_same_action_and_the_view_is_left_alone() -> None:
    position = view(HOLDING, melds=[("run", "4D2 5D2 6D2")])
    before = copy.deepcopy(position)
    assert choose(position) == choose(position)
    assert position == before


# --- the draw -------------------------------------------------------------------------


def test_takes_the_discard_that_completes_a_set_of_different_suits() -> None:
    hand = "7H1 7D1 2S1 9S1 KD1 4C1 JC2 QH2 5S2 TD2"
    assert choose(view(hand, step="draw", discard="4C2 7C2")) == {
        "kind": "draw", "from": "discard"}
    # A second seven of diamonds makes no set (TR-5).
    assert choose(view(hand, step="draw", discard="4C2 7D2")) == {
        "kind": "draw", "from": "stock"}


def test_takes_the_discard_that_extends_a_run_with_the_ace_high() -> None:
    hand = "QH1 KH1 9S1 2D1 5C1 JS2 7D2 3C2 8S1 4S2"
    assert choose(view(hand, step="draw", discard="AH2")) == {"kind": "draw", "from": "discard"}


def test_draws_from_the_stock_when_the_discard_is_no_use() -> None:
    hand = "7H1 7D1 2S1 9S1 KD1 4C1 JC2 QH2 5S2 TD2"
    assert choose(view(hand, step="draw", discard="3C1")) == {"kind": "draw", "from": "stock"}
    assert choose(view(hand, step="draw", discard="")) == {"kind": "draw", "from": "stock"}


# --- the hunt -------------------------------------------------------------------------


def test_holds_its_melds_back_for_the_hunt() -> None:
    # Nothing laid yet (eleven cards): it only discards, the highest deadwood.
    action = choose(view(HOLDING))
    assert action is not None and action["kind"] == "discard"
    assert action["card"] in ("KS1", "KD1", "QC2")


def test_gives_up_the_hunt_when_an_opponent_is_about_to_go_out() -> None:
    action = choose(view(HOLDING, opponent_cards=2))
    assert action is not None and action["kind"] == "meld"


def test_lays_down_once_it_has_laid_down_before() -> None:
    # Nine cards after the draw: something went down in an earlier turn.
    action = choose(view("AH1 2H1 3H1 4H1 7S1 7D1 7C1 KS1 QC2"))
    assert action is not None and action["kind"] == "meld"


def test_goes_out_with_a_hunt_in_a_real_deal() -> None:
    state = scenario_deal(["AH1 2H1 3H1 4H1 5H1 7S1 7D1 7C1 KS1 KD1", JUNK],
                          stock="KC1 QC1", discard="JH2")
    state, actions = bot_turn(state)
    assert [a["kind"] for a in actions] == ["draw", "meld", "meld", "meld", "discard"]
    assert state.result is not None
    assert state.result["winner"] == 0 and state.result["hunt"] is True
    assert state.result["penalties"] == [0, 67 + 25]


def test_goes_out_through_lay_offs_on_the_table() -> None:
    melds = [("run", "4S2 5S2 6S2"), ("set", "9H2 9D2 9C2")]
    first = choose(view("7S1 9S1 2C1", melds=melds))
    assert first in ({"kind": "lay_off", "card": "7S1", "meld": "m1"},
                     {"kind": "lay_off", "card": "9S1", "meld": "m2"})
    melds = [("run", "4S2 5S2 6S2 7S1"), ("set", "9H2 9D2 9C2")]
    assert choose(view("9S1 2C1", melds=melds)) == {"kind": "lay_off", "card": "9S1",
                                                    "meld": "m2"}
    melds = [("run", "4S2 5S2 6S2 7S1"), ("set", "9H2 9D2 9C2 9S1")]
    assert choose(view("2C1", melds=melds)) == {"kind": "discard", "card": "2C1"}


def test_never_lays_down_its_last_card() -> None:
    # The kings would empty the hand; a deal is won only by a discard (TR-10).
    action = choose(view("KS1 KD1 KC1"))
    assert action is not None and action["kind"] == "discard"


# --- gradual play and the discard ---------------------------------------------------------


def test_lays_off_on_an_opponents_meld_in_a_real_deal() -> None:
    state = scenario_deal(
        ["7S1 3D1 9C1 KH1 2H1 5D1 8D1 JD1 QC1 AC1", "4S1 5S1 6S1 3H1 3S1 3C1 8C2 8H2 8S2 JS1"],
        stock="KD1 QD1 JH1", discard="2C1",
    )
    state = TABLE.play_turn(state, 0, STOCK, discard("KD1"))
    state = TABLE.play_turn(state, 1, STOCK, meld("4S1 5S1 6S1"), meld("3H1 3S1 3C1"),
                            meld("8C2 8H2 8S2"), discard("QD1"))
    # Seat 1 has one card left: the bot stops hunting and sheds what it can.
    state, actions = bot_turn(state)
    assert {"kind": "lay_off", "card": "7S1", "meld": "m1"} in actions
    assert {"kind": "lay_off", "card": "3D1", "meld": "m2"} in actions
    assert state.melds[0].cards == ("4S1", "5S1", "6S1", "7S1")


def test_keeps_a_pair_that_can_still_make_a_set_across_two_decks() -> None:
    hand = "KH1 KD1 5C1 8D2 3S2 9C2 2H2"
    assert choose(view(hand)) == {"kind": "discard", "card": "9C2"}


def test_a_pair_whose_other_suits_are_all_gone_is_no_reason_to_keep() -> None:
    # Both copies of the king of spades and of clubs are in the discard pile.
    hand = "KH1 KD1 5C1 8D2 3S2 9C2 2H2"
    action = choose(view(hand, discard="KS1 KC1 KS2 KC2 4H1"))
    assert action is not None and action["card"] in ("KH1", "KD1")


def test_two_copies_of_one_card_make_no_pair() -> None:
    action = choose(view("KH1 KH2 5C1 8D2 3S2 9C2 2H2"))
    assert action is not None and action["card"] in ("KH1", "KH2")


def test_discards_an_ace_first_it_counts_eleven() -> None:
    assert choose(view("AS1 KD1 5C1 8D2 6H2 9C2 2H2")) == {"kind": "discard", "card": "AS1"}


def test_near_the_end_it_keeps_the_near_meld_with_more_outs() -> None:
    # Two near-melds, one card must go. 4H1 and 7H2 are gone, so 5H1 6H1 wait
    # for two cards; KD1 KS1 wait for any of four (KH and KC, two decks). By
    # value alone a king would go; counting the draws that win next turn, a
    # heart goes.
    action = choose(view("5H1 6H1 KD1 KS1", discard="4H1 7H2"))
    assert action is not None and action["kind"] == "discard"
    assert action["card"] in ("5H1", "6H1")
    # With every draw equally good, the higher card goes.
    action = choose(view("5H1 6H1 KD1 KS1", discard=""))
    assert action is not None and action["card"] in ("KD1", "KS1")


def test_keeps_three_cards_with_a_live_pair_rather_than_two() -> None:
    # Laying 8C1 off would leave two cards, and from two cards no single draw
    # finishes a hand. Keeping 2D2 2H1 QS1, a third two makes a set and QS1
    # is the closing discard (TR-10).
    action = choose(view("2D2 2H1 QS1 8C1", melds=[("run", "9C1 TC1 JC1")]))
    assert action == {"kind": "discard", "card": "8C1"}


# --- whole deals through the rules ----------------------------------------------------


def play_deal(seed: int, players: dict[int, str], rng: Rng) -> RummyState:
    """Plays one seeded deal; ``players`` maps a seat to "bot" or "random"."""
    return TABLE.play_deal(seed, players, rng, turn_cap=TURN_CAP)


@pytest.mark.parametrize("count", [2, 3, 4])
def test_bots_against_each_other_play_only_legal_actions_and_finish(count: int) -> None:
    for seed in range(12):
        state = play_deal(seed, dict.fromkeys(range(count), "bot"), Rng(seed))
        assert state.phase == "game_over", f"seed {seed}: the deal did not end"


def test_bot_beats_the_random_legal_player_by_a_wide_margin() -> None:
    wins = {"bot": 0, "random": 0}
    penalties = {"bot": 0, "random": 0}
    for winner, players, result in TABLE.won_against_random(100, turn_cap=TURN_CAP):
        wins[winner] += 1
        for seat, penalty in enumerate(result["penalties"]):
            penalties[players[seat]] += penalty
    decided = wins["bot"] + wins["random"]
    assert decided >= 95
    assert wins["bot"] > 0.9 * decided
    assert penalties["random"] > 10 * penalties["bot"]


def test_the_registry_finds_this_bot_for_the_game() -> None:
    position = view(HOLDING)
    assert find_bot(GAME.name)(position, 0) == choose(position)
