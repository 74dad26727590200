"""Helpers for the browser tests of the Traditional Remi, Indonesian Remi and
Remmi Demmi tables and the daily page: rooms of any game, phone-size checks."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.conftest import no_horizontal_overflow

PHONE = {"width": 375, "height": 667}


def create_game_room(
    base_url: str, guest: dict[str, Any], game: str, seats: int, **options: Any
) -> str:
    response = httpx.post(
        f"{base_url}/api/rooms",
        json={"game": game, "seats": seats, "options": options},
        headers={"Authorization": f"Bearer {guest['token']}"},
    )
    assert response.status_code in (200, 201), response.text
    return str(response.json()["room_id"])


def assert_fits(page: Any) -> None:
    """Nothing sticks out past the right edge of the screen."""
    report = no_horizontal_overflow(page)
    assert report["scrollWidth"] <= report["clientWidth"], report
    assert not report["wide"], report


def start_with_bots(page: Any) -> None:
    """The owner's waiting room: add bots to every free seat, then start."""
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    while page.get_by_test_id("btn-add-bot").is_enabled():
        taken = page.locator(".seat-slot.is-taken").count()
        page.get_by_test_id("btn-add-bot").click()
        page.wait_for_function(
            "n => document.querySelectorAll('.seat-slot.is-taken').length > n", arg=taken
        )
    page.get_by_test_id("btn-start").click()
    page.wait_for_selector('[data-testid="table"]:not([data-phase="waiting"])')


def hand(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            '[data-testid="hand"] [data-card]', "els => els.map(e => e.dataset.card)"
        )
    )


def phase(page: Any) -> str:
    return str(page.get_by_test_id("table").get_attribute("data-phase"))


def select(page: Any, *cards: str) -> None:
    """Taps hand cards until each shows as selected."""
    for card in cards:
        page.get_by_test_id(f"card-{card}").click()
        page.wait_for_selector(f'[data-testid="card-{card}"][aria-pressed="true"]')


# --- the daily deal ------------------------------------------------------------------

# One quick deal with instant bots, for a test server's KARTU_DAILY_OPTIONS.
DAILY_OPTIONS = {"indonesian_remi": {"deals": 1, "bot_delay_ms": 0, "deal_pause_ms": 0}}


def play_to_the_end(page: Any) -> None:
    """Indonesian Remi: draws and discards the card drawn, closing whenever the
    table offers it, until the game is over."""
    for _ in range(60):
        page.wait_for_selector(
            '[data-testid="stock"]:enabled, [data-testid="btn-close"],'
            ' [data-testid="table"][data-phase="game_over"]',
            timeout=15_000,
        )
        if phase(page) == "game_over":
            return
        if page.get_by_test_id("btn-close").count():
            page.get_by_test_id("btn-close").click()
            page.locator('[data-testid="hand"] .is-closer').first.click()
            page.wait_for_selector('[data-testid="table"][data-phase="game_over"]')
            return
        before = hand(page)
        page.get_by_test_id("stock").click()
        page.wait_for_function(
            "n => document.querySelectorAll('[data-testid=\"hand\"] [data-card]').length !== n"
            " || document.querySelector('[data-testid=\"table\"]').dataset.phase !== 'playing'",
            arg=len(before),
        )
        if phase(page) != "playing":
            continue
        if page.get_by_test_id("btn-close").count():
            continue
        drawn = next(c for c in hand(page) if c not in before)
        select(page, drawn)
        page.get_by_test_id("btn-discard").click()
        page.wait_for_selector(
            f'[data-testid="hand"] [data-testid="card-{drawn}"]', state="detached"
        )
    raise AssertionError("the daily deal did not end")


def play_daily(page: Any, game: str = "indonesian_remi") -> None:
    """From the daily page: plays today's deal of ``game`` to the end."""
    page.get_by_test_id(f"daily-play-{game}").click()
    page.wait_for_url(f"**/?room=*&daily={game}")
    page.wait_for_selector('[data-testid="daily-strip"]')
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    play_to_the_end(page)
    page.wait_for_selector('[data-testid="game-over"]')
    page.wait_for_selector('[data-testid="daily-strip"].is-over')
