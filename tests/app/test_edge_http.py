"""The HTTP edge over a real uvicorn: bounded bodies, finite numbers, security
headers on every page, and no guest token in any log line."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from app.edge import (
    BodyLimit,
    Message,
    Receive,
    Scope,
    Send,
    TokenBuckets,
    redact,
    unreadable_number,
)
from app.main import create_app
from app.settings import Settings
from engine.room import RoomError
from tests.live import LiveServer
from tests.wsclient import Client, new_guest


def raw_request(url: str, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """Sends ``head`` (request line and headers) and ``body``; the status and reply."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as conn:
        conn.sendall(head.encode() + b"\r\n" + body)
        reply = b""
        while True:
            try:
                chunk = conn.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1]), reply


def test_a_declared_huge_body_is_refused_before_it_is_read(live_server: LiveServer) -> None:
    status, reply = raw_request(
        live_server.url,
        "POST /api/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 200000000\r\n")
    assert status == 413
    assert b'"code":"too_large"' in reply.replace(b" ", b"")


def test_a_streamed_body_is_cut_off_at_the_limit(live_server: LiveServer) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(40):
            yield b"x" * 1024
        yield b'"}'

    response = httpx.post(f"{live_server.url}/api/guests", content=chunks(),
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    # Every HTTP refusal carries the same fields as a WebSocket error frame.
    assert response.json() == {
        "code": "too_large", "reason": "too_large", "params": {"limit": 16_384}, "rule": None,
        "message": "Requests are limited to 16384 bytes.",
        "detail": "Requests are limited to 16384 bytes."}
    # Requests within the limit are served as before.
    assert httpx.post(f"{live_server.url}/api/guests", json={"name": "Ana"}).status_code == 201


@pytest.mark.parametrize("body", ['{"name": NaN}', '{"name": Infinity}', '{"name": -Infinity}',
                                  '{"name": 1e400}', '{"name": -1e400}',
                                  '{"name": ' + "9" * 5000 + "}"])
def test_unreadable_numbers_are_refused_with_422(live_server: LiveServer, body: str) -> None:
    response = httpx.post(f"{live_server.url}/api/guests", content=body,
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and response.json()["code"] == "bad_json"
    assert response.json()["reason"] == "unreadable_number"
    token = new_guest(live_server.url, "Ana")["token"]
    response = httpx.post(
        f"{live_server.url}/api/rooms",
        content='{"game": "basic_rummy", "seats": 2, "options": {"seed": ' + body[9:-1] + "}}",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    assert response.status_code == 422 and response.json()["code"] == "bad_json"


async def test_a_length_that_is_no_number_is_refused_with_400() -> None:
    # uvicorn answers such a request itself; another ASGI server may pass it on.
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("the request reached the app")

    async def receive() -> Message:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {"type": "http", "headers": [(b"content-length", b"abc")]}
    await BodyLimit(app)(scope, receive, send)
    assert sent[0]["status"] == 400
    body = orjson.loads(sent[1]["body"])
    assert (body["code"], body["reason"]) == ("bad_request", "bad_length")


async def test_a_refusal_or_a_failure_in_a_route_answers_with_the_error_body(
        tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}"))

    @app.get("/test/busy")
    async def busy() -> None:
        raise RoomError.of("busy", "busy")

    @app.get("/test/fails")
    async def fails() -> None:
        raise ZeroDivisionError("a bug")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=transport, base_url="http://kartu") as client:
        response = await client.get("/test/busy")
        assert response.status_code == 503 and response.headers["retry-after"] == "1"
        assert response.json() == {
            "code": "busy", "reason": "busy", "params": {}, "rule": None,
            "message": "The room is busy; try again.",
            "detail": "The room is busy; try again."}
        response = await client.get("/test/fails")
        assert response.status_code == 500
        assert (response.json()["code"], response.json()["reason"]) == (
            "internal_error", "server_error")
        assert "a bug" not in response.text  # no detail of the fault reaches a client


def test_a_deeply_nested_body_is_refused_with_422(live_server: LiveServer) -> None:
    response = httpx.post(f"{live_server.url}/api/guests", content="[" * 3000 + "]" * 3000,
                          headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and response.json()["code"] == "bad_json"
    assert (response.json()["reason"], response.json()["params"]) == ("too_deep", {"limit": 32})


def test_unreadable_number_finder() -> None:
    assert unreadable_number(b'{"name": "NaN Infinity 1e400"}') is None
    assert unreadable_number(b'{"a": [1, 2.5, 1e300, -7]}') is None
    finite_only = ": send finite numbers only"
    assert unreadable_number(b'{"a": [1, NaN]}') == "NaN is not a JSON number" + finite_only
    assert unreadable_number(b'[1E999]') == "1E999 is too large a number" + finite_only
    assert unreadable_number(b"[" + b"1" * 5000 + b"]") == "a number of 5000 digits is too long"
    assert unreadable_number(b"not json NaN") is None
    assert unreadable_number(b"[" * 50_000 + b"NaN" + b"]" * 50_000) is None


@pytest.mark.parametrize("path", ["/", "/static/js/app.js", "/static/style.css",
                                  "/api/games", "/api/rooms/nope", "/healthz"])
def test_every_page_carries_the_security_headers(live_server: LiveServer, path: str) -> None:
    headers = httpx.get(f"{live_server.url}{path}").headers
    csp = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


def test_the_page_has_no_inline_script_or_style(live_server: LiveServer) -> None:
    page = httpx.get(f"{live_server.url}/").text.lower()
    assert "<script>" not in page and "<style" not in page and " style=" not in page
    assert " onclick=" not in page and " onload=" not in page


async def test_no_log_line_carries_a_token(live_server: LiveServer) -> None:
    guest = new_guest(live_server.url, "Ana")
    token = guest["token"]
    client = await Client.open(live_server.ws_url, token)
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    await client.close()
    httpx.get(f"{live_server.url}/api/games?token={token}&x=1")
    httpx.get(f"{live_server.url}/healthz", params={"token": token})
    deadline = time.monotonic() + 5
    log = ""
    while time.monotonic() < deadline:
        log = live_server.log.read_text()
        if "/api/games?token=" in log:
            break
        await asyncio.sleep(0.1)
    assert "WebSocket /ws?token=[redacted]" in log
    assert "/api/games?token=[redacted]&x=1" in log
    assert token not in log


def test_redact_hides_every_token_parameter() -> None:
    assert redact("GET /ws?token=abc123 HTTP/1.1") == "GET /ws?token=[redacted] HTTP/1.1"
    assert redact("/x?a=1&token=abc&b=2") == "/x?a=1&token=[redacted]&b=2"
    assert redact("nothing here") == "nothing here"


def test_token_buckets_refill_and_stay_bounded() -> None:
    now = [0.0]
    buckets = TokenBuckets(burst=2, per_minute=60, max_keys=3, clock=lambda: now[0])
    assert buckets.take("a") is None and buckets.take("a") is None
    wait = buckets.take("a")
    assert wait is not None and 0 < wait <= 1
    now[0] += 1.0
    assert buckets.take("a") is None
    for key in "bcdef":
        buckets.take(key)
    assert len(buckets._buckets) == 3
    assert TokenBuckets(burst=0, per_minute=1).take("a") is None
