"""The Remmi Demmi bot: whole games driven by the room with a fake clock, and single choices."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from engine.bots import find_bot
from engine.bots.remmi_demmi import choose
from engine.games.remmi_demmi import RemmiDemmi, RemmiDemmiState, deck_for, find_remmi, is_demmi
from engine.replay import replay
from engine.room import Act, Join, RoomCore, Start
from tests.engine import room_harness
from tests.engine.room_harness import Collect, run_until

GAME = RemmiDemmi()

HUMAN = ["PR1", "PR2", "PR3", "PJ1", "PJ2", "PJ3", "OL1", "GJ1", "GR1"]
# Seat 1 collects orange running/jumping; GL1 GL2 PL1 are the misfits it trades away.
BOT_1 = ["OR1", "OR2", "OR3", "OR4", "OJ1", "OJ2", "GL1", "GL2", "PL1"]


def five_hands() -> list[list[str]]:
    rest = [c for c in deck_for(5) if c not in HUMAN + BOT_1]
    hands = [HUMAN, BOT_1, rest[:9], rest[9:18], rest[18:27]]
    assert not any(find_remmi(h) for h in hands)
    return hands


def make_room(seats: int, **options: Any) -> tuple[RoomCore, Collect]:
    return room_harness.make_room(GAME, seats, room_id="rd", seed=21, **options)


@pytest.mark.parametrize("seats", [4, 9])
def test_a_table_of_bots_finishes_a_seven_round_game(
    seats: int, caplog: pytest.LogCaptureFixture
) -> None:
    room, sink = make_room(seats, fill_bots=True, bot_delay_ms=800)
    with caplog.at_level(logging.ERROR, logger="kartu.room"):
        room.handle(Start("ana"), 0)
        run_until(room, lambda: False, 0)
    assert not caplog.records, "a bot action was refused"
    assert room.status == "finished" and len(sink.outcomes) == 1
    state: RemmiDemmiState = room.state
    assert state.deal >= 7 and state.phase == "game_over"
    outcome = sink.outcomes[0]
    assert outcome.winners == [max(range(seats), key=lambda s: state.scores[s])]
    # The dealers started the timers; the bots traded honestly and claimed real Remmis.
    assert len(sink.events("timer_started")) == state.deal
    assert sink.events("traded") and sink.events("claimed")
    for entry in room.action_log:
        action = entry.get("action") or {}
        if action.get("kind") == "offer":
            assert is_demmi(action["cards"])
    for event in sink.events("checked"):
        assert all(claim["valid"] for claim in event["claims"])
    final = replay(room.replay_record())
    assert GAME.snapshot(final) == GAME.snapshot(state)


def human_table(**options: Any) -> tuple[RoomCore, Collect, int]:
    """Ana (the dealer, seat 0) and four bots; the timer started at t=1000."""
    room, sink = make_room(5, fill_bots=True, bot_delay_ms=500,
                           scenario={"hands": five_hands()}, **options)
    room.handle(Join("ana", "Ana", "player"), 0)
    room.handle(Start("ana"), 0)
    room.handle(Act("ana", 0, {"kind": "start_timer", "speed": "snail"}), 1000)
    return room, sink, 1000


def test_bots_answer_a_humans_offer() -> None:
    room, sink, now = human_table()
    room.handle(Act("ana", 0, {"kind": "offer", "cards": ["PR1"], "to": None}), now)
    run_until(room, lambda: bool(sink.events("traded")), now)
    traded = sink.events("traded")[0]
    assert traded["a"] == 0 and traded["size"] == 1
    answer = next(e for e in room.action_log if e.get("bot"))
    assert answer["action"]["kind"] == "offer" and answer["action"]["to"] == 0
    assert "PR1" in room.state.hands[traded["b"]]
    assert "PR1" not in room.state.hands[0]


def test_bots_return_invalid_demmis() -> None:
    room, sink, now = human_table()
    # OL1 + GJ1 share neither colour nor figure: not a Demmi.
    room.handle(Act("ana", 0, {"kind": "offer", "cards": ["OL1", "GJ1"], "to": 1}), now)
    run_until(room, lambda: bool(sink.events("returned")), now)
    traded = sink.events("traded")[0]
    assert (traded["a"], traded["b"], traded["returnable"]) == (0, 1, True)
    assert sink.events("returned")[0] == {"kind": "returned", "trade": "t1", "by": 1}
    assert sorted(room.state.hands[0]) == sorted(HUMAN)
    assert sorted(room.state.hands[1]) == sorted(BOT_1)


def test_bots_keep_valid_demmis_without_a_window() -> None:
    room, sink, now = human_table()
    room.handle(Act("ana", 0, {"kind": "offer", "cards": ["PR1", "PR2"], "to": 1}), now)
    run_until(room, lambda: bool(sink.events("traded")), now)
    assert sink.events("traded")[0]["returnable"] is False
    assert "PR1" in room.state.hands[1]


# --- single choices ---------------------------------------------------------------------


def state_for(players: int, hands: list[list[str]] | None = None, **options: Any
              ) -> RemmiDemmiState:
    if hands is not None:
        options["scenario"] = {"hands": hands}
    return GAME.setup(GAME.validate_options(options, players), players, 3, 0)


def start(state: RemmiDemmiState, now: int = 0) -> RemmiDemmiState:
    return GAME.apply(state, state.dealer, {"kind": "start_timer", "speed": "snail"}, now)[0]


def test_the_dealer_bot_starts_the_timer_at_the_rooms_speed_others_wait() -> None:
    state = state_for(5, five_hands(), speed="lightning")
    assert choose(GAME.view(state, 0), 1) == {"kind": "start_timer", "speed": "lightning"}
    assert choose(GAME.view(state, 2), 1) is None
    assert choose(GAME.view(state, None), 1) is None


def test_a_frantic_dealer_bot_reveals_first_and_others_wait_for_the_sign() -> None:
    state = state_for(5, five_hands(), frantic=True)
    assert choose(GAME.view(state, 0), 1) == {"kind": "reveal"}
    state = GAME.apply(state, 0, {"kind": "reveal"}, 0)[0]
    assert choose(GAME.view(state, 0), 1) == {"kind": "start_timer", "speed": "snail"}
    assert choose(GAME.view(state, 1), 1) is None  # never trades before the timer


def test_the_bot_claims_a_remmi_naming_nine_of_ten_cards() -> None:
    remmi = ["OR1", "OR2", "OR3", "OR4", "OR5", "OJ1", "OJ2", "OJ3", "OJ4"]
    rest = [c for c in deck_for(4) if c not in [*remmi, "GL1"]]
    state = start(state_for(4, [[*remmi, "GL1"], rest[:10], rest[10:20], rest[20:30]]))
    action = choose(GAME.view(state, 0), 5)
    assert action == {"kind": "claim", "cards": remmi}
    state, _ = GAME.apply(state, 0, action, 10)
    assert state.claims[0].aside == ("GL1",)
    assert choose(GAME.view(state, 0), 5) is None  # a claimer is done


def test_the_bot_withdraws_its_offer_before_claiming() -> None:
    remmi = ["OR1", "OR2", "OR3", "OR4", "OR5", "OJ1", "OJ2", "OJ3", "OJ4"]
    rest = [c for c in deck_for(4) if c not in [*remmi, "GL1"]]
    state = start(state_for(4, [[*remmi, "GL1"], rest[:10], rest[10:20], rest[20:30]]))
    state, _ = GAME.apply(state, 0, {"kind": "offer", "cards": ["GL1"], "to": 2}, 10)
    assert choose(GAME.view(state, 0), 5) == {"kind": "withdraw"}


def test_the_bot_offers_a_demmi_of_misfits_and_withdraws_it_when_stale() -> None:
    state = start(state_for(5, five_hands()))
    view = GAME.view(state, 1)
    action = choose(view, 0)
    assert action is not None and action["kind"] == "offer" and action["to"] is None
    assert is_demmi(action["cards"]) and set(action["cards"]) <= {"GL1", "GL2", "PL1"}
    state, _ = GAME.apply(state, 1, action, 2000)
    view = GAME.view(state, 1)
    assert choose({**view, "server_time": 2000 + 9_999}, 0) is None
    assert choose({**view, "server_time": 2000 + 10_000}, 0) == {"kind": "withdraw"}


def test_the_bot_answers_an_offer_aimed_at_it_with_the_same_size() -> None:
    state = start(state_for(5, five_hands()))
    state, _ = GAME.apply(state, 3, {"kind": "offer", "cards": state.hands[3][:1], "to": 4}, 5)
    state, _ = GAME.apply(state, 2, {"kind": "offer", "cards": state.hands[2][:2], "to": 1}, 6)
    action = choose(GAME.view(state, 1), 0)
    # Seat 3's offer is aimed at seat 4: the bot answers seat 2's, aimed back at it.
    assert action == {"kind": "offer", "cards": ["GL1", "GL2"], "to": 2}


def test_the_bot_is_deterministic_and_never_offers_locked_cards() -> None:
    state = start(state_for(5, five_hands()))
    state, _ = GAME.apply(state, 0, {"kind": "offer", "cards": ["OL1", "GJ1"], "to": 1}, 5)
    state, _ = GAME.apply(state, 1, {"kind": "offer", "cards": ["GL1", "GL2"], "to": 0}, 6)
    view = GAME.view(state, 0)
    assert view["locked"] == ["GL1", "GL2"]
    for seed in range(20):
        action = choose(view, seed)
        assert action == choose(view, seed) == find_bot(GAME.name)(view, seed)
        assert action is not None and action["kind"] == "offer"
        assert not set(action["cards"]) & {"GL1", "GL2"}
