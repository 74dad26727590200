"""The lobby in a real browser: name, open a table, fill it with a bot, play by clicking."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import OpenPage, Table, card_text, create_room
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser


def test_lobby_to_a_game_against_a_bot(live_server, open_page: OpenPage) -> None:
    page = open_page(live_server.url + "/")

    # A name first: the guest is kept in localStorage.
    page.get_by_test_id("name-input").fill("Ana")
    page.get_by_test_id("btn-save-name").click()
    page.get_by_test_id("identity-name").wait_for()
    assert page.get_by_test_id("identity-name").inner_text() == "Ana"
    assert page.get_by_test_id("whoami").inner_text() == "Ana"

    # Open a two-seat Basic Rummy table with quick bots.
    assert page.get_by_test_id("create-game").input_value() == "basic_rummy"
    page.get_by_test_id("create-seats").select_option("2")
    page.get_by_test_id("opt-bot_delay_ms").fill("0.2")  # seconds
    page.get_by_test_id("opt-deals").fill("3")
    page.get_by_test_id("btn-create").click()

    # The waiting room: the URL is the invite link, the owner adds a bot and starts.
    page.wait_for_url(re.compile(r"/\?room="))
    table = Table(page)
    table.wait_phase("waiting")
    assert page.get_by_test_id("invite-link").input_value() == page.url
    page.get_by_test_id("btn-add-bot").click()
    page.wait_for_selector('[data-testid="seat-1"].is-taken')
    assert page.get_by_test_id("btn-add-bot").is_disabled()  # no free seat left
    page.get_by_test_id("btn-start").click()
    table.wait_phase("playing")
    assert page.get_by_test_id("phase").get_attribute("data-phase") == "playing"
    assert len(table.hand()) == 10

    table.record_turns()
    for turn in range(3):
        # With two players the non-dealer starts, so either seat may open the game.
        table.wait_my_turn_to_draw()
        assert page.get_by_test_id("table").get_attribute("data-turn") == "0"
        clock = page.get_by_test_id("turn-clock")
        assert re.fullmatch(r"\d+:\d\d", clock.inner_text().strip())
        if turn == 0:
            # The clock runs down from the server's deadline.
            from playwright.sync_api import expect  # here: the fixtures skip without it

            first = clock.inner_text()
            expect(clock).not_to_have_text(first, timeout=5000)
        stock_before = table.stock_count()
        table.draw_stock()
        assert table.stock_count() == stock_before - 1
        assert page.get_by_test_id("status").inner_text().startswith("Your turn")
        card = table.hand()[-1]
        table.discard(card)
        table.wait_log(f"You discarded {card_text(card)}")
        # The bot draws and discards on top of that card, then it is our turn again.
        table.wait_discard_top_not(card)

    table.wait_my_turn_to_draw()
    turns = table.recorded_turns()
    # The highlight went 0 -> 1 -> 0 three times: the turn passed to the bot and back.
    assert "".join(t for t in turns if t in "01").count("01") >= 3, turns
    assert page.get_by_test_id("seat-0").get_attribute("data-turn") == "true"
    assert page.get_by_test_id("seat-1").get_attribute("data-turn") == "false"
    assert "is-you" in page.get_by_test_id("seat-0").get_attribute("class")

    log = page.get_by_test_id("log").inner_text()
    assert "You discarded" in log
    assert re.search(r"\w+ drew from the stock", log)
    assert page.get_by_test_id("scores").is_visible()


def test_invite_link_takes_a_free_seat_then_watches_when_full(
    live_server, open_page: OpenPage
) -> None:
    owner = new_guest(live_server.url, "Olga")
    room = create_room(live_server.url, owner, 2, bot_delay_ms=0)
    host = open_page(f"{live_server.url}/?room={room}", identity=owner)
    Table(host).wait_phase("waiting")

    # A newcomer with the invite link picks a name and gets the free seat.
    guest = open_page(f"{live_server.url}/?room={room}")
    guest.get_by_test_id("join-prompt").wait_for()
    guest.get_by_test_id("name-input").fill("Ben")
    guest.get_by_test_id("btn-take-seat").click()
    Table(guest).wait_phase("waiting")
    guest.wait_for_selector('[data-testid="seat-1"].is-you')
    host.wait_for_selector('[data-testid="seat-1"].is-taken')
    assert "Ben" in host.get_by_test_id("seat-1").inner_text()
    # Only the owner may add bots or start.
    assert guest.get_by_test_id("btn-start").count() == 0

    # The table is full now: the same link lets a third guest watch.
    late = new_guest(live_server.url, "Cleo")
    watcher = open_page(f"{live_server.url}/?room={room}", identity=late)
    Table(watcher).wait_phase("waiting")
    banner = watcher.get_by_test_id("spectator-banner")
    banner.wait_for()
    assert "watching" in banner.inner_text().lower()
    assert watcher.get_by_test_id("table").get_attribute("data-you") == ""

    # The lobby lists the room with its players.
    lobby = open_page(live_server.url + "/", identity=late)
    row = lobby.get_by_test_id(f"room-{room}")
    row.wait_for()
    assert "2/2" in row.inner_text()
    assert lobby.get_by_test_id(f"btn-watch-{room}").is_visible()
    assert lobby.get_by_test_id(f"btn-join-{room}").count() == 0
