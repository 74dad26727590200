"""A nine-player Remmi Demmi room under trading load, through real WebSockets.

``python -m bench.remmi_demmi_trading [--seconds 10] [--rate 12] [--players 9]``

Starts a kartu server (SQLite in a temporary folder, the in-process broker),
seats nine traders in one room, starts the timer and lets each trader offer
1-3 cards of one colour or one figure ``--rate`` times a second (the flood
limit is 20 a second per connection). Prints:

- offers handled per second (acknowledged offers) and trades per second;
- *offer-to-swap* latency, p50/p99: from sending the offer that completed a
  trade to the moment its sender's socket holds the state showing the swap
  (``own``), and to the moment the other trader's socket holds it
  (``other``);
- refusals and errors by code, and the server's CPU per offer.

Run by hand; it prints figures and asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.load import Server, start_server


def percentile(samples: list[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Trader:
    def __init__(self, ws: ClientConnection, room: str, rng: random.Random) -> None:
        self.ws = ws
        self.room = room
        self.rng = rng
        self.view: dict[str, Any] = {}
        self.version = -1
        self.ref = 0
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.seen_trade: dict[str, float] = {}  # trade id -> when this socket first saw it
        self.reader = asyncio.get_running_loop().create_task(self.read())

    async def read(self) -> None:
        async for raw in self.ws:
            frame = json.loads(raw)
            now = time.perf_counter()
            if frame["type"] == "state" and frame["version"] > self.version:
                self.version, self.view = frame["version"], frame["view"]
                for trade in self.view.get("trades") or []:
                    self.seen_trade.setdefault(trade["id"], now)
            elif frame.get("ref") in self.replies:
                self.replies.pop(frame["ref"]).set_result(frame)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.ref += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[self.ref] = future
        await self.ws.send(json.dumps({**message, "ref": self.ref}))
        return await asyncio.wait_for(future, 10)

    def demmi(self) -> list[str] | None:
        """1-3 free cards of one colour or one figure (a valid Demmi), if any."""
        locked = set(self.view.get("locked") or [])
        free = [c for c in self.view.get("hand") or [] if c not in locked]
        groups: dict[str, list[str]] = {}
        for card in free:
            groups.setdefault("c" + card[0], []).append(card)
            groups.setdefault("f" + card[1], []).append(card)
        if not groups:
            return None
        group = self.rng.choice(sorted(groups.values(), key=len))
        return self.rng.sample(group, min(len(group), self.rng.randint(1, 3)))


async def trade(traders: list[Trader], seconds: float, rate: float) -> dict[str, Any]:
    sent: dict[str, float] = {}  # trade id -> send time of the offer that completed it
    completer: dict[str, int] = {}
    codes: Counter[str] = Counter()
    acked = 0

    async def run(index: int, trader: Trader) -> None:
        nonlocal acked
        stop = time.perf_counter() + seconds
        await asyncio.sleep(trader.rng.random() / rate)
        while time.perf_counter() < stop:
            tick = time.perf_counter()
            cards = trader.demmi()
            if cards is not None:
                before = {t["id"] for t in trader.view.get("trades") or []}
                reply = await trader.request({"type": "act", "room": trader.room, "action": {
                    "kind": "offer", "cards": cards, "to": None}})
                if reply["type"] == "ack":
                    acked += 1
                    for t in trader.view.get("trades") or []:
                        if t["id"] not in before and sorted(t["gave"]) == sorted(cards):
                            sent[t["id"]], completer[t["id"]] = tick, index
                else:
                    codes[reply["code"]] += 1
            await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - tick)))

    started = time.perf_counter()
    await asyncio.gather(*(run(i, t) for i, t in enumerate(traders)))
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0.3)
    own: list[float] = []
    other: list[float] = []
    for trade_id, at in sent.items():
        for index, trader in enumerate(traders):
            seen = trader.seen_trade.get(trade_id)
            if seen is not None:
                (own if index == completer[trade_id] else other).append((seen - at) * 1000)
    return {"seconds": round(elapsed, 2), "offers_acked": acked,
            "offers_per_s": round(acked / elapsed, 1), "trades": len(sent),
            "trades_per_s": round(len(sent) / elapsed, 1), "refused": dict(codes),
            "own_ms_p50": percentile(own, 0.5), "own_ms_p99": percentile(own, 0.99),
            "other_ms_p50": percentile(other, 0.5), "other_ms_p99": percentile(other, 0.99)}


async def bench(server: Server, players: int, seconds: float, rate: float) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, trust_env=False) as http:
        guests = [(await http.post("/api/guests", json={"name": f"T{i}"})).json()
                  for i in range(players)]
        room = (await http.post("/api/rooms", json={
            "game": "remmi_demmi", "seats": players,
            "options": {"timer_s": int(seconds) + 30, "bot_delay_ms": 0}},
            headers={"Authorization": f"Bearer {guests[0]['token']}"})).json()["room_id"]
    ws_url = server.url.replace("http", "ws")
    traders = [Trader(await connect(f"{ws_url}/ws?token={g['token']}"), room,
                      random.Random(i)) for i, g in enumerate(guests)]
    for trader in traders:
        await trader.request({"type": "join", "room": room})
    await traders[0].request({"type": "start", "room": room})
    await asyncio.sleep(0.2)
    await traders[0].request({"type": "act", "room": room,
                              "action": {"kind": "start_timer", "speed": "lightning"}})
    await asyncio.sleep(0.2)
    cpu = server.cpu_s()
    figures = await trade(traders, seconds, rate)
    cpu = server.cpu_s() - cpu
    figures["server_cpu_ms_per_offer"] = round(1000 * cpu / max(1, figures["offers_acked"]), 3)
    for trader in traders:
        await trader.ws.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rate", type=float, default=12, help="offers a second per trader")
    parser.add_argument("--players", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server("kartu", Path(tmp), None, {})
        try:
            figures = asyncio.run(bench(server, args.players, min(args.seconds, 60),
                                        args.rate))
        finally:
            server.stop()
    print(f"Remmi Demmi, {args.players} traders, {args.rate:g} offers/s each, "
          f"{figures['seconds']} s")
    print(f"  offers handled     {figures['offers_per_s']:>8}/s  ({figures['offers_acked']})")
    print(f"  trades             {figures['trades_per_s']:>8}/s  ({figures['trades']})")
    for side in ("own", "other"):
        print(f"  offer-to-swap {side:<5} p50 {figures[side + '_ms_p50'] or 0:7.2f} ms"
              f"   p99 {figures[side + '_ms_p99'] or 0:7.2f} ms")
    print(f"  server CPU         {figures['server_cpu_ms_per_offer']:>8} ms/offer")
    print(f"  refused            {figures['refused'] or 'none'}")
    print(json.dumps({"bench": "remmi_demmi_trading", **figures}))


if __name__ == "__main__":
    main()
