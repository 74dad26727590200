"""A small test client for kartu's WebSocket protocol over a real socket."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect


def new_guest(base_url: str, name: str) -> dict[str, Any]:
    """A new guest of the server at ``base_url``: ``player_id``, ``name`` and ``token``.
    A server under a fault may be slow to answer, hence the longer timeout."""
    response = httpx.post(f"{base_url}/api/guests", json={"name": name}, timeout=10)
    response.raise_for_status()
    guest: dict[str, Any] = response.json()
    return guest


def create_room(base_url: str, token: str, game: str, seats: int, **options: Any
                ) -> dict[str, Any]:
    """A room of ``game`` owned by the guest of ``token``: the server's answer
    (``room_id``, ...). The same timeout as :func:`new_guest`."""
    response = httpx.post(f"{base_url}/api/rooms", json={"game": game, "seats": seats,
                                                         "options": options},
                          headers={"Authorization": f"Bearer {token}"}, timeout=10)
    response.raise_for_status()
    room: dict[str, Any] = response.json()
    return room


class Client:
    """Collects every frame; ``request`` waits for the ack or error of its ``ref``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._refs = itertools.count(1)
        self._arrived = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.closed: Exception | None = None

    @classmethod
    async def open(cls, ws_url: str, token: str | None = None, **kwargs: Any) -> Client:
        url = f"{ws_url}/ws" + (f"?token={token}" if token else "")
        return cls(await connect(url, **kwargs))

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                assert isinstance(message, str)
                self.raw.append(message)
                self.frames.append(json.loads(message))
                self._arrived.set()
        except Exception as err:  # the socket closed: remember why
            self.closed = err
        finally:
            self._arrived.set()

    async def send(self, message: dict[str, Any]) -> int:
        ref = next(self._refs)
        await self.ws.send(json.dumps({**message, "ref": ref}))
        return ref

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool],
                       timeout: float = 10, start: int = 0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            seen = start
            while True:
                for frame in self.frames[seen:]:
                    if predicate(frame):
                        return frame
                seen = len(self.frames)
                if self._reader.done():
                    raise ConnectionError(f"socket closed: {self.closed!r}")
                self._arrived.clear()
                await self._arrived.wait()

    async def request(self, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        ref = await self.send(message)
        return await self.wait_for(
            lambda f: f.get("ref") == ref and f["type"] in ("ack", "error", "pong"), timeout)

    async def act(self, room: str, **action: Any) -> dict[str, Any]:
        return await self.request({"type": "act", "room": room, "action": action})

    async def sync(self, room: str) -> int:
        """A round trip through ``room`` that changes nothing, for a test to say
        that something did *not* arrive: a repeat join, which the room answers
        with its current state after every command before it (the actor saves
        and sends a change before it takes the next command). Returns how many
        frames had arrived before that answer: every one the room sent this
        connection until then."""
        reply = await self.request({"type": "join", "room": room, "role": "spectator"})
        assert reply["type"] == "ack", reply
        at = self.frames.index(reply)
        return max(i for i, f in enumerate(self.frames[:at])
                   if f["type"] == "state" and f["room"] == room)

    def latest_state(self, room: str) -> dict[str, Any]:
        states = [f for f in self.frames if f["type"] == "state" and f["room"] == room]
        return max(states, key=lambda f: f["version"])

    async def state_where(self, room: str, predicate: Callable[[dict[str, Any]], bool],
                          timeout: float = 10) -> dict[str, Any]:
        return await self.wait_for(
            lambda f: f["type"] == "state" and f["room"] == room and predicate(f["view"]),
            timeout)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
