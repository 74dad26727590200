"""Takes the pictures in docs/: ``docs/screenshot.png``, a Basic Rummy table
mid-game at 1280x800; ``docs/screenshots/phone-<game>.png``, each game's table
on a 390x844 phone; ``docs/screenshots/sideways-basic-rummy.png``, Basic Rummy
on the same phone held sideways (844x390);
``docs/screenshots/desktop-remmi-demmi.png``, Remmi Demmi's trading floor at
1366x900.

Run from the repository root: ``.venv/bin/python tests/browser/make_screenshot.py``
(needs ``/usr/bin/chromium``). It starts its own server on a free port and
plays by clicking: a scenario deal of Basic Rummy against two bots, captured
when it is the player's turn again with melds from every seat on the table;
each game against bots, captured in the player's turn with a card drawn (in
Remmi Demmi: while the timer runs, after a trade).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.browser.conftest import (  # noqa: E402
    CHROMIUM,
    Table,
    create_room,
    hand,
    launch,
    new_page,
    scenario,
    select_cards,
)
from tests.browser.game_rooms import DESKTOP, TOUCH_PHONE, TOUCH_PHONE_SIDEWAYS  # noqa: E402
from tests.live import start_server  # noqa: E402
from tests.wsclient import new_guest  # noqa: E402

OUTPUT = ROOT / "docs" / "screenshot.png"
SCREENS = ROOT / "docs" / "screenshots"
# Seats at each game's table in the pictures.
SEATS = {"basic_rummy": 4, "indonesian_remi": 4, "traditional_remi": 3, "remmi_demmi": 6}
# True once every animation of the page has ended, but for those that never
# do (the pulse on the stock) and the clocks running down: part of the picture.
SETTLED = """() => document.getAnimations().every((a) => {
    const timing = a.effect.getComputedTiming();
    const el = a.effect.target;
    return a.playState !== 'running' || timing.iterations === Infinity || timing.duration > 2000
        || !!(el && el.closest && el.closest('.clock-bar, .rd-timer'));
})"""
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


def settle(page: Any) -> None:
    """Out of the way of the pointer, at the top, with the arrivals landed."""
    if page.viewport_size["width"] > 600:  # a phone has no pointer hovering
        page.mouse.move(0, 0)
    page.evaluate("() => window.scrollTo(0, 0)")
    # Let the arrival animations end (the endless ones, such as the pulse on
    # the stock, are part of the picture).
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(150)


def basic_rummy_desktop(browser: Any, url: str, output: Path) -> None:
    ana = new_guest(url, "Ana")
    room = create_room(url, ana, 3, scenario=DEAL, bot_delay_ms=250, turn_clock_s=60, target=100)
    page = new_page(browser, f"{url}/?room={room}", identity=ana)
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
    settle(page)
    page.screenshot(path=str(output))
    page.context.close()


def open_game(browser: Any, url: str, game: str, size: dict[str, Any], **options: Any) -> Any:
    """A table of ``game`` with bots in every other seat, started."""
    ana = new_guest(url, "Ana")
    options = {"fill_bots": True, "bot_delay_ms": 400, "turn_clock_s": 120, **options}
    room = create_room(url, ana, SEATS[game], game=game, **options)
    page = new_page(browser, f"{url}/?room={room}", identity=ana, **size)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    page.get_by_test_id("btn-start").click()
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    return page


def turn_game(
    browser: Any, url: str, game: str, output: Path, size: dict[str, Any] = TOUCH_PHONE
) -> None:
    """A turn-based game on a phone: the player's turn, a card drawn and one selected."""
    page = open_game(browser, url, game, size)
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=30_000)
    before = hand(page)
    page.get_by_test_id("stock").click()
    page.wait_for_function(
        "n => document.querySelectorAll('[data-testid=\"hand\"] [data-card]').length > n",
        arg=len(before),
    )
    drawn = next(c for c in hand(page) if c not in before)
    select_cards(page, drawn)
    settle(page)
    page.screenshot(path=str(output))
    page.context.close()


def remmi_demmi(browser: Any, url: str, size: dict[str, Any], output: Path) -> None:
    """Remmi Demmi's trading floor: the timer running, one trade done, an offer open."""
    page = open_game(
        browser, url, "remmi_demmi", size, seed=5, timer_s=240, rounds=1, bot_delay_ms=1500
    )
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    select_cards(page, hand(page)[-1])
    page.get_by_test_id("btn-offer").click()
    page.wait_for_selector('[data-testid^="trade-t"]', state="attached", timeout=20_000)
    page.wait_for_selector('[data-testid^="offer-"]', timeout=20_000)
    select_cards(page, hand(page)[0])
    settle(page)
    page.screenshot(path=str(output))
    page.context.close()


def make_screenshots() -> list[Path]:
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: install Chromium first")
    SCREENS.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp))
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                try:
                    basic_rummy_desktop(browser, server.url, OUTPUT)
                    made.append(OUTPUT)
                    for game in ("basic_rummy", "indonesian_remi", "traditional_remi"):
                        path = SCREENS / f"phone-{game.replace('_', '-')}.png"
                        turn_game(browser, server.url, game, path)
                        made.append(path)
                    path = SCREENS / "sideways-basic-rummy.png"
                    turn_game(browser, server.url, "basic_rummy", path, TOUCH_PHONE_SIDEWAYS)
                    made.append(path)
                    for name, size in (("phone", TOUCH_PHONE), ("desktop", DESKTOP)):
                        path = SCREENS / f"{name}-remmi-demmi.png"
                        remmi_demmi(browser, server.url, size, path)
                        made.append(path)
                finally:
                    browser.close()
        finally:
            server.stop()
    return made


if __name__ == "__main__":
    for path in make_screenshots():
        print(path)
