"""The daily page: today's games, leaderboards by day, your line, stats, seeds.

The test server shortens the Indonesian Remi daily deal to one quick deal
(``KARTU_DAILY_OPTIONS``). Two guests play it the same way, so they score the
same and share the first rank.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import OpenPage
from tests.browser.game_rooms import DAILY_OPTIONS, PHONE, assert_fits, play_daily
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser


def test_your_line_below_the_top_a_past_day_and_player_stats(
    server_factory, open_page: OpenPage
) -> None:
    server = server_factory({"KARTU_DAILY_OPTIONS": json.dumps(DAILY_OPTIONS)})
    ana = new_guest(server.url, "Ana")
    bo = new_guest(server.url, "Bo")
    first = open_page(f"{server.url}/?daily", identity=ana)
    first.wait_for_selector('[data-testid="daily-game-indonesian_remi"]')
    # Today's seed is published as a hash only.
    today_hash = first.get_by_test_id("daily-hash-indonesian_remi").inner_text()
    assert "…" in today_hash
    play_daily(first)
    score = int(first.get_by_test_id("total-0").inner_text())

    page = open_page(f"{server.url}/?daily", identity=bo)
    page.wait_for_selector('[data-testid="daily-game-indonesian_remi"]')
    play_daily(page)
    assert int(page.get_by_test_id("total-0").inner_text()) == score

    # A board of one line: Ana finished first; Bo's own line follows, highlighted.
    page.goto(f"{server.url}/?daily&game=indonesian_remi&limit=1")
    page.wait_for_selector('[data-testid="board-rows"] tr.is-you.is-outside')
    rows = page.locator('[data-testid="board-rows"] tbody tr')
    assert "Ana" in rows.nth(0).inner_text()
    assert "Bo" in page.locator("tr.is-you").inner_text()
    assert "#1" in page.get_by_test_id("board-you").inner_text()
    assert "of 2" in page.get_by_test_id("board-you").inner_text()
    assert len(page.get_by_test_id("board-seed-hash").inner_text()) == 64

    # A player's stats, by clicking their name; then back to your own.
    page.wait_for_selector('[data-testid="stats-indonesian_remi"]')
    page.locator('[data-testid="board-rows"] .board-name', has_text="Ana").click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"player-stats\"] h2')"
        ".textContent.includes('Ana')"
    )
    cells = page.locator('[data-testid="stats-indonesian_remi"] td').all_inner_texts()
    assert cells[1:3] == ["1", str(score)]

    # The day before: nobody played, and its seed is revealed and checked
    # against its hash in the page.
    page.get_by_test_id("board-prev").click()
    page.wait_for_selector('[data-testid="board-empty"]')
    page.wait_for_selector('[data-testid="seed-verified"]')
    assert page.get_by_test_id("board-seed-value").inner_text().isdigit()
    assert "date=" in page.url
    page.get_by_test_id("board-next").click()
    page.wait_for_selector('[data-testid="board-rows"] tr.is-you')
    assert page.get_by_test_id("board-next").is_disabled()

    # On the narrowest phone, in every language, the stats show every column
    # without the page (or the table) scrolling sideways.
    page.set_viewport_size({"width": 320, "height": 568})
    for lang in ("en", "fr", "id", "nb", "sr"):
        page.get_by_test_id("lang-select").select_option(lang)
        page.wait_for_selector(f'html[lang^="{lang}"]')
        page.wait_for_selector('[data-testid="stats-indonesian_remi"]')
        assert_fits(page)
        box = page.locator('[data-testid="player-stats"] .stats-table').evaluate(
            "t => ({table: t.getBoundingClientRect().width,"
            " box: t.parentElement.getBoundingClientRect().width})")
        assert box["table"] <= box["box"], (lang, box)


def test_phone_daily_page_asks_a_name_then_deals(server_factory, open_page: OpenPage) -> None:
    server = server_factory({"KARTU_DAILY_OPTIONS": json.dumps(DAILY_OPTIONS)})
    page = open_page(f"{server.url}/", **PHONE)
    page.get_by_test_id("btn-daily").click()
    page.wait_for_selector('[data-testid="daily-game-indonesian_remi"]')
    page.wait_for_selector('[data-testid="board-empty"]')
    assert_fits(page)
    # Without a name the page asks for one before dealing.
    page.get_by_test_id("daily-play-traditional_remi").click()
    page.get_by_test_id("error").wait_for()
    page.get_by_test_id("name-input").fill("Cy")
    page.get_by_test_id("btn-save-name").click()
    page.wait_for_selector('[data-testid="name-input"]', state="detached")
    page.get_by_test_id("daily-play-indonesian_remi").click()
    page.wait_for_selector('[data-testid="daily-strip"]')
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    assert_fits(page)
