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

import uvicorn


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--ws", default=os.environ.get("KARTU_WS", "kartu"),
                        choices=["kartu", "auto", "websockets", "websockets-sansio", "wsproto"],
                        help="WebSocket implementation: kartu's (app.wsprotocol), or one "
                             "of uvicorn's")
    args = parser.parse_args()
    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws="app.wsprotocol:KartuWebSocketProtocol" if args.ws == "kartu" else args.ws,
        ws_max_size=65_536,
        ws_per_message_deflate=False,
    )


if __name__ == "__main__":
    main()
