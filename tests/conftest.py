"""Shared fixtures: real uvicorn servers serving the app (:mod:`tests.live`).

``live_server`` is one live server, stopped after the test; ``server_factory``
starts more (e.g. with ``REDIS_URL``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.live import LiveServer, start_server

# Assertions in the shared harnesses report the values they compared.
pytest.register_assert_rewrite("tests.engine.rummy_harness", "tests.engine.room_harness")


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    servers: list[LiveServer] = []

    def factory(env: dict[str, str] | None = None) -> LiveServer:
        server = start_server(tmp_path, env)
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()


@pytest.fixture
def live_server(server_factory: Callable[..., LiveServer]) -> LiveServer:
    return server_factory()
