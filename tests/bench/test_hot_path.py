"""bench.hot_path drives the real gateway as a server would: what its
connections are corked is written out after every message, and nothing fails."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from app.settings import Settings
from app.wsprotocol import loop_flusher
from bench.hot_path import Bench, _Path


@pytest.mark.parametrize("game", ["basic_rummy", "remmi_demmi"])
async def test_a_round_writes_out_what_it_corks(
        game: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bench = Bench(str(tmp_path), game, rooms=1)
    await bench.start()
    try:
        with caplog.at_level(logging.WARNING):
            await bench.round(400)
        players = [conn.path for _, seats in bench.tables for conn in seats]
        assert not loop_flusher(asyncio.get_running_loop()).dirty
    finally:
        await bench.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert all(isinstance(p, _Path) and p.sent > 0 for p in players)
    if game == "remmi_demmi":
        # More than a connection may have waiting: a round that never wrote
        # what it corked would have found its traders too slow.
        limit = Settings().send_buffer_bytes
        assert all(isinstance(p, _Path) and p.sent > limit for p in players)
