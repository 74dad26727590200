"""Nine real WebSocket clients trade Remmi Demmi cards as fast as they may.

Offers, withdrawals, returns and keeps arrive from nine sockets at once; the
room's actor decides them in arrival order. Afterwards every one of the 81
cards is in exactly one hand, every hand still holds nine cards, and the
spectator never saw a card.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from typing import Any

from tests.live import LiveServer
from tests.waiting import wait_for
from tests.wsclient import Client, create_room, new_guest

CARD = re.compile(r'"[OPG][RJL][1-9]"')
ALL_CARDS = {c + f + str(n) for c in "OPG" for f in "RJL" for n in range(1, 10)}


async def trade_for(client: Client, room: str, seconds: float, rng: random.Random) -> int:
    """Sends offers/withdrawals/returns/keeps, each after the last one's reply."""
    sent = 0
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        view = client.latest_state(room)["view"]
        returnable = [t for t in view["trades"] if t["can_return"]]
        locked = set(view["locked"])
        free = [c for c in view["hand"] if c not in locked]
        if returnable and rng.random() < 0.5:
            trade = rng.choice(returnable)
            action: dict[str, Any] = {"kind": rng.choice(["return", "keep"]), "trade": trade["id"]}
        elif view["my_offer"] and rng.random() < 0.2:
            action = {"kind": "withdraw"}
        elif free:
            cards = rng.sample(free, min(len(free), rng.randint(1, 3)))
            action = {"kind": "offer", "cards": cards, "to": None}
        elif returnable:
            continue  # decide again: return or keep, or maybe not yet
        else:
            # Every card is locked: wait for the room's next change (a window
            # closing, a trade returned) or the end of the trading time.
            seen = len(client.frames)
            with contextlib.suppress(TimeoutError):
                await client.wait_for(lambda f: f["type"] == "state" and f["room"] == room,
                                      timeout=max(0.0, stop - time.monotonic()), start=seen)
            continue
        reply = await client.act(room, **action)
        assert reply["type"] in ("ack", "error"), reply
        if reply["type"] == "error":
            # Refusals are fine (a trade returned meanwhile, cards just locked),
            # but never for a malformed or unexpected reason.
            assert reply["code"] == "illegal_action", reply
        sent += 1
        # Pacing, not waiting for anything: about 15 commands a second stays
        # under the flood limit, which is not what this test is about.
        await asyncio.sleep(0.06)
    return sent


async def test_nine_traders_at_once_lose_and_duplicate_nothing(live_server: LiveServer) -> None:
    guests = [new_guest(live_server.url, f"P{i}") for i in range(9)]
    room = create_room(live_server.url, guests[0]["token"], "remmi_demmi", 9, timer_s=120,
                       bot_delay_ms=0, return_window_s=2)["room_id"]
    clients = [await Client.open(live_server.ws_url, g["token"]) for g in guests]
    watcher = await Client.open(live_server.ws_url)
    for seat, client in enumerate(clients):
        assert (await client.request({"type": "join", "room": room}))["seat"] == seat
    await watcher.request({"type": "join", "room": room, "role": "spectator"})
    assert (await clients[0].request({"type": "start", "room": room}))["type"] == "ack"
    await clients[0].state_where(room, lambda v: v["phase"] == "playing")
    reply = await clients[0].act(room, kind="start_timer", speed="lightning")
    assert reply["type"] == "ack", reply
    for client in clients:
        await client.state_where(room, lambda v: v.get("stage") == "trading")

    sent = await asyncio.gather(*(trade_for(c, room, 4.0, random.Random(i))
                                  for i, c in enumerate(clients)))
    assert sum(sent) > 200
    # Every command has had its reply; once the last change has reached every
    # player, read everybody's final view.
    def same_last_change() -> list[dict[str, Any]] | None:
        final = [c.latest_state(room) for c in clients]
        return final if len({f["version"] for f in final}) == 1 else None

    final = await wait_for(same_last_change, what="everybody to see the same last change")
    hands = [f["view"]["hand"] for f in final]
    assert all(len(hand) == 9 for hand in hands)
    held = [card for hand in hands for card in hand]
    assert len(held) == len(set(held)) == 81 and set(held) == ALL_CARDS
    trades = sum(1 for f in watcher.frames
                 if f["type"] == "event" and f["event"]["kind"] == "traded")
    assert trades > 20
    # Offers stay within their owner's hand, and no card is in two offers.
    offered = [c for f in final if f["view"]["my_offer"] for c in f["view"]["my_offer"]["cards"]]
    assert len(offered) == len(set(offered))
    for f in final:
        if f["view"]["my_offer"]:
            assert set(f["view"]["my_offer"]["cards"]) <= set(f["view"]["hand"])
    # The spectator saw offers and trades by size, never a card.
    assert not any(CARD.search(raw) for raw in watcher.raw)
    for client in (*clients, watcher):
        await client.close()
