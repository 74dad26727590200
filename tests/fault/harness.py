"""The fault suite's pieces: real processes, players that keep count, and the checks.

Terms:

- *acked*: an action the server answered with ``ack``. The promise under
  test is "ack means saved": every acked action is in the room's action log
  afterwards, whatever happened to the server or its stores in between.
- *lost*: an acked action missing from the room's replay (the record of the
  finished game: each seat's own actions, in order). A player's acked
  actions must be a subsequence of its seat's non-bot entries there (an
  action applied whose ack was lost to a crash is in the log but not acked:
  allowed).
- *refused*: an action answered with an ``error`` frame, by code
  (``unavailable`` while a store is down).
- *recovery*: from a player's first failure (a refusal, a lost socket) to
  its next ack: how long play stood still for it.
- *conserved*: in every ``playing`` view a client gets, the cards add up:
  hand counts + stock + discard + table melds = the deck.

:class:`Server` runs ``python -m app`` as the tests do (tests/services.py),
but on a port it keeps, so that players reconnect to it after a restart.
:class:`Postgres` and :class:`RedisServer` are private instances on free
ports (never the machine's shared ones). ``KARTU_SOAK=1`` makes the runs
longer (see :func:`soak`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.exceptions import ConnectionClosed

from engine.bots.basic_rummy import choose
from tests import wsclient
from tests.live import free_port
from tests.wsclient import Client, new_guest

ROOT = Path(__file__).resolve().parent.parent.parent
DECK = 52  # Basic Rummy: one deck, no jokers
GAME_OPTIONS: dict[str, Any] = {"deals": 3, "deal_pause_ms": 300, "turn_clock_s": 0,
                                "bot_delay_ms": 60}
THINK_S = 0.06  # a player's pause before each action (and under the rate limit)


def soak() -> int:
    """How many times longer to run (``KARTU_SOAK``; 0 or unset: the short default run)."""
    try:
        return max(0, int(os.environ.get("KARTU_SOAK", "0")))
    except ValueError:
        return 1


# --- processes -----------------------------------------------------------------


class Server:
    """``python -m app`` on a port of its own, that can be killed and started again."""

    def __init__(self, tmp: Path, env: dict[str, str], name: str = "kartu") -> None:
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.name = name
        self.env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'kartu.db'}",
                    "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT), **env}
        if "REDIS_URL" not in env:
            self.env.pop("REDIS_URL", None)
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.tmp / f"{self.name}-{self.port}.log"

    def start(self, timeout: float = 60) -> None:
        self.starts += 1
        with self.log.open("ab") as out:
            out.write(b"\n--- start %d ---\n" % self.starts)
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited early:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"{self.name} did not become healthy:\n{self.log_tail()}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: nothing is flushed, closed or said goodbye to."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""


def postgres_bin() -> Path | None:
    """Where PostgreSQL's server programs are (initdb, pg_ctl), or None."""
    for name in ("initdb", "pg_ctl"):
        if shutil.which(name) is None:
            break
    else:
        return Path(shutil.which("pg_ctl") or "").resolve().parent
    found = sorted(glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


class Postgres:
    """A private PostgreSQL in a temporary directory, on a free port.

    As root, it runs as the ``postgres`` user (initdb refuses root). Stopped
    with ``pg_ctl stop -m immediate``: like a crash, it leaves recovery to
    the next start.
    """

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="kartu-pg-"))
        self.data = self.dir / "data"
        self.user: str | None = "postgres" if os.geteuid() == 0 else None
        if self.user is not None:
            shutil.chown(self.dir, self.user, self.user)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> None:
        subprocess.run([str(self.bindir / args[0]), *args[1:]], check=True, timeout=timeout,
                       user=self.user, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       cwd=self.dir)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync")

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=50 -c shared_buffers=16MB")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-o", options,
                  "-w", "-t", "30", "start")

    def stop(self, mode: str = "immediate") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisServer:
    """A private Redis: AOF on, fsync on every write, on a free port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="kartu-redis-"))
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server") or "redis-server"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.dir)],
            stdout=(self.dir / "log").open("ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                out = subprocess.run(["redis-cli", "-p", str(self.port), "ping"],
                                     capture_output=True, timeout=2)
                if out.stdout.strip() == b"PONG":
                    return
            except (OSError, subprocess.TimeoutExpired):
                pass
            time.sleep(0.1)
        raise RuntimeError("private Redis did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def destroy(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


# --- players -----------------------------------------------------------------------


def create_room(url: str, token: str, seats: int, **options: Any) -> str:
    """The id of a new Basic Rummy room with the fault runs' options."""
    room = wsclient.create_room(url, token, "basic_rummy", seats, **{**GAME_OPTIONS, **options})
    return str(room["room_id"])


def conserved(view: dict[str, Any]) -> bool:
    """Whether every card of the deck is somewhere in a ``playing`` view."""
    cards = (sum(s["hand_count"] for s in view["seats"]) + view["stock_count"]
             + len(view["discard"]) + sum(len(m["cards"]) for m in view["melds"]))
    return cards == DECK


@dataclass
class Tally:
    """What the players of one run saw."""

    acked: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    recoveries: list[float] = field(default_factory=list)
    not_conserved: int = 0
    views: int = 0

    def line(self) -> str:
        worst = max(self.recoveries, default=0.0)
        return (f"acked={self.acked} refused={dict(self.refused)} "
                f"reconnects={self.reconnects} views={self.views} "
                f"not_conserved={self.not_conserved} recoveries={len(self.recoveries)} "
                f"worst_recovery_s={worst:.1f}")


class Player:
    """A human seat played by the Basic Rummy bot from the view the server sends.

    It acts only on its turn, one action at a time (the next after the
    answer), and keeps every acked action. When its socket goes (the
    server was killed) it connects again, to any of ``urls``, and joins its
    room again until it is back in.
    """

    def __init__(self, name: str, token: str, urls: list[str], tally: Tally) -> None:
        self.name = name
        self.token = token
        self.urls = urls
        self.tally = tally
        self.client: Client | None = None
        self.room = ""
        self.seat: int | None = None
        self.acked: list[dict[str, Any]] = []
        self._failed_at: float | None = None
        self._tries = 0

    def _failing(self) -> None:
        if self._failed_at is None:
            self._failed_at = time.monotonic()

    def _recovered(self) -> None:
        if self._failed_at is not None:
            self.tally.recoveries.append(time.monotonic() - self._failed_at)
            self._failed_at = None

    async def _drop(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client._reader.cancel()
            try:
                async with asyncio.timeout(1):
                    await client.ws.close()
            except Exception:  # a dead socket closes as it can
                pass

    async def connect(self, room: str, deadline: float) -> None:
        """Connects and joins ``room`` as a player, trying until ``deadline``."""
        self.room = room
        while True:
            url = self.urls[self._tries % len(self.urls)]
            self._tries += 1
            try:
                client = await Client.open(url, self.token, open_timeout=3)
                try:
                    reply = await client.request({"type": "join", "room": room,
                                                  "role": "player"}, timeout=15)
                except BaseException:
                    client._reader.cancel()
                    raise
                if reply["type"] == "ack":
                    self.client, self.seat = client, reply["seat"]
                    return
                client._reader.cancel()
                await client.ws.close()
                self.tally.refused[f"join:{reply['code']}"] += 1
            except Exception:  # the server is down or restarting: try again
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} could not join {room} again")
            await asyncio.sleep(0.2)

    def view(self) -> tuple[int, dict[str, Any]] | None:
        assert self.client is not None
        for frame in reversed(self.client.frames):
            if frame["type"] == "state" and frame["room"] == self.room:
                return frame["version"], frame["view"]
        return None

    async def play(self, room: str, deadline: float) -> None:
        """Plays until the game is over (or ``deadline``: TimeoutError)."""
        await self.connect(room, deadline)
        checked = 0
        while True:
            if time.monotonic() > deadline:
                last = self.view() if self.client is not None else None
                shown = (last[0], last[1].get("phase"), last[1].get("turn")) if last else None
                raise TimeoutError(f"{self.name} (seat {self.seat}) in {room}: the game did not "
                                   f"end in time; last state (version, phase, turn): {shown}")
            if self.client is None:
                self.tally.reconnects += 1
                await self.connect(room, deadline)
                checked = 0
            assert self.client is not None
            for frame in self.client.frames[checked:]:
                if frame["type"] == "state" and frame["view"].get("phase") == "playing":
                    self.tally.views += 1
                    if not conserved(frame["view"]):
                        self.tally.not_conserved += 1
            checked = len(self.client.frames)
            latest = self.view()
            if latest is None:
                await asyncio.sleep(0.05)
                continue
            _, view = latest
            if view.get("phase") == "game_over":
                await self._drop()
                return
            action = choose(view) if view.get("phase") == "playing" \
                and view.get("turn") == self.seat else None
            try:
                if action is None:
                    seen = len(self.client.frames)
                    await self.client.wait_for(lambda f: f["type"] == "state", timeout=2,
                                               start=seen)
                    continue
                await asyncio.sleep(THINK_S)
                reply = await self.client.request({"type": "act", "room": room,
                                                   "action": action}, timeout=15)
            except TimeoutError:
                if self.client is not None and self.client._reader.done():
                    self._failing()
                    await self._drop()
                continue
            except (ConnectionError, OSError, ConnectionClosed):
                self._failing()
                await self._drop()
                continue
            if reply["type"] == "ack":
                self.acked.append(action)
                self.tally.acked += 1
                self._recovered()
            else:
                self.tally.refused[reply["code"]] += 1
                if reply["code"] in ("unavailable", "busy"):
                    self._failing()
                await asyncio.sleep(0.1)


# --- checks ---------------------------------------------------------------------------


async def replay_of(url: str, room: str, timeout: float = 30) -> dict[str, Any]:
    """The finished game's record (waits for it: it is written once the end is saved)."""
    async with httpx.AsyncClient(timeout=5) as http:
        deadline = time.monotonic() + timeout
        while True:
            try:
                response = await http.get(f"{url}/api/rooms/{room}/replay")
                if response.status_code == 200:
                    return response.json()
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"no replay of room {room}")
            await asyncio.sleep(0.2)


def lost_actions(record: dict[str, Any], seat: int, acked: list[dict[str, Any]]) -> int:
    """How many of ``acked`` (in order) are not in the seat's own entries of ``record``."""
    own = [orjson.dumps(e["action"], option=orjson.OPT_SORT_KEYS) for e in record["actions"]
           if e.get("seat") == seat and not e.get("bot")]
    at, found = 0, 0
    for action in acked:
        wanted = orjson.dumps(action, option=orjson.OPT_SORT_KEYS)
        while at < len(own) and own[at] != wanted:
            at += 1
        if at < len(own):
            found += 1
            at += 1
    return len(acked) - found


@dataclass
class Table:
    """One room of a run: its players (humans) and bots."""

    room: str
    players: list[Player]


def setup_tables(url: str, urls: list[str], tally: Tally, *, bot_rooms: int,
                 duo_rooms: int, solo_rooms: int) -> tuple[list[Table], list[str], str]:
    """Rooms of two humans (``duo``), of a human and a bot (``solo``), and of bots
    only (returned apart: nobody acks there), and the bot rooms' owner's token."""
    tables: list[Table] = []
    for i in range(duo_rooms):
        ana, bo = new_guest(url, f"Duo{i}a"), new_guest(url, f"Duo{i}b")
        room = create_room(url, ana["token"], 2)
        tables.append(Table(room, [Player(f"Duo{i}a", ana["token"], urls, tally),
                                   Player(f"Duo{i}b", bo["token"], urls, tally)]))
    for i in range(solo_rooms):
        cy = new_guest(url, f"Solo{i}")
        room = create_room(url, cy["token"], 2, fill_bots=True)
        tables.append(Table(room, [Player(f"Solo{i}", cy["token"], urls, tally)]))
    bots: list[str] = []
    owner = new_guest(url, "Owner")
    for _ in range(bot_rooms):
        bots.append(create_room(url, owner["token"], 3, fill_bots=True))
    return tables, bots, str(owner["token"])


async def start_games(url: str, tables: list[Table], bot_rooms: list[str],
                      owner_token: str | None = None) -> None:
    """Seats every player, then the rooms' owners start them."""
    deadline = time.monotonic() + 30
    for table in tables:
        for player in table.players:
            await player.connect(table.room, deadline)
    for table in tables:
        owner = table.players[0]
        assert owner.client is not None
        reply = await owner.client.request({"type": "start", "room": table.room})
        assert reply["type"] == "ack", reply
    for table in tables:
        for player in table.players:
            await player._drop()  # play() connects again
    if bot_rooms:
        assert owner_token is not None
        client = await Client.open(url.replace("http://", "ws://"), owner_token)
        for room in bot_rooms:
            reply = await client.request({"type": "start", "room": room})
            assert reply["type"] == "ack", reply
        await client.close()


async def check_games(url: str, tables: list[Table], bot_rooms: list[str]) -> int:
    """The acked actions lost in all rooms (each must have finished)."""
    lost = 0
    for table in tables:
        record = await replay_of(url, table.room)
        for player in table.players:
            assert player.seat is not None
            lost += lost_actions(record, player.seat, player.acked)
    for room in bot_rooms:
        await replay_of(url, room)  # the bots' games went on, and ended, by themselves
    return lost


def tracebacks(text: str) -> int:
    return text.count("Traceback (most recent call last)")
