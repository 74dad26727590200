"""The Indonesian Remi table in a real browser (the UI of IR-21).

- A scenario deal on a phone screen: take the middle one of the top three
  discards into a meld (the card above it comes into the hand), discard,
  draw, then Close by tapping the closing card.
- The daily deal (shortened to one quick deal on the test server through
  ``KARTU_DAILY_OPTIONS``) played to the end from the front page, then the
  leaderboard with your line highlighted, inside the list or after it.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import OpenPage, scenario
from tests.browser.game_rooms import (
    DAILY_OPTIONS,
    PHONE,
    assert_fits,
    create_game_room,
    hand,
    play_daily,
    select,
    start_with_bots,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

# Seat 0 deals and plays first (IR-4). The pile, bottom to top: KS 6H QD.
ANA = ["4H", "5H", "2D", "3D", "4D", "5D", "9S"]
BOT = ["AS", "3C", "7S", "9C", "JH", "KH", "2S"]
DEAL = scenario(
    dealer=0, hands=[ANA, BOT], stock=["TC", "6D", "8H", "QC", "2H"], discard=["KS", "6H", "QD"]
)


def test_take_meld_discard_and_close_on_a_phone(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Anastasia-Longname")
    room = create_game_room(
        live_server.url,
        ana,
        "indonesian_remi",
        2,
        scenario=DEAL,
        deals=1,
        bot_delay_ms=0,
        turn_clock_s=0,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    start_with_bots(page)
    page.wait_for_selector('[data-testid="stock"]:enabled')
    assert sorted(hand(page)) == sorted(ANA)
    assert_fits(page)

    # The top three discards can all be tapped; take the 6H into 4H 5H.
    for card in ("KS", "6H", "QD"):
        assert page.get_by_test_id(f"take-{card}").is_enabled()
    page.get_by_test_id("take-6H").click()
    page.wait_for_selector('[data-testid="take-6H"][aria-pressed="true"]')
    select(page, "4H", "5H")
    assert page.get_by_test_id("btn-meld").inner_text().startswith("Meld 6")
    page.get_by_test_id("btn-meld").click()
    page.wait_for_selector('[data-testid="melds"] [data-card="6H"]')
    # QD lay above the 6H: it came into the hand.
    page.wait_for_selector('[data-testid="hand"] [data-testid="card-QD"]')
    assert sorted(hand(page)) == sorted(["2D", "3D", "4D", "5D", "9S", "QD"])
    assert page.get_by_test_id("btn-close").count() == 0
    assert_fits(page)

    select(page, "QD")
    page.get_by_test_id("btn-discard").click()
    page.wait_for_selector('[data-testid="hand"] [data-testid="card-QD"]', state="detached")

    # The bot plays; then Ana draws the 6D and may close.
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=15_000)
    page.get_by_test_id("stock").click()
    page.wait_for_selector('[data-testid="hand"] [data-testid="card-6D"]')
    # K, the keyboard's Close, arms the close and, pressed again, calls it off.
    assert page.get_by_test_id("btn-close").get_attribute("aria-keyshortcuts") == "K"
    page.keyboard.press("k")
    page.wait_for_selector('[data-testid="btn-close"][aria-pressed="true"]')
    page.keyboard.press("k")
    page.wait_for_selector('[data-testid="btn-close"][aria-pressed="false"]')
    page.get_by_test_id("btn-close").click()
    page.wait_for_selector('[data-testid="card-9S"].is-closer')
    assert page.locator('[data-testid="hand"] .is-closer').count() == 1
    assert_fits(page)
    page.get_by_test_id("card-9S").click()

    # Closed with 9S: 10 x 5 = 50 on top of the melds (15 + 25).
    page.wait_for_selector('[data-testid="game-over"]')
    assert page.get_by_test_id("close-bonus").inner_text().strip() == "+50"
    assert page.get_by_test_id("deal-points-0").inner_text() == "+90"
    assert page.get_by_test_id("total-0").inner_text() == "90"
    assert "closed with 9♠" in page.get_by_test_id("log").inner_text()
    assert_fits(page)


def test_daily_deal_to_the_end_and_the_leaderboard(server_factory, open_page: OpenPage) -> None:
    server = server_factory({"KARTU_DAILY_OPTIONS": json.dumps(DAILY_OPTIONS)})
    ana = new_guest(server.url, "Ana")
    page = open_page(f"{server.url}/", identity=ana)
    page.get_by_test_id("btn-daily").click()
    page.wait_for_selector('[data-testid="daily-game-indonesian_remi"]')
    assert "Not played" in page.get_by_test_id("daily-status-indonesian_remi").inner_text()
    play_daily(page, "indonesian_remi")
    score = int(page.get_by_test_id("total-0").inner_text())

    # From the table to the leaderboard: Ana's line is highlighted.
    page.get_by_test_id("daily-leaderboard-link").click()
    page.wait_for_selector('[data-testid="board-rows"] tr.is-you')
    row = page.locator('[data-testid="board-rows"] tr.is-you')
    assert "Ana" in row.inner_text() and str(score) in row.inner_text()
    assert page.get_by_test_id("board-game").input_value() == "indonesian_remi"
    assert "#1" in page.get_by_test_id("board-you").inner_text()
    page.wait_for_selector('[data-testid="stats-indonesian_remi"]')
    cells = page.locator('[data-testid="stats-indonesian_remi"] td').all_inner_texts()
    assert cells[1:3] == ["1", str(score)]
    assert "Ranked" in page.get_by_test_id("daily-status-indonesian_remi").inner_text()
    assert page.get_by_test_id("daily-play-indonesian_remi").inner_text() == "Practice"
