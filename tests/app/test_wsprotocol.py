"""app.wsprotocol: its framing (against the websockets library's), its lean queue and flag."""

from __future__ import annotations

import asyncio

import pytest
from websockets.frames import Frame, Opcode

from app.wsprotocol import _Flag, _Inbox, unwire, wire


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1_400, 65_535, 65_536, 70_000])
def test_wire_bytes_are_the_frame_websockets_would_send(size: int) -> None:
    payload = b'"' + b"x" * max(0, size - 2) + b'"' if size >= 2 else b"1" * size
    assert wire(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


def test_unwire_gives_back_the_payloads_of_joined_frames() -> None:
    payloads = [b"", b"1", b"x" * 125, b"y" * 126, b"z" * 65_536, b'{"type":"ack"}']
    assert unwire(b"".join(wire(p) for p in payloads)) == payloads
    assert unwire(b"") == []


async def test_the_inbox_hands_messages_over_in_order_and_waits_when_empty() -> None:
    inbox = _Inbox()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert inbox.qsize() == 2
    assert [await inbox.get(), await inbox.get()] == [1, 2]
    assert inbox.empty()
    waiting = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait(3)
    assert await asyncio.wait_for(waiting, 1) == 3
    cancelled = asyncio.ensure_future(inbox.get())  # a reader gone does not lose the next
    await asyncio.sleep(0)
    cancelled.cancel()
    inbox.put_nowait(4)
    assert await inbox.get() == 4


async def test_the_writable_flag_holds_senders_until_it_is_set() -> None:
    flag = _Flag(True)
    await asyncio.wait_for(flag.wait(), 1)
    flag.clear()
    senders = [asyncio.ensure_future(flag.wait()) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(s.done() for s in senders) and not flag.is_set()
    flag.set()
    await asyncio.wait_for(asyncio.gather(*senders), 1)
