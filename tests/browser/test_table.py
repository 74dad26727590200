"""The Basic Rummy table in a real browser, on scenario deals (``options.scenario``).

Seat 0 is the human, seat 1 a bot; seat 1 deals, so seat 0 plays first (BR-9).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import (
    OpenPage,
    Table,
    card_ids_in,
    card_text,
    create_room,
    record_frames,
    scenario,
    table_version,
    wait_version_past,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

ANA = ["AS", "2S", "3S", "5S", "7H", "7D", "7C", "9S", "JD", "KC"]
BOT = ["2H", "4H", "6H", "8D", "TD", "QH", "3C", "5C", "9H", "KD"]
STOCK = ["4S", "8C", "QC", "6D", "2D", "TC", "4C", "JC", "QS", "8S", "KS", "3D", "5D", "TH"]
DEAL = scenario(dealer=1, hands=[ANA, BOT], stock=STOCK, discard=["JS"])


def start_scenario_room(
    base_url: str, guest: dict[str, Any], open_page: OpenPage, **options: Any
) -> tuple[str, Any]:
    room = create_room(base_url, guest, 2, scenario=DEAL, **{"bot_delay_ms": 150, **options})
    page = open_page(f"{base_url}/?room={room}", identity=guest)
    table = Table(page)
    table.wait_phase("waiting")
    table.add_bots_and_start(1)
    return room, page


def test_melds_lay_offs_and_a_spectator_who_never_sees_a_hand(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 2, scenario=DEAL, bot_delay_ms=150)

    # Another guest in another browser context watches; record every frame it gets.
    sam = new_guest(live_server.url, "Sam")
    watch_page = open_page(f"{live_server.url}/?room={room}&watch=1", identity=sam)
    frames = record_frames(watch_page)
    watcher = Table(watch_page)
    watcher.wait_phase("waiting")
    assert watch_page.get_by_test_id("spectator-banner").is_visible()

    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    me = Table(page)
    me.wait_phase("waiting")
    me.add_bots_and_start(1)
    watcher.wait_phase("playing")

    assert sorted(me.hand()) == sorted(ANA)
    assert watch_page.get_by_test_id("hand").count() == 0
    assert not watcher.visible_card_ids() & set(ANA)
    assert watcher.stock_count() == len(STOCK)
    assert watcher.discard_top() == "JS"

    # Turn 1: draw 4S, meld A-2-3-4 of spades, lay off 5S on it, discard KC.
    me.wait_my_turn_to_draw()
    me.draw_stock()
    assert "4S" in me.hand()
    watch_page.wait_for_function(
        "n => document.querySelector('[data-testid=\"stock-count\"]').textContent === String(n)",
        arg=len(STOCK) - 1,
    )
    before_any_meld = len(frames)
    run = me.meld("AS", "2S", "3S", "4S")
    me.lay_off("5S", run)
    assert me.melds()[run] == ["AS", "2S", "3S", "4S", "5S"]
    me.discard("KC")

    # The spectator sees the meld with the laid-off card and the discard.
    watcher.wait_meld_with(["AS", "2S", "3S", "4S", "5S"])
    watcher.wait_log(f"Ana discarded {card_text('KC')}")
    hidden = {"7H", "7D", "7C", "9S", "JD"}
    assert not watcher.visible_card_ids() & hidden

    # The bot plays its turn (its discard covers KC); then Ana takes that
    # discard and melds the sevens.
    me.wait_discard_top_not("KC")
    me.wait_my_turn_to_draw()
    taken = me.take_discard()
    assert page.get_by_test_id(f"card-{taken}").get_attribute("class").count("is-locked") == 1
    sevens = me.meld("7H", "7D", "7C")
    assert sevens != run
    me.discard("JD")
    watcher.wait_meld_with(["7H", "7D", "7C"])
    watcher.wait_log(f"Ana took {card_text(taken)} from the discard pile")
    watcher.wait_log(f"Ana discarded {card_text('JD')}")

    # Turn 3: a plain draw and discard.
    me.wait_discard_top_not("JD")
    me.wait_my_turn_to_draw()
    me.draw_stock()
    drawn = next(c for c in me.hand() if c not in {"9S", taken})
    me.discard(drawn)
    watcher.wait_log(f"Ana discarded {card_text(drawn)}")
    # Once the bot has played, both pages agree on the stock while Ana thinks.
    me.wait_discard_top_not(drawn)
    me.wait_my_turn_to_draw()
    watch_page.wait_for_function(
        "n => document.querySelector('[data-testid=\"stock-count\"]').textContent === String(n)",
        arg=me.stock_count(),
    )

    # The seat chips show hand sizes, never cards. 9S never left Ana's hand, and
    # nothing of her hand was public before her first meld: the spectator's
    # frames never carried any of it.
    assert watch_page.get_by_test_id("hand-count-0").inner_text() == "2 cards"
    assert "9S" not in watcher.visible_card_ids()
    assert frames, "the spectator page received no frames"
    early: set[str] = set()
    for frame in frames[:before_any_meld]:
        early |= card_ids_in(frame)
    assert not early & (set(ANA) | {"4S"})
    seen_on_the_wire: set[str] = set()
    for frame in frames:
        seen_on_the_wire |= card_ids_in(frame)
    assert "9S" not in seen_on_the_wire
    assert not any("hand" in (f.get("view") or {}) for f in frames if f.get("type") == "state")
    log = watch_page.get_by_test_id("log").inner_text()
    assert "Ana melded" in log and "Ana laid off" in log


def test_a_refused_action_shows_an_inline_error(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page)
    me = Table(page)
    dialogs: list[Any] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog))
    me.wait_my_turn_to_draw()
    error = page.get_by_test_id("error")
    assert error.is_hidden()

    # Discarding before drawing is always refused: the button is greyed out and
    # says why, on hover (title) and, tapped, in the hint line.
    from playwright.sync_api import expect  # here: the fixtures skip without it

    me.select("KC")
    discard = page.get_by_test_id("btn-discard")
    assert discard.is_disabled()
    assert "draw" in (discard.get_attribute("title") or "").lower()
    page.get_by_test_id("btn-discard-why").click()
    expect(page.get_by_test_id("hint")).to_contain_text("Draw a card first")
    assert page.get_by_test_id("btn-meld").is_disabled()
    assert sorted(me.hand()) == sorted(ANA)
    assert page.get_by_test_id("card-KC").get_attribute("aria-pressed") == "true"

    # A meld that is no meld is refused the same way.
    me.draw_stock()
    assert error.is_hidden()
    page.get_by_test_id("card-KC").click()  # deselect
    me.select("9S", "JD", "KC")
    page.get_by_test_id("btn-meld").click()
    page.wait_for_function("() => !document.querySelector('[data-testid=\"error\"]').hidden")
    assert error.inner_text()
    assert len(me.hand()) == 11
    assert me.melds() == {}
    assert not dialogs, "errors belong inline, not in dialogs"


def test_a_press_begun_before_an_update_still_selects_the_card(
    live_server, open_page: OpenPage
) -> None:
    """The server's updates arrive at any moment: one that lands between the
    press on a card and its release must not swallow the tap, nor the focus."""
    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page, bot_delay_ms=1500)
    me = Table(page)
    me.wait_my_turn_to_draw()
    me.draw_stock()
    me.discard("KC")

    # Ana presses 9S and holds it until the bot's next move reaches her page.
    version = table_version(page)
    card = page.get_by_test_id("card-9S")
    box = card.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    wait_version_past(page, version)
    page.mouse.up()
    page.wait_for_selector('[data-testid="card-9S"][aria-pressed="true"]', timeout=2_000)
    assert page.evaluate("() => document.activeElement.dataset.testid") == "card-9S"


# A page's drawer patched with trees built open or shut (static/js/dom.js):
# whether it is open after each patch that follows the reader's own toggle.
DRAWER_SCRIPT = """async () => {
  const { h, patch } = await import('/static/js/dom.js');
  const build = (open) => h('div', null,
    h('details', { testid: 'drawer', open }, h('summary', null, 'Trades'),
      h('p', null, 'a trade')));
  const page = build(false);
  document.body.append(page);
  const drawer = page.querySelector('details');
  drawer.open = true;  // the reader opens it; the update was built before the toggle told anyone
  patch(page, build(false));
  const keptOpen = page.querySelector('details') === drawer && drawer.open;
  drawer.open = false;  // and shuts it again
  patch(page, build(true));
  page.remove();
  return [keptOpen, drawer.open];
}"""


def test_a_drawer_stays_as_the_player_left_it_through_updates(
    live_server, open_page: OpenPage
) -> None:
    page = open_page(live_server.url + "/")
    page.locator(".hero h1").wait_for()
    assert page.evaluate(DRAWER_SCRIPT) == [True, False]


def test_a_dropped_socket_or_a_reload_keeps_the_guest_and_the_seat(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room, page = start_scenario_room(live_server.url, ana, open_page)
    me = Table(page)
    me.wait_my_turn_to_draw()

    # The connection drops: the client reconnects by itself, re-joins, and plays on.
    version = table_version(page)
    with page.expect_websocket() as reconnected:
        page.evaluate("() => window.kartu.socket.ws.close()")
    assert f"token={ana['token']}" in reconnected.value.url
    wait_version_past(page, version)
    assert sorted(me.hand()) == sorted(ANA)
    me.wait_my_turn_to_draw()
    me.draw_stock()
    hand = sorted(me.hand())

    page.reload()
    me.wait_phase("playing")
    page.wait_for_selector('[data-testid="seat-0"].is-you', state="attached")
    assert sorted(me.hand()) == hand
    assert page.get_by_test_id("table").get_attribute("data-you") == "0"
    assert page.get_by_test_id("whoami").inner_text() == "Ana"
    # Still in the play step of the same turn: discarding works.
    me.discard("KC")
    me.wait_discard_top_not("KC")
    me.wait_my_turn_to_draw()
    hand = sorted(me.hand())

    # Off to the lobby and back: the running game is listed with "Rejoin".
    page.get_by_test_id("brand").click()
    page.get_by_test_id(f"room-{room}").wait_for()
    page.get_by_test_id(f"btn-join-{room}").click()
    me.wait_phase("playing")
    page.wait_for_selector('[data-testid="stock"]:enabled')
    assert sorted(me.hand()) == hand
