"""Malformed frames and deep or oversized actions, mixed into real games.

Beside each human-played room a *fuzzer* holds a second connection to the
same seat and sends what a broken or hostile client might: frames that are
not JSON, binary frames, wrong types, unknown fields, actions nested
thousands deep, long lists, huge numbers, odd text, frames over the size
limit, and now and then an action that may be legal. The server must
answer each with an ``error`` frame (or an ``ack``: then the action is
counted as acked like any other), or close the socket with a policy code
(1008, 1009) for what is too big or too much, and never crash; the games
go on, no acked action is lost, and every view holds the whole deck.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from app.actions import check_action
from tests.fault.harness import (
    Player,
    Server,
    Tally,
    check_games,
    lost_actions,
    replay_of,
    setup_tables,
    soak,
    start_games,
)
from tests.games import known_game
from tests.wsclient import Client

GAME = known_game("basic_rummy")  # the harness's rooms

pytestmark = pytest.mark.timeout(300 + 600 * soak())

CARDS = ["AS", "7H", "KH", "TD", "2C", "QS", "JD", "9C"]
ODD: list[object] = [
    "", " ", "ZZ", "A", "1S", "\u00e9\u00e9", "\U0001f0a1", "x" * 300, "\x00", "AS AS",
    None, 0, -1, 2**70, 1e308, True, [], {}]


def deep(depth: int) -> Any:
    value: Any = "AS"
    for i in range(depth):
        value = {"k": value} if i % 2 else [value]
    return value


def fuzz_frames(rng: random.Random, room: str) -> Iterator[tuple[str | bytes, bool]]:
    """Endless (payload, answered by ref) pairs: what the fuzzer sends."""
    ref = 0

    def framed(message: dict[str, Any]) -> tuple[str, bool]:
        nonlocal ref
        ref += 1
        return json.dumps({**message, "ref": ref}), True

    def act(action: Any) -> tuple[str, bool]:
        return framed({"type": "act", "room": room, "action": action})

    makers: list[Callable[[], tuple[str | bytes, bool]]] = [
        lambda: ("not json {", False),
        lambda: (rng.choice(["[]", "null", "42", '"act"', "{}", "[{}]"]), False),
        lambda: (bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))), False),
        lambda: framed({"type": rng.choice(ODD[:11]) or "act"}),
        lambda: framed({"type": "act"}),
        lambda: framed({"type": "act", "room": room}),
        lambda: act(rng.choice(ODD)),
        lambda: act(deep(rng.choice([8, 40, 200, 600]))),
        lambda: ("{\"type\":\"act\",\"action\":" + "[" * 5000 + "]" * 5000 + "}", False),
        lambda: act({"kind": rng.choice(["discard", "meld", "lay_off", "draw", "next_deal",
                                         "nope", "DISCARD"]),
                     "card": rng.choice(CARDS + ODD[:10]),
                     "cards": [rng.choice(CARDS + ODD[:6]) for _ in range(rng.randrange(6))],
                     "meld": rng.choice([0, 1, -1, 10**9, "m1", None]),
                     "source": rng.choice(["stock", "discard", "both", 3, None])}),
        lambda: act({"kind": "meld", "cards": list(range(rng.choice([100, 2000])))}),
        lambda: act({"kind": "discard", "card": "AS", "extra": deep(30),
                     "more": {str(i): i for i in range(200)}}),
        lambda: act({"kind": "draw", "source": rng.choice(["stock", "discard"])}),
        lambda: framed({"type": "join", "room": "x" * rng.choice([1, 64, 500]),
                        "role": "player"}),
        lambda: framed({"type": "join", "room": room, "role": rng.choice(["king", "", 7])}),
        lambda: framed({"type": "leave", "room": "nope"}),
        lambda: framed({"type": "start", "room": room}),
        lambda: framed({"type": "add_bot", "room": room}),
        lambda: framed({"type": "ping", "extra": rng.choice(ODD)}),
        lambda: (json.dumps({"type": "ping", "ref": rng.choice([[1], {"a": 1}, 2**80, 1.5])}),
                 False),
        lambda: (json.dumps({"type": "ping", "ref": 1, "pad": "x" * 20000}), False),
    ]
    while True:
        yield rng.choice(makers)()


class Fuzzer:
    """A second connection to a player's seat that sends fuzz (see module doc)."""

    def __init__(self, player: Player, room: str, seed: int) -> None:
        self.player = player
        self.room = room
        self.rng = random.Random(seed)
        self.sent = 0
        self.answers: Counter[str] = Counter()
        self.closes: Counter[int] = Counter()
        self.unanswered = 0
        self.acked: list[dict[str, Any]] = []

    async def run(self, url: str, until: float) -> None:
        frames = fuzz_frames(self.rng, self.room)
        client: Client | None = None
        while time.monotonic() < until:
            if client is None:
                client = await Client.open(url, self.player.token)
                reply = await client.request({"type": "join", "room": self.room,
                                              "role": "player"})
                if reply["type"] != "ack":  # the game ended meanwhile
                    break
            payload, by_ref = next(frames)
            start = len(client.frames)
            try:
                await client.ws.send(payload)
                self.sent += 1
                if by_ref:
                    ref = json.loads(payload)["ref"]
                    frame = await client.wait_for(
                        lambda f, ref=ref: f.get("ref") == ref  # type: ignore[misc]
                        and f["type"] in ("ack", "error", "pong"), timeout=10, start=start)
                else:
                    frame = await client.wait_for(
                        lambda f: f["type"] in ("error", "pong"), timeout=10, start=start)
                kind = frame["type"] if frame["type"] != "error" else frame["code"]
                self.answers[kind] += 1
                if frame["type"] == "ack" and by_ref and '"act"' in payload:
                    # As the server keeps it: only the fields its kind reads.
                    self.acked.append(check_action(GAME, json.loads(payload)["action"]))
            except TimeoutError:  # first: it is an OSError too
                if client._reader.done():
                    code = getattr(client.closed, "rcvd", None)
                    self.closes[getattr(code, "code", 0)] += 1
                    client = None
                else:
                    self.unanswered += 1
            except (ConnectionError, ConnectionClosed, OSError):
                code = getattr(client.closed, "rcvd", None)
                self.closes[getattr(code, "code", 0)] += 1
                client._reader.cancel()
                client = None
            await asyncio.sleep(0.07)  # under the rate limit: fuzz, not a flood
        if client is not None:
            await client.close()


async def test_fuzzed_frames_in_real_games(tmp_path: Path) -> None:
    server = Server(tmp_path, {})
    await asyncio.to_thread(server.start)
    try:
        tally = Tally()
        tables, bots, owner = setup_tables(server.url, [server.ws_url], tally, bot_rooms=2,
                                           duo_rooms=2 + 2 * soak(), solo_rooms=2 + 4 * soak())
        await start_games(server.url, tables, bots, owner)
        deadline = time.monotonic() + 200 + 200 * soak()
        plays = [asyncio.create_task(player.play(table.room, deadline))
                 for table in tables for player in table.players]
        fuzzers = [Fuzzer(table.players[0], table.room, seed=i)
                   for i, table in enumerate(tables)]
        until = time.monotonic() + 10 + 60 * soak()
        fuzzing = [asyncio.create_task(f.run(server.ws_url, until)) for f in fuzzers]
        await asyncio.gather(*fuzzing)
        assert server.alive(), server.log_tail()
        await asyncio.gather(*plays)
        lost = await check_games(server.url, tables, bots)
        for table, fuzzer in zip(tables, fuzzers, strict=True):
            assert table.players[0].seat is not None
            lost += lost_actions(await replay_of(server.url, table.room),
                                 table.players[0].seat, fuzzer.acked)
        answers = sum((f.answers for f in fuzzers), Counter())
        closes = sum((f.closes for f in fuzzers), Counter())
        unanswered = sum(f.unanswered for f in fuzzers)
        print(f"\nfuzz: sent={sum(f.sent for f in fuzzers)} answers={dict(answers)} "
              f"closes={dict(closes)} unanswered={unanswered} "
              f"fuzz_acked={sum(len(f.acked) for f in fuzzers)} players: {tally.line()} "
              f"lost={lost}")
        assert httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200
        assert server.alive()
        assert lost == 0, f"{lost} acked actions lost"
        assert tally.not_conserved == 0
        assert unanswered == 0
        assert set(closes) <= {1008, 1009}, closes
    finally:
        server.stop()
