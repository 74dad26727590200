"""Every table fits a phone: each game at its largest seat count shows the
piles, the turn's clock and the melds (Remmi Demmi: the timer, the point men
and the open offers), your hand and the action buttons on one screen, without
scrolling:
on a phone (390x844, a touch screen), the same phone held sideways (844x390),
a small phone (360x640), a phone as its browser leaves it with its bars shown
(375x548, an iPhone SE in Safari), the same held sideways (667x325), a
desktop (1366x900) and a laptop's short browser window (1366x650). Words are
longer in some languages than in English: each language the client offers is
checked on the three smallest phones too (and Remmi Demmi's target picker on
the laptop), so no label pushes the table off them; a turn-based table and a
waiting room go through the languages with the top bar's picker. Another
trader's first open offer shows whole above the dock, and a tap reaches its
Trade button. Held sideways with the bars, a greyed-out button's reason or a
refused move's sentence shown in the dock leaves the piles above it, in every
language.

Read from the page with getBoundingClientRect after scrolling to the top: an
element counts as shown when it lies inside the viewport and nothing covers
its centre (the sticky action bar must not hide the piles), and no part of
the piles (their cards, their captions) lies under the dock. On the phone the
buttons and hand cards are touch targets, at least 44 px tall; nothing sticks
out sideways (the opponent strip and the offers scroll inside themselves).

On the small phone, melds beyond a row scroll inside their box, never under
the dock. The host of a waiting room of nine seats reaches Add bot and Start
without scrolling, on every screen and in every language.

Remmi Demmi with nine players also trades six times: the trades fold into a
drawer after the hand (closed on the phone), so the hand, Offer and Claim stay
on screen; a claim leaves no large empty hand behind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.browser.conftest import (
    OpenPage,
    box,
    boxes,
    scenario,
    tap_in_place,
    wait_hand_cards_at_least,
    wait_hand_settled,
    wait_or_say,
)
from tests.browser.game_rooms import (
    DAILY_OPTIONS,
    DESKTOP,
    OTHERS_OFFER,
    TOUCH_PHONE,
    TOUCH_PHONE_SIDEWAYS,
    assert_fits,
    assert_others_offer_in_view,
    create_game_room,
    draw_from_stock,
    hand,
    play_to_the_end,
    select,
)
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 650}
# A desktop browser a little short for the full-size table: nine traders' chips
# take three rows there.
SMALL_DESKTOP = {"width": 1280, "height": 800}
# The smallest screen of phones still common (in CSS pixels).
SMALL_PHONE = {"width": 360, "height": 640, "touch": True}
# The narrowest phone still in use (an iPhone SE of the first kind, 320x568).
NARROW_PHONE = {"width": 320, "height": 568, "touch": True}
# A phone upright as its browser leaves it with its bars shown (an iPhone SE in Safari).
PHONE_WITH_BARS = {"width": 375, "height": 548, "touch": True}
# The same phone held sideways, its bars shown.
PHONE_SIDEWAYS_WITH_BARS = {"width": 667, "height": 325, "touch": True}
# The narrowest phone held sideways.
NARROW_SIDEWAYS = {"width": 568, "height": 320, "touch": True}
VIEWPORTS = {"phone": TOUCH_PHONE, "phone-sideways": TOUCH_PHONE_SIDEWAYS,
             "small-phone": SMALL_PHONE, "narrow-phone": NARROW_PHONE,
             "phone-with-bars": PHONE_WITH_BARS,
             "sideways-with-bars": PHONE_SIDEWAYS_WITH_BARS,
             "desktop": DESKTOP, "laptop": LAPTOP, "small-desktop": SMALL_DESKTOP}
# The client's languages besides English (static/js/i18n.js), as browser locales.
OTHER_LANGUAGES = ["fr-FR", "id-ID", "nb-NO", "sr-RS"]
# The screens every language is checked on.
SMALL_PHONES = ["small-phone", "narrow-phone", "phone-with-bars", "sideways-with-bars"]
TOUCH_PX = 44
SHOT = "/tmp/phone_{game}.png"

# The largest table of each game (engine/games/*.py max_players).
LARGEST = {"basic_rummy": 6, "indonesian_remi": 4, "traditional_remi": 4, "remmi_demmi": 9}
# What must be on screen: the piles, the hand, the primary buttons.
SHOWN = {
    "basic_rummy": ["stock", "discard-top", "melds", "hand", "btn-meld", "btn-discard"],
    "traditional_remi": ["stock", "discard-top", "melds", "hand", "btn-meld", "btn-discard"],
    "indonesian_remi": ["stock", "discard", "melds", "hand", "btn-meld", "btn-discard"],
    "remmi_demmi": ["rd-timer", "point-men", "offers", "hand", "btn-offer", "btn-claim"],
}

MEASURE = """ids => {
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const out = {scrollY: window.scrollY, vw, vh, items: {}};
    for (const id of ids) {
        const el = document.querySelector(`[data-testid="${id}"]`);
        if (!el) { out.items[id] = null; continue; }
        const r = el.getBoundingClientRect();
        const x = Math.min(vw - 1, Math.max(0, r.left + r.width / 2));
        const y = Math.min(vh - 1, Math.max(0, r.top + r.height / 2));
        const hit = document.elementFromPoint(x, y);
        out.items[id] = {
            top: Math.round(r.top), bottom: Math.round(r.bottom),
            left: Math.round(r.left), right: Math.round(r.right),
            height: Math.round(r.height),
            inside: r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                && r.bottom <= vh + 0.5 && r.right <= vw + 0.5,
            covered: !hit || !(el.contains(hit) || hit.contains(el)),
            by: hit ? `${hit.tagName.toLowerCase()}.${hit.className}` : null,
        };
    }
    return out;
}"""


# The hand's cards on one screen: the leftmost and rightmost edges, and the
# narrowest part of a card left uncovered by the next one in its row.
HAND_SPREAD = """() => {
    const cards = [...document.querySelectorAll('[data-testid="hand"] .card')]
        .map((el) => el.getBoundingClientRect());
    let strip = Infinity;
    for (let i = 1; i < cards.length; i++) {
        if (Math.abs(cards[i].top - cards[i - 1].top) < 2) {
            strip = Math.min(strip, cards[i].left - cards[i - 1].left);
        }
    }
    return {left: Math.min(...cards.map((r) => r.left)),
            right: Math.max(...cards.map((r) => r.right)),
            strip, vw: document.documentElement.clientWidth};
}"""
# Enough of a card to see its corner and put a finger on it.
CARD_STRIP_PX = 8


# The buttons whose words must show whole (the stock's count sits over its edge on purpose).
CLIPPED_BUTTONS = """() => [...document.querySelectorAll(
        '.head-actions .btn, .me .controls .btn, .me .controls select, .waiting-dock .btn,'
        + ' .rd-offer .btn')]
    .filter(b => b.offsetParent && (b.scrollWidth > b.clientWidth + 1
        || b.scrollHeight > b.clientHeight + 1))
    .map(b => `${b.dataset.testid || b.className}: ${b.innerText || b.value} `
        + `(${b.scrollWidth}x${b.scrollHeight} px in ${b.clientWidth}x${b.clientHeight})`)"""


# The table's name and its deal line (the deal's number, the target) when shown
# on a phone upright: whole, never cut to "…" nor clipped to fewer lines.
TITLE_CUT = """() => [...document.querySelectorAll('.table-title h1, .table-title p')]
    .filter(el => el.offsetParent && (el.scrollWidth > el.clientWidth + 1
        || el.scrollHeight > el.clientHeight + 1))
    .map(el => `${el.innerText} (${el.scrollWidth}x${el.scrollHeight} px`
        + ` in ${el.clientWidth}x${el.clientHeight})`)"""


# Where an element lies against the top of the dock (the hand and its buttons).
ABOVE_THE_DOCK = """(testid) => {
    const el = document.querySelector(`[data-testid="${testid}"]`);
    if (!el) return null;
    const box = el.getBoundingClientRect();
    return {top: box.top, bottom: box.bottom,
            dockTop: document.querySelector('.felt > .me').getBoundingClientRect().top};
}"""


# The piles' parts (cards, captions) that lie under the dock: hidden by it.
PILES_UNDER_THE_DOCK = """() => {
    const dock = document.querySelector('.felt > .me');
    if (!dock) return [];
    const dockTop = dock.getBoundingClientRect().top;
    return [...document.querySelectorAll('.felt > .centre .pile > *')]
        .filter((el) => el.offsetParent && el.getBoundingClientRect().bottom > dockTop + 0.5)
        .map((el) => `${el.className} "${el.innerText}": bottom at `
            + `${Math.round(el.getBoundingClientRect().bottom)}, `
            + `the dock at ${Math.round(dockTop)}`);
}"""


@contextmanager
def in_language(page: Any, locale: str) -> Iterator[None]:
    """The page switched to ``locale``'s language with the top bar's picker,
    which renders the page again in it; a failure inside names the language."""
    lang = locale.split("-")[0]
    page.get_by_test_id("lang-select").select_option(lang)
    # "sr-Latn" for Serbian: the language, then its script.
    page.wait_for_function("lang => document.documentElement.lang.split('-')[0] === lang",
                           arg=lang)
    try:
        yield
    except AssertionError as err:
        raise AssertionError(f"in {locale}: {err}") from err


def at_top(page: Any) -> None:
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_function("() => window.scrollY === 0")
    wait_hand_settled(page)


def assert_on_screen(page: Any, ids: list[str], phone: bool) -> dict[str, Any]:
    """Each of ``ids`` shown in full at the top of the page; its buttons and the
    hand's cards touch-sized on a phone."""
    at_top(page)
    piles = ["discard-empty"] if "discard-top" in ids else []
    report: dict[str, Any] = page.evaluate(MEASURE, ids + piles)
    if piles:
        # An empty discard pile (a Traditional Remi deal starts with none) shows
        # its slot; measured in the same call, as a bot may discard at any time.
        empty = report["items"].pop("discard-empty")
        if report["items"]["discard-top"] is None:
            report["items"]["discard-top"] = empty
    assert report["scrollY"] == 0, report
    for testid in ids:
        item = report["items"][testid]
        assert item is not None, f"{testid} is missing"
        assert item["inside"], f"{testid} is not inside the viewport: {report}"
        assert not item["covered"], f"{testid} is covered: {report}"
        if phone and testid.startswith("btn-"):
            assert item["height"] >= TOUCH_PX, f"{testid} is {item['height']} px tall"
    if phone and page.locator('[data-testid="hand"] .card').count():
        wait_hand_cards_at_least(page, TOUCH_PX)
        assert_hand_spread(page)
    assert_fits(page)
    under = page.evaluate(PILES_UNDER_THE_DOCK)
    assert not under, f"piles under the dock: {under}"
    clipped = page.evaluate(CLIPPED_BUTTONS)
    assert not clipped, f"words cut: {clipped}"
    if phone and report["vw"] <= 560:
        cut = page.evaluate(TITLE_CUT)
        assert not cut, f"the table's name or deal cut: {cut}"
    return report


def assert_hand_spread(page: Any) -> None:
    """Every hand card inside the screen, at least CARD_STRIP_PX of each uncovered.
    Waited for, as the hand's cards slide in after a redraw."""
    wait_or_say(
        page,
        f"""(px) => {{
            const s = ({HAND_SPREAD})();
            return s.left >= 0 && s.right <= s.vw + 0.5 && s.strip >= px;
        }}""",
        CARD_STRIP_PX, 5_000,
        lambda: f"hand cards out of view: {page.evaluate(HAND_SPREAD)}",
    )


def assert_clock_above_the_dock(page: Any) -> None:
    """The turn's clock whole above the dock (sideways with the bars, without its words)."""
    page.get_by_test_id("turn-clock").wait_for()
    at_top(page)
    clock = page.evaluate(ABOVE_THE_DOCK, "turn-clock")
    assert clock is not None and clock["top"] >= 0 and clock["bottom"] <= clock["dockTop"], clock


def assert_opponent_strip(page: Any, phone: bool) -> None:
    """The opponents: on a phone one row of chips, however many there are."""
    tops = [round(b["top"]) for b in boxes(page, ".opponents > .seat")]
    assert tops
    if phone:
        assert len(set(tops)) == 1, f"opponents in {len(set(tops))} rows"


def open_table(live_server: Any, open_page: OpenPage, game: str, size: dict,
               locale: str = "en-US", wait_for_hand: bool = True, **options: Any) -> Any:
    """Anastasia's table, started with bots; by default once her hand is shown."""
    ana = new_guest(live_server.url, "Anastasia")
    options = {"fill_bots": True, "bot_delay_ms": 100, **options}
    room = create_game_room(live_server.url, ana, game, LARGEST[game], **options)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, locale=locale, **size)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    page.get_by_test_id("btn-start").click()
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    if wait_for_hand:
        page.wait_for_selector('[data-testid="hand"] [data-card]')
    return page


def screenshot(page: Any, game: str, phone: bool) -> None:
    if phone:
        at_top(page)
        page.screenshot(path=SHOT.format(game=game))


# --- the turn-based games ------------------------------------------------------------


# The hint while you are to draw, with a mouse and with a finger (a finger taps
# what a mouse clicks; Indonesian Remi's status names the gesture itself).
DRAW_HINT = {
    "basic_rummy": {
        False: "Click a pile to draw. A card taken from the discard pile can't go back "
               "this turn.",
        True: "Tap a pile to draw. A card taken from the discard pile can't go back this turn."},
    "traditional_remi": {False: "Click a pile to draw.", True: "Tap a pile to draw."},
    "indonesian_remi": dict.fromkeys(
        (False, True),
        "A card taken from the discard pile must go into a new meld at once; the cards "
        "above it join your hand."),
}


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("game", ["basic_rummy", "indonesian_remi", "traditional_remi"])
def test_the_largest_table_fits_without_scrolling(
    live_server, open_page: OpenPage, game: str, viewport: str
) -> None:
    phone = "touch" in VIEWPORTS[viewport]
    page = open_table(live_server, open_page, game, VIEWPORTS[viewport])
    assert_opponent_strip(page, phone)
    assert_on_screen(page, SHOWN[game], phone)

    # Your turn, the card drawn: the hand one card longer, still on screen.
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    assert_clock_above_the_dock(page)
    # Until a card is chosen the hint under the buttons only adds guidance to
    # the status: the two smallest phones leave it out. (Held sideways, the
    # dock shows no hint but why a button is greyed out.)
    hint = page.get_by_test_id("hint")
    assert hint.inner_text() == DRAW_HINT[game][phone], hint.inner_text()
    assert hint.inner_text() not in page.get_by_test_id("status").inner_text()
    sideways = viewport in ("phone-sideways", "sideways-with-bars")
    small = viewport in ("small-phone", "narrow-phone", "phone-with-bars")
    assert hint.is_visible() == (not small and not sideways)
    draw_from_stock(page)
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    select(page, hand(page)[0])
    assert_on_screen(page, SHOWN[game], phone)
    assert hint.is_visible() == (not sideways), "what the chosen card would do"
    screenshot(page, game, viewport == "phone")


# Four at Indonesian Remi, Ana the dealer (she plays first): she draws the 8D,
# lays down 2H-5H and discards the 8D, keeping three cards.
THREE_LEFT = scenario(
    dealer=0,
    hands=[
        ["2H", "3H", "4H", "5H", "9S", "9D", "9C"],
        ["AS", "3C", "7S", "JD", "JH", "KH", "2S"],
        ["AD", "4C", "8S", "TC", "QH", "KS", "3S"],
        ["AC", "5C", "6S", "TD", "QC", "KD", "4S"],
    ],
    stock=["8D", "KC", "JS", "QS", "2C", "6C", "7C", "8C", "9H", "TS", "QD", "2D", "3D",
           "4D", "5D", "6D", "7D", "6H", "7H", "8H", "5S", "AH"],
    discard=["JC"],
)


def assert_dock_line_clear(page: Any, testid: str) -> None:
    """The Indonesian Remi table on screen, its piles above the dock, and the
    dock's line ``testid`` (a reason, a refusal) whole and uncovered."""
    assert_on_screen(page, SHOWN["indonesian_remi"], True)
    line = page.evaluate(MEASURE, [testid])["items"][testid]
    assert line["inside"] and not line["covered"], line


def test_a_greyed_buttons_reason_keeps_the_piles_above_the_dock_sideways(
    live_server, open_page: OpenPage
) -> None:
    """Sideways with the bars (667x325), a hand of three to draw to: Meld tapped
    before drawing says why in the dock, and the piles still clear the dock in
    every language (in some the draw's status takes two lines)."""
    page = open_table(live_server, open_page, "indonesian_remi", PHONE_SIDEWAYS_WITH_BARS,
                      scenario=THREE_LEFT, bot_delay_ms=300)
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    draw_from_stock(page)
    select(page, "2H", "3H", "4H", "5H")
    page.get_by_test_id("btn-meld").click()
    page.wait_for_selector('[data-testid="melds"] [data-card="2H"]')
    select(page, "8D")
    page.get_by_test_id("btn-discard").click()
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    assert len(hand(page)) == 3
    for locale in ["en-US", *OTHER_LANGUAGES]:
        with in_language(page, locale):
            tap_in_place(page.get_by_test_id("btn-meld-why"))
            page.wait_for_selector('[data-testid="hint"].is-why')
            assert_dock_line_clear(page, "hint")


# Four at Indonesian Remi, Ana the dealer (she plays first), the 9H on the
# discard pile: taking it with her 9S 9D makes a set before she has a sequence.
TAKE_A_NINE = scenario(
    dealer=0,
    hands=THREE_LEFT["hands"],
    stock=[{"9H": "JC"}.get(card, card) for card in THREE_LEFT["stock"]],
    discard=["9H"],
)


def test_a_refused_moves_sentence_keeps_the_piles_above_the_dock_sideways(
    live_server, open_page: OpenPage
) -> None:
    """Sideways with the bars (667x325): the server refuses a take, and its
    sentence in the dock (two lines in French) leaves the piles, still to draw
    from, above the dock in every language; a greyed-out button's reason tapped
    next takes its place."""
    page = open_table(live_server, open_page, "indonesian_remi", PHONE_SIDEWAYS_WITH_BARS,
                      scenario=TAKE_A_NINE, bot_delay_ms=300)
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    page.get_by_test_id("take-9H").click()
    select(page, "9S", "9D")
    page.get_by_test_id("btn-meld").click()
    page.wait_for_selector('[data-testid="error"]:not([hidden])')
    for locale in ["en-US", *OTHER_LANGUAGES]:
        with in_language(page, locale):
            assert_dock_line_clear(page, "error")
    tap_in_place(page.get_by_test_id("btn-discard-why"))
    page.wait_for_selector('[data-testid="hint"].is-why')
    assert page.get_by_test_id("error").is_hidden()
    assert_on_screen(page, SHOWN["indonesian_remi"], True)


# --- the waiting room ----------------------------------------------------------------

HOST_BUTTONS = ["btn-add-bot", "btn-start"]


def waiting_room(live_server: Any, open_page: OpenPage, size: dict, locale: str) -> Any:
    """Nine seats of Remmi Demmi, one taken: the longest waiting room, seen by its host."""
    ana = new_guest(live_server.url, "Anastasia")
    room = create_game_room(live_server.url, ana, "remmi_demmi", LARGEST["remmi_demmi"])
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, locale=locale, **size)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    return page


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_host_starts_the_largest_table_without_scrolling(
    live_server, open_page: OpenPage, viewport: str
) -> None:
    """Nine seats are taller than a phone: Add bot and Start stay in a dock at
    the bottom of the screen, and work from there; a refusal shows in the dock."""
    phone = "touch" in VIEWPORTS[viewport]
    page = waiting_room(live_server, open_page, VIEWPORTS[viewport], "en-US")
    assert_on_screen(page, HOST_BUTTONS, phone)
    # Tapped where they are shown (Playwright's click would first scroll a
    # sticky element to where it would be without sticking).
    press(page, "btn-start")  # eight seats still free
    page.wait_for_selector('.waiting-dock [data-testid="error"]:not([hidden])')
    report = page.evaluate(MEASURE, ["error"])
    assert report["items"]["error"]["inside"], report
    assert page.get_by_test_id("error").inner_text() == (
        "The table is not full yet (empty seats: 8): add bots or wait for players.")
    for seat in range(1, LARGEST["remmi_demmi"]):
        press(page, "btn-add-bot")
        page.wait_for_selector(f'[data-testid="seat-{seat}"].is-taken')
    press(page, "btn-start")
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    assert page.evaluate("window.scrollY") == 0


def press(page: Any, testid: str) -> None:
    """Taps ``testid`` once it is shown and uncovered, the page not scrolled."""
    item = page.evaluate(MEASURE, [testid])["items"][testid]
    assert item["inside"] and not item["covered"], item
    tap_in_place(page.get_by_test_id(testid))
    assert page.evaluate("window.scrollY") == 0


@pytest.mark.parametrize("viewport", SMALL_PHONES)
def test_every_language_keeps_the_hosts_buttons_on_a_small_phone(
    live_server, open_page: OpenPage, viewport: str
) -> None:
    page = waiting_room(live_server, open_page, VIEWPORTS[viewport], "en-US")
    for locale in OTHER_LANGUAGES:
        with in_language(page, locale):
            assert_on_screen(page, HOST_BUTTONS, True)


# Six at Basic Rummy, Ana the dealer: each bot holds a set of three and lays it
# down in its first turn, so five melds are on the table when Ana's turn comes.
FIVE_MELDS = scenario(
    dealer=0,
    hands=[
        ["2S", "5D", "9C", "JH", "KS", "7D"],
        ["3H", "3D", "3C", "8S", "TD", "QC"],
        ["4H", "4D", "4C", "8H", "TS", "QD"],
        ["6H", "6D", "6C", "8D", "TC", "QH"],
        ["7H", "7S", "7C", "9S", "JD", "KC"],
        ["5H", "5S", "5C", "9D", "JC", "KD"],
    ],
    stock=["2H", "2D", "2C", "AS", "AH", "AD", "AC", "3S", "4S", "6S", "8C", "9H", "TH", "JS",
           "KH"],
    discard=["QS"],
)
# The last meld, scrolled to inside the melds' box: within the box, uncovered.
LAST_MELD = """() => {
    const area = document.querySelector('[data-testid="melds"]');
    area.scrollTop = area.scrollHeight;
    const melds = area.querySelectorAll('[data-testid^="meld-"]');
    const r = melds[melds.length - 1].getBoundingClientRect();
    const a = area.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return {count: melds.length, scrollY: window.scrollY,
            inside: r.top >= a.top - 0.5 && r.bottom <= a.bottom + 0.5,
            covered: !hit || !melds[melds.length - 1].contains(hit)};
}"""


def test_a_small_phone_scrolls_many_melds_inside_their_box(
    live_server, open_page: OpenPage
) -> None:
    """Two rows of melds on a 360x640 phone: the box shows one and a peek at the
    next, above the dock; the rest scroll inside it, the page stays put."""
    page = open_table(live_server, open_page, "basic_rummy", SMALL_PHONE, scenario=FIVE_MELDS)
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    assert page.locator('[data-testid="melds"] [data-testid^="meld-"]').count() == 5
    assert_on_screen(page, SHOWN["basic_rummy"], True)
    last = page.evaluate(LAST_MELD)
    assert last["scrollY"] == 0 and last["inside"] and not last["covered"], last


# --- Remmi Demmi: the trading floor --------------------------------------------------

# Nine players use every copy: 81 cards, nine each. Ana holds nine different
# kinds; the bots' hands mix the kinds too, so no Remmi ends the round early.
KINDS = [c + f for c in "OPG" for f in "RJL"]
RD_HANDS = [[KINDS[(seat + i) % 9] + str(i + 1) for i in range(9)] for seat in range(9)]


def trades(page: Any) -> int:
    return int(page.locator('[data-testid^="trade-t"]').count())


# What the floor shows, should a trade not come: the round's stage, the open
# offers (seat, size, to whom), Ana's cards chosen and any refusal shown.
FLOOR = """() => ({
    stage: document.querySelector('[data-testid="rd-timer"]')?.dataset.stage,
    offers: [...document.querySelectorAll('.rd-offer')].map(o => o.innerText.replace(/\\s+/g, ' ')),
    chosen: [...document.querySelectorAll('[data-testid="hand"] [aria-pressed="true"]')]
        .map(c => c.dataset.card),
    error: document.querySelector('[data-testid="error"]:not([hidden])')?.innerText,
    claims: document.querySelectorAll('[data-testid^="claimed-"]').length,
})"""


def trade_once(page: Any) -> None:
    """Offers one free card to anyone and waits for a bot to take it."""
    before = trades(page)
    free = page.eval_on_selector_all(
        '[data-testid="hand"] [data-card]:not(.is-locked):not(.is-offered):not(:disabled)',
        "els => els.map(e => e.dataset.card)",
    )
    select(page, free[-1])
    page.get_by_test_id("btn-offer").click()
    # The bots answer the oldest offers first, one bot a turn: on a busy
    # machine Ana's may wait behind several of theirs.
    wait_or_say(
        page, "n => document.querySelectorAll('[data-testid^=\"trade-t\"]').length > n",
        before, 30_000, lambda: f"no trade for {free[-1]}: {page.evaluate(FLOOR)}")
    page.wait_for_selector('[data-testid="offer-0"]', state="detached")


# The chosen target's words against the room the picker gives them: its width
# but its padding and the arrow Chromium draws (a picker sized to its words
# leaves them about 16 px beside it).
TARGET_TEXT = """(sel, arrow) => {
    const style = getComputedStyle(sel);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = style.font;
    const text = sel.options[sel.selectedIndex].text;
    const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
        - arrow;
    return {text, need: Math.ceil(ctx.measureText(text).width), room: Math.floor(room)};
}"""
ARROW_PX = 16


# The word under each point man still to take: the width its text needs (the
# whole text, measured as a range, not its box) and the width its box has.
FREE_POINT_MEN = """() => [...document.querySelectorAll('.rd-man.is-free .rd-man-who')].map(w => {
    const words = document.createRange();
    words.selectNodeContents(w);
    return {text: w.innerText, need: words.getBoundingClientRect().width,
            room: w.getBoundingClientRect().width};
})"""


def assert_trading_floor(page: Any, phone: bool) -> None:
    assert_on_screen(page, SHOWN["remmi_demmi"], phone)
    assert_others_offer_in_view(page)
    # A point man still to take says so in full, never cut to "…".
    free = page.evaluate(FREE_POINT_MEN)
    assert free and all(w["need"] <= w["room"] + 0.01 for w in free), free
    # Whom to offer to reads whole ("to anyone", not "to a…").
    target = page.get_by_test_id("rd-target").evaluate(TARGET_TEXT, ARROW_PX)
    assert target["need"] <= target["room"], target
    # The order: timer, open offers, then the hand; the trades come after it.
    order = page.evaluate(
        """() => ['rd-timer', 'offers', 'hand', 'btn-offer', 'trades']
            .map(id => document.querySelector(`[data-testid="${id}"]`))
            .filter(Boolean)
            .every((el, i, all) => i === 0
                || (all[i - 1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING))"""
    )
    assert order, "the trades must come after the hand and its buttons"


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_remmi_demmi_with_nine_keeps_the_floor_in_view_after_six_trades(
    live_server, open_page: OpenPage, viewport: str
) -> None:
    phone = "touch" in VIEWPORTS[viewport]
    page = open_table(
        live_server,
        open_page,
        "remmi_demmi",
        VIEWPORTS[viewport],
        scenario={"hands": RD_HANDS},
        timer_s=100,
        rounds=1,
        bot_delay_ms=700,
        round_pause_ms=30_000,
    )
    assert_opponent_strip(page, phone)
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')

    # A custom timer is named by its length, not as the snail's.
    label = page.locator(".rd-timer-label").inner_text()
    assert "100 s" in label and "snail" not in label.lower(), label
    assert_trading_floor(page, phone)

    for _ in range(6):
        trade_once(page)
    assert trades(page) >= 6
    assert_trading_floor(page, phone)
    drawer = page.get_by_test_id("trades")
    summary = drawer.locator("summary").inner_text()
    assert re.search(r"\b\d+\b", summary) and str(trades(page)) in summary, summary
    # The drawer starts closed where the screen is narrow.
    assert drawer.evaluate("d => d.open") is (VIEWPORTS[viewport]["width"] > 560)
    screenshot(page, "remmi_demmi", viewport == "phone")

    # Claimed (nine cards laid down): no large empty hand is left behind.
    page.get_by_test_id("btn-claim").click()
    page.wait_for_selector('[data-testid="btn-claim"].is-armed')
    page.get_by_test_id("btn-claim").click()
    page.wait_for_selector('[data-testid="my-claim"]')
    height = box(page, '[data-testid="hand"]')["height"]
    assert height <= 60, f"the empty hand is {height} px tall"
    assert_fits(page)


# --- every language ----------------------------------------------------------------



def uneven_hands() -> list[list[str]]:
    """RD_HANDS with Ana's second and third orange and purple cards swapped for
    green ones of seats 1 and 2: one orange, one purple, seven green. The widest
    her hand's row can be: two groups of one card under a long word each."""
    hands = [list(h) for h in RD_HANDS]
    giving = [c for c in hands[0] if c[0] in "OP"][1:3] + [c for c in hands[0] if c[0] == "P"][1:3]
    for card, seat in zip(giving, (1, 1, 2, 2), strict=True):
        green = next(c for c in hands[seat] if c[0] == "G")
        hands[0][hands[0].index(card)], hands[seat][hands[seat].index(green)] = green, card
    return hands


UNEVEN_HANDS = uneven_hands()


@pytest.mark.parametrize("viewport", SMALL_PHONES)
@pytest.mark.parametrize("game", ["basic_rummy", "indonesian_remi", "traditional_remi"])
def test_every_language_keeps_the_table_on_a_small_phone(
    live_server, open_page: OpenPage, game: str, viewport: str
) -> None:
    page = open_table(live_server, open_page, game, VIEWPORTS[viewport])
    for locale in OTHER_LANGUAGES:
        with in_language(page, locale):
            assert_opponent_strip(page, True)
            assert_on_screen(page, SHOWN[game], True)
            assert_clock_above_the_dock(page)
    if VIEWPORTS[viewport]["width"] > 560:
        return
    # Upright, three cards chosen: the buttons' longer words ("Poser 3",
    # "Spusti 3") and the hint on what they would do, in every language.
    page.wait_for_selector('[data-testid="stock"]:enabled', timeout=20_000)
    draw_from_stock(page)
    select(page, *hand(page)[:3])
    for locale in ["en-US", *OTHER_LANGUAGES]:
        with in_language(page, locale):
            assert_on_screen(page, SHOWN[game], True)


# Each language on a table of its own: a trading round does not wait for four.
@pytest.mark.parametrize("viewport", SMALL_PHONES)
@pytest.mark.parametrize("locale", OTHER_LANGUAGES)
def test_every_language_keeps_the_trading_floor_on_a_small_phone(
    live_server, open_page: OpenPage, locale: str, viewport: str
) -> None:
    page = open_table(live_server, open_page, "remmi_demmi", VIEWPORTS[viewport], locale,
                      scenario={"hands": UNEVEN_HANDS}, timer_s=100, rounds=1)
    assert_opponent_strip(page, True)
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    assert_trading_floor(page, True)


@pytest.mark.parametrize("game", ["basic_rummy", "indonesian_remi", "traditional_remi",
                                  "remmi_demmi"])
def test_the_narrowest_phone_sideways_keeps_every_card_in_view(
    live_server, open_page: OpenPage, game: str
) -> None:
    """Held sideways, the narrowest phone has the hand and the buttons side by
    side: the buttons leave the hand room to show a part of every card, their
    words whole, in every language (Remmi Demmi's, the widest, while trading).
    Too short for the open offers to clear the dock, it is not held to that."""
    if game == "remmi_demmi":
        page = open_table(live_server, open_page, game, NARROW_SIDEWAYS,
                          scenario={"hands": UNEVEN_HANDS}, timer_s=100, rounds=1)
        page.get_by_test_id("btn-start-snail").click()
        page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    else:
        page = open_table(live_server, open_page, game, NARROW_SIDEWAYS)
    for locale in ["en-US", *OTHER_LANGUAGES]:
        with in_language(page, locale):
            assert_opponent_strip(page, True)
            assert_on_screen(page, SHOWN[game], True)


@pytest.mark.parametrize("locale", OTHER_LANGUAGES)
def test_every_language_shows_whom_an_offer_is_to_in_full_on_a_laptop(
    live_server, open_page: OpenPage, locale: str
) -> None:
    # Dealt hands far from a Remmi: a bot dealt close to one could claim and end
    # the round before the floor is measured.
    page = open_table(live_server, open_page, "remmi_demmi", LAPTOP, locale,
                      scenario={"hands": RD_HANDS}, timer_s=100, rounds=1)
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    assert_trading_floor(page, False)


# A claim armed (the first tap of Remmi-Demmi!) names the nine cards and warns
# when they are no Remmi: the dock grows by that warning in every language,
# and the offers above it must still show whole.
ARM_CLAIM = """() => {
    const claim = document.querySelector('[data-testid="btn-claim"]');
    if (claim && !claim.disabled && !claim.classList.contains('is-armed')) claim.click();
    return !!document.querySelector('[data-testid="btn-claim"].is-armed');
}"""


@pytest.mark.parametrize("viewport", ["small-phone", "narrow-phone"])
def test_an_armed_claim_leaves_another_traders_offer_in_view(
    live_server, open_page: OpenPage, viewport: str
) -> None:
    page = open_table(live_server, open_page, "remmi_demmi", VIEWPORTS[viewport],
                      scenario={"hands": UNEVEN_HANDS}, timer_s=300, rounds=1,
                      bot_delay_ms=1500, round_pause_ms=30_000)
    page.get_by_test_id("btn-start-snail").click()
    page.wait_for_selector('[data-testid="rd-timer"][data-stage="trading"]')
    for locale in ["en-US", *OTHER_LANGUAGES]:
        with in_language(page, locale):
            page.wait_for_function(OTHERS_OFFER, timeout=20_000)
            # Armed for eight seconds: armed again whenever it has lapsed.
            assert page.evaluate(ARM_CLAIM)
            assert page.get_by_test_id("hint").inner_text()
            at_top(page)
            assert_others_offer_in_view(page)
            clipped = page.evaluate(CLIPPED_BUTTONS)
            assert not clipped, f"words cut: {clipped}"
            assert_fits(page)


# --- the deal's result, the daily deal, the top bar: words and taps ----------------

# The upright phones every language is checked on for the result and the daily deal.
UPRIGHT = {"narrow-phone": NARROW_PHONE, "small-phone": SMALL_PHONE,
           "iphone-se": {"width": 375, "height": 667, "touch": True}}
# Each result table against the room it has: its points column in view
# without scrolling sideways.
RESULT_TABLES_CUT = """() => [...document.querySelectorAll('.result-table-wrap')]
    .filter(w => w.scrollWidth > w.clientWidth + 1)
    .map(w => `${w.scrollWidth} px in ${w.clientWidth}, the widest cells: `
        + [...w.querySelectorAll('tr:first-child > *')].map((head, i) => {
            const cells = [...w.querySelectorAll(`tr > :nth-child(${i + 1})`)];
            const widest = cells.reduce((a, b) => (b.offsetWidth > a.offsetWidth ? b : a), head);
            const words = widest.innerText.replace(/\\s+/g, ' ');
            return `${head.innerText}: "${words}" ${widest.offsetWidth}`;
        }).join('; '))"""
# What a finger taps, smaller than TAP_PX on its smaller side.
SMALL_TARGETS = """([selectors, px]) => [...document.querySelectorAll(selectors)]
    .filter(el => el.offsetParent)
    .map(el => [el, el.getBoundingClientRect()])
    .filter(([, r]) => Math.min(r.width, r.height) < px - 0.5)
    .map(([el, r]) => `${el.dataset.testid || el.className || el.tagName}: `
        + `${Math.round(r.width)}x${Math.round(r.height)}`)"""
TAP_PX = 40
# Your name in the top bar: the width its words need and the width it has.
WHOAMI = """() => {
    const name = document.querySelector('[data-testid="whoami"]');
    return {need: name.scrollWidth, room: name.clientWidth};
}"""


def assert_tap_targets(page: Any, selectors: str) -> None:
    small = page.evaluate(SMALL_TARGETS, [selectors, TAP_PX])
    assert not small, f"under {TAP_PX} px: {small}"


def each_upright_phone_and_language(page: Any) -> Iterator[str]:
    """The page resized to each upright phone and switched to each language in turn."""
    for name, size in UPRIGHT.items():
        page.set_viewport_size({"width": size["width"], "height": size["height"]})
        for locale in ["en-US", *OTHER_LANGUAGES]:
            with in_language(page, locale):
                yield f"{name} {locale}"


@pytest.mark.parametrize("game", ["traditional_remi", "indonesian_remi"])
def test_a_deals_result_shows_its_points_on_every_phone(
    live_server, open_page: OpenPage, game: str
) -> None:
    """A deal left to the turn clock ends with hands of ten cards or so: their
    fans wrap rather than push the points (the penalty, the deal's score) past
    the edge, in every language; the drawer of how it was scored, the chat and
    the sound toggle are a finger's size."""
    # Once her one-second clock runs out, a bot with no delay plays her turns
    # too: the deal can end within the same second, and it may be her bot
    # that goes out, leaving no hand to wait for.
    page = open_table(live_server, open_page, game, NARROW_PHONE, wait_for_hand=False,
                      turn_clock_s=1, bot_delay_ms=0, deals=2, deal_pause_ms=60_000)
    page.wait_for_selector('[data-testid="table"][data-phase="deal_over"]', timeout=60_000)
    page.get_by_test_id("result").wait_for()
    for where in each_upright_phone_and_language(page):
        cut = page.evaluate(RESULT_TABLES_CUT)
        assert not cut, f"{where}: the points scroll sideways: {cut}"
        assert_fits(page)
    assert_tap_targets(page, '.deal-notes summary, [data-testid="chat-toggle"],'
                             ' [data-testid="btn-sound"]')


def test_the_daily_deal_keeps_its_table_on_every_phone(
    server_factory, open_page: OpenPage
) -> None:
    """The daily strip over the table takes one row on a phone: the piles, the
    melds and the hand stay above the dock in every language; the game's
    result shows its points without a sideways scroll; the strip's and the
    daily page's buttons are a finger's size; your name shows in the top bar."""
    server = server_factory({"KARTU_DAILY_OPTIONS": json.dumps(DAILY_OPTIONS)})
    ana = new_guest(server.url, "Anastasia")
    page = open_page(f"{server.url}/?daily", identity=ana, **NARROW_PHONE)
    page.get_by_test_id("daily-play-indonesian_remi").click()
    page.wait_for_selector('[data-testid="daily-strip"]')
    page.wait_for_selector('[data-testid="table"][data-phase="playing"]')
    page.wait_for_selector('[data-testid="hand"] [data-card]')
    for where in each_upright_phone_and_language(page):
        try:
            assert_on_screen(page, SHOWN["indonesian_remi"], True)
        except AssertionError as err:
            raise AssertionError(f"{where}: {err}") from err
        assert_tap_targets(page, '[data-testid="daily-leaderboard-link"],'
                                 ' [data-testid="btn-sound"]')
        name = page.evaluate(WHOAMI)
        if page.viewport_size["width"] >= 360:
            assert name["need"] <= name["room"], f"{where}: your name cut: {name}"
        else:
            assert name["room"] >= 48, f"{where}: your name squeezed: {name}"
    play_to_the_end(page)
    page.get_by_test_id("game-over").wait_for()
    for where in each_upright_phone_and_language(page):
        cut = page.evaluate(RESULT_TABLES_CUT)
        assert not cut, f"{where}: the points scroll sideways: {cut}"
    page.get_by_test_id("daily-leaderboard-link").click()
    page.wait_for_selector('[data-testid="board-rows"]')
    assert_tap_targets(page, '[data-testid="board-prev"], [data-testid="board-next"],'
                             ' [data-testid^="daily-board-"], [data-testid^="daily-play-"]')
