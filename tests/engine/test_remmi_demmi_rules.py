"""Remmi Demmi rules, one group of tests per rule id (RD-1..RD-20).

Most tests deal a fixed first round through a scenario: with five players
(copies 1-5, 45 cards, all dealt) seat 0 holds an orange running/jumping
Remmi, seat 1 a purple one, seat 2 a green one, seat 3 a lying Remmi of two
colours, and seat 4 the nine cards left over (no Remmi).
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from engine.errors import BadOptions, GameError, IllegalAction, NotYourTurn
from engine.game import Event
from engine.games import find_game, remmi_demmi
from engine.games.remmi_demmi import (
    AUTO_START_MS,
    RECENT_TRADES,
    RETURNABLE,
    RemmiDemmi,
    RemmiDemmiState,
    Trade,
    deck_for,
    find_remmi,
    hand_size,
    is_card,
    is_demmi,
    is_remmi,
    locked_cards,
)
from engine.room import AddBot, Join, RoomCore, Start
from tests.engine.pure_apply import refusal_text
from tests.engine.room_harness import make_room

GAME = RemmiDemmi()
T0 = 1_000_000  # the deal's epoch ms

REMMI_O = ["OR1", "OR2", "OR3", "OR4", "OR5", "OJ1", "OJ2", "OJ3", "OJ4"]
REMMI_P = ["PR1", "PR2", "PR3", "PR4", "PR5", "PJ1", "PJ2", "PJ3", "PJ4"]
REMMI_G = ["GR1", "GR2", "GR3", "GR4", "GR5", "GJ1", "GJ2", "GJ3", "GJ4"]
REMMI_L = ["OL1", "OL2", "OL3", "OL4", "OL5", "PL1", "PL2", "PL3", "PL4"]
LEFTOVER = ["OJ5", "PJ5", "GJ5", "PL5", "GL1", "GL2", "GL3", "GL4", "GL5"]
FIVE = [REMMI_O, REMMI_P, REMMI_G, REMMI_L, LEFTOVER]


def new_game(players: int = 5, hands: list[list[str]] | None = None, seed: int = 1,
             **options: Any) -> RemmiDemmiState:
    if hands is not None:
        options["scenario"] = {"hands": hands}
    return GAME.setup(GAME.validate_options(options, players), players, seed, T0)


def act(state: RemmiDemmiState, seat: int, action: dict[str, Any], now: int = T0
        ) -> tuple[RemmiDemmiState, list[Event]]:
    """Applies ``action``, checking that ``apply`` leaves its input alone."""
    before = copy.deepcopy(state)
    new, events = GAME.apply(state, seat, action, now)
    assert state == before, "apply changed its input"
    json.dumps(events)
    return new, events


def refused(state: RemmiDemmiState, seat: int, action: Any, now: int = T0,
            error: type[GameError] = IllegalAction) -> str:
    """Asserts ``action`` is refused with ``error`` and changes nothing; returns the message."""
    before = copy.deepcopy(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action, now)
    assert state == before
    assert info.value.message
    return refusal_text(info.value)


def trading(players: int = 5, hands: list[list[str]] | None = None, **options: Any
            ) -> RemmiDemmiState:
    """A round with the timer running since T0 (started by the dealer, seat 0)."""
    state = new_game(players, FIVE if hands is None and players == 5 else hands, **options)
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "snail"})
    return state


def offer(state: RemmiDemmiState, seat: int, cards: list[str], to: int | None = None,
          now: int = T0) -> tuple[RemmiDemmiState, list[Event]]:
    return act(state, seat, {"kind": "offer", "cards": cards, "to": to}, now)


def kinds(events: list[Event]) -> list[str]:
    return [e["kind"] for e in events]


def all_cards(state: RemmiDemmiState) -> list[str]:
    cards = [c for h in state.hands for c in h]
    for claim in state.claims:
        cards += list(claim.cards) + list(claim.aside)
    return cards


def card_ids(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if is_card(value) else set()
    if isinstance(value, dict):
        return set().union(*(card_ids(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(card_ids(v) for v in value)) if value else set()
    return set()


def four_player_hands() -> list[list[str]]:
    """Four players (copies 1-5, ten cards each): seats 0 and 1 hold a Remmi plus one card."""
    rest = [c for c in deck_for(4) if c not in REMMI_O + REMMI_P + ["GL1", "GL2"]]
    return [[*REMMI_O, "GL1"], [*REMMI_P, "GL2"], rest[:10], rest[10:20]]


# --- RD-1 / RD-2: the cards -------------------------------------------------------------


def test_rd_1_eighty_one_cards_of_three_colours_and_three_figures() -> None:
    deck = deck_for(9)
    assert len(deck) == len(set(deck)) == 81
    assert {c[0] for c in deck} == set("OPG") and {c[1] for c in deck} == set("RJL")
    assert {c[2] for c in deck} == set("123456789")
    assert all(is_card(c) for c in deck)
    assert not any(is_card(c) for c in ("OR0", "XR1", "OX1", "OR10", "or1", "", 5, None))


@pytest.mark.parametrize(("players", "copies", "size"), [
    (4, 5, 45), (5, 5, 45), (6, 7, 63), (7, 7, 63), (8, 9, 81), (9, 9, 81),
])
def test_rd_2_cards_in_play_by_player_count(players: int, copies: int, size: int) -> None:
    deck = deck_for(players)
    assert len(deck) == size
    assert max(int(c[2]) for c in deck) == copies
    for seed in range(3):
        state = new_game(players, seed=seed)
        dealt = all_cards(state)
        assert len(dealt) == len(set(dealt)) and set(dealt) <= set(deck)


def test_rd_2_a_scenario_may_only_use_the_cards_in_play() -> None:
    hands = [list(h) for h in FIVE]
    hands[4][0] = "OJ6"  # copy 6 is out of play with five players
    with pytest.raises(BadOptions, match="not a card in play"):
        new_game(5, hands)


# --- RD-3: point men --------------------------------------------------------------------


def test_rd_3_point_men_4_3_2_on_the_table() -> None:
    for players in range(5, 10):
        assert GAME.view(new_game(players), None)["point_men"] == [4, 3, 2]


# --- RD-4: the timer --------------------------------------------------------------------


@pytest.mark.parametrize(("speed", "length"), [("snail", 120_000), ("lightning", 70_000)])
def test_rd_4_timer_speeds(speed: str, length: int) -> None:
    state = new_game(5, FIVE)
    state, events = act(state, 0, {"kind": "start_timer", "speed": speed}, T0 + 500)
    assert state.deadline == T0 + 500 + length
    assert {"kind": "timer_started", "speed": speed, "deadline": T0 + 500 + length,
            "by": 0} in events
    view = GAME.view(state, 3)
    assert (view["speed"], view["deadline"], view["timer_started_at"]) == (
        speed, T0 + 500 + length, T0 + 500)
    assert view["stage"] == "trading"


def test_rd_4_a_custom_length_overrides_the_speed() -> None:
    state = new_game(5, FIVE, timer_s=30)
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "lightning"})
    assert state.deadline == T0 + 30_000
    for bad in (9, 601, "60", True, 12.5):
        with pytest.raises(BadOptions):
            GAME.validate_options({"timer_s": bad}, 5)


# --- RD-5 / RD-6: the deal and the dealer -----------------------------------------------


@pytest.mark.parametrize("players", range(4, 10))
def test_rd_5_each_player_gets_nine_cards_ten_with_four(players: int) -> None:
    state = new_game(players, seed=11)
    assert [len(h) for h in state.hands] == [hand_size(players)] * players
    assert hand_size(players) == (10 if players == 4 else 9)
    assert state == new_game(players, seed=11)  # the seed decides the deal


def test_rd_5_every_round_reshuffles_all_cards_in_play() -> None:
    state = new_game(5, FIVE, round_pause_ms=0)
    state = end_by_timer(state)
    assert state.deal == 2
    assert sorted(all_cards(state)) == sorted(deck_for(5))
    assert state.hands != [list(h) for h in FIVE]


def test_rd_6_seat_0_deals_first_then_the_deal_passes_on() -> None:
    state = new_game(4, round_pause_ms=0, rounds=7)
    dealers = [state.dealer]
    for _ in range(4):
        state = end_by_timer(state)
        dealers.append(state.dealer)
    assert dealers == [0, 1, 2, 3, 0]


def end_by_timer(state: RemmiDemmiState) -> RemmiDemmiState:
    """Lets the current round start and run out; returns the state once the next one is dealt."""
    deal = state.deal
    now = T0
    while state.deal == deal and state.phase != "game_over":
        due = GAME.next_deadline(state)
        assert due is not None
        now = max(now, due)
        state, _ = GAME.on_timeout(state, now)
    return state


# --- RD-7: starting the timer -----------------------------------------------------------


def test_rd_7_only_the_dealer_starts_the_timer() -> None:
    state = new_game(5, FIVE)
    message = refused(state, 2, {"kind": "start_timer", "speed": "snail"}, error=NotYourTurn)
    assert "dealer" in message
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "lightning"})
    assert "already running" in refused(state, 0, {"kind": "start_timer", "speed": "snail"})
    refused(new_game(5, FIVE), 0, {"kind": "start_timer", "speed": "turtle"})


def test_rd_7_the_server_starts_the_timer_10_s_after_the_deal() -> None:
    state = new_game(5, FIVE, speed="lightning")
    assert GAME.view(state, 1)["auto_start_at"] == T0 + AUTO_START_MS == T0 + 10_000
    assert GAME.next_deadline(state) == T0 + 10_000
    same, events = GAME.on_timeout(state, T0 + 9_999)
    assert same.stage == "dealt" and events == []
    state, events = GAME.on_timeout(state, T0 + 10_000)
    assert state.stage == "trading"
    assert {"kind": "timer_started", "speed": "lightning", "deadline": T0 + 80_000,
            "by": None} in events
    assert GAME.next_deadline(state) == T0 + 80_000


def test_rd_7_an_action_arriving_after_the_auto_start_sees_the_timer_running() -> None:
    state = new_game(5, FIVE)
    state, events = offer(state, 1, ["PR1"], now=T0 + 12_000)
    assert kinds(events) == ["timer_started", "offered"]
    assert state.timer_started_at == T0 + 10_000


# --- RD-8: trading only while the timer runs --------------------------------------------


def test_rd_8_an_offer_before_the_timer_starts_is_refused() -> None:
    state = new_game(5, FIVE)
    assert "timer" in refused(state, 1, {"kind": "offer", "cards": ["PR1"], "to": None})
    assert "timer" in refused(state, 0, {"kind": "claim", "cards": REMMI_O})


# --- RD-9 / RD-10: Remmi and Demmi -----------------------------------------------------


def test_rd_9_a_remmi_is_nine_cards_of_one_colour_or_figure_with_at_most_two_of_the_other(
) -> None:
    assert is_remmi(REMMI_O)  # one colour, two figures
    assert is_remmi(REMMI_L)  # one figure, two colours
    assert is_remmi([f"OR{n}" for n in range(1, 10)])  # one kind
    three_figures = ["OR1", "OR2", "OR3", "OJ1", "OJ2", "OJ3", "OL1", "OL2", "OL3"]
    assert not is_remmi(three_figures)
    assert not is_remmi(REMMI_O[:8])
    assert not is_remmi([*REMMI_O, "OR6"])
    assert not is_remmi(LEFTOVER)
    assert find_remmi([*REMMI_O, "GL1"]) == REMMI_O


def test_rd_10_a_demmi_is_cards_of_one_colour_or_one_figure() -> None:
    assert is_demmi(["OR1"])
    assert is_demmi(["OR1", "OJ2", "OL3"])
    assert is_demmi(["OR1", "PR1", "GR1"])
    assert not is_demmi(["OR1", "PJ1"])
    assert not is_demmi([])


# --- RD-11: offers and trades -----------------------------------------------------------


def test_rd_11_equal_offers_swap_atomically_and_hands_keep_their_size() -> None:
    state = trading()
    state, events = offer(state, 0, ["OR1", "OR2"])
    assert events[-1] == {"kind": "offered", "seat": 0, "size": 2, "to": None,
                          "offer": "o1", "replaced": False}
    state, events = offer(state, 1, ["PJ1", "PJ2"], now=T0 + 100)
    assert kinds(events) == ["offered", "traded"]
    assert events[-1]["a"] == 0 and events[-1]["b"] == 1 and events[-1]["size"] == 2
    assert not card_ids(events)  # public: sizes, never cards
    assert "PJ1" in state.hands[0] and "OR1" in state.hands[1]
    assert "OR1" not in state.hands[0] and "PJ1" not in state.hands[1]
    assert [len(h) for h in state.hands] == [9] * 5
    assert state.offers == []
    mine = GAME.view(state, 0)["trades"]
    assert mine == [{
        "id": "t1", "with": 1, "gave": ["OR1", "OR2"], "got": ["PJ1", "PJ2"], "size": 2,
        "at": T0 + 100, "invalid_received": False, "invalid_given": False,
        "return_until": None, "locked_until": None, "can_return": False, "status": "done",
        "returned_by": None,
    }]
    assert GAME.view(state, 1)["trades"][0]["got"] == ["OR1", "OR2"]
    assert GAME.view(state, 2)["trades"] == []


def test_rd_11_trades_share_their_pairs_of_seats_and_flags() -> None:
    # A round keeps every trade; its pairs are not made anew for each one.
    state = trading()
    state, _ = offer(state, 0, ["OR1"])
    state, _ = offer(state, 1, ["PJ1"], now=T0 + 1)
    state, _ = offer(state, 0, ["OR2"], now=T0 + 2)
    state, _ = offer(state, 1, ["PJ2"], now=T0 + 3)
    first, second = state.trades
    assert first.seats == second.seats == (0, 1) and first.seats is second.seats
    assert first.invalid is second.invalid and first.pending is second.pending
    restored = GAME.restore(GAME.snapshot(state))
    assert restored.trades[0].seats is first.seats
    # (1, 0) == (True, False): a pair of seats is never taken for one of flags.
    state, _ = offer(state, 1, ["PJ3"], now=T0 + 4)
    state, _ = offer(state, 0, ["OR3"], now=T0 + 5)
    state, _ = offer(state, 0, ["OR4", "PJ1"], now=T0 + 6)  # not a Demmi
    state, _ = offer(state, 1, ["PR1", "PR2"], now=T0 + 7)
    third, fourth = state.trades[2:]
    assert third.seats == (1, 0) and fourth.invalid == (False, True)
    assert [type(v) for v in (*third.seats, *fourth.seats)] == [int] * 4
    assert [type(v) for v in (*fourth.invalid, *fourth.pending)] == [bool] * 4
    assert GAME.view(state, 1)["trades"][-1]["invalid_received"] is True
    assert GAME.view(state, 1)["trades"][-2]["with"] == 0


def test_rd_11_offers_of_different_sizes_do_not_match() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1", "OR2"])
    state, events = offer(state, 1, ["PJ1"])
    assert kinds(events) == ["offered"]
    assert [(o.seat, len(o.cards)) for o in state.offers] == [(0, 2), (1, 1)]


def test_rd_11_simultaneous_offers_are_decided_by_arrival() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1"])
    # Seats 1 and 2 answer "at the same moment": the one applied first trades.
    state, first = offer(state, 1, ["PR1"], now=T0 + 50)
    state, second = offer(state, 2, ["GR1"], now=T0 + 50)
    assert kinds(first) == ["offered", "traded"] and first[-1]["a"] == 0
    assert kinds(second) == ["offered"]
    assert [(o.seat, o.cards) for o in state.offers] == [(2, ("GR1",))]  # the loser's stays open
    assert GAME.view(state, 3)["offers"] == [
        {"id": "o3", "seat": 2, "size": 1, "to": None, "at": T0 + 50}]


def test_rd_11_an_arriving_offer_matches_the_oldest_compatible_one() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1"], now=T0 + 1)
    state, _ = offer(state, 1, ["PR1", "PR2"], now=T0 + 2)  # another size
    state, _ = offer(state, 2, ["GR1"], to=3, now=T0 + 3)  # aimed elsewhere
    # Seat 3 is compatible with seats 0 and 2; seat 0's offer is older.
    state, events = offer(state, 3, ["OL1"], now=T0 + 4)
    assert events[-1]["kind"] == "traded" and {events[-1]["a"], events[-1]["b"]} == {0, 3}
    assert sorted(o.seat for o in state.offers) == [1, 2]


def test_rd_11_an_aimed_offer_matches_only_its_target() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1"], to=2)
    state, events = offer(state, 1, ["PR1"])  # seat 0 aims at seat 2, not 1
    assert kinds(events) == ["offered"]
    state, events = offer(state, 3, ["OL1"], to=1)  # aims at 1: seat 0 is older but not 3's target
    assert events[-1]["kind"] == "traded" and {events[-1]["a"], events[-1]["b"]} == {1, 3}
    state, events = offer(state, 2, ["GR1"], to=4)  # 0 aims at 2, but 2 aims at 4
    assert kinds(events) == ["offered"]
    state, events = offer(state, 2, ["GR1"])
    assert events[-1]["kind"] == "traded" and {events[-1]["a"], events[-1]["b"]} == {0, 2}
    view = GAME.view(state, 4)
    assert view["seats"][2]["offer"] is None


def test_rd_11_the_view_shows_size_and_target_but_never_the_cards() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1", "OR2"], to=4)
    for seat in (None, 1, 4):
        view = GAME.view(state, seat)
        assert view["offers"] == [{"id": "o1", "seat": 0, "size": 2, "to": 4, "at": T0}]
        assert view["seats"][0]["offer"] == 2 and view["seats"][0]["offer_to"] == 4
        assert view["my_offer"] is None
        assert not card_ids({k: v for k, v in view.items() if k != "hand"})
    assert GAME.view(state, 0)["my_offer"] == {"id": "o1", "cards": ["OR1", "OR2"], "to": 4,
                                               "at": T0}


def test_rd_11_a_new_offer_replaces_the_old_one() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1", "OR2"])
    state, events = offer(state, 0, ["OJ1"], now=T0 + 10)
    assert events[-1]["replaced"] is True
    assert [(o.seat, o.cards) for o in state.offers] == [(0, ("OJ1",))]
    state, events = offer(state, 1, ["PR1", "PR2"])  # the old size no longer matches
    assert kinds(events) == ["offered"]
    state, events = offer(state, 2, ["GR1"])
    assert events[-1]["kind"] == "traded"
    assert "GR1" in state.hands[0] and "OR1" in state.hands[0]  # the replaced cards stayed home


def test_rd_11_withdraw_cancels_the_offer() -> None:
    state = trading()
    assert "no open offer" in refused(state, 0, {"kind": "withdraw"})
    state, _ = offer(state, 0, ["OR1"])
    state, events = act(state, 0, {"kind": "withdraw"})
    assert events == [{"kind": "withdrawn", "seat": 0}]
    assert state.offers == []
    state, events = offer(state, 1, ["PR1"])
    assert kinds(events) == ["offered"]


@pytest.mark.parametrize("action", [
    {"kind": "offer", "cards": ["PR1"], "to": None},  # not held
    {"kind": "offer", "cards": [], "to": None},
    {"kind": "offer", "cards": ["OR1", "OR1"], "to": None},
    {"kind": "offer", "cards": "OR1", "to": None},
    {"kind": "offer", "cards": [["OR1"]], "to": None},
    {"kind": "offer", "cards": ["OR1"], "to": 0},  # to yourself
    {"kind": "offer", "cards": ["OR1"], "to": 5},
    {"kind": "offer", "cards": ["OR1"], "to": True},
    {"kind": "offer", "cards": ["OR1"], "to": "1"},
    {"kind": "offer", "cards": [*REMMI_O, "OJ5"], "to": None},  # more than the hand
])
def test_rd_11_bad_offers_are_refused(action: dict[str, Any]) -> None:
    refused(trading(), 0, action)


def test_rd_11_an_offer_may_be_the_whole_hand() -> None:
    state = trading()
    state, _ = offer(state, 3, REMMI_L)
    state, events = offer(state, 4, LEFTOVER)
    assert events[-1]["kind"] == "traded"
    assert sorted(state.hands[3]) == sorted(LEFTOVER)


# --- RD-12: invalid Demmis and the return window ----------------------------------------


def invalid_trade(**options: Any) -> RemmiDemmiState:
    """Seat 4 gave seat 0 an invalid Demmi (OJ5 + GL1) for a valid one (OR1 + OR2)."""
    state = trading(**options)
    state, _ = offer(state, 0, ["OR1", "OR2"])
    state, events = offer(state, 4, ["OJ5", "GL1"], now=T0 + 1000)
    assert events[-1]["returnable"] is True
    return state


def test_rd_12_the_receiver_of_an_invalid_demmi_may_return_it() -> None:
    state = invalid_trade()
    receiver = GAME.view(state, 0)["trades"][0]
    assert receiver["invalid_received"] and receiver["can_return"]
    assert receiver["return_until"] == T0 + 1000 + 10_000
    assert receiver["status"] == "returnable"
    giver = GAME.view(state, 4)["trades"][0]
    assert not giver["can_return"] and giver["return_until"] is None
    assert giver["locked_until"] == T0 + 11_000
    assert "valid Demmi" in refused(state, 4, {"kind": "return", "trade": "t1"})
    state, events = act(state, 0, {"kind": "return", "trade": "t1"}, T0 + 5000)
    assert events == [{"kind": "returned", "trade": "t1", "by": 0}]
    assert sorted(state.hands[0]) == sorted(REMMI_O)
    assert sorted(state.hands[4]) == sorted(LEFTOVER)
    assert GAME.view(state, 4)["trades"][0]["status"] == "returned"
    assert GAME.view(state, 0)["locked"] == []
    assert "already been returned" in refused(state, 0, {"kind": "return", "trade": "t1"})


def test_rd_12_cards_on_both_sides_are_locked_during_the_window() -> None:
    state = invalid_trade()
    assert GAME.view(state, 0)["locked"] == ["GL1", "OJ5"]
    assert GAME.view(state, 4)["locked"] == ["OR1", "OR2"]
    assert "locked" in refused(state, 0, {"kind": "offer", "cards": ["OJ5"], "to": None})
    assert "locked" in refused(state, 4, {"kind": "offer", "cards": ["OR2"], "to": None})
    # Cards outside the trade stay free.
    state, _ = offer(state, 0, ["OR3"])
    state, _ = act(state, 0, {"kind": "withdraw"})
    state, _ = offer(state, 4, ["GL2"])


def test_rd_12_the_window_closes_and_the_trade_stands() -> None:
    state = invalid_trade(return_window_s=3)
    assert GAME.next_deadline(state) == T0 + 4000
    state, events = GAME.on_timeout(state, T0 + 4000)
    assert events == [{"kind": "kept", "trade": "t1", "by": None, "expired": True}]
    assert GAME.view(state, 0)["locked"] == [] and GAME.view(state, 4)["locked"] == []
    assert GAME.view(state, 0)["trades"][0]["status"] == "kept"
    assert "closed" in refused(state, 0, {"kind": "return", "trade": "t1"}, T0 + 4000)
    state, _ = offer(state, 0, ["OJ5"], now=T0 + 4000)


def test_rd_12_a_return_after_the_window_is_refused_even_before_the_timer_fires() -> None:
    state = invalid_trade(return_window_s=3)
    refused(state, 0, {"kind": "return", "trade": "t1"}, T0 + 4000)
    state, _ = act(state, 0, {"kind": "return", "trade": "t1"}, T0 + 3999)


def test_rd_12_keep_ends_the_window_at_once() -> None:
    state = invalid_trade()
    state, events = act(state, 0, {"kind": "keep", "trade": "t1"})
    assert events == [{"kind": "kept", "trade": "t1", "by": 0}]
    assert GAME.view(state, 0)["locked"] == [] and GAME.view(state, 4)["locked"] == []
    assert GAME.next_deadline(state) == state.deadline


BOTH_INVALID = [[*REMMI_O[:-1], "GL1"], REMMI_P, REMMI_G, REMMI_L,
                ["OJ5", "PJ5", "GJ5", "PL5", "OJ4", "GL2", "GL3", "GL4", "GL5"]]


def test_rd_12_when_both_sides_received_invalid_demmis_the_first_return_wins() -> None:
    state = trading(hands=BOTH_INVALID)
    state, _ = offer(state, 0, ["OR1", "GL1"])
    state, _ = offer(state, 4, ["OJ5", "GL2"])
    trade = GAME.view(state, 0)["trades"][0]
    assert trade["invalid_received"] and trade["invalid_given"] and trade["can_return"]
    assert GAME.view(state, 4)["trades"][0]["can_return"]
    state, _ = act(state, 4, {"kind": "return", "trade": "t1"})
    assert "already been returned" in refused(state, 0, {"kind": "return", "trade": "t1"})
    assert sorted(state.hands[0]) == sorted(BOTH_INVALID[0])
    assert sorted(state.hands[4]) == sorted(BOTH_INVALID[4])


def test_rd_12_after_one_side_keeps_the_other_may_still_return() -> None:
    hands = BOTH_INVALID
    state = trading(hands=hands)
    state, _ = offer(state, 0, ["OR1", "GL1"])
    state, _ = offer(state, 4, ["OJ5", "GL2"])
    state, _ = act(state, 0, {"kind": "keep", "trade": "t1"})
    assert GAME.view(state, 0)["locked"] == ["GL2", "OJ5"]  # still locked: 4 may return
    assert "closed" in refused(state, 0, {"kind": "return", "trade": "t1"})
    state, _ = act(state, 4, {"kind": "return", "trade": "t1"})
    assert sorted(state.hands[4]) == sorted(hands[4])


def test_rd_12_return_and_keep_need_one_of_your_trades() -> None:
    state = invalid_trade()
    for action in ({"kind": "return"}, {"kind": "return", "trade": 1},
                   {"kind": "keep", "trade": "t9"}, {"kind": "return", "trade": ["t1"]}):
        refused(state, 0, action)
    assert "no_such_trade" in refused(state, 2, {"kind": "return", "trade": "t1"})


def test_rd_12_the_return_window_length_is_a_room_option() -> None:
    state = invalid_trade(return_window_s=25)
    assert GAME.view(state, 0)["trades"][0]["return_until"] == T0 + 1000 + 25_000
    for bad in (0, 61, None, "10"):
        with pytest.raises(BadOptions):
            GAME.validate_options({"return_window_s": bad}, 5)


# --- RD-13: claims ----------------------------------------------------------------------


def test_rd_13_a_claim_takes_the_highest_point_man_left() -> None:
    state = trading()
    state, events = act(state, 1, {"kind": "claim", "cards": REMMI_P})
    assert events == [{"kind": "claimed", "seat": 1, "points": 4}]
    state, events = act(state, 3, {"kind": "claim", "cards": REMMI_L})
    assert events == [{"kind": "claimed", "seat": 3, "points": 3}]
    view = GAME.view(state, 0)
    assert view["point_men"] == [2]
    assert view["claims"] == [{"seat": 1, "points": 4}, {"seat": 3, "points": 3}]
    assert view["seats"][1]["claimed"] == 4 and view["seats"][1]["hand_count"] == 0
    assert not card_ids({k: v for k, v in view.items() if k != "hand"})
    assert GAME.view(state, 1)["my_claim"]["cards"] == REMMI_P
    assert GAME.to_act(state) == [0, 2, 4]


def test_rd_13_claims_are_not_checked_when_made() -> None:
    state = trading()
    state, events = act(state, 4, {"kind": "claim", "cards": LEFTOVER})
    assert events == [{"kind": "claimed", "seat": 4, "points": 4}]


def test_rd_13_a_claim_needs_nine_of_your_cards() -> None:
    state = trading()
    refused(state, 0, {"kind": "claim", "cards": REMMI_O[:8]})
    refused(state, 0, {"kind": "claim", "cards": [*REMMI_O[:8], "PR1"]})
    refused(state, 0, {"kind": "claim", "cards": "all"})
    state, _ = act(state, 0, {"kind": "claim"})  # nine cards: naming them is optional
    assert state.claims[0].cards == tuple(REMMI_O)


def test_rd_13_a_claim_is_refused_with_an_open_offer() -> None:
    state = trading()
    state, _ = offer(state, 0, ["OR1"])
    assert "withdraw" in refused(state, 0, {"kind": "claim", "cards": REMMI_O})
    state, _ = act(state, 0, {"kind": "withdraw"})
    act(state, 0, {"kind": "claim", "cards": REMMI_O})


def test_rd_13_a_claim_is_refused_with_locked_cards_on_either_side() -> None:
    hands = [REMMI_O, REMMI_P, REMMI_G, REMMI_L, LEFTOVER]
    state = trading(hands=hands)
    state, _ = offer(state, 4, ["OJ5", "GL1"])  # invalid, to seat 3
    state, _ = offer(state, 3, ["OL5", "PL4"], to=4)
    # Seat 3 received the invalid Demmi; seat 4 the valid one: both are locked.
    assert "locked" in refused(state, 3, {"kind": "claim"})
    assert "locked" in refused(state, 4, {"kind": "claim"})
    state, _ = act(state, 3, {"kind": "return", "trade": "t1"})
    state, _ = act(state, 3, {"kind": "claim"})


def test_rd_13_a_claimer_stops_trading_and_offers_aimed_at_them_are_cancelled() -> None:
    state = trading()
    state, _ = offer(state, 2, ["GR1"], to=0)
    state, events = act(state, 0, {"kind": "claim", "cards": REMMI_O})
    assert events[-1] == {"kind": "withdrawn", "seat": 2, "reason": "target claimed"}
    assert state.offers == []
    assert "no further part" in refused(state, 0, {"kind": "offer", "cards": ["OR1"]})
    assert "no further part" in refused(state, 0, {"kind": "claim"})
    assert "trades no more" in refused(state, 1, {"kind": "offer", "cards": ["PR1"], "to": 0})
    assert GAME.legal_actions(state, 0) == []


# --- RD-14: the end of a round ----------------------------------------------------------


def test_rd_14_the_round_ends_when_every_point_man_is_taken() -> None:
    state = invalid_trade()  # seat 0 holds locked cards: a window is open
    state, _ = offer(state, 2, ["GR1"])
    state, _ = act(state, 1, {"kind": "claim"})
    state, _ = act(state, 3, {"kind": "claim"})
    assert state.phase == "playing"
    state, events = offer(state, 2, ["GR2"], now=T0 + 2000)  # replaced: still open
    state, _ = act(state, 2, {"kind": "withdraw"})
    state, events = act(state, 2, {"kind": "claim"}, T0 + 3000)
    assert kinds(events) == ["claimed", "round_over", "checked"]
    assert events[1] == {"kind": "round_over", "deal": 1, "ended_by": "claims",
                         "offers_cancelled": 0}
    assert state.phase == "deal_over" and GAME.to_act(state) == []
    assert all(t.status != "returnable" for t in state.trades)  # windows closed
    assert GAME.view(state, 0)["locked"] == []


def test_rd_14_open_offers_are_cancelled_when_the_timer_runs_out() -> None:
    state = trading()
    state, _ = offer(state, 4, ["GL1"])
    assert GAME.next_deadline(state) == T0 + 120_000
    state, events = GAME.on_timeout(state, T0 + 120_000)
    assert events[0] == {"kind": "round_over", "deal": 1, "ended_by": "timer",
                         "offers_cancelled": 1}
    assert state.offers == [] and state.phase == "deal_over"


def test_rd_14_an_action_after_the_timer_ran_out_is_refused() -> None:
    state = trading()
    assert "round is over" in refused(state, 1, {"kind": "claim"}, T0 + 120_000)
    state, _ = act(state, 1, {"kind": "claim"}, T0 + 119_999)


# --- RD-15 / RD-16: the check -----------------------------------------------------------


def test_rd_15_the_rulebook_example_a_invalid_b_4_c_3_nobody_2() -> None:
    state = trading()
    state, _ = act(state, 4, {"kind": "claim"})  # A: not a Remmi
    state, _ = act(state, 0, {"kind": "claim"})  # B
    state, events = act(state, 1, {"kind": "claim"})  # C
    assert [c.point_man for c in state.claims] == [4, 3, 2]  # as taken
    assert state.scores == [4, 3, 0, 0, -5]
    checked = events[-1]
    assert checked["kind"] == "checked"
    assert [(c["seat"], c["valid"], c["awarded"], c["points"]) for c in checked["claims"]] == [
        (4, False, None, -5), (0, True, 4, 4), (1, True, 3, 3)]
    assert checked["claims"][0]["cards"] == LEFTOVER  # revealed to all after the round
    result = GAME.view(state, None)["result"]
    assert result["points"] == [4, 3, 0, 0, -5]
    assert result["hands"][2] == REMMI_G and result["hands"][4] == LEFTOVER


def test_rd_15_two_invalid_claims_leave_two_point_men_unawarded() -> None:
    lying_three_colours = [*REMMI_L[:8], "GL1"]
    mixed = ["OJ5", "PJ5", "GJ5", "PL5", "PL4", "GL2", "GL3", "GL4", "GL5"]
    assert not is_remmi(lying_three_colours) and not is_remmi(mixed)
    state = trading(hands=[REMMI_O, REMMI_P, REMMI_G, lying_three_colours, mixed])
    state = act(state, 3, {"kind": "claim"})[0]  # invalid, takes the 4
    state = act(state, 4, {"kind": "claim"})[0]  # invalid, takes the 3
    state = act(state, 1, {"kind": "claim"})[0]  # valid, takes the 2
    assert state.scores == [0, 4, 0, -5, -5]  # the 4 goes to seat 1; the 3 and 2 to nobody


def test_rd_15_with_fewer_claims_valid_claimers_get_the_top_point_men() -> None:
    state = trading()
    state, _ = act(state, 4, {"kind": "claim"})  # invalid, took the 4
    state, _ = act(state, 3, {"kind": "claim"})  # valid, took the 3
    state, _ = GAME.on_timeout(state, T0 + 120_000)
    assert state.scores == [0, 0, 0, 4, -5]


def test_rd_16_points_add_up_over_rounds() -> None:
    state = trading(round_pause_ms=0)
    state, _ = act(state, 0, {"kind": "claim"})
    state, _ = GAME.on_timeout(state, T0 + 120_000)  # the pause is 0: round 2 is dealt
    assert state.deal == 2 and state.scores == [4, 0, 0, 0, 0]
    state, _ = act(state, 1, {"kind": "start_timer", "speed": "snail"}, T0 + 121_000)
    hand = state.hands[0]
    state, _ = act(state, 0, {"kind": "claim", "cards": hand}, T0 + 122_000)
    state, _ = GAME.on_timeout(state, T0 + 121_000 + 120_000)
    assert state.scores[0] == 4 + (4 if is_remmi(hand) else -5)
    assert [r["deal"] for r in state.results] == [1, 2]


# --- between rounds ---------------------------------------------------------------------


def test_the_check_is_shown_for_the_pause_then_the_next_round_is_dealt() -> None:
    state = trading(round_pause_ms=8000)
    state, _ = GAME.on_timeout(state, T0 + 120_000)
    view = GAME.view(state, 2)
    assert view["phase"] == "deal_over" and view["next_deal_at"] == T0 + 128_000
    assert view["result"]["hands"][0] == REMMI_O  # every hand revealed for the record
    assert GAME.next_deadline(state) == T0 + 128_000
    assert GAME.legal_actions(state, 3) == [{"kind": "next_deal"}]
    assert "round is over" in refused(state, 1, {"kind": "offer", "cards": ["PR1"]})
    state, events = GAME.on_timeout(state, T0 + 128_000)
    assert events == [{"kind": "round_started", "deal": 2, "dealer": 1,
                       "auto_start_at": T0 + 138_000}]
    assert state.phase == "playing" and state.stage == "dealt" and state.result is None


def test_next_deal_from_any_seat_skips_the_pause() -> None:
    state = trading()
    refused(state, 3, {"kind": "next_deal"})
    state, _ = GAME.on_timeout(state, T0 + 120_000)
    state, events = act(state, 3, {"kind": "next_deal"}, T0 + 121_000)
    assert kinds(events) == ["round_started"] and state.deal == 2
    assert state.auto_start_at == T0 + 131_000


# --- RD-17 / RD-18: the game ------------------------------------------------------------


def test_rd_17_a_game_is_seven_rounds_and_the_most_points_win() -> None:
    assert GAME.default_options()["rounds"] == 7
    state = new_game(5, FIVE, round_pause_ms=0)
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "lightning"})
    state, _ = act(state, 2, {"kind": "claim"})
    for _ in range(6):
        state = end_by_timer(state)
        assert GAME.outcome(state) is None
    assert state.deal == 7
    state = end_by_timer(state)
    assert state.phase == "game_over"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [2] and outcome.scores == [0, 0, 4, 0, 0]
    assert len(outcome.details["rounds"]) == 7
    assert GAME.to_act(state) == [] and GAME.next_deadline(state) is None
    assert "game is over" in refused(state, 0, {"kind": "offer", "cards": ["OR1"]})
    assert GAME.view(state, None)["winners"] == [2]


def test_rd_18_a_tie_after_the_last_round_plays_further_rounds() -> None:
    # Frantic peeks (-1 each) make the scores without any luck in the deal.
    state = new_game(5, FIVE, frantic=True, round_pause_ms=0, rounds=1)
    for seat in (3, 4):
        state, _ = act(state, seat, {"kind": "peek"})
    state = end_by_timer(state)
    assert state.scores == [0, 0, 0, -1, -1]  # seats 0, 1 and 2 share the lead
    assert state.phase == "playing" and state.deal == 2 and GAME.outcome(state) is None
    for seat in (1, 2):
        state, _ = act(state, seat, {"kind": "peek"}, state.dealt_at)
    state = end_by_timer(state)
    assert state.phase == "game_over" and state.deal == 2
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0]
    assert outcome.scores == [0, -1, -1, -1, -1]


def test_rd_18_a_single_leader_after_the_last_round_wins_at_once() -> None:
    state = new_game(5, FIVE, round_pause_ms=0, rounds=1)
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "lightning"})
    state, _ = act(state, 0, {"kind": "claim"})
    state, _ = act(state, 1, {"kind": "claim"})
    state, _ = act(state, 2, {"kind": "claim"})
    assert state.scores == [4, 3, 2, 0, 0] and state.phase == "game_over"


def test_rd_18_the_tie_round_is_announced_in_the_result() -> None:
    state = new_game(5, FIVE, round_pause_ms=1000, rounds=1)
    state, _ = GAME.on_timeout(state, T0 + 10_000)
    state, _ = GAME.on_timeout(state, T0 + 130_000)
    assert state.phase == "deal_over" and state.result is not None
    assert state.result["tie_round_next"] is True


# --- RD-19: four players ----------------------------------------------------------------


def test_rd_19_four_players_ten_cards_no_2_and_a_claim_names_nine() -> None:
    hands = four_player_hands()
    state = trading(4, hands)
    assert [len(h) for h in state.hands] == [10] * 4
    assert GAME.view(state, None)["point_men"] == [4, 3]
    assert "names exactly 9" in refused(state, 0, {"kind": "claim", "cards": hands[0]})
    refused(state, 0, {"kind": "claim"})  # ten cards: the nine must be named
    state, _ = act(state, 0, {"kind": "claim", "cards": REMMI_O})
    assert state.claims[0].aside == ("GL1",)
    state, events = act(state, 1, {"kind": "claim", "cards": REMMI_P})
    assert kinds(events) == ["claimed", "round_over", "checked"]  # 2 point men: over
    assert state.scores == [4, 3, 0, 0]
    assert state.result is not None and state.result["hands"][0] == [*REMMI_O, "GL1"]


def test_rd_19_four_player_scenarios_need_ten_cards() -> None:
    with pytest.raises(BadOptions, match="10 each"):
        new_game(4, [h[:9] for h in four_player_hands()])


# --- RD-20: frantic ---------------------------------------------------------------------


def test_rd_20_cards_are_hidden_until_the_dealer_reveals_them() -> None:
    state = new_game(5, FIVE, frantic=True)
    view = GAME.view(state, 1)
    assert view["hand"] == [] and view["hand_hidden"] is True and not card_ids(view)
    assert view["frantic"] is True and view["revealed"] is False
    refused(state, 1, {"kind": "reveal"}, error=NotYourTurn)
    state, events = act(state, 0, {"kind": "reveal"})
    assert events == [{"kind": "revealed", "by": 0}]
    assert GAME.view(state, 1)["hand"] == REMMI_P
    assert "already face up" in refused(state, 0, {"kind": "reveal"})
    assert "already face up" in refused(state, 2, {"kind": "peek"})


def test_rd_20_peeking_costs_a_point_and_shows_the_hand() -> None:
    state = new_game(5, FIVE, frantic=True)
    state, events = act(state, 2, {"kind": "peek"})
    assert events == [{"kind": "peeked", "seat": 2},
                      {"kind": "penalty", "seat": 2, "points": -1,
                       "reason": "looked at the cards before the sign"}]
    assert state.scores[2] == -1
    assert GAME.view(state, 2)["hand"] == REMMI_G
    assert GAME.view(state, 1)["hand"] == []
    assert GAME.view(state, 1)["seats"][2]["peeked"] is True
    refused(state, 2, {"kind": "peek"})


def test_rd_20_trading_before_the_timer_costs_a_point_and_is_refused() -> None:
    state = new_game(5, FIVE, frantic=True)
    state, _ = act(state, 0, {"kind": "reveal"})
    state, events = offer(state, 3, ["OL1"])
    assert kinds(events) == ["penalty"] and events[0]["seat"] == 3
    assert state.scores[3] == -1 and state.offers == []
    state, _ = act(state, 0, {"kind": "start_timer", "speed": "snail"})
    state, _ = GAME.on_timeout(state, T0 + 120_000)
    assert state.scores[3] == -1  # kept through the check
    assert state.result is not None
    assert state.result["penalties"] == [
        {"seat": 3, "points": -1, "reason": "tried to trade before the timer started"}]


def test_rd_20_starting_the_timer_turns_the_cards_up() -> None:
    state = new_game(5, FIVE, frantic=True)
    state, events = act(state, 0, {"kind": "start_timer", "speed": "lightning"})
    assert kinds(events) == ["revealed", "timer_started"]
    assert GAME.view(state, 4)["hand"] == LEFTOVER


def test_rd_20_peek_and_reveal_belong_to_the_frantic_variant() -> None:
    state = new_game(5, FIVE)
    refused(state, 0, {"kind": "reveal"})
    refused(state, 1, {"kind": "peek"})


# --- options, scenarios, the interface --------------------------------------------------


def test_the_game_is_registered_with_its_catalog_options() -> None:
    assert find_game("remmi_demmi") is not None
    assert (GAME.min_players, GAME.max_players, GAME.turn_based) == (4, 9, False)
    assert GAME.default_options() == {
        "speed": "snail", "timer_s": None, "frantic": False, "return_window_s": 10,
        "round_pause_ms": 8000, "rounds": 7,
    }


@pytest.mark.parametrize("options", [
    {"speed": "fast"}, {"frantic": "yes"}, {"round_pause_ms": -1},
    {"round_pause_ms": 60_001}, {"rounds": 0}, {"rounds": 21}, {"colour": "O"},
    {"scenario": "x"}, {"scenario": {"hands": [[]]}}, {"scenario": {"dealer": 1}},
    {"scenario": {"hands": FIVE, "stock": ["OR1"]}},
    {"scenario": {"hands": [FIVE[0]] * 5}},  # duplicates
    {"scenario": {"hands": [*FIVE[:4], LEFTOVER[:8]]}},  # wrong size
    {"scenario": {"hands": [*FIVE[:4], [*LEFTOVER[:8], "XX1"]]}},
])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadOptions):
        GAME.validate_options(options, 5)


def test_validate_options_merges_defaults_and_players_are_4_to_9() -> None:
    merged = GAME.validate_options({"speed": "lightning", "scenario": None}, 6)
    assert merged["speed"] == "lightning" and merged["rounds"] == 7
    assert "scenario" not in merged
    for players in (3, 10):
        with pytest.raises(BadOptions):
            GAME.validate_options({}, players)


@pytest.mark.parametrize("action", [
    None, "offer", 3, [], {}, {"kind": 1}, {"kind": "pass"}, {"kind": ["offer"]},
    {"kind": "offer"}, {"kind": "offer", "cards": [1, 2]}, {"kind": "offer", "cards": {}},
    {"kind": "claim", "cards": "OR1"}, {"kind": "claim", "cards": [None] * 9},
    {"kind": "return", "trade": {"id": "t1"}}, {"kind": "keep"},
    {"kind": "start_timer", "speed": ["snail"]}, {"kind": "offer", "cards": ["OR1"], "to": 2.0},
])
def test_malformed_actions_raise_only_game_errors(action: Any) -> None:
    for state in (new_game(5, FIVE), trading()):
        for seat in (0, 1, -1, 5, True, "0"):
            with pytest.raises(GameError):
                GAME.apply(state, seat, action, T0)  # type: ignore[arg-type]


def test_snapshots_survive_json_and_restore_the_same_state() -> None:
    state = invalid_trade()
    state, _ = offer(state, 2, ["GR1"], to=3)
    state, _ = act(state, 1, {"kind": "claim"})
    data = json.loads(json.dumps(GAME.snapshot(state)))
    assert GAME.restore(data) == state
    with pytest.raises(ValueError):
        GAME.restore({"version": 99})
    with pytest.raises(ValueError):
        GAME.restore({**data, "trades": [{"id": "t1"}]})


def test_legal_actions_are_all_accepted() -> None:
    state = invalid_trade()
    state, _ = offer(state, 2, ["GR1"], to=3)
    for seat in range(5):
        actions = GAME.legal_actions(state, seat)
        assert actions
        for action in actions:
            GAME.apply(state, seat, action, T0 + 1000)
    kinds_of_0 = {a["kind"] for a in GAME.legal_actions(state, 0)}
    assert {"return", "keep", "offer"} <= kinds_of_0 and "claim" not in kinds_of_0
    assert {"kind": "claim", "cards": REMMI_P} in GAME.legal_actions(state, 1)
    assert {"kind": "withdraw"} in GAME.legal_actions(state, 2)
    dealt = new_game(5, FIVE, frantic=True)
    assert GAME.legal_actions(dealt, 0)[:3] == [
        {"kind": "reveal"}, {"kind": "start_timer", "speed": "snail"},
        {"kind": "start_timer", "speed": "lightning"}]
    assert GAME.legal_actions(dealt, 1) == [{"kind": "peek"}]


def bots_trading(seed: int) -> RoomCore:
    """A started room of six seats, five of them bots that trade at once, in
    long rounds (600 s) with long return windows (60 s)."""
    room, _ = make_room(GAME, 6, room_id="r", seed=seed, bot_delay_ms=0, timer_s=600,
                        return_window_s=60)
    room.handle(Join("ana", "Ana", "player"), T0)
    for _ in range(5):
        room.handle(AddBot("ana"), T0)
    room.handle(Start("ana"), T0)
    return room


def bot_moves(room: RoomCore, limit: int) -> Iterator[int]:
    """Ticks the room at each of its wake-ups, at most ``limit`` times while
    it plays, yielding the time after each."""
    now = T0
    for _ in range(limit):
        if room.status != "playing" or room.next_wakeup() is None:
            return
        now = max(now, room.next_wakeup() or now)
        room.tick(now)
        yield now


def test_a_view_lists_the_seats_latest_trades_and_every_returnable_one() -> None:
    # Decision (views): a trader's view lists its RECENT_TRADES latest trades
    # and, beyond them, every trade still returnable; "locked" is what it
    # received in those (RD-12). Checked after every change of a room where
    # five bots trade for a long while, against the definition itself.
    room = bots_trading(seed=5)
    most = 0
    for _ in bot_moves(room, 4000):
        state = room.state
        views = {seat: GAME.view(state, seat) for seat in [*range(6), None]}
        for seat in range(6):
            expected: list[str] = []
            for trade in reversed(state.trades):
                if seat in trade.seats and (len(expected) < RECENT_TRADES
                                            or trade.status == RETURNABLE):
                    expected.append(trade.id)
            assert [t["id"] for t in views[seat]["trades"]] == expected[::-1]
            received = {card for t in state.trades if t.status == RETURNABLE and seat in t.seats
                        for card in t.received(t.side(seat))}
            assert views[seat]["locked"] == sorted(received)
            assert locked_cards(state, seat) == received
            most = max(most, sum(seat in t.seats for t in state.trades))
        assert views[None]["trades"] == [] and views[None]["locked"] == []
    assert most > RECENT_TRADES  # some seat traded more than a view lists


def long_round(monkeypatch: pytest.MonkeyPatch, drop: bool
               ) -> tuple[list[list[Any]], list[int], RemmiDemmiState]:
    """Five bots trading for a long round: after every change, every seat's
    view and legal actions, and how many trades the state keeps. Without
    ``drop`` the state keeps the round's every trade."""
    if not drop:
        monkeypatch.setattr(remmi_demmi, "_drop_settled_history", lambda state: None)
    room = bots_trading(seed=11)
    seen: list[list[Any]] = []
    kept: list[int] = []
    for _ in bot_moves(room, 700):  # over 300 trades, all in the first round
        state = room.state
        seen.append([[GAME.view(state, seat) for seat in [*range(6), None]],
                     [GAME.legal_actions(state, seat) for seat in range(6)]])
        kept.append(len(state.trades))
    monkeypatch.undo()
    return seen, kept, room.state


def test_a_long_round_keeps_only_the_trades_anything_reads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Decision (views): once a round's trades are twice what every seat's
    # view may list, the state keeps only each seat's RECENT_TRADES latest
    # and every one still returnable, so that a room's state stays bounded
    # however long and brisk the round. Nothing anyone sees changes: the same
    # bots play the same game, and after every change every seat's view and
    # legal actions are those of the game that keeps all its trades.
    with_drops, kept, state = long_round(monkeypatch, drop=True)
    everything, all_kept, full = long_round(monkeypatch, drop=False)
    assert with_drops == everything
    limit = 2 * 6 * RECENT_TRADES
    assert max(all_kept) > 2 * limit  # the round ran long enough to drop some
    assert max(kept) <= limit
    # A trade dropped was settled (refused in the game that keeps it too),
    # and is refused, to its own traders as well, as no longer theirs to settle.
    ids = {t.id for t in state.trades}
    dropped = next(t for t in full.trades if t.id not in ids)
    assert dropped.status != RETURNABLE
    refused(full, dropped.seats[0], {"kind": "keep", "trade": dropped.id})
    message = refused(state, dropped.seats[0], {"kind": "keep", "trade": dropped.id})
    assert message.startswith("no_such_trade ")


def test_dropping_a_long_rounds_history_keeps_every_returnable_trade() -> None:
    # The same decision, where bots do not go: a trade left returnable while
    # both its traders traded on stays, however old; what goes is what no
    # view lists any more.
    state = trading(5, FIVE, timer_s=600, return_window_s=60)
    pairs = [(0, 1), (2, 3), (1, 4), (3, 0)]
    trades = [
        Trade(id=f"t{n}", seats=pairs[n % 4], gave=(("OJ5",), ("PJ5",)), at=T0 + n,
              invalid=(n == 3, False), pending=(n == 3, False),
              return_until=T0 + 60_000 if n == 3 else None,
              status=RETURNABLE if n == 3 else "done")
        for n in range(1, 161)]
    state.trades, state.settled, state.seat_trades = trades, 0, None
    before = [GAME.view(state, seat) for seat in [*range(5), None]]

    remmi_demmi._drop_settled_history(state)

    assert [GAME.view(state, seat) for seat in [*range(5), None]] == before
    latest = {t.id for seat in range(5)
              for t in [t for t in trades if seat in t.seats][-RECENT_TRADES:]}
    assert [t.id for t in state.trades] == [t.id for t in trades if t.id in latest | {"t3"}]
    assert len(state.trades) < len(trades)


@pytest.mark.parametrize(("players", "hands", "frantic"), [
    (6, None, False), (6, None, True), (5, FIVE, False)], ids=["six", "frantic", "claims"])
def test_a_restored_state_shows_every_seat_the_same_view(
        players: int, hands: list[list[str]] | None, frantic: bool) -> None:
    # After every change of several rounds of random legal actions (bad
    # offers, returns, return windows that run out, claims, peeks and
    # reveals included), a state restored from its snapshot shows every
    # seat the view the state itself shows.
    rng = random.Random(3)
    state = new_game(players, hands, timer_s=600, return_window_s=5, frantic=frantic)
    seats: list[int | None] = [*range(players), None]
    now, kinds = T0, Counter[str]()
    for step in range(3000):
        now += rng.choice([0, 0, 50, 400, 3000])
        if (GAME.next_deadline(state) or now + 1) <= now:
            state, _ = GAME.on_timeout(state, now)
        else:
            seat = rng.randrange(players)
            actions = GAME.legal_actions(state, seat)
            if not actions:
                continue
            claims = [a for a in actions if a["kind"] == "claim"]
            answers = [a for a in actions if a["kind"] in ("return", "keep")]
            bad = [a for a in actions if a["kind"] == "offer" and not is_demmi(a["cards"])]
            roll = rng.random()
            action = rng.choice(claims if claims and roll < 0.6 else
                                answers if answers and roll < 0.5 else
                                bad if bad and roll < 0.8 else
                                [a for a in actions if a["kind"] != "claim"] or actions)
            state, _ = GAME.apply(state, seat, action, now)
            kinds[action["kind"]] += 1
        if state.phase == "game_over":
            break
        if step % 25 == 0:
            restored = GAME.restore(json.loads(json.dumps(GAME.snapshot(state))))
            for viewer in seats:
                assert GAME.view(restored, viewer) == GAME.view(state, viewer)
    assert kinds["offer"] > 500 and kinds["return"] > 10 and kinds["keep"] > 10
    assert kinds["next_deal"] > 1
    if hands is not None:
        assert kinds["claim"] >= 3
    if frantic:
        assert kinds["peek"] > 1 and kinds["reveal"] + kinds["start_timer"] > 1
