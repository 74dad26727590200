"""Indonesian Remi, one or more tests per rule (IR-1..IR-19 in docs/rules/indonesian-remi.md).

Most tests lay out an exact position with a scenario (a fixed first deal).
Hands are written as space-separated card ids; the scenario stock is listed
top first and the discard pile bottom to top, as on the wire. By default
seat 0 deals, so seat 0 plays first (IR-4).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.cards import rank_index, standard_deck
from engine.errors import BadOptions, GameError, NotYourTurn
from engine.games import find_game
from engine.games.indonesian_remi import IndonesianRemi, card_value
from engine.games.rummy import RummyState
from engine.room import Join, RoomError, Start
from tests.engine import room_harness
from tests.engine.rummy_harness import RummyTable, cards, discard, meld
from tests.engine.rummy_harness import normal_any_order as normal

GAME = IndonesianRemi()
TABLE = RummyTable(GAME, normal=normal)
DRAW = {"kind": "draw"}
IDLE = None  # in deal(): a hand that can make no meld and take nothing

play, play_turn, refused = TABLE.play, TABLE.play_turn, TABLE.refused


def idle_hand(named: set[str]) -> list[str]:
    """Seven cards not in ``named``, no two of a rank and no two of a suit near each other.

    Such a hand holds no meld and no two cards that could meld with a third,
    so it can never take a discard (IR-10).
    """
    chosen: list[str] = []
    for card in standard_deck():
        if card in named or any(
                c[0] == card[0] or (c[1] == card[1] and abs(rank_index(c) - rank_index(card)) <= 2)
                for c in chosen):
            continue
        chosen.append(card)
        if len(chosen) == 7:
            return chosen
    raise AssertionError("no idle hand left")


def deal(
    hands: list[str | None],
    stock: str = "",
    discard: str = "",
    dealer: int = 0,
    now: int = 0,
    **options: Any,
) -> RummyState:
    """A game whose first deal is fixed; seat ``dealer`` deals and plays first.

    A hand given as ``IDLE`` (None) is filled with an :func:`idle_hand`.
    """
    named = {c for text in [*hands, stock, discard] if text for c in cards(text)}
    laid: list[list[str]] = []
    for hand in hands:
        laid.append(cards(hand) if hand is not None else idle_hand(named))
        named |= set(laid[-1])
    return TABLE.deal(laid, stock, discard, dealer=dealer, now=now, **options)


def take(card: str, used: str) -> dict[str, Any]:
    return {"kind": "take", "card": card, "with": cards(used)}


def close(melds: list[str], card: str) -> dict[str, Any]:
    return {"kind": "close", "melds": [cards(m) for m in melds], "card": card}


def seat_result(state: RummyState, seat: int) -> dict[str, Any]:
    assert state.result is not None
    entry: dict[str, Any] = state.result["seats"][seat]
    return entry


# --- the game in the registry -----------------------------------------------------------


def test_indonesian_remi_is_registered_with_its_options() -> None:
    game = find_game("indonesian_remi")
    assert isinstance(game, IndonesianRemi)
    assert game.title == "Indonesian Remi"
    assert game.turn_based
    assert game.default_options() == {
        "deals": 8, "target": None, "hand_melds_count": True, "deal_pause_ms": 6000}


def test_options_are_checked() -> None:
    assert GAME.validate_options({}, 4)["deals"] == 8
    with pytest.raises(BadOptions):
        GAME.validate_options({"deals": 0}, 4)
    with pytest.raises(BadOptions):
        GAME.validate_options({"deals": True}, 4)
    with pytest.raises(BadOptions):
        GAME.validate_options({"hand_melds_count": "yes"}, 4)
    with pytest.raises(BadOptions):
        GAME.validate_options({"deals": None}, 4)  # neither deals nor target
    with pytest.raises(BadOptions):
        GAME.validate_options({"speed": "snail"}, 4)
    assert GAME.validate_options({"hand_melds_count": False}, 4)["hand_melds_count"] is False


def test_a_scenario_may_start_a_discard_pile_and_is_checked() -> None:
    state = deal(["2H 3H 4H 5H 6H 7H 8H", IDLE], stock="KS", discard="AS AD")
    assert state.discard == ["AS", "AD"]
    with pytest.raises(BadOptions):
        deal(["2H 3H", IDLE])  # seven cards each (IR-3)
    with pytest.raises(BadOptions):
        deal(["2H 3H 4H 5H 6H 7H 8H", "2H 3S 4S 5S 6S 7S 8S"])  # a card twice
    with pytest.raises(BadOptions):
        deal(["2H 3H 4H 5H 6H 7H 1H", IDLE])


# --- setup (IR-1..IR-5) -----------------------------------------------------------------


def test_ir_1_one_deck_of_52_cards_no_jokers() -> None:
    state = GAME.setup(GAME.validate_options({}, 4), 4, seed=11, now=0)
    everything = [c for h in state.hands for c in h] + state.stock + state.discard
    assert sorted(everything) == sorted(standard_deck())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ir_2_two_to_four_players(players: int) -> None:
    state = GAME.setup(GAME.validate_options({}, players), players, seed=3, now=0)
    assert state.players == players
    assert len(GAME.view(state, None)["seats"]) == players


def test_ir_2_more_or_fewer_players_are_refused_and_four_is_the_default() -> None:
    TABLE.check_player_counts(2, 4)
    assert GAME.default_seats == 4


def test_ir_2_empty_seats_are_filled_with_bots_unless_the_table_says_otherwise() -> None:
    room, _ = room_harness.make_room(GAME, GAME.default_seats, room_id="r1", seed=7)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Start("ana"), 2)
    assert room.status == "playing"
    assert [seat.bot for seat in room.seats] == [False, True, True, True]

    room, _ = room_harness.make_room(GAME, 4, room_id="r2", seed=7, fill_bots=False)
    room.handle(Join("ana", "Ana", "player"), 1)
    with pytest.raises(RoomError) as err:
        room.handle(Start("ana"), 2)
    assert err.value.code == "illegal_action" and room.status == "waiting"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ir_3_seven_cards_each_no_upcard(players: int) -> None:
    state = GAME.setup(GAME.validate_options({}, players), players, seed=5, now=0)
    assert [len(h) for h in state.hands] == [7] * players
    assert state.discard == []
    assert len(state.stock) == 52 - 7 * players
    view = GAME.view(state, 0)
    assert view["discard"] == [] and view["takeable"] == []


def test_ir_4_the_dealer_plays_first_then_play_goes_clockwise() -> None:
    for seed in range(8):
        state = GAME.setup(GAME.validate_options({}, 3), 3, seed=seed, now=0)
        assert state.turn == state.dealer
        assert GAME.to_act(state) == [state.dealer]
    state = deal([IDLE, "2H 5H 8H JH 3S 6S 9S", IDLE], stock="KS KH KD KC", dealer=1)
    assert state.turn == 1
    refused(state, 0, DRAW, NotYourTurn)
    state = play_turn(state, 1, DRAW, discard("KS"))
    assert state.turn == 2
    state = play_turn(state, 2, DRAW, discard("KH"))
    assert state.turn == 0


def test_ir_5_card_values() -> None:
    assert [card_value(c) for c in cards("2H 5D 9C TS")] == [5, 5, 5, 5]
    assert [card_value(c) for c in cards("JH QD KC")] == [10, 10, 10]
    assert card_value("AS") == 15
    # A deal that ends at once (empty stock and pile): every card counts minus.
    state = deal(["2C 5C 8C JC 3D 6D AD", IDLE])
    assert seat_result(state, 0)["points"] == -(5 * 5 + 10 + 15)


# --- melds (IR-6..IR-9) -----------------------------------------------------------------


@pytest.mark.parametrize("run", ["2H 3H 4H", "8H 9H TH", "5H 6H 7H 8H 9H TH", "JH QH KH"])
def test_ir_6_sequences_of_number_cards_or_jack_queen_king(run: str) -> None:
    hand = cards(run)
    hand += cards("2S 5S 8S JS 3D 6D 9D")[: 7 - len(hand)]
    state = deal([" ".join(hand), IDLE], stock="KC")
    state, _ = play(state, 0, DRAW)
    state, events = play(state, 0, meld(run))
    assert events[0]["meld"]["kind"] == "run"
    assert state.melds[0].cards == tuple(cards(run))


@pytest.mark.parametrize("cards_", ["9H TH JH", "TH JH QH", "QH KH AH", "AH 2H 3H",
                                    "KH AH 2H", "2H 3H 5H", "2H 3S 4H"])
def test_ir_6_ten_does_not_touch_the_jack_and_aces_are_never_in_a_sequence(
        cards_: str) -> None:
    hand = cards(cards_)
    hand += cards("2C 5C 8C 6S 6D 9D QS")[: 7 - len(hand)]
    state = deal([" ".join(hand), IDLE], stock="KC")
    state, _ = play(state, 0, DRAW)
    assert "IR-6" in refused(state, 0, meld(cards_))


def test_ir_7_sets_of_three_or_four_cards_aces_allowed() -> None:
    state = deal(["2H 3H 4H AS AD AC AH", IDLE], stock="KC")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"))
    state, events = play(state, 0, meld("AS AD AC AH"))
    assert events[0]["meld"] == {"id": "m2", "kind": "set", "cards": ["AS", "AD", "AC", "AH"]}


def test_ir_7_two_cards_of_a_rank_are_no_set() -> None:
    state = deal(["2H 3H 4H AS AD 7C 9S", IDLE], stock="KC")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"))
    refused(state, 0, meld("AS AD"))


def test_ir_8_a_set_only_once_the_player_has_a_sequence_on_the_table() -> None:
    state = deal(["7S 7D 7C 2H 3H 4H KD", IDLE], stock="KC")
    state, _ = play(state, 0, DRAW)
    assert "IR-8" in refused(state, 0, meld("7S 7D 7C"))
    # A sequence laid earlier in the same turn counts.
    state = play_turn(state, 0, meld("2H 3H 4H"), meld("7S 7D 7C"))
    assert [m.kind for m in state.melds] == ["run", "set"]


def test_ir_8_another_players_sequence_does_not_count() -> None:
    state = deal(["2H 3H 4H 5C 9S JD QS", "7S 7D 7C 2D 5D 8D KC"], stock="KH AH")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), discard("KH"))
    state, _ = play(state, 1, DRAW)
    assert "IR-8" in refused(state, 1, meld("7S 7D 7C"))


def test_ir_9_nothing_can_be_added_to_melds_on_the_table() -> None:
    state = deal(["2H 3H 4H 5H 7S 9D JC", IDLE], stock="KC")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"))
    assert "IR-9" in refused(state, 0, {"kind": "lay_off", "card": "5H", "meld": "m1"})
    assert all(a["kind"] != "lay_off" for a in GAME.legal_actions(state, 0))


# --- a turn (IR-10..IR-13) --------------------------------------------------------------


def test_ir_10_draw_the_top_card_of_the_stock() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", IDLE], stock="KC QD")
    state, events = play(state, 0, DRAW)
    assert state.hands[0][-1] == "KC"
    assert state.stock == ["QD"]
    assert events == [{"kind": "drew", "seat": 0, "from": "stock"}]
    assert "IR-10" in refused(state, 0, DRAW)  # one draw a turn
    # The wire form with "from" is the same action.
    state = deal(["2H 5H 8H JH 3S 6S 9S", IDLE], stock="KC QD")
    new, _ = GAME.apply(state, 0, {"kind": "draw", "from": "stock"}, 0)
    assert new.hands[0][-1] == "KC"
    assert "IR-10" in refused(state, 0, {"kind": "draw", "from": "discard"})


def test_ir_10_take_the_top_card_to_meld_it_at_once() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H")
    state, events = play(state, 0, take("7H", "5H 6H"))
    assert state.discard == []
    assert state.hands[0] == cards("9S KD 2C 4D QS")
    assert state.melds[0].cards == ("5H", "6H", "7H") and state.melds[0].owner == 0
    assert state.step == "play"
    assert events == [{"kind": "took", "seat": 0, "card": "7H", "above": [],
                       "meld": {"id": "m1", "kind": "run", "cards": ["5H", "6H", "7H"]}}]
    refused(state, 0, DRAW)  # the take was the turn's draw


def test_ir_10_take_second_card_brings_the_one_above() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H 3S")
    state, events = play(state, 0, take("7H", "5H 6H"))
    assert state.discard == []
    assert state.hands[0] == cards("9S KD 2C 4D QS 3S")
    assert events[0]["above"] == ["3S"]


def test_ir_10_take_third_card_brings_the_two_above() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="AH 7H 3S KC")
    state, _ = play(state, 0, take("7H", "5H 6H"))
    assert state.discard == ["AH"]
    assert state.hands[0] == cards("9S KD 2C 4D QS 3S KC")
    # The cards from above are hand cards like any other: they may be discarded.
    state, _ = play(state, 0, discard("KC"))
    assert state.discard == ["AH", "KC"]


def test_ir_10_only_the_top_three_cards_may_be_taken() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H 3S KC AH")
    assert "top three" in refused(state, 0, take("7H", "5H 6H"))
    assert "top three" in refused(state, 0, take("8H", "5H 6H"))


def test_ir_10_a_take_needs_two_hand_cards_that_meld_with_the_card() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H")
    assert "IR-10" in refused(state, 0, take("7H", "6H"))
    assert "IR-6" in refused(state, 0, take("7H", "6H 9S"))
    refused(state, 0, take("7H", "5H 6H 6H"))
    refused(state, 0, take("7H", "5H 3C"))  # not held
    refused(state, 0, {"kind": "take", "card": "7H"})
    refused(state, 0, {"kind": "take", "with": ["5H", "6H"]})


def test_ir_10_the_meld_uses_only_cards_held_before_the_take() -> None:
    # 6H lies above 7H: it comes into the hand with the take, too late for the meld.
    state = deal(["5H 4H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H 6H")
    assert "before the take" in refused(state, 0, take("7H", "5H 6H"))
    # Exactly one discard card goes into the meld: 6H and 7H together is no take.
    refused(state, 0, take("6H", "5H 7H"))
    # With 4H and 5H from the hand, 6H (the top card) can be taken.
    state, _ = play(state, 0, take("6H", "4H 5H"))
    assert state.melds[0].cards == ("4H", "5H", "6H")


def test_ir_10_a_take_may_use_more_than_two_hand_cards() -> None:
    state = deal(["4H 5H 6H 9S KD 2C QS", IDLE], stock="TC", discard="7H")
    state, _ = play(state, 0, take("7H", "4H 5H 6H"))
    assert state.melds[0].cards == ("4H", "5H", "6H", "7H")


def test_ir_11_no_set_take_without_a_sequence() -> None:
    state = deal(["9S 9D 2H 3H 4H KD QS", IDLE], stock="TC JH", discard="9H")
    assert "IR-11" in refused(state, 0, take("9H", "9S 9D"))


def test_ir_11_a_set_take_once_the_player_has_a_sequence() -> None:
    state = deal(["9S 9D 2H 3H 4H KD QS", "9H 5C 8C JC 3D 6D 2S"], stock="TC JH KH")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), discard("TC"))
    state = play_turn(state, 1, DRAW, discard("9H"))
    state, events = play(state, 0, take("9H", "9S 9D"))
    assert events[0]["meld"]["kind"] == "set"


def test_ir_12_a_take_that_would_leave_no_card_is_refused() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H")
    state.hands[0] = cards("5H 6H")  # a hand-made position: two cards left
    assert "IR-12" in refused(state, 0, take("7H", "5H 6H"))
    # With a card above, the take leaves that card to discard, which closes.
    state.discard = cards("7H 3S")
    state, _ = play(state, 0, take("7H", "5H 6H"))
    assert state.hands[0] == ["3S"]
    state, _ = play(state, 0, discard("3S"))
    assert state.phase != "playing" and state.result is not None
    assert state.result["winner"] == 0 and state.result["bonus"] == 50


def test_ir_12_a_meld_that_would_leave_no_card_is_refused() -> None:
    state = deal(["2H 3H 4H 5H 6H 7H 8H", IDLE], stock="9H")
    state, _ = play(state, 0, DRAW)
    assert "IR-12" in refused(state, 0, meld("2H 3H 4H 5H 6H 7H 8H 9H"))
    state, _ = play(state, 0, meld("2H 3H 4H 5H"))
    assert "IR-12" in refused(state, 0, meld("6H 7H 8H 9H"))
    state, _ = play(state, 0, meld("6H 7H 8H"))
    assert state.hands[0] == ["9H"]


def test_ir_13_any_number_of_melds_then_one_discard_ends_the_turn() -> None:
    state = deal(["2H 3H 4H JS QS KS 9D", IDLE], stock="7C 8C")
    assert "IR-10" in refused(state, 0, meld("2H 3H 4H"))  # draw first
    assert "IR-10" in refused(state, 0, discard("9D"))
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), meld("JS QS KS"))
    assert GAME.view(state, 0)["can_meld"]
    state, events = play(state, 0, discard("9D"))
    assert events == [{"kind": "discarded", "seat": 0, "card": "9D"}]
    assert (state.turn, state.step) == (1, "draw")
    assert state.hands[0] == ["7C"]


# --- closing and the end of a deal (IR-14..IR-19) ---------------------------------------


def test_ir_14_close_lays_every_card_but_one_and_discards_it() -> None:
    state = deal(["2H 3H 4H 5S 6S 7S 8S", IDLE], stock="9D KC")
    state, _ = play(state, 0, DRAW)
    view = GAME.view(state, 0)
    assert view["can_close"]
    assert not GAME.view(state, 1)["can_close"] and not GAME.view(state, None)["can_close"]
    state, events = play(state, 0, close(["5S 6S 7S 8S", "2H 3H 4H"], "9D"))
    assert [e["kind"] for e in events] == [
        "melded", "melded", "discarded", "closed", "deal_over"]
    assert state.phase == "deal_over"
    assert state.hands[0] == [] and state.discard == ["9D"]
    assert [m.cards for m in state.melds] == [("5S", "6S", "7S", "8S"), ("2H", "3H", "4H")]
    assert state.result is not None
    assert state.result["winner"] == 0 and state.result["ended"] == "closed"
    assert state.result["closing_card"] == "9D"


def test_ir_14_a_close_may_bring_the_first_sequence_and_sets_together() -> None:
    state = deal(["7S 7D 7C 2H 3H 4H KD", IDLE], stock="AC")
    state, _ = play(state, 0, DRAW)
    assert not GAME.view(state, 0)["can_close"]  # AC and KD are both loose
    state = deal(["7S 7D 7C 2H 3H 4H KD", IDLE], stock="4D")
    state, _ = play(state, 0, DRAW)
    refused(state, 0, close(["7S 7D 7C", "2H 3H 4H"], "KD"))  # 4D is left over
    state = deal(["7S 7D 7C 2H 3H 4H KD", IDLE], stock="5H")
    state = play_turn(state, 0, DRAW, close(["7S 7D 7C", "2H 3H 4H 5H"], "KD"))
    assert [m.kind for m in state.melds] == ["run", "set"]
    assert state.result is not None and state.result["bonus"] == 100


def test_ir_14_a_close_of_sets_alone_needs_a_sequence() -> None:
    state = deal(["7S 7D 7C 9S 9D 9C KD", IDLE], stock="9H")
    state, _ = play(state, 0, DRAW)
    assert not GAME.view(state, 0)["can_close"]
    assert "IR-8" in refused(state, 0, close(["7S 7D 7C", "9S 9D 9C 9H"], "KD"))


def test_ir_14_a_close_must_lay_every_other_card_in_melds() -> None:
    state = deal(["2H 3H 4H 5S 6S 7S 8S", IDLE], stock="9D KC")
    assert "IR-10" in refused(state, 0, close(["2H 3H 4H", "5S 6S 7S 8S"], "9D"))  # no draw
    state, _ = play(state, 0, DRAW)
    assert "IR-14" in refused(state, 0, close(["2H 3H 4H", "5S 6S 7S"], "9D"))
    assert "IR-14" in refused(state, 0, close(["2H 3H 4H", "5S 6S 7S 8S", "9D"], "9D"))
    assert "IR-14" in refused(state, 0, close(["2H 3H 4H", "5S 6S 7S 8S 8S"], "9D"))
    refused(state, 0, close(["2H 3H 4H 5S", "6S 7S 8S"], "9D"))  # not a meld
    refused(state, 0, close(["2H 3H 4H", "5S 6S 7S 8S"], "KC"))  # not held
    refused(state, 0, {"kind": "close", "melds": "2H", "card": "9D"})
    refused(state, 0, {"kind": "close", "melds": [["2H", "3H", "4H"]]})


def test_ir_14_melding_all_but_one_card_then_discarding_it_also_closes() -> None:
    state = deal(["2H 3H 4H 5S 6S 7S 8S", IDLE], stock="AD KC")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), meld("5S 6S 7S 8S"))
    assert GAME.view(state, 0)["can_close"]
    state, events = play(state, 0, discard("AD"))
    assert {"kind": "closed", "seat": 0, "card": "AD", "bonus": 150} in events
    assert state.result is not None and state.result["winner"] == 0


def test_ir_14_a_close_after_a_take() -> None:
    state = deal(["5H 6H 2S 3S 4S KD KC", IDLE], stock="TC", discard="7H AH")
    state, _ = play(state, 0, take("7H", "5H 6H"))
    assert state.hands[0] == cards("2S 3S 4S KD KC AH")
    assert not GAME.view(state, 0)["can_close"]
    state = deal(["5H 6H 2S 3S 4S KD QD", IDLE], stock="TC", discard="7H JD AH")
    state, _ = play(state, 0, take("7H", "5H 6H"))
    assert GAME.view(state, 0)["can_close"]
    state, _ = play(state, 0, close(["2S 3S 4S", "JD QD KD"], "AH"))
    assert seat_result(state, 0)["bonus"] == 150


def test_ir_15_the_deal_ends_when_the_stock_is_empty_and_no_take_is_possible() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", IDLE], stock="KC")
    state, _ = play(state, 0, DRAW)
    state, events = play(state, 0, discard("KC"))
    # Seat 1 must draw from an empty stock and cannot take KC: the deal is over.
    assert [e["kind"] for e in events][:2] == ["discarded", "deal_over"]
    assert state.phase in ("deal_over", "game_over")
    assert state.result is not None and state.result["ended"] == "stock_out"
    assert state.result["winner"] is None and not state.result["void"]


def test_ir_15_with_an_empty_stock_a_player_may_still_take() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", "QC KC 2D 5D 8D 4S 7S"], stock="JC")
    state = play_turn(state, 0, DRAW, discard("JC"))
    assert state.phase == "playing" and state.stock == []
    assert normal(take("JC", "QC KC")) in [normal(a) for a in GAME.legal_actions(state, 1)]
    state = play_turn(state, 1, take("JC", "QC KC"), discard("2D"))
    # Seat 0 cannot take 2D: the deal ends before its turn.
    assert state.result is not None and state.result["ended"] == "stock_out"


def test_ir_15_with_an_empty_stock_a_player_may_decline_to_take() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", "QC KC 2D 5D 8D 4S 7S"], stock="JC")
    state = play_turn(state, 0, DRAW, discard("JC"))
    state, events = play(state, 1, DRAW)
    assert [e["kind"] for e in events][:2] == ["stock_out", "deal_over"]
    assert state.result is not None and state.result["ended"] == "stock_out"
    assert sorted(seat_result(state, 1)["minus_cards"]) == sorted(cards("QC KC 2D 5D 8D 4S 7S"))


def test_ir_15_a_deal_can_end_before_anyone_plays() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", IDLE])
    assert state.phase in ("deal_over", "game_over")
    assert state.result is not None and state.result["ended"] == "stock_out"


def test_ir_16_hand_melds_count_plus_and_the_rest_minus() -> None:
    state = deal(["2H 3H 4H 7S 7D 7C KD", "8S 8D 8H QC QD QS AH"])
    zero = seat_result(state, 0)
    # The set counts: the hand holds a sequence too.
    assert zero["hand_melds"] == [{"kind": "run", "cards": ["2H", "3H", "4H"]},
                                  {"kind": "set", "cards": ["7S", "7D", "7C"]}]
    assert zero["minus_cards"] == ["KD"]
    assert (zero["hand_points"], zero["minus_points"], zero["points"]) == (30, 10, 20)
    # No sequence on the table or in hand: the sets count minus.
    one = seat_result(state, 1)
    assert one["hand_melds"] == [] and one["points"] == -(15 + 30 + 15)
    assert state.scores == [20, -60]
    assert state.result is not None and state.result["points"] == [20, -60]


def test_ir_16_the_hand_is_split_the_way_that_scores_best() -> None:
    state = deal(["5H 6H 7H 8H 8S 8D 9C", IDLE])
    zero = seat_result(state, 0)
    # 5-8H with 8S 8D loose would score 20 - 15; 5-7H and the 8s score 30 - 5.
    assert zero["points"] == 25
    assert zero["minus_cards"] == ["9C"]


def test_ir_16_table_melds_count_and_a_table_sequence_makes_hand_sets_count() -> None:
    state = deal(["2H 3H 4H 7S 7D 7C KD", IDLE], stock="QC")
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), discard("QC"))
    zero = seat_result(state, 0)
    assert zero["table_melds"] == [{"kind": "run", "cards": ["2H", "3H", "4H"]}]
    assert zero["hand_melds"] == [{"kind": "set", "cards": ["7S", "7D", "7C"]}]
    assert (zero["table_points"], zero["hand_points"], zero["minus_points"]) == (15, 15, 10)
    assert zero["points"] == 20


def test_ir_16_option_only_table_melds_count() -> None:
    state = deal(["2H 3H 4H 7S 7D 7C KD", IDLE], stock="QC", hand_melds_count=False)
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"), discard("QC"))
    zero = seat_result(state, 0)
    assert zero["hand_melds"] == []
    assert zero["points"] == 15 - (15 + 10)
    assert GAME.view(state, 0)["options"]["hand_melds_count"] is False


@pytest.mark.parametrize(("closer", "bonus"), [("9D", 50), ("KC", 100), ("AC", 150)])
def test_ir_17_the_closer_adds_ten_times_the_closing_card(closer: str, bonus: int) -> None:
    state = deal(["2H 3H 4H 5S 6S 7S 8S", "2C 5C 8C JC 3D 6D 9C"], stock=closer)
    state, _ = play(state, 0, DRAW)
    state, events = play(state, 0, close(["2H 3H 4H", "5S 6S 7S 8S"], closer))
    assert {"kind": "closed", "seat": 0, "card": closer, "bonus": bonus} in events
    zero = seat_result(state, 0)
    assert zero["bonus"] == bonus
    assert zero["points"] == 15 + 20 + bonus
    assert seat_result(state, 1)["bonus"] == 0
    assert state.scores == [35 + bonus, -40]


def test_ir_18_the_lowest_total_deals_next() -> None:
    # Ends at once (no stock): seat 0 scores -40, seat 1 -70 (no sequence: its aces
    # count minus), seat 2 -40.
    state = deal(["2C 5C 8C JC 3D 6D 9D", "AS AD AC KS 2H 5H 8H", "2S 5S 8S JS 3H 6H 9H"],
                 dealer=0)
    assert state.scores == [-40, -70, -40]
    state, events = play(state, 2, {"kind": "next_deal"})
    assert state.dealer == 1 and state.turn == 1
    assert events == [{"kind": "deal_started", "deal": 2, "dealer": 1}]


@pytest.mark.parametrize(("dealer", "expected"), [(0, 1), (1, 2), (2, 1)])
def test_ir_18_a_tie_goes_to_the_first_tied_player_after_the_dealer(
        dealer: int, expected: int) -> None:
    # Ends at once: seat 0 scores -40, seats 1 and 2 tie on -70.
    state = deal(["2C 5C 8C JC 3D 6D 9D", "AS AD AC KS 2H 5H 8H", "AH KH KD QS QD JH 4S"],
                 dealer=dealer)
    assert state.scores == [-40, -70, -70]
    state, _ = play(state, 0, {"kind": "next_deal"})
    assert state.dealer == expected


def test_ir_19_a_game_is_eight_deals_and_the_highest_total_wins() -> None:
    state = GAME.setup(GAME.validate_options({"deal_pause_ms": 0}, 2), 2, seed=21, now=0)
    state = play_out(state)
    assert state.phase == "game_over"
    assert len(state.results) == 8
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.winners == [s for s, v in enumerate(state.scores) if v == max(state.scores)]
    assert state.scores == [sum(r["points"][s] for r in state.results) for s in range(2)]


def test_ir_19_option_target_ends_the_game_when_a_player_reaches_it() -> None:
    state = GAME.setup(GAME.validate_options({"target": 150, "deal_pause_ms": 0}, 2),
                       2, seed=4, now=0)
    assert state.options["deals"] is None
    state = play_out(state)
    assert state.phase == "game_over"
    assert max(state.scores) >= 150
    before_last = [sum(r["points"][s] for r in state.results[:-1]) for s in range(2)]
    assert max(before_last) < 150


def test_ir_19_deals_and_target_together_end_at_whichever_comes_first() -> None:
    opts = GAME.validate_options({"deals": 2, "target": 10_000, "deal_pause_ms": 0}, 2)
    state = play_out(GAME.setup(opts, 2, seed=4, now=0))
    assert len(state.results) == 2 and state.phase == "game_over"


def play_out(state: RummyState) -> RummyState:
    """Plays a whole game with the bot in every seat, starting deals at their deadline."""
    from engine.bots.indonesian_remi import choose

    now = 0
    for _ in range(5000):
        if state.phase == "game_over":
            return state
        if state.phase == "deal_over":
            deadline = GAME.next_deadline(state)
            assert deadline is not None
            now = max(now, deadline)
            state, _ = GAME.on_timeout(state, now)
            continue
        seat = state.turn
        action = choose(GAME.view(state, seat))
        assert action is not None
        state, _ = play(state, seat, action, now)
    raise AssertionError("the game did not end")


# --- the view, persistence, refusals ----------------------------------------------------


def test_the_view_shows_takeable_cards_sequences_and_hides_hands() -> None:
    state = deal(["2H 3H 4H 9S KD 2C QS", IDLE], stock="TC JH", discard="AS 7D 8D 9D")
    view = GAME.view(state, 1)
    assert view["discard"] == cards("AS 7D 8D 9D")
    assert view["takeable"] == cards("7D 8D 9D")
    assert view["hand"] == state.hands[1]
    assert [s["has_sequence"] for s in view["seats"]] == [False, False]
    assert view["can_close"] is False
    assert "hand" not in GAME.view(state, None)
    state = play_turn(state, 0, DRAW, meld("2H 3H 4H"))
    view = GAME.view(state, None)
    assert [s["has_sequence"] for s in view["seats"]] == [True, False]
    assert view["seats"][0]["melds"] == [{"id": "m1", "kind": "run", "cards": cards("2H 3H 4H")}]
    assert view["seats"][0]["hand_count"] == 5
    text = json.dumps(view)
    for card in state.hands[0] + state.hands[1] + state.stock:
        assert card not in text
    for key in ("game", "phase", "step", "you", "dealer", "turn", "deal", "options", "seats",
                "stock_count", "discard", "melds", "result", "results", "next_deal_at",
                "winners", "takeable", "can_close"):
        assert key in view


def test_the_result_shows_every_seat_breakdown_and_hand() -> None:
    state = deal(["2H 3H 4H 5S 6S 7S 8S", "2C 5C 8C JC 3D 6D 9C"], stock="AC")
    state = play_turn(state, 0, DRAW, close(["2H 3H 4H", "5S 6S 7S 8S"], "AC"))
    result = GAME.view(state, None)["result"]
    assert result["hands"] == [[], cards("2C 5C 8C JC 3D 6D 9C")]
    zero, one = result["seats"]
    assert zero["table_melds"] == [{"kind": "run", "cards": cards("2H 3H 4H")},
                                   {"kind": "run", "cards": cards("5S 6S 7S 8S")}]
    assert (zero["table_points"], zero["bonus"], zero["points"], zero["total"]) == (
        35, 150, 185, 185)
    assert one["minus_points"] == 40 and one["total"] == -40
    assert GAME.view(state, None)["results"][0]["points"] == [185, -40]


def test_the_next_deal_starts_at_its_deadline() -> None:
    state = deal(["2H 5H 8H JH 3S 6S 9S", IDLE], now=1000, deal_pause_ms=500)
    assert GAME.next_deadline(state) == 1500
    same, events = GAME.on_timeout(state, 1499)
    assert same is state and events == []
    state, events = GAME.on_timeout(state, 1500)
    assert state.deal == 2 and state.phase == "playing"
    assert [len(h) for h in state.hands] == [7, 7]
    assert state.turn == state.dealer


def test_snapshot_and_restore_round_trip() -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H 3S")
    state, _ = play(state, 0, take("7H", "5H 6H"))
    data = json.loads(json.dumps(GAME.snapshot(state)))
    assert data["game"] == "indonesian_remi"
    assert GAME.restore(data) == state
    state, _ = play(state, 0, discard("QS"))
    state = play_turn(state, 1, DRAW, discard("TC"))
    assert GAME.restore(json.loads(json.dumps(GAME.snapshot(state)))) == state


@pytest.mark.parametrize("action", [
    None, "draw", {}, {"kind": "pass"}, {"kind": 3}, {"kind": "take", "card": 7, "with": []},
    {"kind": "take", "card": "7H", "with": "5H 6H"}, {"kind": "meld", "cards": "2H"},
    {"kind": "discard"}, {"kind": "discard", "card": "ZZ"}, {"kind": "next_deal"},
])
def test_malformed_or_untimely_actions_are_refused_and_change_nothing(action: Any) -> None:
    state = deal(["5H 6H 9S KD 2C 4D QS", IDLE], stock="TC", discard="7H")
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as caught:
        GAME.apply(state, 0, action, 0)
    assert caught.value.message
    assert state == before
    refused(state, 1, DRAW, NotYourTurn)
    refused(state, 5, DRAW)
