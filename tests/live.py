"""Live servers for the tests: the real app under uvicorn, each in a process of its own.

A *live server* serves kartu on a free loopback port with its own SQLite
file (unless the test names another database), the in-process broker and
scenario rooms enabled, and writes its output to ``server-<port>.log``.

Starting ``python -m app`` spends about two seconds of CPU importing
FastAPI, SQLAlchemy and Alembic before it serves anything, and the suite
starts over a hundred servers. So servers are forked from a multiprocessing
*forkserver* that imported the app once: each one is still a new process
with its own environment, database and log, serving a new app through the
same uvicorn options as ``python -m app`` (:func:`app.__main__.serve`). The
fault suite runs ``python -m app`` itself, so the command stays tested.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path

import httpx

# "__main__" too: each server would otherwise import the test runner's script again.
_servers = multiprocessing.get_context("forkserver")
_servers.set_forkserver_preload(["__main__", "app.main"])

HEALTHY_WITHIN_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, url: str, process: BaseProcess, log: Path) -> None:
        self.url = url
        self.ws_url = url.replace("http://", "ws://")
        self.process = process
        self.log = log

    def stop(self) -> None:
        """Stops the server as an operator would (SIGTERM), or kills it after 10 s."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=10)
            if self.process.is_alive():
                self.kill()

    def kill(self) -> None:
        """SIGKILL: the server stops at once, without shutting down."""
        if self.process.pid is not None and self.process.exitcode is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.join(timeout=10)


def run_server(port: int, env: dict[str, str], log: Path) -> None:
    """A live server's process: ``env`` as its whole environment, output to ``log``."""
    # Imported here, in the forked process (where the forkserver has them
    # already), not by every test process that imports this module.
    from app.__main__ import default_ws, serve
    from app.main import create_app

    os.environ.clear()
    os.environ.update(env)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    # Unbuffered, like PYTHONUNBUFFERED=1: tests read the log while the server runs.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True, write_through=True)  # type: ignore[union-attr]
    serve(create_app(), host="127.0.0.1", port=port, ws=default_ws())


def start_server(tmp: Path, env_extra: dict[str, str] | None = None) -> LiveServer:
    """A live server whose files live in ``tmp``, once it answers ``/healthz``;
    ``env_extra`` adds to (or overrides) the defaults above."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'kartu.db'}",
        "KARTU_SCENARIOS": "1",
    }
    env.pop("REDIS_URL", None)
    env.update(env_extra or {})
    log = tmp / f"server-{port}.log"
    # A daemon: one a test failed to stop is ended with the test run, not waited for.
    process = _servers.Process(target=run_server, args=(port, env, log), daemon=True,
                               name=f"kartu-{port}")
    process.start()
    server = LiveServer(f"http://127.0.0.1:{port}", process, log)
    try:
        wait_healthy(server.url, process.is_alive, log)
    except RuntimeError:
        server.kill()
        raise
    return server


def wait_healthy(url: str, alive: Callable[[], bool], log: Path) -> None:
    """Waits until the server at ``url`` answers ``/healthz``; RuntimeError,
    with its ``log``, if it exits first or is not healthy in time."""
    deadline = time.monotonic() + HEALTHY_WITHIN_S
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"server exited early:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server did not become healthy:\n{log.read_text()}")
