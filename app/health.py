"""Whether the stores a process depends on can be reached, said once per change.

Terms:

- *store*: ``database`` (SQLAlchemy: players, rooms, results; with
  PostgreSQL and no Redis also the rooms in progress), ``redis`` (with
  ``REDIS_URL``: leases, rooms in progress, messages) or ``journal`` (the
  embedded default's file of rooms in progress).
- *outage*: from the first failure to reach a store (a save, a query, a
  probe) to the next success. An outage is logged twice: one line when it
  starts (``store_down``, with the error's one-line text) and one when it
  ends (``store_up``, with how long it lasted): never a traceback per
  command, which during an outage is thousands a second of the same one.
- *probe*: a cheap round trip (``SELECT 1``, ``PING``) that ``/healthz``
  and ``/readyz`` make, and that :meth:`StoreHealth.watch` repeats while a
  store is down, so that its end is seen (and logged) without waiting for
  the next command.

:func:`is_outage` tells a store being unreachable (connection refused or
lost, a timeout, the server shutting down) from other errors (a bug, a
constraint), which keep their tracebacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis import exceptions as redis_errors
from sqlalchemy import exc as sa_errors

log = logging.getLogger("kartu.health")

Probe = Callable[[], Awaitable[Any]]

# Errors of the system that say a store is out of reach (or cannot take a
# write: a full disk for the journal), rather than that a program is wrong.
_STORE_ERRNOS = frozenset({errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED,
                           errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT,
                           errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EIO})


def is_outage(error: BaseException) -> bool:
    """True when ``error`` (or what caused it) says a store cannot be reached."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionError, TimeoutError, socket.gaierror,
                                redis_errors.ConnectionError, redis_errors.TimeoutError,
                                redis_errors.BusyLoadingError, sa_errors.TimeoutError)):
            return True
        if isinstance(current, OSError) and current.errno in _STORE_ERRNOS:
            return True
        if isinstance(current, sa_errors.DBAPIError) and (
                current.connection_invalidated
                or isinstance(current, (sa_errors.OperationalError, sa_errors.InterfaceError))):
            return True
        if isinstance(current, redis_errors.ResponseError) and str(current).startswith(
                ("LOADING", "MISCONF", "READONLY")):
            return True
        module = type(current).__module__
        if module.startswith("asyncpg") and type(current).__name__ in (
                "CannotConnectNowError", "ConnectionDoesNotExistError", "AdminShutdownError",
                "ConnectionFailureError", "InterfaceError", "InternalClientError",
                "CrashShutdownError", "TooManyConnectionsError"):
            return True
        current = current.__cause__ or current.__context__
    return False


def store_of(error: BaseException) -> str:
    """Which store an outage error came from (for HTTP routes: the database,
    unless Redis raised it)."""
    current: BaseException | None = error
    while current is not None:
        if isinstance(current, redis_errors.RedisError):
            return "redis"
        current = current.__cause__
    return "database"


@dataclass
class _Store:
    up: bool = True
    since: float = 0.0  # time.time() of the last change between up and down
    error: str | None = None  # the outage's first error, one line


class StoreHealth:
    """The stores of one process: up or down, and since when."""

    PROBE_TIMEOUT_S = 2.0
    WATCH_EVERY_S = 1.0

    def __init__(self) -> None:
        self.stores: dict[str, _Store] = {}
        self.probes: dict[str, Probe] = {}
        # Called with a store's name when an outage of it ends.
        self.up_listeners: list[Callable[[str], None]] = []
        self._watcher: asyncio.Task[None] | None = None

    def add(self, name: str, probe: Probe | None = None) -> None:
        """Watches ``name`` (up until a failure says otherwise)."""
        self.stores.setdefault(name, _Store(since=time.time()))
        if probe is not None:
            self.probes[name] = probe

    def failed(self, name: str, error: BaseException | str) -> None:
        """``name`` could not be reached: logged once, when the outage starts."""
        store = self.stores.setdefault(name, _Store(since=time.time()))
        if store.up:
            text = error if isinstance(error, str) else (
                f"{type(error).__name__}: {error}".strip().splitlines()[0][:300])
            store.up, store.since, store.error = False, time.time(), text
            log.error("store_down", extra={"fields": {"store": name, "error": text}})

    def ok(self, name: str) -> None:
        """``name`` answered: logged once, when an outage ends."""
        store = self.stores.get(name)
        if store is None:
            self.stores[name] = _Store(since=time.time())
        elif not store.up:
            now = time.time()
            log.warning("store_up", extra={"fields": {"store": name,
                                                      "down_s": round(now - store.since, 1)}})
            store.up, store.since, store.error = True, now, None
            for listener in self.up_listeners:
                listener(name)

    @property
    def all_up(self) -> bool:
        return all(store.up for store in self.stores.values())

    async def probe(self) -> None:
        """Asks every store with a probe, at once; the answers update their state."""
        async def one(name: str, probe: Probe) -> None:
            try:
                async with asyncio.timeout(self.PROBE_TIMEOUT_S):
                    await probe()
            except Exception as err:
                self.failed(name, err)
            else:
                self.ok(name)

        await asyncio.gather(*(one(name, probe) for name, probe in self.probes.items()))

    def summary(self) -> dict[str, Any]:
        """Per store: ``up`` and, when down, since when and why."""
        return {name: {"up": True} if store.up else
                {"up": False, "down_s": round(time.time() - store.since, 1),
                 "error": store.error}
                for name, store in self.stores.items()}

    def watch(self) -> None:
        """Probes, while some store is down, every WATCH_EVERY_S: an outage's end
        is seen (and logged) without waiting for the next command."""
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch_forever())

    async def _watch_forever(self) -> None:
        while True:
            await asyncio.sleep(self.WATCH_EVERY_S)
            if not self.all_up:
                with contextlib.suppress(Exception):
                    await self.probe()

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
