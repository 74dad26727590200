"""The Remmi Demmi table in a real browser: offers, trades, claims, the check.

Seat 0 (the room's owner, the first to sit) deals the first round (RD-6), so
the human starts the timer. Four players: ten cards each, point men 4 and 3,
a claim names nine of the ten (RD-19).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import OpenPage, card_ids_in, record_frames
from tests.browser.game_rooms import (
    PHONE,
    assert_fits,
    assert_others_offer_in_view,
    create_game_room,
    hand,
    phase,
    select,
    start_with_bots,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

RD_CARD = re.compile(r"^[OPG][RJL][1-9]$")

# Ana is one orange card short of a Remmi (orange, running and jumping: RD-9);
# Bo holds it. Bot seat 2 is dealt a Remmi and claims as soon as the timer runs.
ANA = ["OR1", "OR2", "OR3", "OR4", "OJ1", "OJ2", "OJ3", "OJ4", "GL1", "PL1"]
BO = ["OR5", "OJ5", "PR2", "PJ1", "GL2", "GL3", "PL2", "PJ2", "OL1", "OL2"]
BOT2 = ["GR1", "GR2", "GR3", "GR4", "GR5", "GJ1", "GJ2", "GJ3", "GJ4", "PR1"]
BOT3 = ["GJ5", "PR3", "PR4", "PR5", "PJ3", "PJ4", "PJ5", "PL3", "OL3", "GL4"]


def rd_ids_in(value: Any) -> set[str]:
    return card_ids_in(value, RD_CARD)


def wait_trading(page: Any) -> None:
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')


def test_offer_to_the_bots_gets_an_answer_and_a_trade(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url,
        ana,
        "remmi_demmi",
        4,
        seed=7,
        timer_s=10,
        rounds=1,
        bot_delay_ms=100,
        round_pause_ms=30_000,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    start_with_bots(page)

    # Dealt: ten cards grouped by colour, the dealer's timer buttons.
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="dealt"]')
    before = hand(page)
    assert len(before) == 10
    assert page.locator(".rd-group").count() >= 1
    page.get_by_test_id("btn-group-figure").click()
    page.wait_for_selector('[data-testid="btn-group-figure"][aria-pressed="true"]')
    assert sorted(hand(page)) == sorted(before)
    assert page.get_by_test_id("btn-offer").is_disabled()  # no trading before the timer (RD-8)
    page.get_by_test_id("btn-start-lightning").click()
    wait_trading(page)

    # The countdown bar runs down from the server's deadline.
    left = int(page.get_by_test_id("rd-timer").get_attribute("data-left") or "0")
    assert 6 <= left <= 10
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=\"rd-timer\"]').dataset.left) < n",
        arg=left,
    )

    # Offer one card to anyone: a bot answers with one of its own.
    card = before[0]
    select(page, card)
    page.get_by_test_id("btn-offer").click()
    page.wait_for_selector('[data-testid^="trade-t"]', timeout=10_000)
    got = page.eval_on_selector_all(
        '[data-testid^="trade-got-"] [data-card]', "els => els.map(e => e.dataset.card)"
    )
    assert len(got) == 1 and got[0] not in before
    page.wait_for_selector(f'[data-testid="hand"] [data-testid="card-{got[0]}"]')
    after = hand(page)
    assert card not in after and got[0] in after and len(after) == 10
    assert "traded 1" in page.get_by_test_id("log").inner_text()

    # The round ends with the timer (or two claims): the check. With one round
    # the game is over unless nobody leads alone (RD-18: one more round).
    page.wait_for_selector('[data-testid="result"]', timeout=20_000)
    assert phase(page) in ("deal_over", "game_over")
    assert page.get_by_test_id("result-row-0").is_visible()
    assert page.get_by_test_id("rd-timer").get_attribute("data-stage") == "over"
    if phase(page) == "deal_over":
        assert "one more round" in page.get_by_test_id("next-deal-in").inner_text()


def test_two_players_trade_a_spectator_sees_only_sizes_and_claims(
    live_server, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    bo = new_guest(live_server.url, "Bo")
    room = create_game_room(
        live_server.url,
        ana,
        "remmi_demmi",
        4,
        scenario={"hands": [ANA, BO, BOT2, BOT3]},
        timer_s=40,
        rounds=1,
        bot_delay_ms=100,
        round_pause_ms=0,
    )
    # A spectator, recording every frame it receives.
    sam = new_guest(live_server.url, "Sam")
    watch = open_page(f"{live_server.url}/?room={room}&watch=1", identity=sam)
    frames = record_frames(watch)
    watch.wait_for_selector('[data-testid="table"][data-phase="waiting"]')

    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    page.wait_for_selector('[data-testid="seat-0"].is-you')
    other = open_page(f"{live_server.url}/?room={room}", identity=bo)
    other.wait_for_selector('[data-testid="seat-1"].is-you')
    start_with_bots(page)
    assert sorted(hand(page)) == sorted(ANA)
    assert sorted(hand(other)) == sorted(BO)

    page.get_by_test_id("btn-start-snail").click()
    wait_trading(page)
    wait_trading(other)
    wait_trading(watch)

    # The bot with a Remmi claims at once and takes the 4.
    watch.wait_for_selector('[data-testid="claimed-2"]')
    watch.wait_for_selector('[data-testid="point-man-4"][data-free="false"]')

    # Bo offers two cards that are not a Demmi to Ana (RD-12); she answers with
    # two of hers, receives them locked, and returns the trade.
    select(other, "PR2", "GL2")
    other.get_by_test_id("rd-target").select_option("0")
    other.get_by_test_id("btn-offer").click()
    page.wait_for_selector('[data-testid="offer-1"][data-to="0"]')
    select(page, "GL1", "PL1")
    page.get_by_test_id("btn-answer-1").click()
    page.wait_for_selector('[data-testid="card-PR2"].is-locked')
    page.locator('[data-testid^="btn-return-"]').click()
    page.wait_for_selector('[data-testid^="trade-"][data-status="returned"]')
    other.wait_for_selector('[data-testid="hand"] [data-testid="card-PR2"]')
    assert sorted(hand(page)) == sorted(ANA)
    assert sorted(hand(other)) == sorted(BO)

    # Ana offers GL1 to Bo; everyone sees "Ana offers 1 to Bo", never the card.
    select(page, "GL1")
    page.get_by_test_id("rd-target").select_option("1")
    page.get_by_test_id("btn-offer").click()
    watch.wait_for_selector('[data-testid="offer-0"][data-size="1"][data-to="1"]')
    other.wait_for_selector('[data-testid="offer-0"][data-size="1"]')
    assert "to Bo" in watch.get_by_test_id("offer-0").inner_text()

    # Bo answers from the offer's row with OR5: the swap happens at once. The
    # row lies above his dock, where he can tap it without scrolling.
    select(other, "OR5")
    assert_others_offer_in_view(other)
    other.get_by_test_id("btn-answer-0").click()
    page.wait_for_selector('[data-testid="hand"] [data-testid="card-OR5"]')
    other.wait_for_selector('[data-testid="hand"] [data-testid="card-GL1"]')
    assert "GL1" not in hand(page) and "OR5" not in hand(other)
    page.wait_for_selector('[data-testid^="trade-got-"] [data-card="OR5"]')
    watch.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"log\"] li')]"
        ".some(li => li.textContent.includes('Ana and Bo traded 1'))"
    )
    assert not watch.locator("[data-card]").count()

    # Ana claims: with ten cards she names nine; the page picks the Remmi and
    # a second tap confirms. Both point men are taken: the round ends.
    page.get_by_test_id("btn-claim").click()
    page.wait_for_selector('[data-testid="btn-claim"].is-armed')
    chosen = page.eval_on_selector_all(
        '[data-testid="hand"] [aria-pressed="true"]', "els => els.map(e => e.dataset.card)"
    )
    assert sorted(chosen) == sorted(["OR1", "OR2", "OR3", "OR4", "OR5", "OJ1", "OJ2", "OJ3", "OJ4"])
    page.get_by_test_id("btn-claim").click()

    # The check: both claims revealed and valid; rounds=1 ends the game.
    watch.wait_for_selector('[data-testid="check-0"][data-valid="true"]', timeout=15_000)
    watch.wait_for_selector('[data-testid="check-2"][data-valid="true"]')
    watch.wait_for_selector('[data-testid="game-over"]')
    assert watch.get_by_test_id("total-2").inner_text() == "4"
    assert watch.get_by_test_id("total-0").inner_text() == "3"
    assert watch.locator('[data-testid="check-0"] [data-card="OR5"]').count() == 1

    # Until the check the spectator never received a card id.
    checked_at = next(
        i
        for i, f in enumerate(frames)
        if f.get("type") == "event" and f.get("event", {}).get("kind") == "checked"
    )
    early: set[str] = set()
    for frame in frames[:checked_at]:
        early |= rd_ids_in(frame)
    assert not early, early


def test_phone_frantic_hand_peek_and_trading_fit(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Anastasia-Longname")
    room = create_game_room(
        live_server.url,
        ana,
        "remmi_demmi",
        4,
        seed=11,
        frantic=True,
        # Bots that offer every 100 ms keep the floor moving under the Offer
        # button, and a 10 s round can end on a slow machine before it is tapped.
        timer_s=15,
        rounds=1,
        bot_delay_ms=1_000,
        round_pause_ms=30_000,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    start_with_bots(page)

    # Frantic: the hand is face down until the dealer's sign; a peek costs a point.
    page.wait_for_selector('[data-testid="btn-peek"]')
    assert page.locator('[data-testid="hand"] .card.is-back').count() == 10
    assert page.locator('[data-testid="hand"] [data-card]').count() == 0
    assert_fits(page)
    page.get_by_test_id("btn-peek").click()
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"score-0\"]').textContent.trim() === '-1 pts'"
    )
    assert len(hand(page)) == 10
    assert page.get_by_test_id("btn-reveal").is_visible()
    assert_fits(page)

    page.get_by_test_id("btn-start-snail").click()
    wait_trading(page)
    select(page, *hand(page)[:3])
    assert_fits(page)
    page.get_by_test_id("btn-offer").click()
    # On a phone the trades fold into a drawer, closed until tapped.
    page.wait_for_selector('[data-testid="offer-0"], [data-testid="trades"]')
    assert_fits(page)
    if page.get_by_test_id("trades").count():
        page.locator('[data-testid="trades"] summary').click()
        page.wait_for_selector('[data-testid^="trade-t"]')
        assert_fits(page)
    page.wait_for_selector('[data-testid="result"]', timeout=30_000)
    assert_fits(page)


# Nobody is dealt a Remmi; Ana's ten cards hold none either.
NO_REMMI = [ANA, BO, ["OL4", "PR1", "PL4", "GR1", "GR2", "GR3", "GJ1", "GJ2", "GL5", "PL5"], BOT3]


def test_after_a_wrong_claim_the_tie_break_round_says_so_on_a_small_phone(
    live_server, open_page: OpenPage
) -> None:
    """Ana claims nine cards that are no Remmi (-5); the bots, too slow to
    trade, claim nothing: three players share the lead after the only round,
    so a tie-break round follows (RD-18)."""
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url, ana, "remmi_demmi", 4, scenario={"hands": NO_REMMI},
        timer_s=10, rounds=1, bot_delay_ms=10_000, round_pause_ms=60_000,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, width=360, height=640)
    start_with_bots(page)
    header = page.locator(".table-title p")
    assert header.inner_text() == "Round 1 of 1"
    page.get_by_test_id("btn-start-snail").click()
    wait_trading(page)
    page.get_by_test_id("btn-claim").click()
    page.wait_for_selector('[data-testid="btn-claim"].is-armed')
    page.get_by_test_id("btn-claim").click()
    page.wait_for_selector('[data-testid="my-claim"]')
    assert "face down" in page.get_by_test_id("my-claim").inner_text()

    # The check: the claim lies face up in the results, and the dock no longer
    # says it is face down (nor covers the results with it), in any language.
    page.wait_for_selector('[data-testid="check-0"][data-valid="false"]', timeout=20_000)
    page.wait_for_selector('[data-testid="table"][data-phase="deal_over"]')
    for lang in ("en", "fr"):
        page.get_by_test_id("lang-select").select_option(lang)
        page.wait_for_selector(f'html[lang^="{lang}"]')
        assert page.get_by_test_id("my-claim").count() == 0
        assert page.locator('[data-testid="check-0"] [data-card]').count() == 9
        assert_fits(page)

    # The next round breaks the tie: its header does not count it among the rounds.
    page.get_by_test_id("btn-next-deal").click()
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    assert header.inner_text() == "Manche supplémentaire 1"
    page.get_by_test_id("lang-select").select_option("en")
    page.wait_for_selector('html[lang^="en"]')
    assert header.inner_text() == "Tie-break round 1"


# Each group's label, measured in the page: is its name cut, is it shown at all,
# and is its mark (the colour's dot or the figure's drawing) shown.
GROUP_LABELS = """() => [...document.querySelectorAll('[data-testid="hand"] .rd-group')]
  .map((g) => {
  const name = g.querySelector('.rd-group-name');
  const mark = g.querySelector('.rd-group-mark');
  const shown = (el) => !!el && el.getBoundingClientRect().width > 1.5;
  return {
    group: g.dataset.group,
    nameShown: shown(name),
    nameCut: !!name && name.scrollWidth > name.clientWidth + 0.5,
    markShown: shown(mark),
    name: name ? name.textContent : '',
  };
})"""


def test_a_one_card_group_is_named_whole_or_marked_on_the_smallest_phone(
    live_server, open_page: OpenPage
) -> None:
    """Ana's one purple and one green card make groups one card wide: on a
    320 px phone, in every language and both groupings, a group's name shows
    whole or gives way to its colour's dot or its figure's drawing, never a
    word cut to "GR…"."""
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url, ana, "remmi_demmi", 4, scenario={"hands": [ANA, BO, BOT2, BOT3]},
        timer_s=60, rounds=1, bot_delay_ms=10_000,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, width=320, height=568)
    start_with_bots(page)
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    for lang in ("en", "id", "fr", "nb", "sr"):
        page.get_by_test_id("lang-select").select_option(lang)
        page.wait_for_selector(f'html[lang^="{lang}"]')
        for mode in ("colour", "figure"):
            page.get_by_test_id(f"btn-group-{mode}").click()
            page.wait_for_selector(f'[data-testid="btn-group-{mode}"][aria-pressed="true"]')
            labels = page.evaluate(GROUP_LABELS)
            assert len(labels) == 3, labels
            for label in labels:
                assert not (label["nameShown"] and label["nameCut"]), (lang, mode, label)
                assert label["nameShown"] or label["markShown"], (lang, mode, label)
                assert label["name"], (lang, mode, label)  # still read out
            assert_fits(page)

    # "Allongé" over two cards: a mark on the phone, its name on a wider window,
    # a mark again once the window is the phone's again.
    page.get_by_test_id("lang-select").select_option("fr")
    page.wait_for_selector('html[lang^="fr"]')
    page.get_by_test_id("btn-group-figure").click()
    lying = f"() => ({GROUP_LABELS})().find((l) => l.group === 'L')"
    assert not page.evaluate(lying)["nameShown"]
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_function(f"() => ({lying})().nameShown")
    page.set_viewport_size({"width": 320, "height": 568})
    page.wait_for_function(f"() => !({lying})().nameShown && ({lying})().markShown")
