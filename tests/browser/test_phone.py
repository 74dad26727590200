"""A phone-sized screen (375x667): nothing overflows sideways and the hand fans out in one row;
the lobby names every game whole on the smaller phones."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.browser.conftest import (
    OpenPage,
    Table,
    box,
    boxes,
    create_room,
    no_horizontal_overflow,
    scenario,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
# Three players get seven cards each (BR-2); seat 2 deals, so seat 0 starts.
DEAL = scenario(
    dealer=2,
    hands=[
        ["9H", "TH", "JH", "4C", "4D", "QS", "2S"],
        ["8C", "9C", "TC", "QD", "3H", "6S", "KD"],
        ["5S", "5H", "5C", "2D", "JC", "AD", "8H"],
    ],
    stock=["4H", "7D", "3C", "6C", "KH", "AC", "9D", "JS", "TS", "3S", "6D", "7S"],
    discard=["KC"],
)


def assert_fits(page) -> None:
    report = no_horizontal_overflow(page)
    assert report["scrollWidth"] <= report["clientWidth"], report
    assert not report["wide"], report


def test_phone_screen_has_no_horizontal_overflow(live_server, open_page: OpenPage) -> None:
    lobby = open_page(live_server.url + "/", **PHONE)
    lobby.get_by_test_id("name-input").wait_for()
    assert_fits(lobby)

    ana = new_guest(live_server.url, "Anastasia-Longname")
    other = new_guest(live_server.url, "Bo")
    create_room(live_server.url, other, 4)
    room = create_room(live_server.url, ana, 3, scenario=DEAL, bot_delay_ms=100)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    table = Table(page)
    table.wait_phase("waiting")
    assert_fits(page)

    table.add_bots_and_start(1, 2)

    # Mid-game, melds from every seat on the table and a full hand selected.
    table.wait_my_turn_to_draw()
    table.draw_stock()
    table.meld("9H", "TH", "JH")
    table.discard("QS")
    table.wait_my_turn_to_draw()
    table.draw_stock()
    table.select(*table.hand())
    assert_fits(page)

    assert len(table.hand()) == 5
    assert box(page, '[data-testid="hand"]')["right"] <= PHONE["width"]

    # Back to the lobby, now with rooms listed: still no sideways scrolling.
    lobby.reload()
    lobby.get_by_test_id(f"room-{room}").wait_for()
    assert_fits(lobby)


def test_phone_hand_of_ten_fans_out_in_one_row(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 2, bot_delay_ms=100, fill_bots=True)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE, touch=True)
    table = Table(page)
    table.wait_phase("waiting")
    page.get_by_test_id("btn-start").click()  # fill_bots seats the bot
    table.wait_phase("playing")
    # Ten cards in one row, each over the last: all on screen, each showing a
    # strip wide and tall enough to tap.
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"hand\"] [data-card]').length === 10",
        timeout=5000,
    )
    cards = boxes(page, '[data-testid="hand"] [data-card]')
    assert len({round(c["top"]) for c in cards}) == 1, cards
    assert cards[0]["left"] >= 0 and cards[-1]["right"] <= PHONE["width"], cards
    assert all(c["height"] >= 44 for c in cards), cards
    strips = [b["left"] - a["left"] for a, b in pairwise(cards)]
    assert min(strips) >= 24, strips
    assert_fits(page)


# The widest option of a picker against the room its box leaves for words.
PICKER_TEXT = """(sel) => {
    const s = document.querySelector(sel), cs = getComputedStyle(s);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const need = Math.max(...[...s.options].map(o => pen.measureText(o.text).width));
    const arrow = 20;  // the picker's own arrow, inside its right padding or beside it
    return {need, room: s.clientWidth - parseFloat(cs.paddingLeft) - arrow};
}"""


@pytest.mark.parametrize("size", [{"width": 360, "height": 640}, {"width": 320, "height": 568}])
def test_the_lobby_names_every_game_whole_on_a_phone(
        live_server, open_page: OpenPage, size: dict[str, int]) -> None:
    page = open_page(live_server.url + "/", identity=new_guest(live_server.url, "Ana"), **size)
    page.get_by_test_id("create-game").wait_for()
    for lang in ("en", "fr", "id", "nb", "sr"):
        page.get_by_test_id("lang-select").select_option(lang)
        page.wait_for_function("lang => document.documentElement.lang.split('-')[0] === lang",
                               arg=lang)
        page.wait_for_selector('[data-testid="create-game"] option[value="remmi_demmi"]',
                               state="attached")
        fit = page.evaluate(PICKER_TEXT, '[data-testid="create-game"]')
        assert fit["need"] <= fit["room"], (lang, fit)
        assert_fits(page)
