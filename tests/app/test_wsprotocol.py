"""app.wsprotocol's framing, against the websockets library's own."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from app.wsprotocol import wire


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1_400, 65_535, 65_536, 70_000])
def test_wire_bytes_are_the_frame_websockets_would_send(size: int) -> None:
    payload = b'"' + b"x" * max(0, size - 2) + b'"' if size >= 2 else b"1" * size
    assert wire(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)
