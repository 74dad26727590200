"""Traditional Remi, one or more tests per rule (TR-1..TR-14 in docs/rules/traditional-remi.md).

Most tests lay out an exact position with a scenario (a fixed first deal).
Hands are written as space-separated card ids with their deck number; the
scenario stock is listed top first and the discard pile bottom to top, as on
the wire.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.bots.traditional_remi import choose
from engine.cards import is_standard_card, standard_deck
from engine.errors import BadOptions
from engine.games import find_game
from engine.games.rummy import RummyState
from engine.games.traditional_remi import TraditionalRemi, prize_payouts
from engine.options import validate_room_options
from engine.rng import Rng
from tests.engine.rummy_harness import RummyTable, all_cards, cards, discard, lay_off, meld
from tests.games import known_game

GAME = TraditionalRemi()
TABLE = RummyTable(GAME, choose=choose)
STOCK = {"kind": "draw", "from": "stock"}
PILE = {"kind": "draw", "from": "discard"}

deal, play, play_turn, refused = TABLE.deal, TABLE.play, TABLE.play_turn, TABLE.refused
finish_deal = TABLE.finish_deal  # the bot in every seat


# Junk hands: no two cards of one rank, no two of a suit within two ranks.
JUNK0 = "2S1 5S1 8S1 JS1 AC1 4C1 7C2 3D1 6D1 TD1"
JUNK1 = "3S1 6S1 9S1 QS1 2C1 5C1 8C1 AD1 4D1 9D1"  # worth 67 (the ace 11)
# A hand that is all melds once KC1 joins: a run, a set of sevens, the kings.
HUNTER = "AH1 2H1 3H1 4H1 5H1 7S1 7D1 7C1 KS1 KD1"


# --- Setup ------------------------------------------------------------------------------


def test_tr_1_two_decks_of_104_distinct_cards_no_jokers() -> None:
    for players in (2, 3, 4):
        state = GAME.setup(GAME.validate_options({}, players), players, seed=players, now=0)
        found = all_cards(state)
        assert sorted(found) == sorted(standard_deck(2))
        assert len(set(found)) == 104
        assert all(is_standard_card(c, 2) for c in found)


def test_tr_1_two_to_four_players() -> None:
    TABLE.check_player_counts(2, 4)


def test_tr_1_card_ids_carry_the_deck_number() -> None:
    hands = [cards(JUNK0), cards(JUNK1)]
    for bad in (["AH"], ["AH3"], ["AH0"], ["AH1", "AH1"], ["2S1"], [7]):
        with pytest.raises(BadOptions):
            GAME.validate_options({"scenario": {"dealer": 0, "hands": hands, "stock": bad}}, 2)
    # Both copies of a card may be named: they are different cards.
    GAME.validate_options({"scenario": {"dealer": 0, "hands": hands, "stock": ["AH1", "AH2"]}},
                          2)


def test_tr_2_card_values_ace_eleven_pips_face_value_courts_ten() -> None:
    hand1 = "AS1 AC2 2C1 5D1 9D1 TS1 JC1 QD1 KS2 3C1"
    state = deal([HUNTER, hand1], stock="KC1", discard="QC1")
    state = _hunt(state)
    assert state.result is not None
    assert state.result["hand_values"] == [0, 11 + 11 + 2 + 5 + 9 + 10 + 10 + 10 + 10 + 3]


def test_tr_3_ten_cards_each_and_an_upcard() -> None:
    for players in (2, 3, 4):
        state = GAME.setup(GAME.validate_options({}, players), players, seed=99, now=0)
        assert [len(h) for h in state.hands] == [10] * players
        assert len(state.discard) == 1
        spectator = GAME.view(state, None)
        assert spectator["stock_count"] == 104 - 10 * players - 1
        assert [s["hand_count"] for s in spectator["seats"]] == [10] * players
        shown = json.dumps(spectator)
        assert not any(f'"{c}"' in shown for c in state.stock)


def test_tr_3_cards_are_dealt_one_at_a_time_and_the_next_is_turned_up() -> None:
    seed, players = 2024, 3
    state = GAME.setup(GAME.validate_options({}, players), players, seed=seed, now=0)
    rng = Rng(seed)
    dealer = rng.below(players)
    deck = standard_deck(2)
    rng.shuffle(deck)
    first = (dealer + 1) % players
    assert state.dealer == dealer
    assert state.hands[first] == deck[0:30:3]
    assert state.hands[dealer] == deck[2:30:3]
    assert state.discard == [deck[30]]
    assert state.stock[-1] == deck[31]  # the top of the stock is the next card


def test_tr_3_scenario_hands_must_have_ten_cards() -> None:
    short = [cards(JUNK0)[:9], cards(JUNK1)[:9]]
    with pytest.raises(BadOptions):
        GAME.validate_options({"scenario": {"dealer": 0, "hands": short}}, 2)
    with pytest.raises(BadOptions):
        GAME.validate_options({"scenario": {"dealer": 0, "hands": [cards(JUNK0)]}}, 2)


def test_tr_3b_first_dealer_is_random_but_seeded() -> None:
    dealers = [GAME.setup(GAME.validate_options({}, 4), 4, seed=s, now=0).dealer
               for s in range(40)]
    assert set(dealers) == {0, 1, 2, 3}
    assert dealers == [GAME.setup(GAME.validate_options({}, 4), 4, seed=s, now=0).dealer
                       for s in range(40)]


def test_tr_3b_the_player_after_the_dealer_starts_and_play_goes_clockwise() -> None:
    hands = [JUNK0, JUNK1, "2H1 5H1 8H1 JH1 AH2 4H2 7H2 TH2 KH2 3C2",
             "2D2 5D2 8D2 JD2 AS2 4S2 7S2 TS2 KS2 6C2"]
    state = deal(hands, stock="8S2 8H2 8D1 8C2 9S2", discard="KC1", dealer=2)
    # Every other seat is refused as not on turn (NotYourTurn) before each turn.
    assert TABLE.turn_order(state, 5, STOCK) == [3, 0, 1, 2, 3]


def test_tr_3b_the_deal_passes_to_the_next_seat() -> None:
    # No stock and no upcard: nothing can be drawn, the first deal ends void (TR-4).
    hands = [JUNK0, JUNK1, "2H1 5H1 8H1 JH1 AH2 4H2 7H2 TH2 KH2 3C2"]
    state = deal(hands, dealer=2, deals=5)
    assert state.phase == "deal_over"
    seen = [state.dealer]
    while len(seen) < 4:
        state, events = GAME.apply(state, 0, {"kind": "next_deal"}, 0)
        assert events == [{"kind": "deal_started", "deal": state.deal, "dealer": state.dealer}]
        assert state.turn == (state.dealer + 1) % 3
        seen.append(state.dealer)
        state = finish_deal(state)
    assert seen == [2, 0, 1, 2]


# --- TR-4: the stock is rebuilt -----------------------------------------------------------


def _stock_ran_out() -> RummyState:
    state = deal([JUNK0, JUNK1], stock="KC1", discard="QC1 JH2 4D2")
    state = play_turn(state, 0, STOCK, discard("KC1"))
    assert state.stock == [] and state.discard == ["QC1", "JH2", "4D2", "KC1"]
    assert state.phase == "playing"
    return state


def test_tr_4_an_empty_stock_is_the_pile_shuffled_keeping_its_top_card() -> None:
    state = _stock_ran_out()
    assert GAME.view(state, None)["stock_count"] == 0
    new, events = play(state, 1, STOCK)
    assert events == [{"kind": "stock_shuffled", "count": 3},
                      {"kind": "drew", "seat": 1, "from": "stock"}]
    assert new.discard == ["KC1"]
    # The shuffle comes from the rng carried in the state, so it is reproducible.
    rng = Rng(state.rng)
    expected = ["QC1", "JH2", "4D2"]
    rng.shuffle(expected)
    assert new.rng == rng.state != state.rng
    assert new.hands[1][-1] == expected[-1]
    assert new.stock == expected[:-1]
    assert GAME.apply(state, 1, STOCK, 0)[0] == new


def test_tr_4_the_player_may_take_the_top_of_the_pile_instead() -> None:
    state = _stock_ran_out()
    state, events = play(state, 1, PILE)
    assert [e["kind"] for e in events] == ["drew"]
    assert state.hands[1][-1] == "KC1" and state.stock == []
    assert state.discard == ["QC1", "JH2", "4D2"]


def test_tr_4_deal_is_void_when_no_stock_can_be_rebuilt() -> None:
    # Decision: the stock is empty and the pile has fewer than two cards, so no
    # stock can be made while keeping the top card: the deal ends void.
    state = deal([JUNK0, JUNK1], stock="KC1", discard="", now=0, deals=3)
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, discard("2S1"), now=500)
    assert [e["kind"] for e in events] == ["discarded", "deal_over"]
    assert state.phase == "deal_over"
    assert state.result is not None
    assert state.result["void"] is True and state.result["winner"] is None
    assert state.result["penalties"] == [0, 0] and state.result["hunt"] is False
    assert state.scores == [0, 0]
    assert state.next_deal_at == 500 + 6000
    state, _ = GAME.on_timeout(state, 6500)
    assert state.deal == 2  # a void deal counts as one of the match's deals
    assert sorted(all_cards(state)) == sorted(standard_deck(2))


def test_tr_4_a_scenario_without_stock_or_pile_is_void_at_once() -> None:
    state = deal([JUNK0, JUNK1], discard="QC1")
    assert state.phase == "deal_over"
    assert state.result is not None and state.result["void"] is True


# --- Melds --------------------------------------------------------------------------------


SET_HAND = "7S1 7S2 7H1 7D1 7C1 9S2 9H1 9D2 KC1 2D1"


def test_tr_5_a_set_is_three_or_four_cards_of_one_rank_in_different_suits() -> None:
    state = deal([SET_HAND, JUNK1], stock="QC2", discard="KD1")
    state, _ = play(state, 0, STOCK)
    assert "TR-5" in refused(state, 0, meld("7S1 7S2 7H1"))  # two spades
    refused(state, 0, meld("7S1 7S2 7H1 7D1"))
    refused(state, 0, meld("7S1 7H1"))
    state, events = play(state, 0, meld("7S1 7H1 7D1"))
    assert events[0]["meld"] == {"id": "m1", "kind": "set", "cards": ["7S1", "7H1", "7D1"]}
    refused(state, 0, lay_off("7S2", "m1"))  # a second spade
    state, _ = play(state, 0, lay_off("7C1", "m1"))
    assert state.melds[0].cards == ("7S1", "7H1", "7D1", "7C1")
    assert "7S2" in state.hands[0]


RUN_HAND = "AS2 2S2 3S2 QH1 KH1 AH1 2H1 5D1 5D2 KS1"


def test_tr_6_a_run_may_have_the_ace_low_or_high() -> None:
    state = deal([RUN_HAND, JUNK1], stock="6D1", discard="KD1")
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, meld("3S2 AS2 2S2"))
    assert events[0]["meld"] == {"id": "m1", "kind": "run", "cards": ["AS2", "2S2", "3S2"]}
    state, events = play(state, 0, meld("AH1 QH1 KH1"))
    assert events[0]["meld"] == {"id": "m2", "kind": "run", "cards": ["QH1", "KH1", "AH1"]}


def test_tr_6_never_round_the_corner_never_both_ends_no_repeated_rank() -> None:
    state = deal([RUN_HAND, JUNK1], stock="6D1", discard="KD1")
    state, _ = play(state, 0, STOCK)
    assert "TR-6" in refused(state, 0, meld("KH1 AH1 2H1"))
    refused(state, 0, meld("5D1 5D2 6D1"))  # two fives of diamonds
    state, _ = play(state, 0, meld("AS2 2S2 3S2"))
    refused(state, 0, lay_off("KS1", "m1"))  # K-A-2-3 goes round the corner
    state, _ = play(state, 0, meld("QH1 KH1 AH1"))
    refused(state, 0, lay_off("2H1", "m2"))  # the ace is high here, it cannot be low too
    state, _ = play(state, 0, discard("KS1"))


# --- A turn -------------------------------------------------------------------------------


def test_tr_7_draw_the_top_of_the_stock_or_of_the_pile() -> None:
    state = deal([JUNK0, JUNK1], stock="KC1 QC1", discard="9C2 TC2")
    drawn, events = play(state, 0, STOCK)
    assert drawn.hands[0][-1] == "KC1"
    assert events == [{"kind": "drew", "seat": 0, "from": "stock"}]  # the card stays hidden
    taken, events = play(state, 0, PILE)
    assert taken.hands[0][-1] == "TC2" and taken.discard == ["9C2"]
    assert events == [{"kind": "drew", "seat": 0, "from": "discard", "card": "TC2"}]


def test_tr_7_exactly_one_draw_and_it_comes_first() -> None:
    state = deal([JUNK0, JUNK1], stock="KC1 QC1", discard="9C2")
    assert "TR-7" in refused(state, 0, discard("2S1"))
    refused(state, 0, meld("2S1 5S1 8S1"))
    assert [a["kind"] for a in GAME.legal_actions(state, 0)] == ["draw", "draw"]
    state, _ = play(state, 0, STOCK)
    assert "already drawn" in refused(state, 0, STOCK)
    refused(state, 0, PILE)


# Seat 1 lays 4S 5S 6S; seat 0 then lays two melds and lays off on seat 1's run.
LAYOFF_HANDS = ["7S1 8S1 9H1 9D1 9C1 QD1 KD1 AD2 2C2 3D2",
                "4S1 5S1 6S1 3C1 6H2 8H2 JH2 TD2 2H1 4C2"]


def test_tr_8_any_number_of_melds_and_lay_offs_on_anyones_melds() -> None:
    state = deal(LAYOFF_HANDS, stock="KC1 QC1 9S2", discard="AC2")
    state = play_turn(state, 0, STOCK, discard("KC1"))
    state = play_turn(state, 1, STOCK, meld("4S1 5S1 6S1"), discard("QC1"))
    state = play_turn(state, 0, STOCK, meld("9H1 9D1 9C1"), meld("QD1 KD1 AD2"))
    assert GAME.view(state, 0)["can_meld"] is True  # no limit on melds a turn
    state = play_turn(state, 0, lay_off("7S1", "m1"), lay_off("8S1", "m1"), lay_off("9S2", "m2"))
    assert state.melds[0].cards == ("4S1", "5S1", "6S1", "7S1", "8S1")
    assert state.melds[0].owner == 1 and state.melds[1].owner == 0
    assert state.melds[1].cards == ("9H1", "9D1", "9C1", "9S2")
    assert state.hands[0] == ["2C2", "3D2"] and state.turn == 0
    refused(state, 0, lay_off("2C2", "m2"))  # every meld stays valid
    state, _ = play(state, 0, discard("2C2"))
    assert state.turn == 1


def test_tr_9_a_discard_ends_the_turn() -> None:
    state = deal([JUNK0, JUNK1], stock="KC1", discard="9C2")
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, discard("JS1"))
    assert events == [{"kind": "discarded", "seat": 0, "card": "JS1"}]
    assert state.discard == ["9C2", "JS1"] and state.turn == 1 and state.step == "draw"


def test_tr_9_the_card_taken_from_the_pile_may_be_discarded_at_once() -> None:
    # Decision: TR has no rule against it (unlike Basic Rummy's BR-12).
    state = deal([JUNK0, JUNK1], stock="KC1", discard="9C2")
    state, _ = play(state, 0, PILE)
    assert GAME.view(state, 0)["must_not_discard"] is None
    state, _ = play(state, 0, discard("9C2"))
    assert state.discard == ["9C2"] and state.turn == 1


# --- End of a deal ------------------------------------------------------------------------


def _hunt(state: RummyState) -> RummyState:
    """Seat 0 (holding HUNTER) draws KC1 and lays its whole hand down but 5H1."""
    state = play_turn(state, 0, STOCK, meld("AH1 2H1 3H1 4H1"), meld("7S1 7D1 7C1"),
                      meld("KS1 KD1 KC1"), discard("5H1"))
    return state


def test_tr_10_a_deal_is_won_by_discarding_the_last_card() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2)
    state = play_turn(state, 0, STOCK, meld("AH1 2H1 3H1 4H1 5H1"), meld("7S1 7D1 7C1"))
    # The kings would leave no card to discard.
    assert "TR-10" in refused(state, 0, meld("KS1 KD1 KC1"))
    assert [a["kind"] for a in GAME.legal_actions(state, 0)] == ["discard"] * 3
    state, _ = play(state, 0, discard("KC1"))
    assert state.phase == "playing" and state.turn == 1


def test_tr_10_a_lay_off_that_would_leave_no_card_is_refused() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2)
    state = play_turn(state, 0, STOCK, meld("AH1 2H1 3H1 4H1"), meld("7S1 7D1 7C1"),
                      meld("KS1 KD1 KC1"))
    assert state.hands[0] == ["5H1"]
    assert "keep_a_discard TR-10" in refused(state, 0, lay_off("5H1", "m1"))
    assert GAME.legal_actions(state, 0) == [discard("5H1")]
    state, events = play(state, 0, discard("5H1"))
    assert [e["kind"] for e in events] == ["discarded", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0
    for seat in (0, 1):
        refused(state, seat, STOCK)
        assert GAME.legal_actions(state, seat) == [{"kind": "next_deal"}]


def test_tr_11_gradual_win_penalises_every_other_player_by_their_hand() -> None:
    hand2 = "2H2 3H2 4H2 5S2 TC1 JC1 QC1 9S2 6D2 8D2"
    state = deal([HUNTER, JUNK1, hand2], stock="9C2 QS2 JD1 KC1", discard="3C2", deals=2)
    # The sevens are laid down in an earlier turn.
    state = play_turn(state, 0, STOCK, meld("7S1 7D1 7C1"), discard("9C2"))
    state = play_turn(state, 1, STOCK, discard("QS2"))
    state = play_turn(state, 2, STOCK, meld("2H2 3H2 4H2"), discard("JD1"))
    state = play_turn(state, 0, STOCK, meld("AH1 2H1 3H1 4H1"), meld("KS1 KD1 KC1"))
    state, events = play(state, 0, discard("5H1"))
    assert state.result is not None
    values = [0, 67, 5 + 10 + 10 + 10 + 9 + 6 + 8]
    assert state.result["hand_values"] == values
    assert state.result["penalties"] == values and state.result["hunt"] is False
    assert state.scores == values
    assert events[-1] == {"kind": "deal_over", "deal": 1, "winner": 0, "penalties": values,
                          "hunt": False, "void": False}


def test_tr_12_hunt_adds_25_to_every_other_players_penalty() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2)
    state = _hunt(state)
    assert state.result is not None
    assert state.result["hunt"] is True
    assert state.result["penalties"] == [0, 67 + 25]
    assert state.scores == [0, 92]


def test_tr_12_a_lay_off_in_an_earlier_turn_spoils_the_hunt() -> None:
    hands = ["7S2 AH1 2H1 3H1 4H1 5H1 6H1 KS1 KD1 8D2", OPPONENT]
    state = deal(hands, stock="KC2 QC1 JC1 8H1 KC1", discard="AC2", deals=2)
    state = _opponent_melds_spades(state)
    # Only a lay-off, no meld:
    state = play_turn(state, 0, STOCK, lay_off("7S2", "m1"), discard("JC1"))
    state = play_turn(state, 1, STOCK, discard("8H1"))
    state = play_turn(state, 0, STOCK, meld("AH1 2H1 3H1 4H1 5H1 6H1"), meld("KS1 KD1 KC1"),
                      discard("8D2"))
    assert state.result is not None and state.result["winner"] == 0
    assert state.result["hunt"] is False
    assert state.result["penalties"] == [0, OPPONENT_LEFT]


def test_tr_12_laying_off_on_others_melds_in_the_winning_turn_is_still_a_hunt() -> None:
    hands = ["7S2 8S2 AH1 2H1 3H1 4H1 5H1 KS1 KD1 9D2", OPPONENT]
    state = deal(hands, stock="KC2 QC1 KC1", discard="AC2", deals=2)
    state = _opponent_melds_spades(state)
    state = play_turn(state, 0, STOCK, lay_off("7S2", "m1"), lay_off("8S2", "m1"),
                      meld("AH1 2H1 3H1 4H1 5H1"), meld("KS1 KD1 KC1"), discard("9D2"))
    assert state.result is not None and state.result["hunt"] is True
    assert state.result["penalties"] == [0, OPPONENT_LEFT + 25]


# Seat 1 melds 4S1 5S1 6S1 in its first turn and keeps cards worth 43.
OPPONENT = "4S1 5S1 6S1 3C1 6H2 8H2 JH2 TD2 2H2 4C2"
OPPONENT_LEFT = 3 + 6 + 8 + 10 + 10 + 2 + 4


def _opponent_melds_spades(state: RummyState) -> RummyState:
    """Seat 0 draws and throws the stock's top card, seat 1 melds its spades."""
    state, _ = play(state, 0, STOCK)
    state, _ = play(state, 0, discard(state.hands[0][-1]))
    state = play_turn(state, 1, STOCK, meld("4S1 5S1 6S1"))
    state, _ = play(state, 1, discard(state.hands[1][-1]))
    return state


# --- The match and the prize pool ---------------------------------------------------------


def test_tr_13_a_match_is_five_deals_by_default() -> None:
    assert GAME.default_options() == {"deals": 5, "stake": 0, "deal_pause_ms": 6000}
    assert GAME.validate_options({}, 3) == {"deals": 5, "stake": 0, "deal_pause_ms": 6000}
    assert GAME.validate_options({"deals": 2, "stake": 50}, 2)["deals"] == 2


@pytest.mark.parametrize(
    "options",
    [
        {"deals": 0}, {"deals": 51}, {"deals": "3"}, {"deals": True}, {"deals": None},
        {"stake": -1}, {"stake": 1_000_001}, {"stake": 2.5}, {"stake": False},
        {"deal_pause_ms": -1}, {"deal_pause_ms": 60_001}, {"target": 100}, {"seed": 3},
    ],
)
def test_tr_13_bad_match_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions):
        GAME.validate_options(options, 2)


def test_tr_13_penalties_add_up_and_the_lowest_total_wins() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2)
    state = _hunt(state)
    assert state.phase == "deal_over" and GAME.outcome(state) is None
    state, events = GAME.on_timeout(state, 6000)
    assert events == [{"kind": "deal_started", "deal": 2, "dealer": 0}]
    state = finish_deal(state)
    assert state.phase == "game_over"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == state.scores
    assert state.scores == [a + b for a, b in zip(*(r["penalties"] for r in state.results),
                                                   strict=True)]
    low = min(state.scores)
    assert outcome.winners == [s for s in (0, 1) if state.scores[s] == low]
    assert [r["deal"] for r in outcome.details["deals"]] == [1, 2]
    assert GAME.view(state, 1)["winners"] == outcome.winners


def test_tr_14_prize_pool_worked_example() -> None:
    # Pot 400, four players, gaps 20, 60 and 95 behind the winner.
    assert prize_payouts(400, [10, 30, 70, 105]) == [367, 25, 8, 0]
    # The same through a finished game: four players staking 100 each.
    state = _four_player_match(stake=100)
    data = GAME.snapshot(state)
    data["scores"] = [10, 30, 70, 105]
    final = GAME.restore(data)
    view = GAME.view(final, None)
    assert view["pot"] == 400
    assert view["payouts"] == [367, 25, 8, 0]
    outcome = GAME.outcome(final)
    assert outcome is not None and outcome.winners == [0]
    assert outcome.details["pot"] == 400 and outcome.details["payouts"] == [367, 25, 8, 0]


def test_tr_14_shares_follow_the_integer_formula() -> None:
    pot, n = 1000, 3
    for gap in (0, 1, 40, 79):
        payouts = prize_payouts(pot, [50, 50 + gap + 1, 50 + 200])
        share = pot * 25 * (80 - (gap + 1)) // (100 * (n - 1) * 80)
        assert payouts == [pot - share, share, 0]
    # 80 points behind or more: nothing.
    assert prize_payouts(pot, [0, 80, 81]) == [1000, 0, 0]
    # The winner always keeps at least 75%.
    assert prize_payouts(400, [0, 1, 1, 1])[0] >= 300
    assert sum(prize_payouts(999, [3, 17, 44, 201])) == 999


def test_tr_14_tied_winners_split_what_is_left() -> None:
    # 300*25*(80-40) // (100*2*80) = 18 to the third player; 282 split evenly.
    assert prize_payouts(300, [20, 20, 60]) == [141, 141, 18]
    assert prize_payouts(301, [20, 20]) == [151, 150]


def test_tr_14_no_prize_pool_without_a_stake() -> None:
    state = _four_player_match(stake=0)
    view = GAME.view(state, 0)
    assert view["pot"] == 0 and view["payouts"] is None
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.details["payouts"] is None


def test_tr_14_payouts_only_once_the_match_is_over() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2, stake=10)
    assert GAME.view(state, 0)["pot"] == 20 and GAME.view(state, 0)["payouts"] is None
    state = _hunt(state)
    assert state.phase == "deal_over" and GAME.view(state, None)["payouts"] is None
    state, _ = GAME.apply(state, 1, {"kind": "next_deal"}, 0)
    state = finish_deal(state)
    payouts = GAME.view(state, None)["payouts"]
    assert payouts == prize_payouts(20, state.scores) and sum(payouts) == 20


def _four_player_match(stake: int) -> RummyState:
    """A one-deal four-player match, won by seat 0 with a hunt."""
    hands = [HUNTER, JUNK1, "2H2 5H2 8H1 JH1 AH2 4H2 7H2 TH2 KH2 3C2",
             "2D2 5D2 8D2 JD2 AS2 4S2 7S2 TS2 KS2 6C2"]
    state = deal(hands, stock="KC1", discard="QC1", deals=1, stake=stake)
    state = _hunt(state)
    assert state.phase == "game_over"
    return state


# --- Protocol details the rules rely on ---------------------------------------------------


def test_the_game_is_registered_with_its_catalog_defaults() -> None:
    game = find_game("traditional_remi")
    assert isinstance(game, TraditionalRemi)
    assert game.title == "Traditional Remi" and game.turn_based is True
    opts = validate_room_options(game, {"stake": 5}, 4)
    assert opts["stake"] == 5 and opts["deals"] == 5 and opts["turn_clock_s"] == 60
    assert find_game("basic_rummy") is not None


def test_view_has_the_basic_rummy_keys_and_the_prize_pool() -> None:
    state = deal([JUNK0, JUNK1], stock="KC1", discard="QC1", stake=25)
    keys = {"game", "phase", "step", "you", "dealer", "turn", "deal", "options", "seats",
            "stock_count", "discard", "melds", "must_not_discard", "can_meld", "result",
            "results", "next_deal_at", "winners", "pot", "payouts"}
    assert set(GAME.view(state, 0)) == keys | {"hand"}
    assert set(GAME.view(state, None)) == keys
    view = GAME.view(state, 1)
    assert view["game"] == "traditional_remi"
    assert (view["step"], view["you"], view["dealer"], view["turn"], view["deal"]) == (
        "draw", 1, 1, 0, 1)
    assert view["options"] == {"deals": 5, "stake": 25}
    assert view["hand"] == cards(JUNK1)
    assert view["seats"][0] == {"seat": 0, "hand_count": 10, "score": 0, "melds": []}
    assert (view["pot"], view["payouts"]) == (50, None)


def test_view_after_a_deal_shows_penalties_and_every_hand() -> None:
    state = deal([HUNTER, JUNK1], stock="KC1", discard="QC1", deals=2)
    state = _hunt(state)
    view = GAME.view(state, None)
    assert view["result"] == {"deal": 1, "winner": 0, "penalties": [0, 92], "hunt": True,
                              "void": False, "hand_values": [0, 67],
                              "hands": [[], cards(JUNK1)]}
    assert view["results"] == [{"deal": 1, "winner": 0, "penalties": [0, 92], "hunt": True,
                                "void": False}]
    assert [s["score"] for s in view["seats"]] == [0, 92]
    assert view["turn"] is None and view["step"] is None


@pytest.mark.parametrize(
    "action",
    [
        None, "draw", [], 5, {}, {"kind": None}, {"kind": "fly"}, {"kind": "take"},
        {"kind": "draw"}, {"kind": "draw", "from": "hand"}, {"kind": "meld"},
        {"kind": "meld", "cards": "AS1 2S1 3S1"}, {"kind": "meld", "cards": [1]},
        {"kind": "lay_off"}, {"kind": "lay_off", "card": 3},
        {"kind": "lay_off", "card": "2S1", "meld": 1}, {"kind": "discard"},
        {"kind": "discard", "card": "2S"}, {"kind": "discard", "card": "2S2"},
        {"kind": "next_deal"},
    ],
)
def test_malformed_actions_are_refused_with_a_message(action: Any) -> None:
    state = deal([JUNK0, JUNK1], stock="KC1", discard="QC1")
    drawn, _ = GAME.apply(state, 0, STOCK, 0)
    for position in (state, drawn):
        assert refused(position, 0, action)


def test_snapshot_round_trips_through_json() -> None:
    state = _stock_ran_out()
    state, _ = GAME.apply(state, 1, STOCK, 0)
    data = TABLE.check_snapshot(state, 1)
    basic = known_game("basic_rummy")
    with pytest.raises(ValueError):
        basic.restore(data)  # a Traditional Remi state is no Basic Rummy one


def test_apply_leaves_the_given_state_untouched() -> None:
    state = deal(LAYOFF_HANDS, stock="KC1 QC1 9S2", discard="AC2")
    state, _ = GAME.apply(state, 0, STOCK, 0)
    before = copy.deepcopy(state)
    for action in GAME.legal_actions(state, 0):
        GAME.apply(state, 0, action, 0)
        assert state == before


def test_setup_ignores_room_options_and_uses_defaults() -> None:
    state = GAME.setup({"seed": 5, "bot_delay_ms": 0, "fill_bots": True, "turn_clock_s": 30},
                       3, seed=5, now=0)
    assert state.options == {"deals": 5, "stake": 0, "deal_pause_ms": 6000}
