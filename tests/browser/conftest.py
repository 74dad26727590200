"""Browser test fixtures: headless Chromium driving the real client against ``live_server``.

- ``browser``: the system Chromium (``/usr/bin/chromium``) launched by Playwright;
  a missing executable skips the tests (fails them with ``KARTU_REQUIRE_SERVICES=1``).
- ``open_page(url, identity=None, width=1280, height=800, *, touch=False)``: a
  page in a fresh context (its own localStorage, i.e. its own guest).
  ``identity`` is a guest from :func:`tests.wsclient.new_guest`, put into
  localStorage before the page loads, exactly as the client keeps it; ``touch``
  makes it a phone (a touch screen, the mobile viewport). JavaScript errors on
  any page fail the test. ``reduced_motion="reduce"`` opens it with
  prefers-reduced-motion; ``init_script`` runs in every document of its context
  before the page's own scripts.
- :class:`Table` wraps a page showing a Basic Rummy table: clicks and reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import wsclient
from tests.services import require_or_skip

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IDENTITY_KEY = "kartu.identity"
TIMEOUT_MS = 10_000
CARD_ID = re.compile(r"^[A2-9TJQK][SHDC]\d?$")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(card: str) -> str:
    """How the page writes a card in text: "10♦"."""
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        require_or_skip(f"Chromium at {CHROMIUM}", "the executable is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:  # the dev extra is not installed
        require_or_skip("Python Playwright", err)
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


# --- the HTTP side -----------------------------------------------------------------


def create_room(
    base_url: str, guest: dict[str, Any], seats: int, game: str = "basic_rummy", **options: Any
) -> str:
    """The id of a new room owned by ``guest`` (:func:`tests.wsclient.create_room`)."""
    return str(wsclient.create_room(base_url, guest["token"], game, seats, **options)["room_id"])


def scenario(
    dealer: int, hands: list[list[str]], stock: list[str], discard: list[str]
) -> dict[str, Any]:
    return {"dealer": dealer, "hands": hands, "stock": stock, "discard": discard}


# --- pages -------------------------------------------------------------------------

OpenPage = Callable[..., Any]


def new_page(
    browser: Any,
    url: str,
    identity: dict[str, Any] | None = None,
    width: int = 1280,
    height: int = 800,
    errors: list[str] | None = None,
    locale: str = "en-US",
    *,
    touch: bool = False,
    reduced_motion: str | None = None,
    init_script: str | None = None,
) -> Any:
    options: dict[str, Any] = {"viewport": {"width": width, "height": height}, "locale": locale,
                               "has_touch": touch, "is_mobile": touch}
    if reduced_motion is not None:
        options["reduced_motion"] = reduced_motion
    context = browser.new_context(**options)
    context.set_default_timeout(TIMEOUT_MS)
    if init_script is not None:
        context.add_init_script(init_script)
    if identity is not None:
        stored = {k: identity[k] for k in ("player_id", "name", "token")}
        context.add_init_script(
            f"localStorage.setItem({json.dumps(IDENTITY_KEY)}, {json.dumps(json.dumps(stored))});"
        )
    page = context.new_page()
    if errors is not None:
        page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    return page


@pytest.fixture
def open_page(browser: Any) -> Iterator[OpenPage]:
    pages: list[Any] = []
    errors: list[str] = []

    def _open(
        url: str,
        identity: dict[str, Any] | None = None,
        width: int = 1280,
        height: int = 800,
        locale: str = "en-US",
        *,
        touch: bool = False,
        reduced_motion: str | None = None,
        init_script: str | None = None,
    ) -> Any:
        page = new_page(
            browser,
            url,
            identity,
            width,
            height,
            errors,
            locale,
            touch=touch,
            reduced_motion=reduced_motion,
            init_script=init_script,
        )
        pages.append(page)
        return page

    yield _open
    for page in pages:
        page.context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def record_frames(page: Any, *, sent: bool = False) -> list[Any]:
    """Reloads ``page``, recording (decoded) every websocket frame it receives,
    or with ``sent`` every one it sends.

    Either way the frames come in order: once a later one is seen, every
    one before it is in (what a check that nothing was sent waits for)."""
    frames: list[Any] = []
    event = "framesent" if sent else "framereceived"
    page.on("websocket",
            lambda ws: ws.on(event, lambda payload: frames.append(json.loads(payload))))
    page.reload()
    return frames


# --- reading and acting on any game table ------------------------------------------


def phase(page: Any) -> str:
    return str(page.get_by_test_id("table").get_attribute("data-phase"))


def table_version(page: Any) -> int:
    """The version of the room state the table shows."""
    return int(page.get_by_test_id("table").get_attribute("data-version"))


def wait_version_past(page: Any, version: int) -> None:
    """Waits until the table shows a room state newer than ``version``."""
    page.wait_for_function(
        "v => Number(document.querySelector('[data-testid=\"table\"]').dataset.version) > v",
        arg=version,
    )


def hand(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            '[data-testid="hand"] [data-card]', "els => els.map(e => e.dataset.card)"
        )
    )


# Where a hand card is tapped: near its left edge, the strip a phone's fanned
# hand leaves in view (the next card covers the rest of it).
CARD_TAP = {"x": 8, "y": 24}


def select_cards(page: Any, *cards: str, in_place: bool = False) -> None:
    """Taps hand cards until each shows as selected; ``in_place``: without
    scrolling to them (:func:`tap_in_place`)."""
    for card in cards:
        locator = page.get_by_test_id(f"card-{card}")
        if in_place:
            tap_in_place(locator)
        else:
            locator.click(position=CARD_TAP)
        page.wait_for_selector(f'[data-testid="card-{card}"][aria-pressed="true"]')


def wait_meld_with(page: Any, cards: list[str]) -> str:
    """Waits until one meld on the table holds all of ``cards``; returns its id."""
    handle = page.wait_for_function(
        """cards => {
            for (const m of document.querySelectorAll('[data-testid="melds"] [data-meld]')) {
                const ids = [...m.querySelectorAll('[data-card]')].map(c => c.dataset.card);
                if (cards.every(c => ids.includes(c))) return m.dataset.meld;
            }
            return false;
        }""",
        arg=cards,
    )
    return str(handle.json_value())


class Table:
    """A Basic Rummy table as a player or spectator sees it in the page."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def by_id(self, testid: str) -> Any:
        return self.page.get_by_test_id(testid)

    # --- reading ---

    def phase(self) -> str:
        return phase(self.page)

    def wait_phase(self, phase: str) -> None:
        self.page.wait_for_selector(f'[data-testid="table"][data-phase="{phase}"]')

    def hand(self) -> list[str]:
        return hand(self.page)

    def melds(self) -> dict[str, list[str]]:
        return dict(
            self.page.eval_on_selector_all(
                '[data-testid="melds"] [data-meld]',
                "els => els.map(e => [e.dataset.meld,"
                " [...e.querySelectorAll('[data-card]')].map(c => c.dataset.card)])",
            )
        )

    def stock_count(self) -> int:
        return int(self.by_id("stock-count").inner_text())

    def discard_top(self) -> str | None:
        top = self.page.query_selector('[data-testid="discard-top"]')
        return None if top is None else top.get_attribute("data-card")

    def visible_card_ids(self) -> set[str]:
        """Every face-up card id anywhere in the page's DOM."""
        return set(
            self.page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
        )

    # --- waiting ---

    def wait_my_turn_to_draw(self) -> None:
        self.page.wait_for_selector('[data-testid="stock"]:enabled', timeout=15_000)

    def wait_turn_of(self, seat: int) -> None:
        self.page.wait_for_selector(
            f'[data-testid="seat-{seat}"][data-turn="true"]', timeout=15_000
        )

    def wait_log(self, text: str) -> None:
        """Waits for a line of the table log containing ``text``."""
        self.page.wait_for_function(
            "text => [...document.querySelectorAll('[data-testid=\"log\"] li')]"
            ".some(li => li.textContent.includes(text))",
            arg=text,
            timeout=15_000,
        )

    def wait_discard_top_not(self, card: str) -> None:
        """Waits until someone else's move changes the top of the discard pile."""
        self.page.wait_for_function(
            "card => document.querySelector('[data-testid=\"discard-top\"]')"
            "?.dataset.card !== card",
            arg=card,
            timeout=15_000,
        )

    def wait_hand_size(self, size: int) -> None:
        self.page.wait_for_function(
            "n => document.querySelectorAll('[data-testid=\"hand\"] [data-card]').length === n",
            arg=size,
        )

    def wait_meld_with(self, cards: list[str]) -> str:
        """Waits until one meld on the table holds all of ``cards``; returns its id."""
        return wait_meld_with(self.page, cards)

    def record_turns(self) -> None:
        """Starts recording, in the page, every change of whose turn the table shows."""
        self.page.evaluate(
            """() => {
                window.__turns = [];
                const note = () => {
                    const t = document.querySelector('[data-testid="table"]');
                    const turn = t ? t.dataset.turn : '';
                    const last = window.__turns[window.__turns.length - 1];
                    if (last !== turn) window.__turns.push(turn);
                };
                note();
                new MutationObserver(note).observe(document.getElementById('app'),
                    {childList: true, subtree: true, attributes: true});
            }"""
        )

    def recorded_turns(self) -> list[str]:
        return list(self.page.evaluate("() => window.__turns"))

    # --- acting ---

    def add_bots_and_start(self, *seats: int) -> None:
        """The owner's waiting room: a bot into each of ``seats``, then start."""
        for seat in seats:
            self.by_id("btn-add-bot").click()
            self.page.wait_for_selector(f'[data-testid="seat-{seat}"].is-taken')
        self.by_id("btn-start").click()
        self.wait_phase("playing")

    def select(self, *cards: str) -> None:
        select_cards(self.page, *cards)

    def draw_stock(self) -> None:
        before = len(self.hand())
        self.by_id("stock").click()
        self.wait_hand_size(before + 1)

    def take_discard(self) -> str:
        top = self.discard_top()
        assert top is not None
        self.by_id("discard-top").click()
        self.page.wait_for_selector(f'[data-testid="card-{top}"]')
        return top

    def meld(self, *cards: str) -> str:
        self.select(*cards)
        self.by_id("btn-meld").click()
        meld_id = self.wait_meld_with(list(cards))
        for card in cards:
            self.page.wait_for_selector(f'[data-testid="card-{card}"]', state="detached")
        return meld_id

    def lay_off(self, card: str, meld_id: str) -> None:
        self.select(card)
        self.by_id(f"meld-{meld_id}").click()
        self.page.wait_for_selector(f'[data-testid="card-{card}"]', state="detached")
        self.page.wait_for_selector(f'[data-testid="meld-{meld_id}"] [data-card="{card}"]')

    def discard(self, card: str) -> None:
        self.select(card)
        self.by_id("btn-discard").click()
        self.page.wait_for_selector(f'[data-testid="card-{card}"]', state="detached")


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """Where each element matching ``selector`` sits in the viewport (and
    ``scroll_y``, how far the page is scrolled), found and measured in one
    step. Playwright's ``eval_on_selector_all`` finds the elements and
    measures them in two round trips: a redraw in between (a bot's move)
    detaches them, and every box then reads 0."""
    found: list[dict[str, float]] = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)].map(el => {
            const r = el.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                    width: r.width, height: r.height, scroll_y: window.scrollY};
        })""",
        selector,
    )
    return found


def box(page: Any, selector: str) -> dict[str, float]:
    """Where the first element matching ``selector`` sits (see ``boxes``)."""
    found = boxes(page, selector)
    assert found, f"nothing matches {selector}"
    return found[0]


def wait_hand_settled(page: Any) -> None:
    """Waits until the hand's cards are laid out and done arriving: cards dealt
    or drawn fly and slide in, and the table redraws after every change, so a
    card measured mid-way can read 0 px tall."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="hand"] .card')]
            .every(el => el.getBoundingClientRect().height > 0
                && el.getAnimations().every(a => a.playState !== 'running'))"""
    )


def wait_or_say(page: Any, condition: str, arg: Any, timeout: int,
                seen: Callable[[], str]) -> None:
    """Waits until ``condition`` (a JS function of ``arg``) holds; if it never
    does, fails with ``seen()``: what the page showed instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(seen()) from None


def wait_hand_cards_at_least(page: Any, px: int) -> None:
    """Waits until every hand card is at least ``px`` tall. Waited for, not read
    once: a bot's move may redraw the hand, its cards arriving from 0 px,
    between any two readings. AssertionError with the heights if they never are."""
    cards = '[data-testid="hand"] .card'
    wait_or_say(
        page,
        """([px, cards]) => {
            const all = [...document.querySelectorAll(cards)];
            return all.length > 0 && all.every(el => el.getBoundingClientRect().height >= px);
        }""",
        [px, cards], 5_000,
        lambda: f"hand cards under {px} px: {[b['height'] for b in boxes(page, cards)]}",
    )


def tap_in_place(locator: Any) -> None:
    """Clicks ``locator`` without scrolling to it, once a test has checked it is
    on screen and uncovered (a finger taps what it sees). Playwright's click
    scrolls to an element it finds covered for a moment (a card flying
    past), which would hide whether the page scrolled by itself. It waits
    until the element is enabled: a dispatched click runs a disabled button's
    handler, where a finger's tap does nothing."""
    from playwright.sync_api import expect

    expect(locator).to_be_enabled()
    locator.dispatch_event("click")


def card_ids_in(value: Any, card_id: re.Pattern[str] = CARD_ID) -> set[str]:
    """Every string in a decoded JSON value that is a card id (matches ``card_id``)."""
    found: set[str] = set()
    if isinstance(value, str):
        if card_id.match(value):
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            found |= card_ids_in(item, card_id)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids_in(item, card_id)
    return found


def no_horizontal_overflow(page: Any) -> dict[str, Any]:
    """The page's widths and any element sticking out past the right edge. A
    card in flight is left out: it is fixed to the screen for a moment, on its
    way to an opponent's chip that may lie past the edge of their strip."""
    result: dict[str, Any] = page.evaluate(
        """() => {
            const width = document.documentElement.clientWidth;
            const clipped = (el) => {
                for (let p = el.parentElement; p; p = p.parentElement) {
                    const o = getComputedStyle(p).overflowX;
                    if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
                }
                return false;
            };
            const wide = [...document.querySelectorAll('body *')]
                .filter(el => {
                    const r = el.getBoundingClientRect();
                    return r.width > 0 && r.right > width + 1 && !clipped(el)
                        && !el.closest('.card-flight');
                })
                .slice(0, 5)
                .map(el => `${el.tagName.toLowerCase()}.${el.className}`
                    + ` right=${Math.round(el.getBoundingClientRect().right)}`);
            return {scrollWidth: document.documentElement.scrollWidth, clientWidth: width, wide};
        }"""
    )
    return result
