"""``python -m app``: serve kartu with the WebSocket settings it is tuned for.

Plain ``uvicorn app.main:app`` works too; this entry point adds what kartu
wants from uvicorn: its own WebSocket protocol (:mod:`app.wsprotocol`: frames
written once per loop turn, without the ASGI queue), a cap on incoming
WebSocket messages, and no per-message compression (it costs CPU and memory
per connection for frames that are small and sent on loopback or a LAN).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

import uvicorn

if TYPE_CHECKING:
    from fastapi import FastAPI

# --ws: kartu's own protocol (app.wsprotocol), or one of uvicorn's.
WS_CHOICES = ("kartu", "auto", "websockets", "websockets-sansio", "wsproto")


def default_ws() -> str:
    """The WebSocket implementation ``KARTU_WS`` names, kartu's own by default."""
    return os.environ.get("KARTU_WS", "kartu")


def serve(app: str | FastAPI = "app.main:app", *, host: str, port: int,
          log_level: str = "info", ws: str = "kartu") -> None:
    """Runs uvicorn on ``app`` (an import string or an app) until it is stopped."""
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws="app.wsprotocol:KartuWebSocketProtocol" if ws == "kartu" else ws,
        ws_max_size=65_536,
        ws_per_message_deflate=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--ws", default=default_ws(), choices=WS_CHOICES,
                        help="WebSocket implementation: kartu's (app.wsprotocol), or one "
                             "of uvicorn's")
    args = parser.parse_args()
    serve(host=args.host, port=args.port, log_level=args.log_level, ws=args.ws)


if __name__ == "__main__":
    main()
