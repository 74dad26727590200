"""Basic Rummy, one or more tests per rule (BR-1..BR-18 in docs/rules/basic-rummy.md).

Most tests lay out an exact position with a scenario (a fixed first deal).
Hands are written as space-separated card ids; the scenario stock is listed
top first and the discard pile bottom to top, as on the wire.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.cards import is_standard_card, standard_deck
from engine.errors import BadOptions, NotYourTurn
from engine.games.basic_rummy import HAND_SIZES, BasicRummy
from engine.games.rummy import RummyState
from engine.rng import Rng
from tests.engine.rummy_harness import RummyTable, all_cards, cards, discard, lay_off, meld

GAME = BasicRummy()
TABLE = RummyTable(GAME)
STOCK = {"kind": "draw", "from": "stock"}
PILE = {"kind": "draw", "from": "discard"}

deal, play, play_turn, refused = TABLE.deal, TABLE.play, TABLE.play_turn, TABLE.refused


def greedy(state: RummyState, seat: int, rng: Rng) -> dict[str, Any]:
    """A simple player: longest meld, then any lay-off, then a random discard.

    The discard is random because the stock is turned over unshuffled (BR-17): a
    fixed discard rule can make the same cards go round forever.
    """
    actions = GAME.legal_actions(state, seat)
    melds = [a for a in actions if a["kind"] == "meld"]
    if melds:
        return max(melds, key=lambda a: len(a["cards"]))
    for action in actions:
        if action["kind"] in ("lay_off", "draw", "next_deal"):
            return action
    return rng.choice(actions)


def finish_deal(state: RummyState, seed: int = 1) -> RummyState:
    """Plays the current deal to its end with :func:`greedy`."""
    rng = Rng(seed)
    for _ in range(20_000):
        if state.phase != "playing":
            return state
        seat = state.turn
        state, _ = GAME.apply(state, seat, greedy(state, seat, rng), 0)
    raise AssertionError("the deal did not end")


# Two-player positions used by several tests (seat 1 deals, seat 0 starts).
# No hearts in the junk hands, so RUN10 can go with either.
JUNK0 = "2S 5S 8S JS AC 4C 7C 3D 6D TD"
JUNK1 = "3S 6S 9S QS 2C 5C 8C AD 4D 9D"
RUN10 = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"


# --- Setup ------------------------------------------------------------------------------


def test_br_1_one_deck_of_52_distinct_cards_no_jokers() -> None:
    for players in range(2, 7):
        state = GAME.setup(GAME.validate_options({}, players), players, seed=players, now=0)
        found = all_cards(state)
        assert sorted(found) == sorted(standard_deck())
        assert len(set(found)) == 52
        assert all(is_standard_card(c) for c in found)


def test_br_1_scenario_with_unknown_or_duplicate_cards_is_refused() -> None:
    hands = [cards(JUNK0), cards(JUNK1)]
    for bad in (["1S"], ["XX"], ["AS", "AS"], [7], ["2S"]):  # 2S is already in hand 0
        with pytest.raises(BadOptions):
            GAME.validate_options({"scenario": {"dealer": 0, "hands": hands, "stock": bad}}, 2)
    bad_hand = [[*cards(JUNK0)[:9], "JOKER"], cards(JUNK1)]
    with pytest.raises(BadOptions):
        GAME.validate_options({"scenario": {"dealer": 0, "hands": bad_hand}}, 2)


def test_br_2_hand_sizes_by_number_of_players() -> None:
    assert HAND_SIZES == {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
    for players, size in HAND_SIZES.items():
        state = GAME.setup(GAME.validate_options({}, players), players, seed=11, now=0)
        assert [len(h) for h in state.hands] == [size] * players
        view = GAME.view(state, 0)
        assert [s["hand_count"] for s in view["seats"]] == [size] * players


def test_br_2_two_to_six_players_only() -> None:
    TABLE.check_player_counts(2, 6)


def test_br_2_scenario_with_wrong_hand_sizes_or_count_is_refused() -> None:
    three = [cards("AS 2S 3S 4S 5S 6S 7S"), cards("AH 2H 3H 4H 5H 6H 7H"),
             cards("AD 2D 3D 4D 5D 6D 7D")]
    GAME.validate_options({"scenario": {"dealer": 0, "hands": three}}, 3)
    with pytest.raises(BadOptions):  # 3 players get 7, not 6
        GAME.validate_options({"scenario": {"dealer": 0, "hands": [h[:6] for h in three]}}, 3)
    with pytest.raises(BadOptions):  # one hand per seat
        GAME.validate_options({"scenario": {"dealer": 0, "hands": three[:2]}}, 3)
    with pytest.raises(BadOptions):  # the dealer must be a seat
        GAME.validate_options({"scenario": {"dealer": 3, "hands": three}}, 3)
    with pytest.raises(BadOptions):
        GAME.validate_options({"scenario": {"dealer": 0, "hands": three, "extra": 1}}, 3)
    with pytest.raises(BadOptions):
        GAME.validate_options({"scenario": "AS 2S"}, 3)


def test_br_3_first_dealer_is_random_but_seeded() -> None:
    dealers = {GAME.setup(GAME.validate_options({}, 4), 4, seed=s, now=0).dealer
               for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    again = [GAME.setup(GAME.validate_options({}, 4), 4, seed=s, now=0).dealer for s in range(40)]
    assert again == [GAME.setup(GAME.validate_options({}, 4), 4, seed=s, now=0).dealer
                     for s in range(40)]


def test_br_3_cards_are_dealt_one_at_a_time_from_the_left_of_the_dealer() -> None:
    seed, players = 2024, 3
    state = GAME.setup(GAME.validate_options({}, players), players, seed=seed, now=0)
    rng = Rng(seed)
    dealer = rng.below(players)
    deck = standard_deck()
    rng.shuffle(deck)
    assert state.dealer == dealer
    first = (dealer + 1) % players
    # One card at a time: the player left of the dealer gets cards 0, 3, 6, ...
    assert state.hands[first] == deck[0:21:3]
    assert state.hands[(first + 1) % players] == deck[1:21:3]
    assert state.hands[dealer] == deck[2:21:3]
    assert state.discard == [deck[21]]


@pytest.mark.parametrize(("players", "dealers"), [(2, [1, 0, 1, 0]), (3, [2, 0, 1, 2])])
def test_br_3_the_deal_passes_to_the_next_seat(players: int, dealers: list[int]) -> None:
    hands = ([JUNK0, JUNK1] if players == 2
             else ["AH 2H 3H 4H 5H 6H 7H", "3S 6S 9S QS 2C 5C 8C", "AD 4D 7D TD KD 2D 9C"])
    # No stock and no upcard: the first deal ends void at once (BR-17).
    state = deal(hands, dealer=players - 1)
    assert state.phase == "deal_over"
    seen = [state.dealer]
    while len(seen) < 4:
        state, events = GAME.apply(state, 1, {"kind": "next_deal"}, 0)
        assert events == [{"kind": "deal_started", "deal": state.deal, "dealer": state.dealer}]
        assert state.turn == (state.dealer + 1) % players  # BR-9
        seen.append(state.dealer)
        state = finish_deal(state)
        assert state.phase == "deal_over"
    assert seen == dealers


def test_br_4_upcard_starts_the_discard_pile_and_the_stock_size_is_public() -> None:
    for players in range(2, 7):
        state = GAME.setup(GAME.validate_options({}, players), players, seed=99, now=0)
        assert len(state.discard) == 1
        expected_stock = 52 - players * HAND_SIZES[players] - 1
        spectator = GAME.view(state, None)
        assert spectator["stock_count"] == expected_stock
        assert spectator["discard"] == state.discard
        shown = json.dumps(spectator)
        assert not any(f'"{c}"' in shown for c in state.stock)


# --- Match length -----------------------------------------------------------------------


def test_br_5_default_match_is_to_100_points() -> None:
    assert GAME.default_options() == {"deals": None, "target": 100, "deal_pause_ms": 6000}
    assert GAME.validate_options({}, 2) == {"deals": None, "target": 100, "deal_pause_ms": 6000}


def test_br_5_a_number_of_deals_alone_means_deals_only() -> None:
    assert GAME.validate_options({"deals": 3}, 2)["target"] is None
    both = GAME.validate_options({"deals": 3, "target": 50}, 2)
    assert (both["deals"], both["target"]) == (3, 50)
    assert GAME.validate_options({"target": 250}, 4)["deals"] is None


@pytest.mark.parametrize(
    "options",
    [
        {"deals": 0}, {"deals": 51}, {"deals": "3"}, {"deals": True}, {"target": 0},
        {"target": 10_001}, {"target": 1.5}, {"target": None}, {"deal_pause_ms": -1},
        {"deal_pause_ms": 60_001}, {"speed": "snail"}, {"seed": 3},
    ],
)
def test_br_5_bad_match_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions):
        GAME.validate_options(options, 2)


# --- Melds ------------------------------------------------------------------------------

MELD_HAND = ["AS 2S 3S QH KH AH 2H 5D 6C 7D", "4S 6S 9S QS 2C 5C 8C AD 4D 9D"]


def test_br_6_a_run_is_three_or_more_of_one_suit_in_sequence_ace_low() -> None:
    state = deal(MELD_HAND, stock="9C", discard="KC")
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, meld("3S AS 2S"))
    assert events == [{"kind": "melded", "seat": 0,
                       "meld": {"id": "m1", "kind": "run", "cards": ["AS", "2S", "3S"]}}]
    assert GAME.view(state, None)["melds"] == [
        {"id": "m1", "kind": "run", "cards": ["AS", "2S", "3S"], "owner": 0}]


@pytest.mark.parametrize("bad", ["QH KH AH", "KH AH 2H", "5D 6C 7D", "AS 2S", "AS 3S QH"])
def test_br_6_ace_is_low_only_and_runs_need_one_suit_and_three_cards(bad: str) -> None:
    state = deal(MELD_HAND, stock="9C", discard="KC")
    state, _ = play(state, 0, STOCK)
    refused(state, 0, meld(bad))


def test_br_7_a_set_is_three_or_four_cards_of_one_rank() -> None:
    hands = ["7S 7H 7D 7C 9S 9H 9D KC 2D 4C", "3S 6S 9C QS 2C 5C 8C AD 4D JD"]
    state = deal(hands, stock="QC", discard="KD")
    state, _ = play(state, 0, STOCK)
    refused(state, 0, meld("9S 9H 7D"))
    refused(state, 0, meld("9S 9H"))
    state, _ = play(state, 0, meld("7S 7H 7D 7C"))
    assert state.melds[0].kind == "set" and len(state.melds[0].cards) == 4
    state, _ = play(state, 0, discard("QC"))
    state, _ = play(state, 1, STOCK)
    state, _ = play(state, 1, discard(state.hands[1][-1]))
    state = play_turn(state, 0, STOCK, meld("9S 9H 9D"))
    assert state.melds[1].kind == "set"


# --- BR-8 and BR-11: laying off ---------------------------------------------------------

# Seat 0 melds a set of nines and a run; seat 1 then lays off on both.
LAYOFF_HANDS = ["9S 9H 9D KC 2D 4C 5S 6S 7S JD", "9C 8S 4S 3C 2H 5H 8H JH AD TD"]


def _after_two_melds() -> RummyState:
    state = deal(LAYOFF_HANDS, stock="QC QD KH KS", discard="AC")
    state = play_turn(state, 0, STOCK, meld("9S 9H 9D"), discard("QC"))
    state = play_turn(state, 1, STOCK, discard("QD"))
    state = play_turn(state, 0, STOCK, meld("5S 6S 7S"), discard("KH"))
    state, _ = play(state, 1, STOCK)
    return state


def test_br_8_melds_stay_in_front_of_their_maker() -> None:
    state = _after_two_melds()
    state, events = play(state, 1, lay_off("9C", "m1"))
    assert events == [{"kind": "laid_off", "seat": 1, "card": "9C", "meld": "m1"}]
    view = GAME.view(state, 1)
    assert view["seats"][0]["melds"] == [
        {"id": "m1", "kind": "set", "cards": ["9S", "9H", "9D", "9C"]},
        {"id": "m2", "kind": "run", "cards": ["5S", "6S", "7S"]},
    ]
    assert view["seats"][1]["melds"] == []
    assert [m["owner"] for m in view["melds"]] == [0, 0]


def test_br_8_melds_are_never_rearranged() -> None:
    state = _after_two_melds()
    # A card on the table is not in anyone's hand: it cannot move to another meld.
    assert "not_held" in refused(state, 1, lay_off("9S", "m2"))
    refused(state, 1, meld("9S 8S 4S"))
    assert [m.cards for m in state.melds] == [("9S", "9H", "9D"), ("5S", "6S", "7S")]


def test_br_11_lay_off_any_number_on_anyones_melds() -> None:
    state = _after_two_melds()
    state = play_turn(state, 1, lay_off("9C", "m1"), lay_off("8S", "m2"), lay_off("4S", "m2"))
    assert state.melds[1].cards == ("4S", "5S", "6S", "7S", "8S")
    assert state.step == "play" and state.turn == 1


def test_br_11_every_meld_must_stay_valid() -> None:
    state = _after_two_melds()
    refused(state, 1, lay_off("3C", "m1"))  # not a nine
    refused(state, 1, lay_off("2H", "m2"))  # not a spade
    refused(state, 1, lay_off("TD", "m2"))
    refused(state, 1, lay_off("9C", "m9"))  # no such meld
    state, _ = play(state, 1, lay_off("9C", "m1"))
    assert state.melds[0].cards == ("9S", "9H", "9D", "9C")


def test_br_11_at_most_one_new_meld_per_turn() -> None:
    hands = ["7S 7H 7D 9S 9H 9D KC 2D 4C JS", "3S 6S 9C QS 2C 5C 8C AD 4D JD"]
    state = deal(hands, stock="QC", discard="KD")
    state, _ = play(state, 0, STOCK)
    assert GAME.view(state, 0)["can_meld"] is True
    state, _ = play(state, 0, meld("7S 7H 7D"))
    assert GAME.view(state, 0)["can_meld"] is False
    assert "melds_per_turn BR-11" in refused(state, 0, meld("9S 9H 9D"))
    assert not [a for a in GAME.legal_actions(state, 0) if a["kind"] == "meld"]
    state, _ = play(state, 0, discard("QC"))
    state, _ = play(state, 1, STOCK)
    state, _ = play(state, 1, discard(state.hands[1][-1]))
    state, _ = play(state, 0, STOCK)
    assert GAME.view(state, 0)["can_meld"] is True  # a new turn, a new meld
    state, _ = play(state, 0, meld("9S 9H 9D"))


# --- A turn -----------------------------------------------------------------------------


def test_br_9_with_two_players_the_non_dealer_starts() -> None:
    for dealer in (0, 1):
        state = deal([JUNK0, JUNK1], stock="KC", discard="QC", dealer=dealer)
        assert state.turn == 1 - dealer
        assert GAME.to_act(state) == [1 - dealer]
        refused(state, dealer, STOCK, NotYourTurn)


def test_br_9_with_more_the_player_after_the_dealer_starts_and_play_goes_clockwise() -> None:
    hands = ["AS 2S 3S 4S 5S 6S 7S", "AH 2H 3H 4H 5H 6H 7H", "AD 2D 3D 4D 5D 6D 7D",
             "AC 2C 3C 4C 5C 6C 7C"]
    state = deal(hands, stock="8S 8H 8D 8C 9S", discard="KC", dealer=2)
    # Every other seat is refused as not on turn (NotYourTurn) before each turn.
    assert TABLE.turn_order(state, 5, STOCK) == [3, 0, 1, 2, 3]


def test_br_10_draw_the_top_of_the_stock() -> None:
    state = deal([JUNK0, JUNK1], stock="KC QC JC", discard="9C")
    state, events = play(state, 0, STOCK)
    assert state.hands[0][-1] == "KC"  # the scenario lists the stock top first
    assert events == [{"kind": "drew", "seat": 0, "from": "stock"}]  # the card stays hidden
    assert GAME.view(state, None)["stock_count"] == 2


def test_br_10_draw_the_top_of_the_discard_pile() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="9C TC")
    state, events = play(state, 0, PILE)
    assert state.hands[0][-1] == "TC"
    assert state.discard == ["9C"]
    assert events == [{"kind": "drew", "seat": 0, "from": "discard", "card": "TC"}]


def test_br_10_exactly_one_draw_and_draw_comes_first() -> None:
    state = deal([JUNK0, JUNK1], stock="KC QC", discard="9C")
    assert "draw" in refused(state, 0, discard("2S"))
    refused(state, 0, meld("2S 5S 8S"))
    refused(state, 0, lay_off("2S", "m1"))
    assert [a["kind"] for a in GAME.legal_actions(state, 0)] == ["draw", "draw"]
    state, _ = play(state, 0, STOCK)
    assert "already drawn" in refused(state, 0, STOCK)
    refused(state, 0, PILE)


def test_br_12_card_taken_from_discard_cannot_be_discarded_same_turn() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="9C")
    state, _ = play(state, 0, PILE)
    assert GAME.view(state, 0)["must_not_discard"] == "9C"
    assert GAME.view(state, 1)["must_not_discard"] is None
    assert "BR-12" in refused(state, 0, discard("9C"))
    state, _ = play(state, 0, discard("2S"))
    # Seat 0 may discard it in a later turn.
    state = play_turn(state, 1, STOCK, discard("KC"))
    state = play_turn(state, 0, STOCK, discard("9C"))
    assert state.discard[-1] == "9C"


def test_br_12_card_drawn_from_stock_can_be_discarded() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="9C")
    state, _ = play(state, 0, STOCK)
    assert GAME.view(state, 0)["must_not_discard"] is None
    state, events = play(state, 0, discard("KC"))
    assert events == [{"kind": "discarded", "seat": 0, "card": "KC"}]
    assert state.discard == ["9C", "KC"] and state.turn == 1


def test_br_12_a_meld_may_not_leave_only_the_card_taken_from_the_discard() -> None:
    state = deal([RUN10, JUNK1], stock="QC", discard="KC")
    state, _ = play(state, 0, PILE)
    # Only KC would be left, and KC may not be discarded this turn.
    assert "BR-12" in refused(state, 0, meld(RUN10))
    state, _ = play(state, 0, meld("AH 2H 3H 4H 5H 6H 7H 8H 9H"))
    assert state.hands[0] == ["TH", "KC"]
    refused(state, 0, lay_off("TH", "m1"))
    state, _ = play(state, 0, discard("TH"))


def test_br_13_melding_and_laying_off_are_voluntary() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC")
    state, _ = play(state, 0, STOCK)
    kinds = {a["kind"] for a in GAME.legal_actions(state, 0)}
    assert kinds == {"meld", "discard"}
    state, _ = play(state, 0, discard("KC"))
    assert state.melds == [] and state.turn == 1


# --- End of a deal ----------------------------------------------------------------------


def test_br_14_going_out_by_melding_wins_at_once() -> None:
    state = deal([RUN10, JUNK1], stock="JH", discard="QC", target=10_000)
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, meld(RUN10 + " JH"))
    assert state.phase == "deal_over"
    assert [e["kind"] for e in events] == ["melded", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0
    # Nobody else may meld, lay off or draw now.
    for seat in (0, 1):
        refused(state, seat, STOCK)
        refused(state, seat, lay_off("QS", "m1"))
        assert GAME.legal_actions(state, seat) == [{"kind": "next_deal"}]
    assert GAME.to_act(state) == []


def test_br_14_going_out_by_laying_off_wins_at_once() -> None:
    state = deal([RUN10, JUNK1], stock="JH", discard="QC", target=10_000)
    state = play_turn(state, 0, STOCK, meld(RUN10))
    state, events = play(state, 0, lay_off("JH", "m1"))
    assert [e["kind"] for e in events] == ["laid_off", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0
    assert state.phase == "deal_over"


def test_br_14_going_out_by_discarding_the_last_card_wins() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC", target=10_000)
    state = play_turn(state, 0, STOCK, meld(RUN10))
    assert state.phase == "playing"
    state, events = play(state, 0, discard("KC"))
    assert [e["kind"] for e in events] == ["discarded", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0


def test_br_15_winner_scores_the_cards_left_in_opponents_hands() -> None:
    # The rules' example: opponents hold 14, 12 and 22 -> 48 points.
    hands = [
        "3S 4S 5S 6H 7H 8H 9H",
        "KS KH KD AC 2C 5D 6D",  # keeps AC 2C 5D 6D = 14
        "QS QH QD AD 2D 4C 5C",  # keeps AD 2D 4C 5C = 12
        "JS JH JD TC 8C 3C AH",  # keeps TC 8C 3C AH = 22
    ]
    state = deal(hands, stock="2S 7S 9D 2H TH", discard="KC")
    first = ["3S 4S 5S", "KS KH KD", "QS QH QD", "JS JH JD"]
    for seat in range(4):
        state, _ = play(state, seat, STOCK)
        state, _ = play(state, seat, meld(first[seat]))
        state, _ = play(state, seat, discard(state.hands[seat][-1]))
    state, _ = play(state, 0, STOCK)
    state, events = play(state, 0, meld("6H 7H 8H 9H TH"))
    assert state.result is not None
    assert state.result["hand_values"] == [0, 14, 12, 22]
    assert state.result["points"] == 48 and state.result["rummy"] is False
    assert state.scores == [48, 0, 0, 0]
    assert events[-1] == {"kind": "deal_over", "deal": 1, "winner": 0, "points": 48,
                          "rummy": False, "void": False}


def test_br_15_card_values_ace_one_pips_face_value_courts_ten() -> None:
    state = deal([RUN10, "AS 5C 9D TS JC QD KS 2C 3C 4S"], stock="KC", discard="QC")
    state = play_turn(state, 0, STOCK, meld(RUN10), discard("KC"))
    assert state.result is not None
    assert state.result["hand_values"] == [0, 1 + 5 + 9 + 10 + 10 + 10 + 10 + 2 + 3 + 4]


def test_br_16_going_rummy_doubles() -> None:
    state = deal([RUN10, "AS 5C 9D TS JC QD KS 2C 3C 4S"], stock="KC", discard="QC",
                 target=10_000)
    state = play_turn(state, 0, STOCK, meld(RUN10))
    state, events = play(state, 0, discard("KC"))
    assert state.result is not None
    assert state.result["rummy"] is True
    assert state.result["points"] == 2 * 64
    assert state.scores == [128, 0]
    assert events[-1]["rummy"] is True


def test_br_16_no_double_after_laying_off_in_an_earlier_turn() -> None:
    hands = ["8H AC 2C 3C 4C 5C 6C 7C 8C KD", "5H 6H 7H KS KH 2D 3D 9S TD JD"]
    state = deal(hands, stock="QS 4S JS QD 9C", discard="AS")
    state = play_turn(state, 0, STOCK, discard("QS"))
    state = play_turn(state, 1, STOCK, meld("5H 6H 7H"), discard("4S"))
    # Only a lay-off, no meld:
    state = play_turn(state, 0, STOCK, lay_off("8H", "m1"), discard("JS"))
    state = play_turn(state, 1, STOCK, discard("QD"))
    state = play_turn(state, 0, STOCK, meld("AC 2C 3C 4C 5C 6C 7C 8C 9C"), discard("KD"))
    assert state.result is not None
    assert state.result["winner"] == 0 and state.result["rummy"] is False
    assert state.result["points"] == 10 + 10 + 2 + 3 + 9 + 10 + 10


def test_br_16_laying_off_on_others_melds_in_the_winning_turn_is_still_rummy() -> None:
    hands = ["8H 9H AC 2C 3C 4C 5C 6C 7C KD", "5H 6H 7H KS KH 2D 3D 9S TD JD"]
    state = deal(hands, stock="QS 4S 8C", discard="AS")
    state = play_turn(state, 0, STOCK, discard("QS"))
    state = play_turn(state, 1, STOCK, meld("5H 6H 7H"), discard("4S"))
    state = play_turn(state, 0, STOCK, lay_off("8H", "m1"), lay_off("9H", "m1"),
                      meld("AC 2C 3C 4C 5C 6C 7C 8C"), discard("KD"))
    assert state.result is not None and state.result["rummy"] is True
    assert state.result["points"] == 2 * (10 + 10 + 2 + 3 + 9 + 10 + 10)


def test_br_17_empty_stock_turns_the_discard_pile_over_without_shuffling() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    state = play_turn(state, 0, STOCK, discard("2S"))
    assert state.stock == [] and state.discard == ["QC", "2S"]
    state, events = play(state, 1, STOCK)
    assert events == [{"kind": "stock_turned", "count": 2},
                      {"kind": "drew", "seat": 1, "from": "stock"}]
    # The bottom card of the pile became the top of the stock and was drawn.
    assert state.hands[1][-1] == "QC"
    assert GAME.view(state, None)["stock_count"] == 1 and state.discard == []
    state, _ = play(state, 1, discard("QC"))  # a stock card may be discarded (BR-12)
    state, _ = play(state, 0, STOCK)
    assert state.hands[0][-1] == "2S"


def test_br_17_the_player_may_take_the_discard_instead() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    state = play_turn(state, 0, STOCK, discard("2S"))
    state, events = play(state, 1, PILE)
    assert [e["kind"] for e in events] == ["drew"]
    assert state.hands[1][-1] == "2S" and state.stock == [] and state.discard == ["QC"]


def test_br_17_stock_and_discard_both_empty_ends_the_deal_void() -> None:
    state = deal([JUNK0, JUNK1], stock="", discard="", now=1000)
    assert state.phase == "deal_over"
    assert state.result is not None
    assert state.result["void"] is True and state.result["winner"] is None
    assert state.result["points"] == 0 and state.scores == [0, 0]
    assert state.next_deal_at == 1000 + 6000
    state, events = GAME.on_timeout(state, 7000)
    assert events[0]["kind"] == "deal_started" and state.deal == 2
    assert sorted(all_cards(state)) == sorted(standard_deck())


# --- The match --------------------------------------------------------------------------


def test_br_18_match_ends_after_the_agreed_number_of_deals() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC", deals=2, now=0)
    state = play_turn(state, 0, STOCK, meld(RUN10))
    state, _ = play(state, 0, discard("KC"), now=500)
    assert state.phase == "deal_over"
    assert state.next_deal_at == 6500
    assert GAME.next_deadline(state) == 6500
    same, events = GAME.on_timeout(state, 6499)
    assert same is state and events == []
    state, events = GAME.on_timeout(state, 6500)
    assert events == [{"kind": "deal_started", "deal": 2, "dealer": 0}]
    assert state.turn == 1 and GAME.next_deadline(state) is None
    state = finish_deal(state)
    assert state.phase == "game_over"
    assert GAME.next_deadline(state) is None and GAME.to_act(state) == []
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == state.scores
    best = max(state.scores)
    assert outcome.winners == [s for s in (0, 1) if state.scores[s] == best]
    assert [r["deal"] for r in outcome.details["deals"]] == [1, 2]


def test_br_18_reaching_the_target_ends_the_match() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC", target=50)
    assert GAME.outcome(state) is None
    state = play_turn(state, 0, STOCK, meld(RUN10))
    state, events = play(state, 0, discard("KC"))
    assert state.phase == "game_over"
    assert events[-1] == {"kind": "game_over", "scores": state.scores, "winners": [0]}
    assert GAME.view(state, 1)["winners"] == [0]
    refused(state, 0, {"kind": "next_deal"})
    assert GAME.legal_actions(state, 0) == []


def test_br_18_below_the_target_the_match_goes_on() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC", target=10_000)
    state = play_turn(state, 0, STOCK, meld(RUN10), discard("KC"))
    assert state.phase == "deal_over" and GAME.outcome(state) is None
    state, events = play(state, 1, {"kind": "next_deal"})
    assert [e["kind"] for e in events] == ["deal_started"]
    assert state.phase == "playing" and state.deal == 2 and state.scores[0] > 0
    assert state.result is None and len(state.results) == 1


def test_br_18_highest_total_wins_and_ties_share() -> None:
    state = deal([JUNK0, JUNK1], stock="", discard="", deals=1)
    assert state.phase == "game_over"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0, 1] and outcome.scores == [0, 0]


# --- Protocol details the rules rely on -------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        None, "draw", [], 5, {}, {"kind": None}, {"kind": "fly"}, {"kind": ["draw"]},
        {"kind": "draw"}, {"kind": "draw", "from": "hand"}, {"kind": "draw", "from": ["stock"]},
        {"kind": "meld"}, {"kind": "meld", "cards": "AS 2S 3S"}, {"kind": "meld", "cards": [1]},
        {"kind": "meld", "cards": [["AS"]]}, {"kind": "lay_off"}, {"kind": "lay_off", "card": 3},
        {"kind": "lay_off", "card": "2S", "meld": 1}, {"kind": "discard"},
        {"kind": "discard", "card": {"x": 1}}, {"kind": "discard", "card": "ZZ"},
        {"kind": "next_deal"},
    ],
)
def test_malformed_actions_are_refused_with_a_message(action: Any) -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    drawn, _ = GAME.apply(state, 0, STOCK, 0)
    for position in (state, drawn):
        message = refused(position, 0, action)
        assert message


def test_acting_for_a_seat_that_does_not_exist_is_refused() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    for seat in (-1, 2, 99):
        refused(state, seat, STOCK)
        assert GAME.legal_actions(state, seat) == []


def test_view_has_exactly_the_agreed_keys() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    keys = {"game", "phase", "step", "you", "dealer", "turn", "deal", "options", "seats",
            "stock_count", "discard", "melds", "must_not_discard", "can_meld", "result",
            "results", "next_deal_at", "winners"}
    assert set(GAME.view(state, 0)) == keys | {"hand"}
    assert set(GAME.view(state, None)) == keys
    view = GAME.view(state, 1)
    assert view["game"] == "basic_rummy" and view["phase"] == "playing"
    assert (view["step"], view["you"], view["dealer"], view["turn"], view["deal"]) == (
        "draw", 1, 1, 0, 1)
    assert view["options"] == {"deals": None, "target": 100}
    assert view["hand"] == cards(JUNK1)
    assert view["seats"][0] == {"seat": 0, "hand_count": 10, "score": 0, "melds": []}
    assert (view["result"], view["results"], view["next_deal_at"], view["winners"]) == (
        None, [], None, None)


def test_view_after_a_deal_reveals_every_hand_in_the_result() -> None:
    state = deal([RUN10, JUNK1], stock="KC", discard="QC", target=10_000)
    state = play_turn(state, 0, STOCK, meld(RUN10), discard("KC"))
    view = GAME.view(state, None)
    assert view["result"] == {"deal": 1, "winner": 0, "rummy": True, "void": False,
                              "points": 2 * 57, "hand_values": [0, 57],
                              "hands": [[], cards(JUNK1)]}
    assert view["results"] == [{"deal": 1, "winner": 0, "points": 114, "rummy": True,
                                "void": False}]
    assert view["turn"] is None and view["step"] is None
    assert view["next_deal_at"] == 6000


def test_snapshot_round_trips_through_json() -> None:
    TABLE.check_snapshot(_after_two_melds(), 1)


def test_apply_leaves_the_given_state_untouched() -> None:
    state = _after_two_melds()
    before = copy.deepcopy(state)
    for action in GAME.legal_actions(state, 1):
        GAME.apply(state, 1, action, 0)
        assert state == before


def test_setup_ignores_room_options_and_uses_defaults() -> None:
    state = GAME.setup({"seed": 5, "bot_delay_ms": 0, "fill_bots": True}, 3, seed=5, now=0)
    assert state.options == {"deals": None, "target": 100, "deal_pause_ms": 6000}


# --- Decisions: going out through a chain of lay-offs (BR-12, BR-14) -------------------


def test_br_12_a_meld_may_leave_only_the_taken_card_when_it_lays_off_at_once() -> None:
    state = deal([RUN10, JUNK1], stock="QC", discard="KC JH", target=10_000)
    state, _ = play(state, 0, PILE)
    # Only JH is left, which may not be discarded, but it fits the new run.
    state, _ = play(state, 0, meld(RUN10))
    assert state.hands[0] == ["JH"] and state.phase == "playing"
    assert GAME.legal_actions(state, 0) == [lay_off("JH", "m1")]
    refused(state, 0, discard("JH"))
    state, events = play(state, 0, lay_off("JH", "m1"))
    assert [e["kind"] for e in events] == ["laid_off", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0
    assert state.result["rummy"] is True


# Seat 1 melds 4S 5S 6S and discards the pile card seat 0 then takes.
def _chain_position(pile_card: str) -> RummyState:
    hands = ["AH 2H 3H 4H 5H 6H 7H 8H 9H 7S", f"4S 5S 6S {pile_card} 2C 5C 8C AD 4D 9D"]
    state = deal(hands, stock="KC QC", discard="JD", target=10_000)
    state = play_turn(state, 0, STOCK, discard("KC"))
    state = play_turn(state, 1, STOCK, meld("4S 5S 6S"), discard(pile_card))
    state = play_turn(state, 0, PILE, meld("AH 2H 3H 4H 5H 6H 7H 8H 9H"))
    assert state.hands[0] == ["7S", pile_card]
    return state


def test_br_14_going_out_through_a_chain_of_lay_offs() -> None:
    state = _chain_position("8S")
    # Laying off 7S leaves only 8S, the taken card, which then fits after 7S.
    state, _ = play(state, 0, lay_off("7S", "m1"))
    assert state.hands[0] == ["8S"]
    assert GAME.legal_actions(state, 0) == [lay_off("8S", "m1")]
    state, events = play(state, 0, lay_off("8S", "m1"))
    assert [e["kind"] for e in events] == ["laid_off", "deal_over"]
    assert state.result is not None and state.result["winner"] == 0
    assert state.melds[0].cards == ("4S", "5S", "6S", "7S", "8S")


def test_br_12_a_lay_off_leaving_a_taken_card_that_fits_nowhere_is_refused() -> None:
    state = _chain_position("9S")
    # 9S would fit only after 8S, which nobody has laid: seat 0 would be stuck.
    assert "BR-12" in refused(state, 0, lay_off("7S", "m1"))
    state, _ = play(state, 0, discard("7S"))
    assert state.turn == 1


# --- Decisions: endless deals (BR-17) ---------------------------------------------------


def _turn_over_round(state: RummyState) -> tuple[RummyState, list[str]]:
    """The player on turn draws from the stock and discards that card; returns event kinds."""
    seat = state.turn
    state, drawn = play(state, seat, STOCK)
    state, discarded = play(state, seat, discard(state.hands[seat][-1]))
    return state, [e["kind"] for e in drawn + discarded]


def test_br_17_a_deal_ends_void_when_the_stock_runs_out_after_three_turnovers() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC", now=0, target=10_000)
    turnovers = 0
    for _ in range(20):
        state, kinds = _turn_over_round(state)
        turnovers += kinds.count("stock_turned")
        if state.phase != "playing":
            break
        # Until the limit, an empty stock is turned over as BR-17 says.
        assert state.stock or turnovers < 3
    assert turnovers == 3
    assert kinds[-1] == "deal_over" and state.stock == []
    assert state.result is not None
    assert state.result["void"] is True and state.result["winner"] is None
    assert state.result["points"] == 0 and state.scores == [0, 0]
    assert state.phase == "deal_over" and GAME.to_act(state) == []


@pytest.mark.parametrize("seed", [672, 912, 1091])
def test_br_17_bot_deals_that_went_round_for_ever_now_end_void(seed: int) -> None:
    from engine.bots.basic_rummy import choose

    state = GAME.setup({"deals": 1, "deal_pause_ms": 0}, 2, seed, 0)
    for _ in range(2000):
        if not GAME.to_act(state):
            break
        seat = GAME.to_act(state)[0]
        action = choose(GAME.view(state, seat))
        assert action is not None
        state, _ = GAME.apply(state, seat, action, 0)
    assert state.phase == "game_over"
    assert state.result is not None and state.result["void"] is True


def test_br_17_turnovers_survive_a_snapshot() -> None:
    state = deal([JUNK0, JUNK1], stock="KC", discard="QC")
    for _ in range(3):
        state, _ = _turn_over_round(state)
    restored = GAME.restore(json.loads(json.dumps(GAME.snapshot(state))))
    assert restored == state and restored.turnovers == state.turnovers > 0
