"""Replay steps: every game's record, stepped through, ends where the game
ended, and each step's open view shows every hand."""

from __future__ import annotations

import pytest

from engine.replay import open_view, replay, states, steps
from engine.room import Start
from tests.engine.room_harness import make_room, run_until
from tests.games import known_game

SHORT = {"basic_rummy": {"deals": 1}, "traditional_remi": {"deals": 1},
         "indonesian_remi": {"deals": 1}, "remmi_demmi": {"rounds": 1, "timer_s": 20}}
SEATS = {"basic_rummy": 3, "traditional_remi": 2, "indonesian_remi": 4, "remmi_demmi": 4}


@pytest.mark.parametrize("name", sorted(SHORT))
def test_steps_end_at_the_games_outcome_with_every_hand_open(name: str) -> None:
    game = known_game(name)
    room, _ = make_room(game, SEATS[name], room_id="r", seed=5, bot_delay_ms=100,
                        fill_bots=True, **SHORT[name])
    room.handle(Start("ana"), 1)
    run_until(room, lambda: False, 1)
    assert room.status == "finished"
    record = room.replay_record()
    outcome = game.outcome(replay(record))
    assert outcome is not None
    total = len(record["actions"]) + 1
    assert sum(1 for _ in states(record)) == total

    first = list(steps(record, 0, 3))
    assert [s["index"] for s in first] == [0, 1, 2]
    assert first[0]["entry"] is None
    assert first[1]["entry"]["action"] == record["actions"][0]["action"]
    for step in first:
        hands = [own["hand"] for own in step["view"]["own"]]
        assert len(hands) == SEATS[name] and all(isinstance(h, list) and h for h in hands)
        assert "hand" not in step["view"]["table"]

    (last,) = steps(record, total - 1, 5)
    assert last["index"] == total - 1
    table = last["view"]["table"]
    assert table["phase"] == "game_over"
    assert table["winners"] == outcome.winners
    assert game.view(replay(record), None) == table
    assert open_view(game, replay(record), SEATS[name]) == last["view"]
