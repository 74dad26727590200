"""The HTTP edge: limits and headers every request passes before a route.

Terms:

- *body limit*: the most bytes a request body may have (``KARTU_MAX_BODY``).
  Checked on ``Content-Length`` up front and on the bytes as they stream in,
  so a body that lies about its length is cut off all the same.
- *unreadable number*: ``NaN``, ``Infinity``, ``-Infinity`` (accepted by
  Python's JSON parser, but not JSON), a number too large for a float
  (``1e400``, read as infinity) or an integer past Python's limit on digits.
  The first three are not serialisable in a reply (a 422 became a 500), the
  last fails the route's parser. A JSON body holding one is refused with 422.
- *JSON depth*: how deeply a body nests arrays and objects; no request
  needs more than a few levels, and a deep one only costs the parser's
  stack (:data:`MAX_BODY_DEPTH`; 422 ``bad_json``).
- *token bucket*: per client address, ``burst`` tokens that refill at
  ``per_minute``; each request of a limited kind takes one, and with none
  left it is refused with 429 ``rate_limited``.
- *security headers*: sent with every HTTP response (pages, API, files): a
  Content-Security-Policy without inline script or style, no framing, no
  MIME sniffing, no referrer.

Both middlewares are pure ASGI (no per-request task or body copy beyond the
capped body) and leave WebSockets alone: a socket is handed on as the inner
app's own awaitable, so no frame of theirs lives as long as it does (a few
hundred bytes on each of thousands of idle sockets). The game socket's own
limits are in app/gateway.py.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import HTTPException

from app.actions import json_depth_over
from engine.room import RoomError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# --- request bodies ---------------------------------------------------------------------


def error_body(refusal: RoomError) -> dict[str, Any]:
    """The body of every HTTP error: the refusal's fields, and ``detail``
    repeating its message."""
    return {**refusal.wire(), "detail": refusal.message}


async def _refuse(send: Send, status: int, refusal: RoomError) -> None:
    """Answers ``status`` with the refusal's body."""
    data = json.dumps(error_body(refusal)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": data})


class UnreadableNumber(Exception):
    """A number of a JSON body that Python would not read as a finite number."""


def _reject_constant(name: str) -> Any:
    raise UnreadableNumber(f"{name} is not a JSON number: send finite numbers only")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnreadableNumber(f"{text} is too large a number: send finite numbers only")
    return value


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past Python's limit on the digits of an int
        raise UnreadableNumber(f"a number of {len(text)} digits is too long") from None


def unreadable_number(body: bytes) -> str | None:
    """Why a number of a JSON body is refused, or None (also for a body that is
    no JSON at all: the route's own parser answers that)."""
    try:
        json.loads(body, parse_constant=_reject_constant, parse_float=_finite_float,
                   parse_int=_whole_number)
    except UnreadableNumber as err:
        return str(err)
    except (ValueError, RecursionError):
        return None  # no JSON, or too deep to look into: the route's parser refuses it
    return None


MAX_BODY_DEPTH = 32


class BodyLimit:
    """Caps request bodies at ``max_bytes`` (413) and refuses unreadable numbers in
    JSON bodies (422), before the app reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int = 16_384) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        return self.limit(scope, receive, send) if scope["type"] == "http" else (
            self.app(scope, receive, send))  # a socket: handed on (module doc)

    async def limit(self, scope: Scope, receive: Receive, send: Send) -> None:
        too_large = RoomError.of("too_large", "too_large", limit=self.max_bytes)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _refuse(send, 400, RoomError.of("bad_request", "bad_length"))
                    return
                if declared > self.max_bytes:
                    await _refuse(send, 413, too_large)
                    return
        # Read the body (it is small, or refused) counting as it streams.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _refuse(send, 413, too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and _is_json(scope):
            if json_depth_over(body.decode("utf-8", "replace"), MAX_BODY_DEPTH):
                await _refuse(send, 422, RoomError.of("bad_json", "too_deep",
                                                      limit=MAX_BODY_DEPTH))
                return
            why = unreadable_number(body)
            if why is not None:
                await _refuse(send, 422, RoomError("bad_json", why, reason="unreadable_number"))
                return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        await self.app(scope, replay, send)


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            return b"json" in value.lower()
    return False


# --- response headers -----------------------------------------------------------------------

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        return self.add_headers(scope, receive, send) if scope["type"] == "http" else (
            self.app(scope, receive, send))  # a socket: handed on (module doc)

    async def add_headers(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()),
                                      *(h for h in SECURITY_HEADERS if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


# --- rate limits ------------------------------------------------------------------------------


class TokenBuckets:
    """One token bucket per key (a client address). ``burst`` 0: no limit.

    Buckets that refilled completely are as good as new and are the first
    forgotten once ``max_keys`` addresses are tracked, so memory stays bounded
    whatever the number of addresses.
    """

    def __init__(self, burst: int, per_minute: float, max_keys: int = 65_536,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at

    def take(self, key: str) -> float | None:
        """Takes a token for ``key``: None if it had one, else seconds until it will."""
        if self.burst <= 0:
            return None
        now = self.clock()
        tokens, at = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate if self.rate > 0 else 60.0
        self._buckets[key] = (tokens - 1, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)  # the longest untouched: refilled the most
        return None


class AddressCap:
    """Counts open game sockets per client address; ``cap`` 0: no cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: dict[str, int] = {}

    def try_open(self, address: str) -> bool:
        """Counts one more socket for ``address``, unless it is at the cap (False)."""
        count = self.open.get(address, 0)
        if self.cap > 0 and count >= self.cap:
            return False
        self.open[address] = count + 1
        return True

    def closed(self, address: str) -> None:
        count = self.open.get(address, 0) - 1
        if count > 0:
            self.open[address] = count
        else:
            self.open.pop(address, None)


def client_address(scope: Scope) -> str:
    """The client's address as uvicorn gives it: from a proxy that
    ``FORWARDED_ALLOW_IPS`` trusts, the one its ``X-Forwarded-For`` names."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def rate_limited(what: str, wait_s: float) -> HTTPException:
    retry = max(1, round(wait_s))
    return HTTPException(429, detail=RoomError(
        "rate_limited", f"too many {what} from your address; try again in {retry} s",
        reason="slow_down", params={"seconds": retry}).wire(),
        headers={"Retry-After": str(retry)})


# --- logs -------------------------------------------------------------------------------------

_TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"']*")


def redact(text: str) -> str:
    """``text`` with the value of every ``token=`` query parameter hidden."""
    return _TOKEN_IN_URL.sub(r"\1[redacted]", text) if "token=" in text else text


class RedactTokens(logging.Filter):
    """Hides guest tokens in log records (uvicorn logs each request's path with
    its query string, and a game socket's URL carries ``?token=``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v
                           for k, v in record.args.items()}
        return True


_REDACTOR = RedactTokens()
TOKEN_LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "uvicorn.asgi")


def redact_server_logs() -> None:
    """Installs the filter on uvicorn's loggers and on their handlers (idempotent).

    On the handlers too: a filter on a logger does not see records that
    reach its handlers from a child logger.
    """
    for name in TOKEN_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACTOR not in logger.filters:
            logger.addFilter(_REDACTOR)
        for handler in logger.handlers:
            if _REDACTOR not in handler.filters:
                handler.addFilter(_REDACTOR)
