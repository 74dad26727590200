"""Around the Basic Rummy table: removing a bot before the start, playing again
at game over, the chat, and the table log that a reload brings back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import (
    OpenPage,
    Table,
    box,
    card_text,
    create_room,
    scenario,
    table_version,
    wait_version_past,
)
from tests.browser.game_rooms import PHONE, assert_fits, create_game_room
from tests.browser.test_table import DEAL, start_scenario_room
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

# Seat 0 (Ana) plays first: she draws KH, melds the ten spades and discards KH: out.
SPADES = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
OTHERS = ["2H", "4H", "6H", "8D", "TD", "QH", "3C", "5C", "9H", "KD"]
SHORT = scenario(
    dealer=1, hands=[SPADES, OTHERS], stock=["KH", "4C", "JC", "QS", "KS", "3D"], discard=["JD"]
)


def chat_lines(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            '[data-testid="chat-lines"] li[data-id]', "els => els.map(e => e.textContent)"
        )
    )


def open_chat(page: Any) -> None:
    page.get_by_test_id("chat-toggle").click()
    page.wait_for_selector('[data-testid="chat-body"]:not([hidden])')


def wait_chat_line(page: Any, text: str) -> None:
    page.wait_for_function(
        "text => [...document.querySelectorAll('[data-testid=\"chat-lines\"] li[data-id]')]"
        ".some(li => li.textContent.includes(text))",
        arg=text,
    )


def test_the_owner_removes_a_bot_before_the_start(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 3)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    me = Table(page)
    me.wait_phase("waiting")
    assert page.get_by_test_id("btn-remove-bot-0").count() == 0  # Ana's own seat
    for seat in (1, 2):
        me.by_id("btn-add-bot").click()
        page.wait_for_selector(f'[data-testid="seat-{seat}"].is-taken')

    me.by_id("btn-remove-bot-1").click()
    page.wait_for_selector('[data-testid="seat-1"].is-free')
    me.wait_log("The bot left seat 2.")
    assert page.get_by_test_id("btn-remove-bot-1").count() == 0
    assert page.get_by_test_id("btn-remove-bot-2").is_visible()

    # The free seat takes a bot again, and the game starts with it.
    me.by_id("btn-add-bot").click()
    page.wait_for_selector('[data-testid="seat-1"].is-taken')
    me.by_id("btn-start").click()
    me.wait_phase("playing")


def test_two_players_finish_and_one_click_plays_again(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    budi = new_guest(live_server.url, "Budi")
    room = create_room(live_server.url, ana, 2, scenario=SHORT, deals=1)
    ana_page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    me = Table(ana_page)
    me.wait_phase("waiting")
    budi_page = open_page(f"{live_server.url}/?room={room}", identity=budi)
    other = Table(budi_page)
    other.wait_phase("waiting")
    ana_page.wait_for_selector('[data-testid="seat-1"].is-taken')
    assert ana_page.get_by_test_id("btn-remove-bot-1").count() == 0  # Budi is no bot
    me.by_id("btn-start").click()
    me.wait_phase("playing")
    other.wait_phase("playing")

    me.wait_my_turn_to_draw()
    me.draw_stock()
    me.select(*SPADES)
    me.by_id("btn-meld").click()
    me.wait_hand_size(1)
    me.discard("KH")
    me.wait_phase("game_over")
    other.wait_phase("game_over")
    assert budi_page.get_by_test_id("btn-rematch").is_visible()

    budi_page.get_by_test_id("btn-rematch").click()
    other.wait_phase("playing")
    me.wait_phase("playing")
    me.wait_log("Budi asked to play again")
    other.wait_log("You asked to play again")
    # The same room, a new game: full hands again, and the same seats.
    assert f"room={room}" in ana_page.url and f"room={room}" in budi_page.url
    me.wait_hand_size(10)
    other.wait_hand_size(10)
    assert ana_page.get_by_test_id("table").get_attribute("data-you") == "0"
    assert budi_page.get_by_test_id("table").get_attribute("data-you") == "1"


def test_chat_between_a_player_and_a_spectator(live_server, open_page: OpenPage) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    room, page = start_scenario_room(live_server.url, ana, open_page)
    sam = new_guest(live_server.url, "Sam")
    watch_page = open_page(f"{live_server.url}/?room={room}&watch=1", identity=sam)
    Table(watch_page).wait_phase("playing")

    # Folded by default; Ana writes (markup stays text), Sam sees one unread line.
    assert watch_page.get_by_test_id("chat-body").is_hidden()
    open_chat(page)
    page.get_by_test_id("chat-input").fill("hello <b>there</b>")
    page.get_by_test_id("chat-send").click()
    wait_chat_line(page, "hello <b>there</b>")
    watch_page.wait_for_selector('[data-testid="chat-unread"]')
    assert watch_page.get_by_test_id("chat-unread").inner_text() == "1"
    open_chat(watch_page)
    wait_chat_line(watch_page, "hello <b>there</b>")
    assert watch_page.locator('[data-testid="chat-lines"] b').count() == 0
    assert watch_page.get_by_test_id("chat-unread").count() == 0

    # Sam's lines are marked as a spectator's and never reach Ana.
    watch_page.get_by_test_id("chat-input").fill("psst")
    watch_page.get_by_test_id("chat-send").click()
    wait_chat_line(watch_page, "psst")
    watch_page.get_by_test_id("chat-emote-gg").click()
    wait_chat_line(watch_page, "Good game!")
    spectator_lines = watch_page.locator('[data-testid="chat-lines"] li[data-channel="spectators"]')
    assert spectator_lines.count() == 2
    assert "watching" in spectator_lines.first.text_content()

    # Ana's emote reaches Sam; a refused line shows the refusal, in words.
    page.get_by_test_id("chat-emote-thanks").click()
    wait_chat_line(watch_page, "Thanks!")
    page.get_by_test_id("chat-send").click()
    page.wait_for_selector('[data-testid="chat-error"]:not([hidden])')
    assert page.get_by_test_id("chat-error").inner_text() == "Write something, or pick an emote."
    # It is said again in the language the player switches to, then back.
    page.get_by_test_id("lang-select").select_option("fr")
    expect(page.get_by_test_id("chat-error")).to_have_text(
        "Écrivez quelque chose, ou choisissez un émoji.")
    page.get_by_test_id("lang-select").select_option("en")
    expect(page.get_by_test_id("chat-error")).to_have_text("Write something, or pick an emote.")
    assert not any("psst" in line or "Good game" in line for line in chat_lines(page))

    # A reload fills the panel from the history, each line once.
    watch_page.reload()
    Table(watch_page).wait_phase("playing")
    open_chat(watch_page)
    wait_chat_line(watch_page, "Thanks!")
    lines = chat_lines(watch_page)
    assert len(lines) == 4, lines
    page.reload()
    Table(page).wait_phase("playing")
    open_chat(page)
    wait_chat_line(page, "Thanks!")
    assert len(chat_lines(page)) == 2, chat_lines(page)


def test_typing_in_the_chat_while_the_table_changes_keeps_every_letter(
    live_server, open_page: OpenPage
) -> None:
    """Each update renders the table again around the chat: the words being
    typed, and the focus, stay as they were."""
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(live_server.url, ana, "remmi_demmi", 4, fill_bots=True,
                            bot_delay_ms=150, timer_s=60, rounds=1)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    page.get_by_test_id("btn-start").click()
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    open_chat(page)
    page.get_by_test_id("chat-input").click()
    version = table_version(page)
    page.keyboard.type("good luck, ", delay=40)
    # The bots trade on: the table changes while Ana is halfway through.
    wait_version_past(page, version + 3)
    page.keyboard.type("everyone", delay=40)
    assert page.get_by_test_id("chat-input").input_value() == "good luck, everyone"
    page.keyboard.press("Enter")
    wait_chat_line(page, "good luck, everyone")


def test_a_reload_keeps_the_table_log_with_the_bot_moves_marked(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page)
    me = Table(page)
    me.wait_my_turn_to_draw()
    me.draw_stock()
    me.discard("KC")
    me.wait_discard_top_not("KC")
    me.wait_my_turn_to_draw()
    bot_top = me.discard_top()
    assert bot_top is not None

    page.reload()
    me.wait_phase("playing")
    me.wait_log(f"You discarded {card_text('KC')}")
    me.wait_log(f"discarded {card_text(bot_top)}")
    items = page.eval_on_selector_all(
        '[data-testid="log"] li', "els => els.map(e => [e.textContent, e.dataset.bot || ''])"
    )
    bot_lines = [text for text, mark in items if mark == "bot"]
    assert any(f"discarded {card_text(bot_top)}. (bot)" in text for text in bot_lines), items
    assert all(text.endswith("(bot)") for text in bot_lines), items
    mine = [mark for text, mark in items if text.startswith("You ")]
    assert mine and not any(mine), items
    assert sum(f"You discarded {card_text('KC')}" in text for text, _ in items) == 1, items


def test_on_a_phone_the_chat_folds_below_the_hand(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 2, scenario=DEAL, bot_delay_ms=150)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    me = Table(page)
    me.wait_phase("waiting")
    me.add_bots_and_start(1)
    me.wait_my_turn_to_draw()
    discard_before = page_box(page, "btn-discard")
    hand_box = page_box(page, "hand")
    assert page.get_by_test_id("chat-body").is_hidden()
    assert page.get_by_test_id("chat-toggle").bounding_box()["height"] < 60

    # Opened, the chat stays below the hand and the buttons, which do not move.
    open_chat(page)
    page.get_by_test_id("chat-emote-hi").click()
    wait_chat_line(page, "Hi!")
    assert_fits(page)
    assert page_box(page, "chat")["top"] > hand_box["bottom"]
    assert page_box(page, "btn-discard") == discard_before


def page_box(page: Any, testid: str) -> dict[str, float]:
    """Where an element is on the page (not the viewport): top and bottom."""
    found = box(page, f'[data-testid="{testid}"]')
    return {"top": found["top"] + found["scroll_y"], "bottom": found["bottom"] + found["scroll_y"]}
