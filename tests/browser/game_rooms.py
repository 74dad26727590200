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
