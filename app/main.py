"""The ASGI app: ``app.main:app``, built by :func:`create_app`.

The lifespan brings the database schema up to date, then opens the store,
the broker (memory, or Redis when ``REDIS_URL`` is set) and the room
registry, and closes them in reverse order on shutdown.

The game socket (``/ws``) is a route like the others, through Starlette's
middleware and router; what the server offers it beyond ASGI (the direct
frame path of :mod:`app.wsprotocol`) reaches the gateway in the scope.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from redis import exceptions as redis_errors
from sqlalchemy import exc as sa_errors

from app import collector, daily, logs
from app.api import router
from app.broker import make_broker
from app.cluster import Cluster
from app.db import sqlite_file
from app.deps import authenticate
from app.edge import (
    AddressCap,
    BodyLimit,
    SecurityHeaders,
    TokenBuckets,
    client_address,
    error_body,
    redact_server_logs,
)
from app.gateway import CLOSE_TRY_LATER, serve_socket
from app.health import StoreHealth, is_outage, store_of
from app.loopwatch import LoopWatch
from app.rooms import RoomRegistry
from app.settings import Settings
from app.snapshots import DbSnapshots, JournalSnapshots, SnapshotStore, rooms_file
from app.store import Store
from engine.room import RoomError, Unavailable

STATIC = Path(__file__).resolve().parent.parent / "static"
logs_error = logging.getLogger("kartu.http")


def refused(refusal: RoomError, status: int,
            headers: dict[str, str] | None = None) -> JSONResponse:
    """An HTTP error answer (:func:`app.edge.error_body`)."""
    return JSONResponse(error_body(refusal), status_code=status, headers=headers)


def internal_error() -> JSONResponse:
    """The answer to a failure of the server's own: no detail of the fault."""
    return refused(RoomError("internal_error", "server error", reason="server_error"), 500)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logs.configure()
        redact_server_logs()  # again: a server may configure its logging after the import
        health = StoreHealth()
        store = Store(settings.database_url)
        await store.start()
        health.add("database", store.ping)
        broker = make_broker(settings.redis_url)
        await broker.start()
        cluster: Cluster | None = None
        snapshots: SnapshotStore
        if settings.redis_url:
            cluster = Cluster(settings.redis_url, settings.redis_prefix, broker)
            snapshots = cluster.snapshots
        elif (database_file := sqlite_file(settings.database_url)) is not None:
            snapshots = JournalSnapshots(rooms_file(database_file))
        else:
            snapshots = DbSnapshots(store)
        if cluster is not None:
            health.add("redis", cluster.redis.ping)
        registry = RoomRegistry(settings, broker, store, snapshots, cluster, health)
        registry.finish_listeners.append(daily.finish_listener(store))
        registry.change_listeners.append(daily.leave_listener(store))
        await registry.start()
        app.state.settings, app.state.store = settings, store
        app.state.registry = registry
        app.state.feeds = registry.feeds
        app.state.health = health
        health.watch()
        collector.watch()  # first: start-up's own full pass is counted too
        collector.tune()
        app.state.loop_watch = LoopWatch()
        app.state.loop_watch.start()
        try:
            yield
        finally:
            app.state.loop_watch.stop()
            await health.close()
            await registry.close()
            await broker.close()
            await store.close()

    redact_server_logs()
    app = FastAPI(title="kartu", lifespan=lifespan)
    # The last added runs first: every answer, a refused body's too, gets the headers.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)
    # Per client address (app/api.py): guests and rooms created.
    app.state.guest_buckets = TokenBuckets(settings.guests_burst, settings.guests_per_min)
    app.state.room_buckets = TokenBuckets(settings.rooms_burst, settings.rooms_per_min)
    app.include_router(router)
    app.include_router(daily.router)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        body: dict[str, Any] = (dict(exc.detail) if isinstance(exc.detail, dict)
                                else {"code": "error", "message": str(exc.detail)})
        body.setdefault("detail", body.get("message"))
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    # A store out of reach answers 503 "unavailable" (logged once per outage
    # by the store's health), not 500 with a traceback per request.
    async def store_error(request: Request, exc: Exception) -> JSONResponse:
        if not is_outage(exc):
            logs_error.error("request failed: %s %s", request.method, request.url.path,
                             exc_info=exc)
            return internal_error()
        request.app.state.health.failed(store_of(exc), exc)
        return refused(RoomError("unavailable", "a store the server needs cannot be reached; "
                                 "try again shortly"), 503, {"Retry-After": "2"})

    for error_type in (sa_errors.DBAPIError, sa_errors.TimeoutError, OSError,
                       redis_errors.ConnectionError, redis_errors.TimeoutError, Unavailable):
        app.add_exception_handler(error_type, store_error)

    @app.exception_handler(RoomError)
    async def room_refused(request: Request, exc: RoomError) -> JSONResponse:
        """A room's refusal reaching a route (its lease taken as it was
        created, say): 503 where trying again helps, else 409."""
        if exc.code in ("busy", "moved", "unavailable"):
            return refused(exc, 503, {"Retry-After": "1"})
        return refused(exc, 409)

    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        # Any other failure: the same body as every error (Starlette still
        # raises the exception on, and the server logs it with its traceback).
        return internal_error()

    app.add_exception_handler(Exception, server_error)

    @app.get("/healthz")
    async def healthz(request: Request) -> dict[str, Any]:
        """Liveness: always 200 while the process serves; says which stores answer."""
        registry: RoomRegistry = request.app.state.registry
        health: StoreHealth = request.app.state.health
        await health.probe()
        return {"status": "ok" if health.all_up else "degraded", "rooms": len(registry.rooms),
                "stores": health.summary(),
                "unrecoverable_rooms": len(registry.unrecoverable),
                "broker": "redis" if settings.redis_url else "memory",
                "process": registry.process_id, "collector": collector.watch().summary(),
                "loop": request.app.state.loop_watch.summary()}

    @app.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        """Readiness: 503 while a store cannot be reached (send players elsewhere)."""
        health: StoreHealth = request.app.state.health
        await health.probe()
        return JSONResponse({"ready": health.all_up, "stores": health.summary()},
                            status_code=200 if health.all_up else 503)

    sockets = AddressCap(settings.max_ws_per_address)

    # A plain Starlette route: the socket takes no FastAPI dependencies.
    @app.websocket_route("/ws")
    async def websocket(websocket: WebSocket) -> None:
        address = client_address(websocket.scope)
        if not sockets.try_open(address):
            # Accepted to be closed with a code and reason a client can show.
            await websocket.accept()
            await websocket.close(CLOSE_TRY_LATER, "too many connections from your address")
            return
        try:
            state = websocket.app.state
            token = websocket.query_params.get("token")
            try:
                player = await authenticate(state.store, token)
            except Exception as err:
                if not is_outage(err):
                    raise
                state.health.failed(store_of(err), err)
                await websocket.close(code=CLOSE_TRY_LATER)  # try again later
                return
            await serve_socket(websocket, player, bool(token), settings, state.registry,
                               state.feeds)
        finally:
            sockets.closed(address)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    return app


app = create_app()
