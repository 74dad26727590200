"""The plain table (static/js/table_generic.js): what the browser shows of a
game it has no table of its own for, here High Card (tests/app/high_card.py),
a game served by one module and two registry lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.high_card import serving
from tests.browser.conftest import OpenPage, Table
from tests.browser.game_rooms import TOUCH_PHONE, assert_fits
from tests.wsclient import new_guest

# A card id as the server names it ("KS", "TD"), which a player never reads.
CARD_ID = re.compile(r"\b[A2-9TJQK][SHDC]\b")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with serving(tmp_path) as url:
        yield url


def test_a_game_without_a_table_of_its_own_is_followed_in_plain_words(
    server: str, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    ana = new_guest(server, "Ana")
    # The lobby offers it by its title, like every game, and opens its table.
    page = open_page(f"{server}/", identity=ana, **TOUCH_PHONE)
    pick = page.get_by_test_id("create-game")
    expect(pick.locator('option[value="high_card"]')).to_have_text("High Card")
    pick.select_option("high_card")
    page.get_by_test_id("btn-create").click()
    table = Table(page)
    table.wait_phase("waiting")
    table.add_bots_and_start(1)
    # Named as the server names it, the lobby's words.
    expect(page.locator(".table-title h1")).to_have_text("High Card")

    # Seats, scores and the moves, in words; no way to play that would fail.
    expect(page.get_by_test_id("status")).to_have_text(
        "This game cannot be played in the browser yet: you can follow the seats, "
        "scores and moves.")
    scores = page.get_by_test_id("scores")
    expect(scores).to_contain_text("You")
    expect(scores).to_contain_text("Ada")  # the bot
    assert page.get_by_test_id("btn-discard").count() == 0
    # It is Ana's turn in the game, but nothing calls her to act where she cannot.
    expect(page.get_by_test_id("phase")).to_have_text("Playing")
    assert not CARD_ID.search(page.inner_text("body")), page.inner_text("body")
    assert_fits(page)

    # The same in another language.
    page.get_by_test_id("lang-select").select_option("fr")
    expect(page.get_by_test_id("status")).not_to_contain_text("cannot be played")
    assert_fits(page)
