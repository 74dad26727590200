"""Helpers for the browser tests of the Traditional Remi, Indonesian Remi and
Remmi Demmi tables and the daily page: rooms of any game, phone-size checks."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import CARD_TAP, create_room, hand, no_horizontal_overflow, phase
from tests.browser.conftest import select_cards as select

PHONE = {"width": 375, "height": 667}
# The screens the tables' layout is checked on and pictured in (test_phone_tables,
# make_screenshot): a touch phone upright and held sideways, and a desktop.
TOUCH_PHONE = {"width": 390, "height": 844, "touch": True}
TOUCH_PHONE_SIDEWAYS = {"width": 844, "height": 390, "touch": True}
DESKTOP = {"width": 1366, "height": 900}


def create_game_room(
    base_url: str, guest: dict[str, Any], game: str, seats: int, **options: Any
) -> str:
    return create_room(base_url, guest, seats, game=game, **options)


def assert_fits(page: Any) -> None:
    """Nothing sticks out past the right edge of the screen."""
    report = no_horizontal_overflow(page)
    assert report["scrollWidth"] <= report["clientWidth"], report
    assert not report["wide"], report


# The first open offer of someone else, once there is one, as it lies at that
# moment (bots take offers within a second): whether it ends above the dock and
# a tap on its Trade button's centre reaches the button.
OTHERS_OFFER = """() => {
    const offer = [...document.querySelectorAll('.rd-offer')]
        .find(o => !o.classList.contains('is-mine') && o.querySelector('button'));
    if (!offer) return null;
    const button = offer.querySelector('button').getBoundingClientRect();
    const hit = document.elementFromPoint(button.left + button.width / 2,
                                          button.top + button.height / 2);
    return {offer: offer.dataset.testid, bottom: offer.getBoundingClientRect().bottom,
            dockTop: document.querySelector('.felt > .me').getBoundingClientRect().top,
            tappable: !!hit && offer.querySelector('button').contains(hit), scrollY};
}"""


def assert_others_offer_in_view(page: Any) -> None:
    """The first open offer of someone else, with its Trade button, lies in full
    above the dock without scrolling."""
    first = page.wait_for_function(OTHERS_OFFER, timeout=20_000).json_value()
    assert first["scrollY"] == 0 and first["tappable"], first
    assert first["bottom"] <= first["dockTop"], first


def start_with_bots(page: Any) -> None:
    """The owner's waiting room: add bots to every free seat, then start."""
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    # Counted by free seats, not by the button: the button is also disabled while
    # the previous add_bot awaits its ack, which can outlast the new state frame.
    while page.locator(".seat-slot.is-free").count() > 0:
        taken = page.locator(".seat-slot.is-taken").count()
        page.get_by_test_id("btn-add-bot").click()
        page.wait_for_function(
            "n => document.querySelectorAll('.seat-slot.is-taken').length > n", arg=taken
        )
    page.get_by_test_id("btn-start").click()
    page.wait_for_selector('[data-testid="table"]:not([data-phase="waiting"])')


def gone(page: Any, card: str) -> None:
    """Waits until ``card`` has left the hand."""
    page.wait_for_selector(f'[data-testid="hand"] [data-testid="card-{card}"]', state="detached")


def draw_from_stock(page: Any) -> list[str]:
    """Draws from the stock; returns the hand as it was before. Returns once the
    hand has changed or the deal has ended."""
    before = hand(page)
    page.get_by_test_id("stock").click()
    page.wait_for_function(
        "n => document.querySelectorAll('[data-testid=\"hand\"] [data-card]').length !== n"
        " || document.querySelector('[data-testid=\"table\"]').dataset.phase !== 'playing'",
        arg=len(before),
    )
    return before


def discard_drawn(page: Any, before: list[str]) -> None:
    """Discards the card that is in the hand but not in ``before``."""
    drawn = next(c for c in hand(page) if c not in before)
    select(page, drawn)
    page.get_by_test_id("btn-discard").click()
    gone(page, drawn)


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
            page.locator('[data-testid="hand"] .is-closer').first.click(position=CARD_TAP)
            page.wait_for_selector('[data-testid="table"][data-phase="game_over"]')
            return
        before = draw_from_stock(page)
        if phase(page) != "playing":
            continue
        if page.get_by_test_id("btn-close").count():
            continue
        discard_drawn(page, before)
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
