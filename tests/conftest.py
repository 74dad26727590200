"""Shared fixtures: a real uvicorn serving the app in a subprocess.

``live_server`` starts ``python -m app`` (uvicorn) on a free loopback port with
its own SQLite file, the in-process broker and scenario rooms enabled, and
yields its base URL. ``server_factory`` starts more (e.g. with ``REDIS_URL``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

# Assertions in the shared harnesses report the values they compared.
pytest.register_assert_rewrite("tests.engine.rummy_harness", "tests.engine.room_harness")

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.ws_url = url.replace("http://", "ws://")
        self.process = process
        self.log = log

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(tmp: Path, env_extra: dict[str, str] | None = None) -> LiveServer:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'kartu.db'}",
        "KARTU_SCENARIOS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("REDIS_URL", None)
    env.update(env_extra or {})
    log = tmp / f"server-{port}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return LiveServer(url, process, log)
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not become healthy:\n{log.read_text()}")


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
