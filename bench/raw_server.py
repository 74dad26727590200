"""The baseline for bench.load: a bare `websockets` server that broadcasts to rooms.

    python -m bench.raw_server --port P [--compression none|deflate]

It speaks just enough of kartu's protocol for the load generator: ``join``
(``{"room", "role", "pad"}``) puts the socket in a room and answers ``state``
then ``ack`` with a seat; every ``act`` bumps the room's version and sends
``{"type": "state", "room", "version", "view": {"by", "ref", "action", "pad"}}``
to everyone in the room, then ``ack`` to the sender; ``pad`` (``{"room",
"pad"}``) sets the room's padding from then on; ``ping`` answers ``pong``.
No rules, no storage: what is left is the cost of the sockets, JSON and
fan-out, which kartu's figures are compared with.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import orjson
from websockets.asyncio.server import ServerConnection, broadcast, serve


class Room:
    def __init__(self, pad: int) -> None:
        self.members: set[ServerConnection] = set()
        self.version, self.seats, self.pad = 0, 0, "x" * pad


rooms: dict[str, Room] = {}


def frame(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj)


async def handler(ws: ServerConnection) -> None:
    room: Room | None = None
    seat: int | None = None
    try:
        async for text in ws:
            msg: dict[str, Any] = orjson.loads(text)
            kind, ref = msg.get("type"), msg.get("ref")
            if kind == "join":
                room = rooms.setdefault(str(msg["room"]), Room(int(msg.get("pad", 0))))
                if msg.get("role", "player") == "player":
                    seat, room.seats = room.seats, room.seats + 1
                room.members.add(ws)
                await ws.send(frame({"type": "state", "room": msg["room"], "version": room.version,
                                     "view": {"you": seat, "pad": room.pad}}), text=True)
                await ws.send(frame({"type": "ack", "ref": ref, "seat": seat}), text=True)
            elif kind == "act" and room is not None:
                room.version += 1
                view = {"by": seat, "ref": ref, "action": msg.get("action"), "pad": room.pad}
                broadcast(room.members, frame({"type": "state", "room": msg["room"],
                                               "version": room.version, "view": view}), text=True)
                await ws.send(frame({"type": "ack", "ref": ref}), text=True)
            elif kind == "pad":
                rooms[str(msg["room"])].pad = "x" * int(msg["pad"])
                await ws.send(frame({"type": "ack", "ref": ref}), text=True)
            elif kind == "ping":
                await ws.send(frame({"type": "pong", "ref": ref,
                                     "server_time": time.time_ns() // 10**6}), text=True)
            else:
                await ws.send(frame({"type": "error", "code": "bad_message", "message": kind,
                                     "ref": ref}), text=True)
    finally:
        if room is not None:
            room.members.discard(ws)


async def main(port: int, compression: str | None) -> None:
    async with serve(handler, "127.0.0.1", port, max_size=65536,
                     compression=compression) as server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--compression", choices=("none", "deflate"), default="none")
    args = parser.parse_args()
    compression = None if args.compression == "none" else "deflate"
    try:  # the event loop uvicorn picks when uvloop is installed
        import uvloop
    except ImportError:
        asyncio.run(main(args.port, compression))
    else:
        uvloop.run(main(args.port, compression))
