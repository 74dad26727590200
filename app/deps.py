"""What HTTP routes ask FastAPI for: the app's services, the caller, and the error shape.

Every router (:mod:`app.api`, :mod:`app.daily`) takes these from here, so no
router imports another for them.

Terms:

- *dependency*: an ``Annotated[T, Depends(...)]`` alias a route names as a
  parameter type; FastAPI fills it in per request.
- *guest token*: the secret a guest gets from ``POST /api/guests`` and sends
  back as ``Authorization: Bearer <token>``; it names the *current player*.
- :class:`ApiError`: a refusal a client should act on, sent as
  ``{"code", "message", "rule", "reason", "params"}`` with an HTTP status
  saying how bad (``reason`` and ``params``: :mod:`engine.refusals`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, HTTPException, Request

from app.edge import TokenBuckets, client_address, rate_limited
from app.rooms import RoomRegistry
from app.settings import Settings
from app.store import PlayerRecord, Store
from engine.room import RoomError


class ApiError(HTTPException):
    def __init__(self, status: int, code: str, message: str | None = None, *,
                 reason: str | None = None, rule: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(status, detail=RoomError(
            code, message, reason=reason, rule=rule, params=params).wire())


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_store(request: Request) -> Store:
    return request.app.state.store


def get_registry(request: Request) -> RoomRegistry:
    return request.app.state.registry


StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Registry = Annotated[RoomRegistry, Depends(get_registry)]


async def authenticate(store: Store, token: str | None) -> PlayerRecord | None:
    """The player holding guest token ``token``, or None."""
    if not token:
        return None
    return await store.player_by_token(token)


AuthorizationHeader = Annotated[str | None, Header()]


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else None."""
    scheme, _, token = (authorization or "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


async def optional_player(
    store: StoreDep, authorization: AuthorizationHeader = None
) -> PlayerRecord | None:
    """The Bearer token's player, or None (no token, or one nobody holds)."""
    return await authenticate(store, bearer_token(authorization))


async def require_player(
    store: StoreDep, authorization: AuthorizationHeader = None
) -> PlayerRecord:
    """The Bearer token's player; 401 without one."""
    player = await optional_player(store, authorization)
    if player is None:
        raise ApiError(401, "unauthorized", "send Authorization: Bearer <guest token>",
                       reason="unauthorized")
    return player


CurrentPlayer = Annotated[PlayerRecord, Depends(require_player)]
OptionalPlayer = Annotated[PlayerRecord | None, Depends(optional_player)]


def take_token(request: Request, buckets: str, what: str) -> None:
    """Takes one of the client address's tokens in ``app.state.<buckets>``, or
    refuses the request with 429 (nothing else has been done then)."""
    limiter: TokenBuckets | None = getattr(request.app.state, buckets, None)
    if limiter is None:
        return
    wait = limiter.take(client_address(request.scope))
    if wait is not None:
        raise rate_limited(what, wait)
