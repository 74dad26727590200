"""A game the server has never heard of, added as the README says (one module,
one line in the game registry, one in the bot registry), is served whole:
listed, opened, played over real WebSockets with a bot and a spectator,
replayed, and dealt as a daily deal with a leaderboard. Nothing in app/
changes for it (tests/app/high_card.py is the game)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.app.high_card import GAME, serving
from tests.waiting import wait_for
from tests.wsclient import Client, create_room, new_guest


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with serving(tmp_path) as url:
        yield url


async def play_out(client: Client, room: str) -> dict[str, Any]:
    """Plays the client's seat (its lowest card) until the game is over; the last view."""
    def to_play(after: int) -> Callable[[dict[str, Any]], bool]:
        return lambda f: (f["type"] == "state" and f["room"] == room and f["version"] > after
                          and (f["view"]["phase"] == "game_over"
                               or f["view"]["turn"] == f["view"]["you"]))

    seen = -1
    while True:
        frame = await client.wait_for(to_play(seen))
        view, seen = frame["view"], frame["version"]
        if view["phase"] == "game_over":
            return view
        assert (await client.act(room, kind="play", card=view["hand"][0]))["type"] == "ack"


async def test_a_new_game_is_listed_played_replayed_and_dealt_daily(server: str) -> None:
    ws_url = server.replace("http://", "ws://")
    catalog = {g["game"]: g for g in httpx.get(f"{server}/api/games").json()}
    assert catalog["high_card"]["title"] == "High Card"
    assert catalog["high_card"]["default_seats"] == 2
    assert catalog["high_card"]["options"]["fill_bots"] is True

    ana, sam = new_guest(server, "Ana"), new_guest(server, "Sam")
    room = create_room(server, ana["token"], "high_card", 2, bot_delay_ms=0)["room_id"]
    assert httpx.post(f"{server}/api/rooms", json={"game": "high_card", "seats": 2,
                                                   "options": {"jokers": 2}},
                      headers={"Authorization": f"Bearer {ana['token']}"}).status_code == 422
    player, watcher = (await Client.open(ws_url, ana["token"]),
                       await Client.open(ws_url, sam["token"]))
    try:
        assert (await player.request({"type": "join", "room": room}))["seat"] == 0
        await watcher.request({"type": "join", "room": room, "role": "spectator"})
        assert (await player.request({"type": "start", "room": room}))["type"] == "ack"
        # A card not held is refused in the game's words, and changes nothing.
        view = (await player.state_where(room, lambda v: v["turn"] == 0))["view"]
        missing = next(c for c in ("KS", "KH", "KD", "KC") if c not in view["hand"])
        refused = await player.act(room, kind="play", card=missing)
        assert (refused["code"], refused["reason"]) == ("illegal_action", "not_held")

        final = await play_out(player, room)
        assert [s["hand_count"] for s in final["seats"]] == [0, 0]
        assert final["seats"][1]["bot"] and len(final["seats"][1]["played"]) == 3
        scores = [s["score"] for s in final["seats"]]
        assert final["winners"] == [s for s, v in enumerate(scores) if v == max(scores)]
        # The spectator saw the cards as they were played, never a hand.
        await watcher.state_where(room, lambda v: v["phase"] == "game_over")
        assert all(not f["view"].get("hand") for f in watcher.frames if f["type"] == "state")
    finally:
        await player.close()
        await watcher.close()

    # The finished game is recorded, and its log replays to the same scores.
    def record() -> dict[str, Any] | None:
        answer = httpx.get(f"{server}/api/rooms/{room}/replay")
        return answer.json() if answer.status_code == 200 else None

    replay = await wait_for(record, what="the game's record")
    assert (replay["game"], replay["scores"]) == ("high_card", scores)
    state = GAME.setup(replay["options"], replay["players"], replay["seed"], 0)
    for entry in replay["actions"]:
        state, _ = GAME.apply(state, entry["seat"], entry["action"], entry["at"])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == scores

    # The daily deal deals it too, and ranks the first finished game.
    daily = httpx.post(f"{server}/api/daily/high_card",
                       headers={"Authorization": f"Bearer {ana['token']}"})
    assert daily.status_code == 201, daily.text
    daily_room = daily.json()["room_id"]
    player = await Client.open(ws_url, ana["token"])
    try:
        await player.request({"type": "join", "room": daily_room})
        await player.request({"type": "start", "room": daily_room})
        final = await play_out(player, daily_room)
    finally:
        await player.close()

    def ranked() -> list[dict[str, Any]]:
        board = httpx.get(f"{server}/api/leaderboard/high_card").json()
        return [row for row in board["entries"] if row["name"] == "Ana"]

    (row,) = await wait_for(ranked, what="Ana on the leaderboard")
    assert (row["rank"], row["score"]) == (1, final["seats"][0]["score"])
