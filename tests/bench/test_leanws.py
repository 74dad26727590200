"""bench.leanws, the load generator's client: its frames as a server reads them."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from bench.leanws import OP_CLOSE, OP_TEXT, masked_frame


def parse_as_server(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=True)  # a server requires masking
    try:
        next(parser)
    except StopIteration as done:
        frame: Frame = done.value
        return frame
    raise AssertionError("the frame was incomplete")


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1_400, 65_535, 65_536])
def test_masked_frames_parse_back_to_their_payload(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    frame = parse_as_server(masked_frame(OP_TEXT, payload))
    assert frame.opcode is Opcode.TEXT and frame.fin and frame.data == payload


def test_each_frame_has_its_own_mask() -> None:
    assert masked_frame(OP_TEXT, b"same") != masked_frame(OP_TEXT, b"same")
    assert parse_as_server(masked_frame(OP_CLOSE, (1000).to_bytes(2, "big"))).data == b"\x03\xe8"
