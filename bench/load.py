"""Load test: kartu against a bare WebSocket baseline, over real sockets on loopback.

    python -m bench.load --shape turn|realtime|idle [--rooms R] [--rate A]
                         [--duration S] [--processes 1|2] [--redis] [--think-ms T]
                         [--connections N] [--traders 6|6-9] [--spectators K]
                         [--spread room|conn] [--compression none|deflate]
                         [--slices N | --sequential] [--runs N] [--json out.jsonl]
                         [--quick]

One run starts kartu (``python -m app``, a fresh SQLite file in a temporary
directory) and :mod:`bench.raw_server`, both pinned to core 0 with
``taskset``, and drives them from this process pinned to core 1
(:mod:`bench.loadgen`) at the same connection count and rate, in turns:
each side's window is cut into ``--slices`` slices, measured in the order
kartu, baseline, baseline, kartu, ... (with ``--runs``, every other run the
baseline first; ``--sequential``: kartu's whole run, then the baseline's).
Each figure is printed for kartu, the baseline and their ratio, beside the
project's targets, as a table and (``--json``) as JSON lines.

Shapes: ``turn`` (Basic Rummy, 4 players and ``--spectators`` per room,
paced to ``--rate`` actions/s overall), ``realtime`` (Remmi Demmi,
``--traders`` per room offering at ``--rate`` overall; "not available" when
the server does not list the game), ``idle`` (rooms of 4 players and 2
spectators, started, nobody acting: memory per connection and per room).

``--processes 2`` runs two kartu processes on one Redis (``REDIS_URL``,
default redis://127.0.0.1:6379/0; keys under a fresh prefix, removed
afterwards) on cores 0 and 1, rooms spread over them (``--spread room``: a
room's clients on the process that owns it; ``conn``: clients of a room on
both), and two baseline processes likewise. The generator then shares core
1 with a server. ``--redis`` puts a single process on Redis, the reference
for what the second process adds.

``--against DIR`` puts another checkout of kartu (``DIR``, a ``git
worktree`` of an earlier commit, say) in the baseline's place: the same
load, measured in the same turns, so that two versions of kartu are
compared with the machine's drift cancelled as it is against the baseline.
The ratios are then this checkout's to that one's, and the targets do not
apply.

``--runs N`` repeats the whole run N times (fresh servers each time) and
ends with the figures' medians: the project's targets are set on the
median of 3 runs, each ratio taken to the baseline of the same run.

Everything is bounded: the measured window is ``--duration`` seconds (at
most 300), after a warm-up; set-up, drain and shutdown have their own
limits. ``--quick`` is a smoke run of a few seconds with small counts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

from bench.loadgen import (
    Dialect,
    KartuDialect,
    LoadGenerator,
    RawDialect,
    percentile,
    quiet_collector,
)

ROOT = Path(__file__).resolve().parent.parent
HARD_CAP_S = 300.0  # the longest measured window
SETTLE_S = 1.5  # pause before reading memory
INTERLEAVE_SETTLE_S = 1.0  # load before each slice of an interleaved run, not measured
# Any of the pauses above in a --quick run: a smoke run checks the figures come, not their accuracy.
QUICK_SETTLE_S = 0.3
CLK_TCK = os.sysconf("SC_CLK_TCK")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


# --- server processes ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    kind: str
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def cpu_s(self) -> float:
        """User + system CPU seconds of the process so far (/proc/<pid>/stat)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def waited_s(self) -> float:
        return run_queue_wait_s(self.pid)

    def health(self) -> dict[str, Any] | None:
        """Kartu's counts of its collector's passes and of its loop's late
        probes (``GET /healthz``: ``collector`` and ``loop``), or None from a
        server that keeps none (the baseline, an older kartu)."""
        try:
            # A loaded server may take a while to answer: this is read outside the window.
            health = httpx.get(f"{self.url}/healthz", timeout=10, trust_env=False).json()
        except (httpx.HTTPError, ValueError):
            return None
        if not isinstance(health, dict) or not isinstance(health.get("collector"), dict):
            return None
        return health

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def run_queue_wait_s(pid: int) -> float:
    """Seconds the process's threads were ready to run but waited for a CPU (schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


# A fixed piece of pure Python: how long it takes says how fast the core is.
# The mean of twenty short runs (about half a second): a shared machine's
# speed moves by half from one second to the next, and one run catches a
# moment, not a phase.
_SPEED_PROBE = """
import statistics, time
def once():
    t = time.perf_counter()
    s = 0
    for i in range(500_000):
        s += i
    return time.perf_counter() - t
print(statistics.mean(once() for _ in range(20)))
"""


# Fixed-loop readings further apart than this make a run's ratios suspect.
SPEED_DRIFT = 1.15


def machine_speed_ms(core: int | None) -> float | None:
    """Milliseconds a fixed loop of pure Python takes on ``core`` now (lower
    is faster), or None if it could not be run. A shared machine's speed can
    drift by half from one minute to the next; measured one after the other
    (``--sequential``), kartu's and the baseline's ratio is only as good as
    their two readings are alike."""
    try:
        done = subprocess.run(pinned(core, [sys.executable, "-c", _SPEED_PROBE]),
                              capture_output=True, text=True, timeout=30, check=True)
        return float(done.stdout) * 1000
    except (subprocess.SubprocessError, OSError, ValueError):
        return None


def pinned(core: int | None, argv: list[str]) -> list[str]:
    if core is None or shutil.which("taskset") is None:
        return argv
    return ["taskset", "-c", str(core), *argv]


def start_server(kind: str, tmp: Path, core: int | None, env_extra: dict[str, str],
                 db_dir: Path | None = None, compression: str | None = None,
                 root: Path = ROOT) -> Server:
    """Starts a server of ``kind`` (kartu, raw); kartu from the checkout at ``root``."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": f"sqlite+aiosqlite:///{(db_dir or tmp) / 'kartu.db'}"}
    for key in ("REDIS_URL", "KARTU_REDIS_PREFIX", "KARTU_SCENARIOS"):
        env.pop(key, None)
    # Every simulated client comes from loopback: lift the per-address limits
    # meant for real clients (app/edge.py), or the run measures the refusals.
    env.update({"KARTU_GUESTS_BURST": "0", "KARTU_ROOMS_BURST": "0",
                "KARTU_MAX_OPEN_ROOMS": "0", "KARTU_MAX_WS_PER_ADDRESS": "0"})
    env.update(env_extra)
    if kind == "kartu" and compression is None:
        # As kartu is served (app/__main__.py): 64 KiB cap, no per-message compression.
        argv = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port),
                "--log-level", "warning"]
    elif kind == "kartu":
        # uvicorn's defaults, which accept the permessage-deflate that browsers offer.
        argv = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
                "--port", str(port), "--ws-max-size", "65536", "--log-level", "warning"]
    else:
        argv = [sys.executable, "-m", "bench.raw_server", "--port", str(port),
                "--compression", compression or "none"]
    log = tmp / f"{kind}-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(pinned(core, argv), cwd=root, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
    server = Server(kind, f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{kind} server exited early:\n{log.read_text()[-3000:]}")
        if _ready(kind, server.url, port):
            return server
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"{kind} server did not come up:\n{log.read_text()[-3000:]}")


def _ready(kind: str, url: str, port: int) -> bool:
    if kind == "kartu":
        try:
            return httpx.get(f"{url}/healthz", timeout=1, trust_env=False).status_code == 200
        except httpx.HTTPError:
            return False
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


# --- one side of a run --------------------------------------------------------------------


@dataclass
class Plan:
    """The load, the same for kartu and the baseline."""

    shape: str
    rooms: int
    players: list[int]
    spectators: int
    rate: float
    think_ms: float
    duration: float
    warmup: float
    processes: int
    redis: bool
    redis_url: str
    spread: str
    compression: str | None
    quick: bool
    db_dir: Path | None = None
    profile: Path | None = None
    moves: str = "quick"
    # Slices of the window each side gets, the two measured in turns; 0: one
    # window each, kartu's whole run and then the baseline's.
    slices: int = 0
    # Another checkout of kartu, run in the baseline's place (--against).
    against: Path | None = None

    def speaks_kartu(self, kind: str) -> bool:
        """Whether a side of ``kind`` is kartu (the baseline's is, with --against)."""
        return kind == "kartu" or self.against is not None

    @property
    def connections(self) -> int:
        return sum(self.players[i % len(self.players)] + self.spectators
                   for i in range(self.rooms))

    @property
    def setup_limit_s(self) -> float:
        return 90.0 + 0.05 * self.connections


def cores(processes: int) -> tuple[list[int | None], int | None]:
    """(a core per server process, the generator's core)."""
    if (os.cpu_count() or 1) < 2:
        return [None] * processes, None
    servers: list[int | None] = [0, 1]
    servers = servers[:processes]
    return servers, 1


@dataclass
class Window:
    """What a side's measured time added up to: one window, or the slices of
    an interleaved run."""

    seconds: float = 0.0
    server_cpu_s: float = 0.0
    generator_cpu_s: float = 0.0
    server_wait_s: float = 0.0
    generator_wait_s: float = 0.0
    slices: int = 0
    # The servers' collector passes and pauses in the window (kartu's
    # GET /healthz); None when a server keeps no count.
    collector_passes: list[int] | None = field(default_factory=lambda: [0, 0, 0])  # by generation
    collector_paused_ms: float | None = 0.0
    # The servers' late loop probes in the window, by how late (app.loopwatch),
    # and how late in all; None when a server keeps no count (or an older kartu).
    loop_late: dict[str, int] | None = field(default_factory=dict)
    loop_late_ms: float | None = 0.0

    def add_health(self, before: list[dict[str, Any] | None],
                   after: list[dict[str, Any] | None]) -> None:
        """Adds what each server's collector and loop watch counted between
        two readings (Server.health)."""
        readings = [(b, a) for b, a in zip(before, after, strict=True)
                    if b is not None and a is not None]
        if len(readings) < len(before):  # a server keeps no count: none for the window
            self.collector_passes = self.collector_paused_ms = None
            self.loop_late = self.loop_late_ms = None
            return
        for b, a in readings:
            if self.collector_passes is not None and self.collector_paused_ms is not None:
                collected, collected_before = a["collector"], b["collector"]
                for generation, passes in enumerate(collected["passes"]):
                    self.collector_passes[generation] += \
                        passes - collected_before["passes"][generation]
                self.collector_paused_ms += collected["paused_ms"] - collected_before["paused_ms"]
            if "loop" not in a or "loop" not in b:  # an older kartu
                self.loop_late = self.loop_late_ms = None
            elif self.loop_late is not None and self.loop_late_ms is not None:
                for over, n in a["loop"]["late"].items():
                    self.loop_late[over] = self.loop_late.get(over, 0) + n - \
                        b["loop"]["late"].get(over, 0)
                self.loop_late_ms += a["loop"]["late_ms"] - b["loop"]["late_ms"]


async def health_readings(servers: list[Server]) -> list[dict[str, Any] | None]:
    """Each server's counts (GET /healthz), read off the event loop."""
    return await asyncio.to_thread(lambda: [s.health() for s in servers])


@dataclass
class Side:
    """One kind of server under load: its processes, its generator, what it measured."""

    kind: str
    servers: list[Server]
    gen: LoadGenerator
    figures: dict[str, Any]
    rss: dict[str, list[int]]
    window: Window = field(default_factory=Window)


async def set_up_side(kind: str, plan: Plan, servers: list[Server], pad: int) -> Side:
    """Makes the rooms, connects and joins every client and starts the games; nobody acts yet."""
    dialect: Dialect = (KartuDialect("basic_rummy" if plan.shape != "realtime" else "remmi_demmi",
                                     plan.moves)
                        if plan.speaks_kartu(kind) else RawDialect(pad))

    # The baseline cannot pass messages between its processes: its rooms stay whole.
    spread = plan.spread if plan.speaks_kartu(kind) else "room"

    def generator(rooms: int, seed: int) -> LoadGenerator:
        return LoadGenerator(dialect, plan.shape, [s.url for s in servers], rooms,
                             plan.players, plan.spectators, plan.rate * rooms / plan.rooms,
                             plan.think_ms, plan.compression, spread, seed)

    # One room made and dropped first, so that what the server loads once
    # (code, caches) is not counted as the rooms' memory.
    warm = generator(1, 99)
    async with asyncio.timeout(60):
        await warm.prepare()
        await warm.create()
        await warm.join()
        await warm.start()
        await warm.close()

    gen = generator(plan.rooms, 1)
    side = Side(kind, servers, gen, {"connections": gen.connections, "rooms": plan.rooms,
                                     "processes": len(servers)}, {})

    async def memory(label: str) -> None:
        # Memory per connection and per room is the idle shape's business.
        if plan.shape == "idle":
            await asyncio.sleep(QUICK_SETTLE_S if plan.quick else SETTLE_S)
        side.rss[label] = [s.rss_kb() for s in servers]

    async with asyncio.timeout(plan.setup_limit_s):
        await gen.prepare()
        await memory("before")
        await gen.create()
        await memory("rooms")
        await gen.join()
        await memory("joined")
        await gen.start()
        await memory("started")
    return side


async def measure_slice(side: Side, seconds: float) -> None:
    """Records ``seconds`` of the side's load (it is acting) into its window."""
    servers, gen, window = side.servers, side.gen, side.window
    # Read before the CPU and after it: the requests are not the window's work.
    health0 = await health_readings(servers)
    cpu0 = sum(s.cpu_s() for s in servers)
    wait0 = [s.waited_s() for s in servers]
    own_wait0 = run_queue_wait_s(os.getpid())
    own0, t0 = time.process_time(), time.perf_counter()
    gen.begin_window(fresh=window.slices == 0)
    await asyncio.sleep(seconds)
    gen.end_window()
    window.seconds += time.perf_counter() - t0
    window.server_cpu_s += sum(s.cpu_s() for s in servers) - cpu0
    window.generator_cpu_s += time.process_time() - own0
    window.server_wait_s += max(s.waited_s() - w for s, w in zip(servers, wait0, strict=True))
    window.generator_wait_s += run_queue_wait_s(os.getpid()) - own_wait0
    window.slices += 1
    window.add_health(health0, await health_readings(servers))


async def run_side(kind: str, plan: Plan, servers: list[Server], pad: int) -> dict[str, Any]:
    """One side on its own: set up, warm up, one measured window, shut down."""
    side = await set_up_side(kind, plan, servers, pad)
    # The machine's speed, read now and again after the window on the
    # generator's core, which is idle then (this process only waits): a
    # server may still be busy with its own work on its core, and would be
    # read as a slow machine.
    _, speed_core = cores(plan.processes)
    speed = [await asyncio.to_thread(machine_speed_ms, speed_core)]
    # The generator's collector runs now, before any load, and not at the
    # window's start, where it stalled the generator while actions were in
    # flight (LoadGenerator.begin_window).
    quiet_collector()
    side.gen.activate()
    await asyncio.sleep(plan.warmup)
    spy = start_profiler(plan, servers[0]) if kind == "kartu" else None
    await measure_slice(side, plan.duration)
    side.rss["end"] = [s.rss_kb() for s in servers]
    await side.gen.stop()
    await asyncio.sleep(QUICK_SETTLE_S if plan.quick else 1)  # the server's queue drains
    speed.append(await asyncio.to_thread(machine_speed_ms, speed_core))
    await side.gen.close(30 + side.gen.connections / 200)
    if spy is not None:
        try:
            await asyncio.to_thread(spy.wait, 30)
        except subprocess.TimeoutExpired:
            spy.kill()
            spy.wait(5)
    return side_figures(side, plan, speed)


def kartu_pad(mean_state_bytes: float | None) -> int:
    """The baseline's padding: what makes its views as large as kartu's on average
    (its own view without padding is about 90 bytes)."""
    return max(0, int(mean_state_bytes or 2000) - 90)


def mean_state_bytes(gen: LoadGenerator) -> float | None:
    """The mean size of the state frames ``gen`` has recorded, if any."""
    stats = gen.stats
    return stats.state_bytes / stats.views if stats.views else None


async def run_interleaved(plan: Plan, kartu_servers: list[Server], raw_servers: list[Server],
                          pad: int | None, first: str = "kartu", pad_hint: int = 0
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both sides set up at once and measured in turns, ``plan.slices`` slices
    each, in the order first, second, second, first, first, ... (a drift of
    the machine's speed during the run weighs on both alike). ``first``
    (kartu or raw) is also the side set up and warmed up first: that side
    pays about 2-3 % more CPU an action in its slices (kartu against
    itself, ``--against``), so runs alternate it (:func:`main`).

    While one side acts, the other's clients stay connected and idle. Each
    slice starts after a second of load that is not measured, and the
    baseline's padding follows kartu's mean view size as measured so far
    (``pad_hint`` until kartu has been measured, when the baseline is first).
    """
    _, speed_core = cores(plan.processes)

    async def set_up_kartu() -> Side:
        side = await set_up_side("kartu", plan, kartu_servers, 0)
        # Kartu's warm-up is recorded, for the size of its views: the baseline's padding.
        side.gen.activate()
        side.gen.begin_window()
        await asyncio.sleep(plan.warmup)
        side.gen.end_window()
        await side.gen.stop()
        return side

    async def set_up_raw(padding: int) -> Side:
        side = await set_up_side("raw", plan, raw_servers, padding)
        side.gen.activate()
        await asyncio.sleep(plan.warmup)
        await side.gen.stop()
        return side

    if first == "kartu":
        kartu = await set_up_kartu()
        padding = pad if pad is not None else kartu_pad(mean_state_bytes(kartu.gen))
        raw = await set_up_raw(padding)
    else:
        padding = pad if pad is not None else pad_hint
        raw = await set_up_raw(padding)
        kartu = await set_up_kartu()
    speed = [await asyncio.to_thread(machine_speed_ms, speed_core)]
    slice_s = plan.duration / plan.slices
    order = (kartu, raw) if first == "kartu" else (raw, kartu)
    for turn in range(plan.slices):
        for side in (order if turn % 2 == 0 else order[::-1]):
            if side is raw and pad is None and plan.against is None and kartu.gen.stats.views:
                wanted = kartu_pad(mean_state_bytes(kartu.gen))
                if abs(wanted - padding) > 0.02 * padding:
                    padding = wanted
                    assert isinstance(raw.gen.dialect, RawDialect)
                    await raw.gen.dialect.repad(raw.gen, padding)
            # The generator's collector runs now, while nothing is in flight,
            # and not during the slice (LoadGenerator.begin_window).
            quiet_collector()
            side.gen.activate()
            await asyncio.sleep(QUICK_SETTLE_S if plan.quick else INTERLEAVE_SETTLE_S)
            await measure_slice(side, slice_s)
            await side.gen.stop()
    for side in (kartu, raw):
        side.rss["end"] = [s.rss_kb() for s in side.servers]
    await asyncio.sleep(QUICK_SETTLE_S if plan.quick else 1)  # the servers' queues drain
    speed.append(await asyncio.to_thread(machine_speed_ms, speed_core))
    for side in (kartu, raw):
        await side.gen.close(30 + side.gen.connections / 200)
    raw.figures["padding"] = padding
    return side_figures(kartu, plan, speed), side_figures(raw, plan, speed)


def side_figures(side: Side, plan: Plan, speed: list[float | None]) -> dict[str, Any]:
    """The side's figures from its window(s), its memory readings and the speed probes."""
    st, window, rss = side.gen.stats, side.window, side.rss
    elapsed, cpu = window.seconds, window.server_cpu_s
    figures = side.figures
    conns, rooms = side.gen.connections, plan.rooms
    probes = [reading for reading in speed if reading is not None]
    figures.update({
        "offered_rate": plan.rate if plan.shape != "idle" else 0,
        "actions_per_s": st.actions / elapsed,
        "views_per_s": st.views / elapsed,
        "frames_per_s": st.frames / elapsed,
        "mean_state_bytes": mean_state_bytes(side.gen),
        "own_p50_ms": percentile(st.own_ms, 0.5),
        "own_p99_ms": percentile(st.own_ms, 0.99),
        "own_p999_ms": percentile(st.own_ms, 0.999),
        "others_p50_ms": percentile(st.others_ms, 0.5),
        "others_p99_ms": percentile(st.others_ms, 0.99),
        "others_p999_ms": percentile(st.others_ms, 0.999),
        "ack_p50_ms": percentile(st.ack_ms, 0.5),
        "ack_p99_ms": percentile(st.ack_ms, 0.99),
        "samples_own": len(st.own_ms),
        "samples_others": len(st.others_ms),
        "cpu_us_per_action": cpu / st.actions * 1e6 if st.actions else None,
        # What one core would handle if CPU were the only limit: robust on a busy machine.
        "actions_per_core_s": st.actions / cpu if st.actions and cpu > 0 else None,
        "server_cpu_pct": 100 * cpu / elapsed / len(side.servers),
        "generator_cpu_pct": 100 * window.generator_cpu_s / elapsed,
        # Ready to run but another process had the core: how shared the machine was.
        "server_wait_pct": 100 * window.server_wait_s / elapsed,
        "generator_wait_pct": 100 * window.generator_wait_s / elapsed,
        "server_rss_mb": max(rss["end"]) / 1024,
        "collector_passes": (None if window.collector_passes is None
                             else sum(window.collector_passes)),
        "collector_passes_by_generation": window.collector_passes,
        "collector_paused_ms": window.collector_paused_ms,
        # Loop probes later than 10 and 50 ms (app.loopwatch), and by every bound.
        "loop_late_10ms": None if window.loop_late is None
        else window.loop_late.get("over_10_ms", 0),
        "loop_late_50ms": None if window.loop_late is None
        else window.loop_late.get("over_50_ms", 0),
        "loop_late": window.loop_late,
        "loop_late_ms": window.loop_late_ms,
        "sent": st.sent,
        "refused": st.refused,
        "skipped_beats": st.skipped,
        "rooms_finished": st.rooms_finished,
        "errors": sum(st.errors.values()),
        "error_codes": dict(st.errors),
        "server_disconnects": sum(st.server_closes.values()),
        "close_codes": dict(st.server_closes),
        "window_s": elapsed,
        "slices": window.slices,
        "speed_probe_ms": statistics.mean(probes) if len(probes) == len(speed) else None,
        "speed_probes_ms": speed,  # before the warm-up, after the window
    })
    if plan.shape == "idle":
        total = {k: sum(v) for k, v in rss.items()}
        figures["rss_kb_per_conn"] = (total["joined"] - total["rooms"]) / conns
        if plan.speaks_kartu(side.kind):
            room_kb = (total["rooms"] - total["before"]) + (total["started"] - total["joined"])
            figures["rss_kb_per_room"] = room_kb / rooms
        else:
            figures["rss_kb_per_room"] = None  # the baseline's rooms are a dict entry
        figures["rss_mb_per_process"] = max(rss["end"]) / 1024
        figures["rss_mb_empty"] = max(rss["before"]) / 1024  # before any room
    return figures


def start_profiler(plan: Plan, server: Server) -> subprocess.Popen[bytes] | None:
    """py-spy on the (first) kartu process for the measured window, if asked for."""
    if plan.profile is None:
        return None
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("warning: --profile needs py-spy (pip install py-spy)", file=sys.stderr)
        return None
    # Not --nonblocking: read without pausing the process, the stacks of a
    # Python 3.11 running uvloop's callbacks come out torn. Measured here, it
    # lost more than half the samples and left the loop's own frame alone in
    # most of the rest. Pausing it 100 times a second costs it about 1 %.
    argv = [spy, "record", "--pid", str(server.pid), "--duration",
            str(max(1, math.ceil(plan.duration))), "--rate", "100",
            "--format", "raw", "--output", str(plan.profile)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# Frames every sample of the server passes through: left out of the summary.
_SPY_OUTER = ("runpy", "click/", "uvicorn/main.py", "uvicorn/server.py", "uvicorn/_compat.py",
              "asyncio/runners.py", "uvicorn/__main__.py", "app/__main__.py")


# Leaves that are a thread waiting for work (py-spy cannot always tell): the
# database's and the default executor's threads.
_WAITING = ("_connection_worker_thread (aiosqlite/", "Condition.wait (threading.py",
            "_worker (concurrent/futures/thread.py")
# Where a sample's time goes: the first rule matching a frame, from the leaf up.
_AREAS = (
    ("persistence (snapshot + log to the database)",
     ("aiosqlite", "sqlalchemy", "json/encoder", "to_snapshot", ".snapshot", "snapshots.py",
      "store.py", "sqlite3", "asyncpg", "redis/")),
    ("permessage-deflate", ("permessage_deflate",)),
    ("WebSocket I/O (uvicorn, websockets, starlette)",
     ("websockets/", "uvicorn/protocols", "starlette/", "_write_forever", "wsprotocol.py")),
    ("rules, views, bots (engine)", ("engine/games", "engine/bots", "view_for", "engine/melds",
                                     "engine/cards")),
    ("frames and fan-out (app.frames, feeds, broker)", ("frames.py", "feeds.py", "broker.py")),
    ("gateway (parse, validate, route)", ("gateway.py", "pydantic", "messages.py")),
    ("room actor and registry", ("engine/room.py", "app/rooms.py", "cluster.py")),
)


def _area(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, marks in _AREAS:
            if any(mark in frame for mark in marks):
                return name
    return "event loop and other"


def profile_summary(path: Path, top: int = 15) -> list[str]:
    """The top functions of a py-spy raw (collapsed) profile, by own and by total samples."""
    own: dict[str, int] = {}
    total: dict[str, int] = {}
    areas: dict[str, int] = {}
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        # "function (file:line)" -> "function (file)": one entry per function.
        frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
        if frames[-1].startswith(_WAITING):
            continue
        samples += count
        own[frames[-1]] = own.get(frames[-1], 0) + count
        area = _area(frames)
        areas[area] = areas.get(area, 0) + count
        for frame in set(frames):
            if not any(outer in frame for outer in _SPY_OUTER):
                total[frame] = total.get(frame, 0) + count
    if not samples:
        return []
    out = [f"profile of the kartu process: {samples} samples ({path})", "  by area:"]
    out += [f"    {100 * n / samples:5.1f}%  {a}"
            for a, n in sorted(areas.items(), key=lambda i: -i[1])]
    out.append("  own time:")
    out += [f"    {100 * n / samples:5.1f}%  {f}"
            for f, n in sorted(own.items(), key=lambda i: -i[1])[:top]]
    out.append("  total time (with callees):")
    out += [f"    {100 * n / samples:5.1f}%  {f}"
            for f, n in sorted(total.items(), key=lambda i: -i[1])[:top]]
    return out


async def games_listed(url: str) -> list[str]:
    async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
        response = await http.get(f"{url}/api/games")
        return [g["game"] for g in response.json()]


def _event_loop_run(work: Callable[[], Any]) -> Any:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(work())
    return uvloop.run(work())


def start_servers(kind: str, plan: Plan, tmp: Path, stack: contextlib.ExitStack
                  ) -> list[Server]:
    """Starts the servers of one kind; ``stack`` stops them and cleans up after them."""
    server_cores, _ = cores(plan.processes)
    prefix = f"kartu-bench-{secrets.token_hex(4)}"
    env: dict[str, str] = {}
    root, label = ROOT, kind
    if kind == "raw" and plan.against is not None:
        kind, root, label = "kartu", plan.against, "against"
    if kind == "kartu" and (plan.processes > 1 or plan.redis):
        env = {"REDIS_URL": plan.redis_url, "KARTU_REDIS_PREFIX": prefix}
        stack.callback(_drop_redis_keys, plan.redis_url, prefix)
    side = tmp / label
    side.mkdir()
    db_dir = None
    if plan.db_dir is not None:
        db_dir = Path(tempfile.mkdtemp(prefix="kartu-load-db-", dir=plan.db_dir))
        stack.callback(shutil.rmtree, db_dir, ignore_errors=True)
    servers: list[Server] = []
    for core in server_cores:
        server = start_server(kind, side, core, env, db_dir, plan.compression, root)
        stack.callback(server.stop)
        servers.append(server)
    return servers


def unavailable(kind: str, plan: Plan, servers: list[Server]) -> str | None:
    if kind == "kartu" and plan.shape == "realtime":
        games = _event_loop_run(lambda: games_listed(servers[0].url))
        if "remmi_demmi" not in games:
            return "not available: the server does not list remmi_demmi in /api/games"
    return None


def count_exits(figures: dict[str, Any], servers: list[Server]) -> dict[str, Any]:
    """A server that died during the run counts as an error."""
    for server in servers:
        if server.process.poll() is not None:
            figures["errors"] += 1
            figures["error_codes"]["server_exited"] = 1
    return figures


def measure(kind: str, plan: Plan, tmp: Path, pad: int) -> dict[str, Any] | str:
    """Starts the servers of one kind, runs the load, stops them. A string: not available."""
    with contextlib.ExitStack() as stack:
        servers = start_servers(kind, plan, tmp, stack)
        reason = unavailable(kind, plan, servers)
        if reason is not None:
            return reason

        async def work() -> dict[str, Any]:
            return await run_side(kind, plan, servers, pad)

        return count_exits(_event_loop_run(work), servers)


def measure_interleaved(plan: Plan, tmp: Path, pad: int | None, first: str = "kartu",
                        pad_hint: int = 0) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """Starts both kinds of servers, runs the load on them in turns (:func:`run_interleaved`)."""
    with contextlib.ExitStack() as stack:
        kartu = start_servers("kartu", plan, tmp, stack)
        reason = unavailable("kartu", plan, kartu)
        if reason is not None:
            return reason
        raw = start_servers("raw", plan, tmp, stack)

        async def work() -> tuple[dict[str, Any], dict[str, Any]]:
            return await run_interleaved(plan, kartu, raw, pad, first, pad_hint)

        kartu_figures, raw_figures = _event_loop_run(work)
        return count_exits(kartu_figures, kartu), count_exits(raw_figures, raw)


def _drop_redis_keys(url: str, prefix: str) -> None:
    with contextlib.suppress(Exception):
        import redis

        client = redis.Redis.from_url(url, socket_timeout=5)
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))[:200_000]
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start:start + 1000])
        client.close()


# --- figures and targets ------------------------------------------------------------------

# (key, label, unit, decimals); shown when either side has a value.
LOAD_FIGURES = [
    ("connections", "connections", "", 0),
    ("actions_per_s", "actions/s handled", "/s", 0),
    ("views_per_s", "views delivered/s", "/s", 0),
    ("own_p50_ms", "action->own view p50", "ms", 2),
    ("own_p99_ms", "action->own view p99", "ms", 2),
    ("own_p999_ms", "action->own view p99.9", "ms", 2),
    ("others_p50_ms", "action->others' view p50", "ms", 2),
    ("others_p99_ms", "action->others' view p99", "ms", 2),
    ("others_p999_ms", "action->others' view p99.9", "ms", 2),
    ("ack_p50_ms", "action->ack p50", "ms", 2),
    ("cpu_us_per_action", "server CPU per action", "us", 0),
    ("actions_per_core_s", "actions/s per core (1 / CPU per action)", "/s", 0),
    ("server_cpu_pct", "server CPU (per process)", "%", 0),
    ("generator_cpu_pct", "generator CPU", "%", 0),
    ("server_wait_pct", "server waiting for its core", "%", 0),
    ("generator_wait_pct", "generator waiting for its core", "%", 0),
    ("speed_probe_ms", "a fixed Python loop, between windows", "ms", 0),
    ("mean_state_bytes", "state frame size", "B", 0),
    ("server_rss_mb", "server RSS (largest process)", "MB", 1),
    ("collector_passes", "server's collector passes in the window", "", 0),
    ("collector_paused_ms", "server paused by its collector, in all", "ms", 1),
    ("loop_late_10ms", "server's loop probes late > 10 ms", "", 0),
    ("loop_late_50ms", "server's loop probes late > 50 ms", "", 0),
    ("loop_late_ms", "server's loop late probes, late in all", "ms", 0),
    ("skipped_beats", "trader beats skipped", "", 0),
    ("rooms_finished", "rooms whose match ended", "", 0),
    ("errors", "errors", "", 0),
    ("server_disconnects", "server-initiated disconnects", "", 0),
]
IDLE_FIGURES = [
    ("connections", "connections", "", 0),
    ("rss_kb_per_conn", "RSS per idle connection", "KB", 1),
    ("rss_kb_per_room", "RSS per room", "KB", 1),
    ("rss_mb_per_process", "RSS per process", "MB", 1),
    ("rss_mb_empty", "RSS per process before rooms", "MB", 1),
    ("server_cpu_pct", "server CPU while idle", "%", 1),
    ("errors", "errors", "", 0),
    ("server_disconnects", "server-initiated disconnects", "", 0),
]


def ratio(kartu: Any, baseline: Any) -> float | None:
    if not isinstance(kartu, int | float) or not isinstance(baseline, int | float):
        return None
    if baseline == 0:
        return None
    return kartu / baseline


@dataclass
class Target:
    name: str
    value: str
    passed: bool | None  # None: nothing to judge
    at_load: bool  # the run was at (or above) the load the target is set for


def targets(plan: Plan, k: dict[str, Any], b: dict[str, Any] | None) -> list[Target]:
    out: list[Target] = []
    base = b or {}

    def num(x: Any) -> float | None:
        return float(x) if isinstance(x, int | float) else None

    rate = num(k.get("actions_per_s")) or 0.0
    # The load a run puts on: what it offered (unpaced: whatever was reached).
    offered = plan.rate if plan.rate > 0 else math.inf

    def reached(target: float) -> bool:
        # Within 1%: actions in flight at the window's edges leave the count a
        # hair under the offered rate even when nothing lags.
        return rate >= 0.99 * target
    if plan.shape in ("turn", "realtime"):
        at_2400 = k["connections"] >= 1200 and offered >= 2400
        for side in ("own", "others"):
            p50, p99 = num(k.get(f"{side}_p50_ms")), num(k.get(f"{side}_p99_ms"))
            r50 = ratio(p50, base.get(f"{side}_p50_ms"))
            r99 = ratio(p99, base.get(f"{side}_p99_ms"))
            out.append(Target(f"{side} p50 <= 2x baseline (1200 conns, 2400/s)",
                              "-" if r50 is None else f"{r50:.2f}x",
                              None if r50 is None else r50 <= 2.0, at_2400))
            out.append(Target(f"{side} p99 <= 2.5x baseline and <= 10 ms",
                              "-" if r99 is None or p99 is None else f"{r99:.2f}x, {p99:.1f} ms",
                              None if r99 is None or p99 is None else r99 <= 2.5 and p99 <= 10,
                              at_2400))
        rc = ratio(k.get("cpu_us_per_action"), base.get("cpu_us_per_action"))
        out.append(Target("CPU per action <= 1.8x baseline", "-" if rc is None else f"{rc:.2f}x",
                          None if rc is None else rc <= 1.8, at_2400))
        worst = max((v for v in (num(k.get("own_p99_ms")), num(k.get("others_p99_ms")))
                     if v is not None), default=None)
        if plan.processes == 1:
            out.append(Target("1 process: p99 <= 10 ms at >= 3000 actions/s",
                              f"{rate:.0f}/s, p99 {worst if worst is None else round(worst, 1)} ms",
                              None if worst is None else reached(3000) and worst <= 10,
                              offered >= 3000))
        else:
            out.append(Target("2 processes on one Redis: >= 5000 actions/s", f"{rate:.0f}/s",
                              reached(5000), offered >= 5000))
    else:
        conn, room = num(k.get("rss_kb_per_conn")), num(k.get("rss_kb_per_room"))
        out.append(Target("<= 40 KB per idle connection",
                          "-" if conn is None else f"{conn:.1f} KB",
                          None if conn is None else conn <= 40, True))
        out.append(Target("<= 50 KB per room", "-" if room is None else f"{room:.1f} KB",
                          None if room is None else room <= 50, True))
        per_process = k["connections"] / k["processes"]
        mb = num(k.get("rss_mb_per_process")) or 0.0
        if per_process >= 10_000:
            out.append(Target("10,000 idle connections < 400 MB per process",
                              f"{mb:.0f} MB at {per_process:.0f} conns/process", mb < 400, True))
        else:
            # Extrapolated: the empty process plus 10,000 times what each connection
            # and its share of a room added in this run.
            share = (conn or 0.0) + (room or 0.0) * k["rooms"] / k["connections"]
            guess = (num(k.get("rss_mb_empty")) or 0.0) + 10_000 * share / 1024
            out.append(Target("10,000 idle connections < 400 MB per process",
                              f"~{guess:.0f} MB (extrapolated from {per_process:.0f})",
                              guess < 400, False))
    out.append(Target("zero errors, zero server-initiated disconnects",
                      f"{k['errors']} errors, {k['server_disconnects']} disconnects",
                      k["errors"] == 0 and k["server_disconnects"] == 0, True))
    return out


def _fmt(value: Any, decimals: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{decimals}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def print_table(table: Sequence[tuple[str, ...]], left: tuple[int, ...]) -> None:
    """Rows of cells in aligned columns, the first row a header ruled off
    beneath; the columns in ``left`` aligned left, the rest (figures) right."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for i, row in enumerate(table):
        print("  ".join(cell.ljust(w) if j in left else cell.rjust(w)
                        for j, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))


def report(plan: Plan, k: dict[str, Any], b: dict[str, Any] | None, notes: list[str],
           json_out: Path | None) -> None:
    rows = IDLE_FIGURES if plan.shape == "idle" else LOAD_FIGURES
    base = b or {}
    lines: list[dict[str, Any]] = []
    table = [("figure", "unit", "kartu", "baseline", "ratio")]
    for key, label, unit, decimals in rows:
        kv, bv = k.get(key), base.get(key)
        if kv is None and bv is None:
            continue
        r = ratio(kv, bv)
        table.append((label, unit, _fmt(kv, decimals), _fmt(bv, decimals),
                      "-" if r is None else f"{r:.2f}x"))
        lines.append({"kind": "figure", "shape": plan.shape, "figure": key, "label": label,
                      "unit": unit, "kartu": kv, "baseline": bv, "ratio": r})
    print()
    print_table(table, left=(0, 1))
    print()
    checks = targets(plan, k, b)
    name_w = max(len(t.name) for t in checks)
    value_w = max(len(t.value) for t in checks)
    print("targets".ljust(name_w), "measured".ljust(value_w), "verdict")
    for t in checks:
        verdict = "-" if t.passed is None else ("pass" if t.passed else "FAIL")
        if t.passed is not None and not t.at_load:
            verdict += " (below the target's load)"
        print(t.name.ljust(name_w), t.value.ljust(value_w), verdict)
        lines.append({"kind": "target", "shape": plan.shape, "target": t.name,
                      "measured": t.value, "pass": t.passed, "at_target_load": t.at_load})
    for note in notes:
        print(f"note: {note}")
    lines.append({"kind": "summary", "shape": plan.shape, "kartu": k, "baseline": b,
                  "notes": notes})
    if json_out is not None:
        with json_out.open("a") as out:
            for line in lines:
                out.write(json.dumps(line) + "\n")


def _median(values: list[Any]) -> float | None:
    numbers = [v for v in values if isinstance(v, int | float)]
    return statistics.median(numbers) if numbers else None


def medians(plan: Plan, results: Sequence[tuple[dict[str, Any], dict[str, Any] | None]]
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The figures' medians over several runs, and how each target fared in them.

    A ratio's median is the median of the runs' own ratios (each to the
    baseline of the same run), as the targets are set; a target counts as
    met when it is met in more than half the runs judged (for ratios and an
    odd number of runs: when the median run meets it).
    """
    rows = IDLE_FIGURES if plan.shape == "idle" else LOAD_FIGURES
    figures: list[dict[str, Any]] = []
    for key, label, unit, decimals in rows:
        kartu = [k.get(key) for k, _ in results]
        baseline = [(b or {}).get(key) for _, b in results]
        if all(v is None for v in kartu + baseline):
            continue
        ratios = [r for r in map(ratio, kartu, baseline) if r is not None]
        figures.append({"figure": key, "label": label, "unit": unit, "decimals": decimals,
                        "kartu": _median(kartu), "baseline": _median(baseline),
                        "ratio": _median(ratios), "ratios": ratios})
    per_run = [targets(plan, k, b) for k, b in results]
    verdicts: list[dict[str, Any]] = []
    for i, first in enumerate(per_run[0]):
        runs = [checks[i] for checks in per_run]
        judged = [t for t in runs if t.passed is not None]
        passed = sum(1 for t in judged if t.passed)
        verdicts.append({"target": first.name, "measured": [t.value for t in runs],
                         "passed_runs": passed, "judged_runs": len(judged),
                         "pass": None if not judged else passed * 2 > len(judged),
                         "at_target_load": all(t.at_load for t in runs)})
    return figures, verdicts


def report_medians(plan: Plan, results: list[tuple[dict[str, Any], dict[str, Any] | None]],
                   json_out: Path | None) -> None:
    figures, verdicts = medians(plan, results)
    print(f"\n=== medians of {len(results)} runs")
    table = [("figure", "unit", "kartu", "baseline", "ratio", "runs' ratios")]
    for f in figures:
        table.append((f["label"], f["unit"], _fmt(f["kartu"], f["decimals"]),
                      _fmt(f["baseline"], f["decimals"]),
                      "-" if f["ratio"] is None else f"{f['ratio']:.2f}x",
                      ", ".join(f"{r:.2f}" for r in f["ratios"]) or "-"))
    print_table(table, left=(0, 1, 5))
    print()
    name_w = max(len(v["target"]) for v in verdicts)
    for v in verdicts:
        verdict = ("-" if v["pass"] is None else "met" if v["pass"] else "not met")
        if v["pass"] is not None and not v["at_target_load"]:
            verdict += " (below the target's load)"
        print(v["target"].ljust(name_w), f"{verdict}, in {v['passed_runs']} of "
              f"{v['judged_runs']} runs:", "; ".join(v["measured"]))
    if json_out is not None:
        with json_out.open("a") as out:
            out.write(json.dumps({"kind": "medians", "shape": plan.shape, "runs": len(results),
                                  "figures": figures, "targets": verdicts}) + "\n")


# --- command line -------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shape", choices=("turn", "realtime", "idle"), default="turn")
    parser.add_argument("--rooms", type=int, help="rooms (default 200; --quick: a few)")
    parser.add_argument("--connections", type=int,
                        help="idle: connections wanted (sets --rooms, rooms of 6)")
    parser.add_argument("--rate", type=float, help="actions/s over all rooms (default 2400)")
    parser.add_argument("--duration", type=float, default=20.0,
                        help=f"measured seconds (at most {HARD_CAP_S:.0f})")
    parser.add_argument("--warmup", type=float, help="seconds of load before measuring")
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1)
    parser.add_argument("--redis", action="store_true", help="one process, on Redis")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL",
                                                              "redis://127.0.0.1:6379/0"))
    parser.add_argument("--spread", choices=("room", "conn"), default="room")
    parser.add_argument("--think-ms", type=float, default=0.0)
    parser.add_argument("--moves", choices=("quick", "bot"), default="quick",
                        help="turn: how players choose a move: quick (draw from the stock, "
                             "discard; next to no generator CPU) or bot (the Basic Rummy bot, "
                             "melds and lay-offs, ~100 us of generator CPU a move)")
    parser.add_argument("--traders", default="6", help="realtime: traders per room, 6..9 or 6-9")
    parser.add_argument("--spectators", type=int,
                        help="per room (default: 2 turn/idle, 0 realtime)")
    parser.add_argument("--compression", choices=("none", "deflate"), default="none",
                        help="none: kartu as `python -m app` serves it (default); deflate: "
                             "uvicorn's default, permessage-deflate as browsers offer it")
    parser.add_argument("--pad", type=int,
                        help="baseline: bytes of padding per view (default: kartu's mean)")
    parser.add_argument("--db-dir", type=Path,
                        help="directory for kartu's SQLite file (default: a temporary one; "
                             "/dev/shm takes the disk's fsync out)")
    parser.add_argument("--profile", type=Path,
                        help="record kartu with py-spy during the window (collapsed stacks)")
    parser.add_argument("--no-baseline", action="store_true", help="kartu only")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="in the baseline's place, kartu from this other checkout")
    parser.add_argument("--slices", type=int, default=4,
                        help="both servers up at once, measured in turns: the window split "
                             "into this many slices each (default 4; --quick: 2)")
    parser.add_argument("--sequential", action="store_true",
                        help="kartu's whole run, then the baseline's (implied by --profile, "
                             "--no-baseline and the idle shape)")
    parser.add_argument("--runs", type=int, default=1,
                        help="repeat the run this many times and end with the medians "
                             "(the targets are set on the median of 3)")
    parser.add_argument("--json", type=Path, help="append JSON lines to this file")
    parser.add_argument("--quick", action="store_true", help="a smoke run: seconds, few rooms")
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    shape = args.shape
    if shape == "realtime":
        low, _, high = args.traders.partition("-")
        lo, hi = int(low), int(high or low)
        if not 6 <= lo <= hi <= 9:
            raise SystemExit("--traders must be within 6..9")
        players = list(range(lo, hi + 1))
    else:
        players = [4]
    spectators = args.spectators if args.spectators is not None else (
        0 if shape == "realtime" else 2)
    rooms = args.rooms or (4 if args.quick else 200)
    if shape == "idle" and args.connections:
        rooms = math.ceil(args.connections / (4 + spectators))
    rate = args.rate if args.rate is not None else (40.0 if args.quick else 2400.0)
    if shape == "realtime" and rate <= 0:
        raise SystemExit("--rate must be above 0 for the realtime shape (traders offer on a beat)")
    duration = min(args.duration if not args.quick else min(args.duration, 3.0), HARD_CAP_S)
    if shape == "idle" and args.quick:
        duration = min(duration, 1.0)
    warmup = args.warmup if args.warmup is not None else (
        1.0 if args.quick else min(5.0, max(2.0, duration * 0.15)))
    host = urlparse(args.redis_url).hostname or ""
    if (args.processes > 1 or args.redis) and host not in LOOPBACK:
        raise SystemExit(f"--redis-url must be on loopback, not {host!r}")
    return Plan(shape=shape, rooms=rooms, players=players, spectators=spectators, rate=rate,
                think_ms=args.think_ms, duration=duration, warmup=min(warmup, 30.0),
                processes=args.processes, redis=args.redis, redis_url=args.redis_url,
                spread=args.spread, compression=None if args.compression == "none" else "deflate",
                quick=args.quick, db_dir=args.db_dir, profile=args.profile, moves=args.moves,
                against=args.against.resolve() if args.against is not None else None,
                slices=0 if (args.sequential or args.no_baseline or args.profile is not None
                             or shape == "idle") else max(1, 2 if args.quick else args.slices))


def redis_reachable(url: str) -> bool:
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        ok = bool(client.ping())
        client.close()
        return ok
    except Exception:
        return False


def raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, needed)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < needed:
        print(f"warning: open-file limit {want} is below the {needed} sockets wanted",
              file=sys.stderr)


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # so that the servers are stopped on the way out


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _interrupted)
    args = parse_args(argv)
    if args.runs < 1:
        print("--runs: at least 1", file=sys.stderr)
        return 2
    if args.against is not None and not (args.against / "app" / "__main__.py").is_file():
        print(f"--against: {args.against} is not a checkout of kartu", file=sys.stderr)
        return 2
    plan = make_plan(args)
    # Servers' sockets and ours: both ends of every connection on this machine.
    raise_fd_limit(plan.connections + 1000)
    server_cores, own_core = cores(plan.processes)
    if own_core is not None:
        os.sched_setaffinity(0, {own_core})
    notes: list[str] = []
    if own_core is None:
        notes.append("fewer than 2 cores: nothing pinned; server and generator share the CPU")
    elif plan.processes == 2:
        notes.append("2 processes: servers on cores 0 and 1; the generator shares core 1")
    else:
        notes.append("server pinned to core 0, generator to core 1")
    if plan.processes > 1 and plan.spread == "conn":
        notes.append("spread conn: kartu rooms' clients on both processes; the baseline keeps "
                     "each room on one process (it cannot pass messages between them)")
    if (plan.processes > 1 or plan.redis) and not redis_reachable(plan.redis_url):
        print(f"Redis at {plan.redis_url} is unreachable: nothing run", file=sys.stderr)
        return 2
    if plan.shape != "idle" and plan.rate > 0:
        per_conn = plan.rate / sum(plan.players[i % len(plan.players)]
                                   for i in range(plan.rooms))
        if per_conn > 15:
            notes.append(f"{per_conn:.0f} actions/s per player: near kartu's flood limit "
                         "(20 messages/s per connection); expect rate_limited")
    results: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    for run in range(1, args.runs + 1):
        if args.runs > 1:
            print(f"\n=== run {run} of {args.runs}", flush=True)
        # Every other run sets up and measures the baseline first: the side
        # set up first pays a little more (run_interleaved), and medians over
        # runs should not hold that against one side only.
        first = "kartu" if run % 2 == 1 else "raw"
        last = results[-1][1] if results else None
        pad_hint = int(last.get("padding") or 0) if last else 0
        result = run_once(plan, args, server_cores, own_core, list(notes), first, pad_hint)
        if result is None:
            return 0
        results.append(result)
    if len(results) > 1:
        report_medians(plan, results, args.json)
    return 0


def run_once(plan: Plan, args: argparse.Namespace, server_cores: list[int | None],
             own_core: int | None, notes: list[str], first: str = "kartu", pad_hint: int = 0
             ) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
    """One whole run (set-up, warm-up, window, both sides), reported; its
    figures, or None if the shape was not available."""
    header = {"kind": "run", "shape": plan.shape, "rooms": plan.rooms,
              "connections": plan.connections, "rate": plan.rate, "duration_s": plan.duration,
              "warmup_s": plan.warmup, "processes": plan.processes,
              "broker": "redis" if plan.processes > 1 or plan.redis else "memory",
              "spread": plan.spread, "think_ms": plan.think_ms,
              "compression": plan.compression or "none", "quick": plan.quick,
              "db_dir": str(plan.db_dir) if plan.db_dir else None,
              "cores": {"servers": server_cores, "generator": own_core},
              "first": first if plan.slices else "kartu",
              "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    print(f"bench.load: {plan.shape}, {plan.rooms} rooms, {plan.connections} connections, "
          + (f"{plan.rate:g} actions/s offered, " if plan.shape != "idle" else "")
          + f"{plan.duration:g} s measured after {plan.warmup:g} s warm-up, "
          f"{plan.processes} process(es), broker {header['broker']}, "
          f"compression {header['compression']}", flush=True)
    if args.json is not None:
        with args.json.open("a") as out:
            out.write(json.dumps(header) + "\n")
    with tempfile.TemporaryDirectory(prefix="kartu-load-") as tmpdir:
        tmp = Path(tmpdir)
        both: tuple[dict[str, Any], dict[str, Any]] | str | None = None
        if plan.slices:
            sides = "kartu and baseline" if first == "kartu" else "baseline and kartu"
            print(f"{sides}, in turns ({plan.slices} slices each) ...", flush=True)
            both = measure_interleaved(plan, tmp, args.pad, first, pad_hint)
            kartu = both if isinstance(both, str) else both[0]
        else:
            print("kartu ...", flush=True)
            kartu = measure("kartu", plan, tmp, 0)
        if isinstance(kartu, str):
            print(f"{plan.shape}: {kartu}")
            if args.json is not None:
                with args.json.open("a") as out:
                    out.write(json.dumps({"kind": "unavailable", "shape": plan.shape,
                                          "reason": kartu}) + "\n")
            return None
        baseline: dict[str, Any] | None = None
        if isinstance(both, tuple):
            baseline = both[1]
            one, two = ("kartu", "baseline") if first == "kartu" else ("baseline", "kartu")
            notes.append(f"interleaved: {plan.slices} slices of {plan.duration / plan.slices:g} s "
                         f"each side, in the order {one}, {two}, {two}, {one}, ... ({one} set "
                         "up first)")
            if plan.against is None:
                notes.append(f"baseline views padded with {baseline['padding']} bytes to "
                             "kartu's mean state size")
        elif not args.no_baseline:
            pad = args.pad if args.pad is not None else kartu_pad(kartu.get("mean_state_bytes"))
            print("baseline ...", flush=True)
            result = measure("raw", plan, tmp, pad)
            baseline = result if isinstance(result, dict) else None
            if plan.shape != "idle" and plan.against is None:
                notes.append(f"baseline views padded with {pad} bytes to kartu's mean state size")
            drift = ratio(kartu.get("speed_probe_ms"), (baseline or {}).get("speed_probe_ms"))
            if drift is not None and not 1 / SPEED_DRIFT <= drift <= SPEED_DRIFT:
                notes.append(f"the machine's speed moved between the two sides (the fixed "
                             f"loop took {drift:.2f}x as long around kartu's window): this "
                             f"run's ratios are suspect; take the median of several runs")
    if plan.against is not None:
        notes.append(f"the baseline is kartu from {plan.against}: the ratios compare the two "
                     "checkouts, and the targets do not apply")
    report(plan, kartu, baseline, notes, args.json)
    if plan.profile is not None and plan.profile.exists():
        print("\n".join(profile_summary(plan.profile)))
    return kartu, baseline


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: servers stopped", file=sys.stderr)
        sys.exit(130)
