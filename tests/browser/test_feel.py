"""The table's feel in a real browser: sounds, cards in flight, keyboard
shortcuts, the focus ring (static/js/feel.js, sound.js, motion.js, keys.js)
and what keeps moving while a table waits for its player.

The sounds are watched at the Web Audio API itself: an init script wraps
``start`` of the oscillators and of the noise buffers (every sound
source the page starts) and notes, at each ``kartu:sound`` cue the page
announces, how many sources had been started by then.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.conftest import OpenPage, Table, create_room, record_frames
from tests.browser.game_rooms import create_game_room, start_with_bots
from tests.browser.test_remmi_demmi import ANA as RD_ANA
from tests.browser.test_remmi_demmi import BO as RD_BO
from tests.browser.test_remmi_demmi import BOT2 as RD_BOT2
from tests.browser.test_remmi_demmi import BOT3 as RD_BOT3
from tests.browser.test_table import start_scenario_room
from tests.wsclient import new_guest

if TYPE_CHECKING:
    from playwright.sync_api import Locator

pytestmark = pytest.mark.browser

WATCH = """
window.__starts = 0;
window.__cues = [];
window.__flights = [];
// Oscillators start through AudioScheduledSourceNode; buffer sources have their own start().
for (const proto of [AudioScheduledSourceNode.prototype, AudioBufferSourceNode.prototype]) {
  if (!Object.prototype.hasOwnProperty.call(proto, 'start')) continue;
  const start = proto.start;
  proto.start = function (...args) {
    window.__starts += 1;
    return start.apply(this, args);
  };
}
window.addEventListener('kartu:sound', (e) => {
  window.__cues.push({ cue: e.detail.cue, starts: window.__starts });
});
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType === 1 && node.dataset.testid === 'card-flight') {
        window.__flights.push({
          label: node.dataset.flight || '',
          transform: getComputedStyle(node).transform,
        });
      }
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def cues(page: Any) -> list[str]:
    return [c["cue"] for c in page.evaluate("() => window.__cues")]


def wait_cue(page: Any, cue: str, count: int = 1) -> None:
    page.wait_for_function(
        "([cue, n]) => window.__cues.filter(c => c.cue === cue).length >= n",
        arg=[cue, count],
        timeout=15_000,
    )


def play_a_round(table: Table) -> str:
    """Ana draws from the stock and discards that card; the bot plays; Ana's
    turn comes back. Returns the card she discarded."""
    table.wait_my_turn_to_draw()
    before = set(table.hand())
    table.draw_stock()
    (drawn,) = set(table.hand()) - before
    table.discard(drawn)
    table.wait_discard_top_not(drawn)
    table.wait_my_turn_to_draw()
    return drawn


def test_sounds_follow_the_table_and_muting_is_remembered(live_server, open_page: OpenPage) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    room, _ = start_scenario_room(live_server.url, ana, open_page)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, init_script=WATCH)
    table = Table(page)
    toggle = page.get_by_test_id("btn-sound")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(toggle).to_have_attribute("aria-label", "Mute sounds")

    # Ana's draw and discard, the bot's draw and discard (frames from the
    # server), then her own turn again: each cue starts real audio sources.
    play_a_round(table)
    wait_cue(page, "turn")
    heard = page.evaluate("() => window.__cues")
    names = [c["cue"] for c in heard]
    assert names.count("draw") >= 2 and names.count("discard") >= 2, names
    assert names.index("draw") < names.index("discard") < names.index("turn"), names
    starts = [c["starts"] for c in heard]
    assert starts[0] > 0 and all(b > a for a, b in pairwise(starts)), heard

    # Muted: remembered across a reload, and the page starts no sound at all.
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.reload()
    table.wait_phase("playing")
    expect(page.get_by_test_id("btn-sound")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("phase").click()  # a gesture: the page may make sound from now on
    play_a_round(table)
    page.wait_for_timeout(400)
    assert page.evaluate("() => [window.__cues, window.__starts]") == [[], 0]

    # Sound on again, remembered too; the toggle is named in every language.
    page.get_by_test_id("btn-sound").click()
    page.reload()
    expect(page.get_by_test_id("btn-sound")).to_have_attribute("aria-pressed", "false")
    page.get_by_test_id("lang-select").select_option("fr")
    expect(page.get_by_test_id("btn-sound")).to_have_attribute("aria-label", "Couper le son")


def test_remmi_demmi_sounds_the_timer_and_a_bot_claim(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_game_room(
        live_server.url,
        ana,
        "remmi_demmi",
        4,
        scenario={"hands": [RD_ANA, RD_BO, RD_BOT2, RD_BOT3]},
        timer_s=30,
        rounds=1,
        bot_delay_ms=100,
        round_pause_ms=30_000,
    )
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, init_script=WATCH)
    start_with_bots(page)
    page.get_by_test_id("btn-start-snail").click()
    # Seat 2 is dealt a Remmi and claims as soon as trading opens.
    page.wait_for_selector('[data-testid="claimed-2"]')
    wait_cue(page, "turn")
    wait_cue(page, "claim")
    assert cues(page).index("turn") < cues(page).index("claim")
    assert page.get_by_test_id("btn-claim").get_attribute("aria-keyshortcuts") == "C"
    assert page.get_by_test_id("btn-offer").get_attribute("aria-keyshortcuts") == "O"


@pytest.mark.parametrize("motion", ["full", "reduce"])
def test_cards_fly_from_the_seat_to_the_pile_unless_motion_is_reduced(
    live_server, open_page: OpenPage, motion: str
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room, _ = start_scenario_room(live_server.url, ana, open_page)
    page = open_page(
        f"{live_server.url}/?room={room}",
        identity=ana,
        init_script=WATCH,
        reduced_motion="reduce" if motion == "reduce" else None,
    )
    table = Table(page)
    table.wait_my_turn_to_draw()
    page.evaluate("() => { window.__flights = []; }")
    discarded = play_a_round(table)
    page.wait_for_timeout(300)
    flights = page.evaluate("() => window.__flights")
    if motion == "reduce":
        # Nothing flies: the new state simply shows.
        assert flights == []
        assert table.discard_top() != discarded
        return
    labels = [f["label"] for f in flights]
    # Ana's discard from her hand, then the bot's draw and discard.
    assert labels.count("discard") >= 2 and "draw" in labels, labels
    # Each copy starts away from its end (a transform), and is gone once there.
    assert all(f["transform"] not in ("none", "") for f in flights), flights
    page.wait_for_selector('[data-testid="card-flight"]', state="detached")


def test_keys_draw_and_discard_and_are_ignored_while_typing(
    live_server, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    # A slow bot: its move would cover the card X discards, maybe before a
    # busy browser has drawn it on the pile.
    _, page = start_scenario_room(live_server.url, ana, open_page, bot_delay_ms=10_000)
    sent = record_frames(page, sent=True)
    table = Table(page)
    table.wait_my_turn_to_draw()
    stock = page.get_by_test_id("stock")
    assert stock.get_attribute("aria-keyshortcuts") == "D"
    assert stock.get_attribute("title") == "Shortcut: D"
    assert page.get_by_test_id("btn-discard").get_attribute("aria-keyshortcuts") == "X"
    assert page.get_by_test_id("btn-meld").get_attribute("aria-keyshortcuts") == "M"

    # Typing "d" into the chat writes it there and draws nothing.
    if not page.get_by_test_id("chat-input").is_visible():
        page.get_by_test_id("chat-toggle").click()
    chat = page.get_by_test_id("chat-input")
    chat.click()
    page.keyboard.type("dx")
    expect(chat).to_have_value("dx")
    page.keyboard.press("Enter")
    # The line came back from the server, so every frame sent before it is in.
    expect(page.get_by_test_id("chat-lines")).to_contain_text("dx")
    assert [f for f in sent if f.get("type") == "act"] == []
    assert len(table.hand()) == 10
    assert stock.is_enabled()

    # At the table: X before drawing does nothing (Discard is greyed out); D draws.
    page.get_by_test_id("phase").click()
    table.select("KC")
    page.keyboard.press("x")
    page.keyboard.press("d")
    table.wait_hand_size(11)
    assert [f["action"]["kind"] for f in sent if f.get("type") == "act"] == ["draw"]
    assert "KC" in table.hand()
    # X discards the selected card, once Discard is lit: the drawn card shows
    # with the state, a moment before the draw's ack frees the buttons.
    expect(page.get_by_test_id("btn-discard")).to_be_enabled()
    page.keyboard.press("x")
    page.wait_for_selector('[data-testid="card-KC"]', state="detached")
    page.wait_for_selector('[data-testid="discard-top"][data-card="KC"]')
    assert len(table.hand()) == 10

    # "?" shows the shortcuts, Escape closes them.
    page.keyboard.press("?")
    help_box = page.get_by_test_id("shortcuts-help")
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("Keyboard shortcuts")
    expect(help_box).to_contain_text("Draw from the stock")
    page.keyboard.press("Escape")
    expect(help_box).to_have_count(0)


RING = """el => {
    const s = getComputedStyle(el);
    return {outline: `${s.outlineStyle} ${s.outlineColor} ${s.outlineWidth}`,
            shadow: s.boxShadow, visible: el.matches(':focus-visible')};
}"""


def transitions_done(locator: Locator) -> None:
    """Waits until ``locator``'s element has no CSS transition still running."""
    locator.page.wait_for_function(
        """el => el.getAnimations().every(
               a => !(a instanceof CSSTransition) || a.playState === 'finished')""",
        arg=locator.element_handle())


def test_the_focus_ring_is_not_the_new_card_glow(live_server, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page)
    table = Table(page)
    table.wait_my_turn_to_draw()
    before = set(table.hand())
    table.draw_stock()
    (drawn,) = set(table.hand()) - before
    card = page.get_by_test_id(f"card-{drawn}")
    assert "is-new" in (card.get_attribute("class") or "")
    page.mouse.move(5, 5)
    glow = card.evaluate(RING)

    # The keyboard's focus on that same card: a ring that is not the glow.
    page.keyboard.press("Shift")
    card.evaluate("el => el.focus()")
    transitions_done(card)  # the card's box-shadow
    ring = card.evaluate(RING)
    assert ring["visible"], ring
    assert glow["outline"].startswith("none"), glow
    assert ring["outline"].startswith("solid rgb(255, 255, 255)"), ring
    assert "rgb(29, 78, 216)" in ring["shadow"], ring
    assert "rgb(125, 211, 252)" in glow["shadow"] and "rgb(125, 211, 252)" not in ring["shadow"]

    # A button gets the same ring.
    page.keyboard.press("Shift")
    button = page.get_by_test_id("btn-sort-rank")
    button.evaluate("el => el.focus()")
    transitions_done(button)
    styled = button.evaluate(RING)
    assert styled["visible"] and styled["outline"].startswith("solid rgb(255, 255, 255)"), styled
    assert "rgb(29, 78, 216)" in styled["shadow"], styled


# The animations and transitions running in the page now: what each moves,
# and whether it runs for ever (a CSS property named as the keyframes name it).
RUNNING = """() => document.getAnimations().filter(a => a.playState === 'running').map(a => ({
  name: a.animationName || a.transitionProperty,
  moves: a.transitionProperty ? [a.transitionProperty] : [...new Set(
    a.effect.getKeyframes().flatMap(Object.keys))].filter(
      k => !['offset', 'computedOffset', 'easing', 'composite'].includes(k)),
  endless: a.effect.getTiming().iterations === Infinity,
  clock: !!a.effect.target?.matches('.clock-fill, .rd-bar-fill'),
}))"""
COMPOSITED = {"opacity", "transform"}


@pytest.mark.parametrize("game", ["basic_rummy", "remmi_demmi"])
def test_a_table_waiting_for_its_player_moves_only_what_the_browser_composites(
    live_server, open_page: OpenPage, game: str
) -> None:
    # A live pile beckons for as long as the turn lasts and a clock runs down
    # all the while: anything but opacity and transform would be painted again
    # every frame, a phone's battery spent on a table that waits.
    ana = new_guest(live_server.url, "Ana")
    if game == "basic_rummy":
        room = create_room(live_server.url, ana, 2, turn_clock_s=60, bot_delay_ms=0)
    else:
        room = create_game_room(live_server.url, ana, game, 4, seed=7, timer_s=60,
                                bot_delay_ms=10_000)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    start_with_bots(page)
    if game == "basic_rummy":
        Table(page).wait_my_turn_to_draw()
        wanted = "list.some(a => a.endless) && list.some(a => a.clock)"
    else:
        page.get_by_test_id("btn-start-lightning").click()
        wanted = "list.some(a => a.clock)"
    # The moment both run: the pile's pulse and a step of the clock's bar.
    running = page.wait_for_function(
        f"() => {{ const list = ({RUNNING})(); return {wanted} ? list : null; }}"
    ).json_value()
    # What runs while the table waits: the endless pulse and the clock's steps.
    # A one-off transition as the turn passes (the seat's glow) ends in 0.2 s.
    waiting = [a for a in running if a["endless"] or a["clock"]]
    assert all(set(a["moves"]) <= COMPOSITED for a in waiting), running
