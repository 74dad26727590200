"""Done when: a person on a phone, in Bahasa Indonesia, gets through a whole
game without scrolling to play.

A 390x844 touch screen with the browser's language ``id-ID`` (so the client
picks Indonesian by itself). At every action the buttons used and the hand
lie inside the viewport, uncovered, with the page not scrolled
(``window.scrollY`` stays 0); the button labels are checked against
static/js/lang/id.js and pages.id.js.

- Remmi Demmi with three bots: the rules from the table, the timer, an offer,
  the claim, the check, then the replay from game over stepped forward and back.
- Basic Rummy with a second person (a second page): a refusal shown as an
  Indonesian sentence (no rule id, no raw card id), the chat, the match to its
  end, and "Main lagi" that puts both into the new game in one click.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import (
    OpenPage,
    Table,
    phase,
    select_cards,
    tap_in_place,
    wait_hand_cards_at_least,
    wait_hand_settled,
)
from tests.browser.game_rooms import assert_fits, create_game_room, hand
from tests.browser.test_i18n import read_dict
from tests.browser.test_phone_tables import MEASURE, TOUCH_PX
from tests.browser.test_table_social import SHORT, SPADES, wait_chat_line
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "static" / "js"
ID = read_dict(STATIC / "lang" / "id.js")
ID_PAGES = read_dict(STATIC / "lang" / "pages.id.js")
EN = read_dict(STATIC / "lang" / "en.js")
PHONE_ID = {"width": 390, "height": 844, "touch": True, "locale": "id-ID"}

RULE_ID = re.compile(r"\b(BR|IR|TR|RD)-\d+")
RAW_CARD_ID = re.compile(r"\b[A2-9TJQK][SHDC]\d?\b|\b[OPG][RJL]\d\b")

# Remmi Demmi, four seats: Ana (seat 0, the dealer) holds a Remmi (oranges,
# running and jumping: RD-9) and one odd card; bot seat 2 holds one too and
# claims once the timer runs. Two claims take both point men: the round ends.
RD_ANA = ["OR1", "OR2", "OR3", "OR4", "OR5", "OJ1", "OJ2", "OJ3", "OJ4", "PL1"]
RD_BOT1 = ["GL1", "OJ5", "PR2", "PJ1", "GL2", "GL3", "PL2", "PJ2", "OL1", "OL2"]
RD_BOT2 = ["GR1", "GR2", "GR3", "GR4", "GR5", "GJ1", "GJ2", "GJ3", "GJ4", "PR1"]
RD_BOT3 = ["GJ5", "PR3", "PR4", "PR5", "PJ3", "PJ4", "PJ5", "PL3", "OL3", "GL4"]
RD_REMMI = RD_ANA[:9]


def in_view(page: Any, ids: list[str]) -> None:
    """Each of ``ids`` inside the viewport and uncovered, the page not scrolled;
    buttons and hand cards touch-sized."""
    wait_hand_settled(page)
    report: dict[str, Any] = page.evaluate(MEASURE, ids)
    assert report["scrollY"] == 0, f"the page scrolled: {report}"
    for testid in ids:
        item = report["items"][testid]
        assert item is not None, f"{testid} is missing"
        assert item["inside"], f"{testid} is not inside the viewport: {report}"
        assert not item["covered"], f"{testid} is covered: {report}"
        if testid.startswith("btn-"):
            assert item["height"] >= TOUCH_PX, f"{testid} is {item['height']} px tall"
    if page.locator('[data-testid="hand"] .card').count():
        wait_hand_cards_at_least(page, TOUCH_PX)
    assert_fits(page)


def tap(page: Any, testid: str, shown: list[str]) -> None:
    """Taps a button of the table once it, and ``shown``, are on screen as they are."""
    in_view(page, [*shown, testid])
    tap_in_place(page.get_by_test_id(testid))


def pick(page: Any, shown: list[str], *cards: str) -> None:
    """Taps hand cards (each inside the viewport first)."""
    in_view(page, [*shown, *(f"card-{c}" for c in cards)])
    select_cards(page, *cards, in_place=True)


def label(page: Any, testid: str) -> str:
    return " ".join(page.get_by_test_id(testid).inner_text().split())


def assert_indonesian(text: str) -> None:
    """A sentence meant for the player: no rule ids, no card ids, not English."""
    assert text.strip(), "empty"
    assert not RULE_ID.search(text), text
    assert not RAW_CARD_ID.search(text), text
    assert text not in EN.values(), f"English: {text}"


def check_rules(page: Any, game: str, shown: list[str]) -> None:
    """The Rules button at the table opens the game's rules in Indonesian."""
    rules = read_dict(STATIC / "rules" / f"{game}.js")["id"]
    assert label(page, "btn-rules") == ID_PAGES["rules.button"]
    at = page.evaluate("() => window.scrollY")
    page.get_by_test_id("btn-rules").click()
    dialog = page.get_by_test_id("rules-dialog")
    dialog.locator('[data-testid="rules"]').wait_for()
    assert dialog.get_by_test_id("rules-title").inner_text() == rules["title"]
    text = dialog.inner_text()
    assert all(section["title"] in text for section in rules["sections"]), text[:400]
    assert not RULE_ID.search(text) and not RAW_CARD_ID.search(text)
    dialog.get_by_test_id("rules-close").click()
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    assert page.evaluate("() => window.scrollY") == at
    in_view(page, shown)


# --- Remmi Demmi with bots, and its replay ----------------------------------------


def test_remmi_demmi_round_rules_and_replay_on_an_indonesian_phone(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url,
        ana,
        "remmi_demmi",
        4,
        fill_bots=True,
        scenario={"hands": [RD_ANA, RD_BOT1, RD_BOT2, RD_BOT3]},
        timer_s=20,
        rounds=1,
        bot_delay_ms=100,
        round_pause_ms=0,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE_ID)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    assert page.evaluate("() => document.documentElement.lang") == "id"
    assert label(page, "btn-start") == ID["table.start"]
    tap(page, "btn-start", [])
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="dealt"]')
    assert sorted(hand(page)) == sorted(RD_ANA)
    floor = ["rd-timer", "offers", "hand", "btn-offer", "btn-claim"]
    in_view(page, floor)

    # The rules, from the table, in Indonesian; the table is as it was.
    check_rules(page, "remmi_demmi", floor)

    # Ana deals: she starts the timer, then offers her odd card to anyone.
    assert label(page, "btn-start-snail").startswith(ID["rd.snail"])
    tap(page, "btn-start-snail", ["hand"])
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    pick(page, floor, "PL1")
    assert label(page, "btn-offer") == ID["rd.offer_n"].replace("{n}", "1")
    tap(page, "btn-offer", floor)
    # A bot answers the open offer; until it does, Ana may not claim (RD-13).
    page.wait_for_selector('[data-testid^="trade-t"]', state="attached")
    in_view(page, floor)

    # The claim: a first tap picks the Remmi, a second claims with it.
    tap(page, "btn-claim", floor)
    page.wait_for_selector('[data-testid="btn-claim"].is-armed')
    chosen = page.eval_on_selector_all(
        '[data-testid="hand"] [aria-pressed="true"]', "els => els.map(e => e.dataset.card)"
    )
    assert sorted(chosen) == sorted(RD_REMMI)
    assert label(page, "btn-claim") == ID["rd.claim_with"].replace("{n}", "9")
    tap(page, "btn-claim", ["hand"])

    # The check and the end of the game (one round, Ana and the bot both valid).
    # The round ends when the others claim or its 20 s timer runs out.
    page.wait_for_selector('[data-testid="check-0"][data-valid="true"]', timeout=40_000)
    page.wait_for_selector('[data-testid="game-over"]', timeout=20_000)
    assert page.get_by_test_id("total-0").inner_text() in ("3", "4")
    assert_indonesian(page.get_by_test_id("deal-notes").inner_text())

    # The replay from game over: forward and back, in Indonesian.
    assert label(page, "btn-replay") == ID_PAGES["replay.watch"]
    page.get_by_test_id("btn-replay").click()
    page.wait_for_selector('[data-testid="replay"][data-step="0"]')
    assert ID_PAGES["replay.next"] in label(page, "btn-replay-next")
    assert ID_PAGES["replay.prev"] in label(page, "btn-replay-prev")
    start = page.get_by_test_id("replay-action").inner_text()
    assert_indonesian(start)
    page.get_by_test_id("btn-replay-next").click()
    page.wait_for_selector('[data-testid="replay"][data-step="1"]')
    first = page.get_by_test_id("replay-action").inner_text()
    assert first != start
    assert_indonesian(first)
    page.get_by_test_id("btn-replay-next").click()
    page.wait_for_selector('[data-testid="replay"][data-step="2"]')
    page.get_by_test_id("btn-replay-prev").click()
    page.wait_for_selector('[data-testid="replay"][data-step="1"]')
    assert page.get_by_test_id("replay-action").inner_text() == first
    assert_fits(page)


# --- Basic Rummy with a second person: refusal, chat, play again ------------------


def test_basic_rummy_refusal_chat_and_play_again_on_an_indonesian_phone(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    budi = new_guest(live_server.url, "Budi")
    room = create_game_room(
        live_server.url, ana, "basic_rummy", 2, scenario=SHORT, deals=1, turn_clock_s=60
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE_ID)
    me = Table(page)
    me.wait_phase("waiting")
    other_page = open_page(f"{live_server.url}/?room={room}", identity=budi, locale="id-ID")
    other = Table(other_page)
    other.wait_phase("waiting")
    page.wait_for_selector('[data-testid="seat-1"].is-taken')
    tap(page, "btn-start", [])
    me.wait_phase("playing")
    other.wait_phase("playing")

    dock = ["stock", "discard-top", "hand", "btn-meld", "btn-discard"]
    assert label(page, "btn-meld").startswith(ID["btn.meld"])
    assert label(page, "btn-discard") == ID["btn.discard"]
    me.wait_my_turn_to_draw()
    in_view(page, dock)
    check_rules(page, "basic_rummy", dock)

    # Ana draws (KH), then tries a meld that is none: refused, in words.
    tap(page, "stock", dock)
    me.wait_hand_size(11)
    pick(page, dock, "AS", "2S", "KH")
    tap(page, "btn-meld", dock)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"error\"]').hidden")
    refusal = page.get_by_test_id("error").inner_text()
    assert_indonesian(refusal)
    assert me.melds() == {}
    in_view(page, [*dock, "error"])

    # The chat: Ana writes, Budi reads it.
    page.get_by_test_id("chat-toggle").click()
    page.wait_for_selector('[data-testid="chat-body"]:not([hidden])')
    assert page.get_by_test_id("chat-input").get_attribute("placeholder") == ID["chat.placeholder"]
    assert label(page, "chat-send") == ID["chat.send"]
    page.get_by_test_id("chat-input").fill("Halo Budi, ayo main!")
    page.get_by_test_id("chat-send").click()
    other_page.get_by_test_id("chat-toggle").click()
    wait_chat_line(other_page, "Halo Budi, ayo main!")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => window.scrollY === 0")

    # The ten spades, then KH to the discard pile: Ana is out, the match over.
    for card in ("AS", "2S", "KH"):
        tap_in_place(page.get_by_test_id(f"card-{card}"))
        page.wait_for_selector(f'[data-testid="card-{card}"][aria-pressed="false"]')
    pick(page, dock, *SPADES)
    tap(page, "btn-meld", dock)
    me.wait_hand_size(1)
    pick(page, dock, "KH")
    tap(page, "btn-discard", dock)
    me.wait_phase("game_over")
    other.wait_phase("game_over")

    # "Main lagi": one click, and both are in the new game in the same room.
    assert label(page, "btn-rematch") == ID["btn.rematch"]
    in_view(page, ["btn-rematch"])  # in the dock: no scrolling to play again
    page.get_by_test_id("btn-rematch").click()
    me.wait_phase("playing")
    other.wait_phase("playing")
    assert f"room={room}" in page.url and f"room={room}" in other_page.url
    me.wait_hand_size(10)
    other.wait_hand_size(10)
    assert page.get_by_test_id("table").get_attribute("data-you") == "0"
    assert other_page.get_by_test_id("table").get_attribute("data-you") == "1"
    assert phase(page) == phase(other_page) == "playing"
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => window.scrollY === 0")
    in_view(page, ["hand", "btn-meld", "btn-discard"])
