"""Takes ``docs/screenshot.png``: a Basic Rummy table mid-game, 1280x800.

Run from the repository root: ``.venv/bin/python tests/browser/make_screenshot.py``
(needs ``/usr/bin/chromium``). It starts its own server on a free port, plays a
scenario deal against two bots by clicking, and captures the table when it is
the player's turn again with melds from every seat on the table.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import (  # noqa: E402
    CHROMIUM,
    Table,
    create_room,
    launch,
    new_guest,
    new_page,
    scenario,
)
from tests.conftest import start_server  # noqa: E402

OUTPUT = ROOT / "docs" / "screenshot.png"
# True once every animation of the page has ended, but for those that never do.
SETTLED = """() => document.getAnimations().every(
    (a) => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity)"""
DEAL = scenario(
    dealer=2,
    hands=[
        ["9H", "TH", "JH", "4C", "4D", "QS", "2S"],
        ["8C", "9C", "TC", "QD", "3H", "6S", "KD"],
        ["5S", "5H", "5C", "2D", "JC", "AD", "8H"],
    ],
    stock=["4H", "7D", "3C", "6C", "KH", "AC", "9D", "JS", "TS", "3S", "6D", "7S", "2C"],
    discard=["KC"],
)


def make_screenshot(output: Path = OUTPUT) -> Path:
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: install Chromium first")
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp))
        try:
            ana = new_guest(server.url, "Ana")
            room = create_room(
                server.url, ana, 3, scenario=DEAL, bot_delay_ms=250, turn_clock_s=60, target=100
            )
            with sync_playwright() as playwright:
                browser = launch(playwright)
                try:
                    page = new_page(browser, f"{server.url}/?room={room}", identity=ana)
                    table = Table(page)
                    table.wait_phase("waiting")
                    table.add_bots_and_start(1, 2)

                    table.wait_my_turn_to_draw()
                    table.draw_stock()
                    table.meld("9H", "TH", "JH")
                    table.discard("QS")
                    table.wait_my_turn_to_draw()
                    table.draw_stock()
                    table.select("4C", "4D", "4H")
                    page.mouse.move(0, 0)
                    # Let the arrival animations end (the endless ones, such as
                    # the pulse on the stock, are part of the picture).
                    page.wait_for_function(SETTLED)
                    output.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(output))
                finally:
                    browser.close()
        finally:
            server.stop()
    return output


if __name__ == "__main__":
    print(make_screenshot())
