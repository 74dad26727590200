"""The Traditional Remi table in a real browser: a whole match against a bot.

Deal 1 is a scenario (seat 1 deals, so seat 0 plays first, TR-3b): Ana draws
9H1 and lays everything down in one turn: a run with lay-offs (one dragged,
two clicked), a set with a lay-off, then the last discard. That is a hunt
(TR-12): the bot takes its hand's value plus 25. Deal 2 comes from the
room's seed, chosen so that the bot goes out within a few turns (most
seeds take a dozen or more); Ana draws and discards until it does. The
match ends with the pot split (TR-14).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import OpenPage, scenario
from tests.browser.conftest import wait_meld_with as meld_with
from tests.browser.game_rooms import (
    PHONE,
    assert_fits,
    create_game_room,
    discard_drawn,
    draw_from_stock,
    gone,
    hand,
    phase,
    select,
    start_with_bots,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

ANA = ["3H1", "4H1", "5H1", "6H1", "7H1", "8H1", "9S1", "9D1", "9C1", "2D1"]
# No meld anywhere: A 3 5 7 8 10 Q K 2 6 -> 11+3+5+7+8+10+10+10+2+6 = 72 points.
BOT = ["AS1", "3C1", "5S1", "7D1", "8C1", "TS1", "QH1", "KD1", "2S2", "6C2"]
BOT_VALUE = 72
STOCK = ["9H1", "8S2", "4D2", "TH2", "3S2", "JD2", "5C2", "KS2"]
DEAL = scenario(dealer=1, hands=[ANA, BOT], stock=STOCK, discard=["KH2"])
STAKE = 50
# Deal 2 of this seed: the bot goes out after three of Ana's turns.
QUICK_SECOND_DEAL_SEED = 47


def drag(page: Any, card: str, target_selector: str) -> None:
    """Drags a hand card with the mouse and drops it on ``target_selector``."""
    source = page.get_by_test_id(f"card-{card}").bounding_box()
    target = page.locator(target_selector).bounding_box()
    assert source and target
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    page.mouse.move(source["x"] + 20, source["y"] - 20, steps=4)
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    page.wait_for_selector(f"{target_selector}.is-drop-hover")
    page.mouse.up()


def my_turn_to_draw(page: Any, timeout: int = 15_000) -> None:
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=timeout)


# A finished deal's result with a hunt, as the page shows it (null until it shows).
DEAL_RESULT = """() => {
    if (!document.querySelector('[data-testid="result"] [data-testid="hunt"]')) return null;
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.innerText ?? null;
    const ids = ['penalty-0', 'penalty-1', 'total-1', 'log'];
    return Object.fromEntries(ids.map((id) => [id, text(id)]));
}"""


def test_a_whole_match_with_a_hunt_lay_offs_and_the_pot_split(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url,
        ana,
        "traditional_remi",
        2,
        scenario=DEAL,
        deals=2,
        stake=STAKE,
        bot_delay_ms=0,
        deal_pause_ms=2000,
        turn_clock_s=0,
        seed=QUICK_SECOND_DEAL_SEED,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    start_with_bots(page)

    # The deck number is marked on every card (ids carry it: 3H1).
    assert sorted(hand(page)) == sorted(ANA)
    assert page.locator('[data-testid="card-3H1"] .card-deck').text_content() == "1"
    assert page.get_by_test_id("discard-top").get_attribute("data-card") == "KH2"

    my_turn_to_draw(page)
    page.get_by_test_id("stock").click()
    page.wait_for_selector('[data-testid="card-9H1"]')

    # A run, then a lay-off by dragging the card onto it.
    select(page, "4H1", "5H1", "6H1")
    page.get_by_test_id("btn-meld").click()
    run = meld_with(page, ["4H1", "5H1", "6H1"])
    drag(page, "7H1", f'[data-testid="meld-{run}"]')
    gone(page, "7H1")
    meld_with(page, ["4H1", "5H1", "6H1", "7H1"])
    # Two more lay-offs by clicking the card, then the meld (both ends of the run).
    for card in ("8H1", "3H1"):
        select(page, card)
        page.get_by_test_id(f"meld-{run}").click()
        gone(page, card)
    assert meld_with(page, ["3H1", "4H1", "5H1", "6H1", "7H1", "8H1"]) == run

    # A set and a lay-off onto it; the last card goes out by the discard.
    select(page, "9S1", "9D1", "9C1")
    page.get_by_test_id("btn-meld").click()
    nines = meld_with(page, ["9S1", "9D1", "9C1"])
    select(page, "9H1")
    page.get_by_test_id(f"meld-{nines}").click()
    meld_with(page, ["9S1", "9D1", "9C1", "9H1"])
    assert hand(page) == ["2D1"]
    select(page, "2D1")
    page.get_by_test_id("btn-discard").click()

    # Deal 1 is over: Ana went out in one turn, a hunt. The result shows only
    # during the pause between the deals: read at once, the moment it shows.
    result = page.wait_for_function(DEAL_RESULT).json_value()
    assert result["penalty-1"].startswith(f"+{BOT_VALUE + 25}"), result
    assert result["penalty-0"] == "0", result
    assert result["total-1"] == str(BOT_VALUE + 25), result
    assert "hunt" in result["log"], result

    # Deal 2: draw and discard until the bot goes out.
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]', timeout=15_000)
    turns = 0
    while phase(page) == "playing":
        try:
            my_turn_to_draw(page, timeout=3_000)
        except Exception:
            continue
        before = draw_from_stock(page)
        if phase(page) != "playing":
            break
        discard_drawn(page, before)
        turns += 1
        assert turns < 80, "the bot never went out"

    # The match is over: the lowest total wins and the pot is split.
    page.wait_for_selector('[data-testid="game-over"]', timeout=15_000)
    assert phase(page) == "game_over"
    totals = [int(page.get_by_test_id(f"total-{s}").inner_text()) for s in (0, 1)]
    assert page.get_by_test_id("pot").inner_text() == f"{2 * STAKE} chips"
    payouts = [int(page.get_by_test_id(f"payout-{s}").inner_text()) for s in (0, 1)]
    assert sum(payouts) == 2 * STAKE
    assert page.get_by_test_id("pot-split").is_visible()
    # Deal 2 is the room's own shuffle: whatever the seed, a tie shares the pot.
    winners = [s for s in (0, 1) if totals[s] == min(totals)]
    if len(winners) == 2:
        assert payouts == [STAKE, STAKE]
    else:
        assert payouts[winners[0]] >= 75 * 2 * STAKE // 100
    for seat in (0, 1):
        classes = page.get_by_test_id(f"standing-{seat}").get_attribute("class") or ""
        assert ("is-winner" in classes) == (seat in winners)


def test_phone_table_fits_and_lays_off_by_tapping(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Anastasia-Longname")
    room = create_game_room(
        live_server.url,
        ana,
        "traditional_remi",
        2,
        scenario=DEAL,
        deals=1,
        stake=10,
        bot_delay_ms=0,
        turn_clock_s=0,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    start_with_bots(page)
    my_turn_to_draw(page)
    assert_fits(page)
    page.get_by_test_id("stock").click()
    page.wait_for_selector('[data-testid="card-9H1"]')
    select(page, "3H1", "4H1", "5H1", "6H1")
    page.get_by_test_id("btn-meld").click()
    run = meld_with(page, ["3H1", "4H1", "5H1", "6H1"])
    select(page, "7H1")
    page.get_by_test_id(f"meld-{run}").click()
    gone(page, "7H1")
    select(page, "9S1", "9D1", "9C1", "9H1")
    assert_fits(page)
    page.get_by_test_id("btn-meld").click()
    meld_with(page, ["9S1", "9D1", "9C1", "9H1"])
    select(page, "8H1")
    page.get_by_test_id(f"meld-{run}").click()
    gone(page, "8H1")
    select(page, "2D1")
    page.get_by_test_id("btn-discard").click()
    page.wait_for_selector('[data-testid="game-over"]')
    page.wait_for_selector('[data-testid="pot-split"]')
    assert_fits(page)
