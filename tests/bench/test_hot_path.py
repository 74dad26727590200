"""bench.hot_path drives the real gateway as a server would: what its
connections are corked is written out after every message, and nothing fails;
with ``wire``, on kartu's WebSocket protocol."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from app.settings import Settings
from app.wsprotocol import loop_flusher
from bench.hot_path import Bench, Wire


@pytest.mark.parametrize("wire", [False, True], ids=["direct", "wire"])
@pytest.mark.parametrize("game", ["basic_rummy", "remmi_demmi"])
async def test_a_round_writes_out_what_it_corks(
        game: str, wire: bool, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bench = Bench(str(tmp_path), game, rooms=1, wire=wire)
    await bench.start()
    try:
        with caplog.at_level(logging.WARNING):
            await bench.round(400)
        players = [conn for _, seats in bench.tables for conn in seats]
        sent = [conn.sent for conn in players]
        assert not loop_flusher(asyncio.get_running_loop()).dirty
        if wire:
            # Every socket served to the end of the round, none dropped.
            assert all(isinstance(conn, Wire) and not conn.transport.closing
                       for conn in players)
    finally:
        await bench.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert all(n > 0 for n in sent)
    if game == "remmi_demmi":
        # More than a connection may have waiting: a round that never wrote
        # what it corked would have found its traders too slow.
        limit = Settings().send_buffer_bytes
        assert all(n > limit for n in sent)
