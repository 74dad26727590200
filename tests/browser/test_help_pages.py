"""Rules at the table, deal results in words, and a finished game's replay.

The rules open in a dialog over a table (the game stays as it was) in the
page's language (``<html lang>``, which the language switcher sets); a game
left to the turn clock is finished by bots, and its replay steps through
every move with every hand face up.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import OpenPage, create_room, new_guest
from tests.browser.game_rooms import PHONE, assert_fits, start_with_bots
from tests.conftest import LiveServer

pytestmark = pytest.mark.browser

RAW_CARD_ID = re.compile(r"\b[A2-9TJQK][SHDC]\d?\b|\b[OPG][RJL]\d\b")
RULE_ID = re.compile(r"\b(BR|IR|TR|RD)-\d+")


def set_lang(page: Any, lang: str) -> None:
    page.evaluate("lang => { document.documentElement.lang = lang; }", lang)


def open_rules_dialog(page: Any) -> Any:
    page.get_by_test_id("btn-rules").click()
    dialog = page.get_by_test_id("rules-dialog")
    dialog.locator('[data-testid="rules"]').wait_for()
    return dialog


def check_pictures(scope: Any, expected: dict[str, tuple[int, bool]]) -> None:
    """Each picture ``key`` shows ``count`` cards and is marked valid or not."""
    for key, (count, valid) in expected.items():
        figure = scope.get_by_test_id(f"rules-figure-{key}")
        assert figure.locator(".card").count() == count, key
        assert figure.get_attribute("data-valid") == ("true" if valid else "false"), key
        assert figure.locator(".card svg").first.bounding_box()["width"] > 10


def test_rules_at_the_table_results_in_words_and_the_replay(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 2, deals=1, bot_delay_ms=0, turn_clock_s=1,
                       deal_pause_ms=0)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')

    # English: the rules over the table, with a run, a set and a wrong run.
    dialog = open_rules_dialog(page)
    assert dialog.get_by_test_id("rules-title").inner_text() == "Basic Rummy"
    check_pictures(dialog, {"run": (4, True), "set": (3, True), "bad": (3, False)})
    text = dialog.inner_text()
    assert "discard pile" in text and not RAW_CARD_ID.search(text) and not RULE_ID.search(text)
    dialog.get_by_test_id("rules-close").click()
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    assert page.get_by_test_id("table").is_visible()

    # Indonesian, once the page says so.
    set_lang(page, "id")
    start_with_bots(page)
    dialog = open_rules_dialog(page)
    assert dialog.get_by_test_id("rules-title").inner_text() == "Remi Dasar"
    text = dialog.inner_text()
    assert "tumpukan" in text and "buang" in text and "Sah" in text
    check_pictures(dialog, {"run": (4, True), "set": (3, True), "bad": (3, False)})
    assert not RAW_CARD_ID.search(text)
    page.keyboard.press("Escape")
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    set_lang(page, "en")

    # Nobody plays seat 0: the turn clock hands it to a bot, and the game ends.
    page.wait_for_selector('[data-testid="table"][data-phase="game_over"]', timeout=90_000)
    notes = page.get_by_test_id("deal-notes").inner_text()
    assert "How the deal was scored" in notes
    assert "went out" in notes or "void" in notes
    totals = [page.get_by_test_id(f"total-{seat}").inner_text() for seat in (0, 1)]

    page.get_by_test_id("btn-replay").click()
    page.wait_for_selector('[data-testid="replay"][data-step="0"]')
    replay = page.get_by_test_id("replay")
    total = int(replay.get_attribute("data-total"))
    assert total > 4
    assert "dealt" in page.get_by_test_id("replay-action").inner_text()

    def hands() -> list[list[str]]:
        return [page.locator(f'[data-testid="replay-hand-{seat}"] .card').evaluate_all(
            "cards => cards.map(c => c.dataset.card)") for seat in (0, 1)]

    # Every hand is shown, face up, from the first deal.
    dealt = hands()
    assert [len(h) for h in dealt] == [10, 10]
    assert not set(dealt[0]) & set(dealt[1])

    page.get_by_test_id("btn-replay-next").click()
    page.wait_for_selector('[data-testid="replay"][data-step="1"]')
    first_move = page.get_by_test_id("replay-action").inner_text()
    assert "draws" in first_move or "takes" in first_move
    assert sum(len(h) for h in hands()) == 21
    page.get_by_test_id("btn-replay-next").click()
    page.wait_for_selector('[data-testid="replay"][data-step="2"]')
    page.get_by_test_id("btn-replay-prev").click()
    page.wait_for_selector('[data-testid="replay"][data-step="1"]')
    assert page.get_by_test_id("replay-action").inner_text() == first_move
    page.get_by_test_id("btn-replay-prev").click()
    page.wait_for_selector('[data-testid="replay"][data-step="0"]')
    assert hands() == dealt

    # The slider jumps anywhere; play runs on by itself.
    page.get_by_test_id("replay-slider").evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", total // 2)
    page.wait_for_selector(f'[data-testid="replay"][data-step="{total // 2}"]')
    page.get_by_test_id("replay-speed").select_option("4")
    page.get_by_test_id("btn-replay-play").click()
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=\"replay\"]').dataset.step) > n",
        arg=total // 2)
    page.get_by_test_id("btn-replay-play").click()

    # The end: the scores the table showed.
    page.get_by_test_id("btn-replay-last").click()
    page.wait_for_selector(
        f'[data-testid="replay"][data-step="{total - 1}"][data-phase="game_over"]')
    scores = [page.get_by_test_id(f"replay-score-{seat}").inner_text() for seat in (0, 1)]
    assert [re.sub(r"\D", "", s) for s in scores] == totals
    assert "How the deal was scored" in page.get_by_test_id("deal-notes").inner_text()

    # The lobby lists the game among yours, with its replay.
    page.get_by_test_id("btn-lobby").click()
    page.get_by_test_id(f"replay-link-{room}").click()
    page.wait_for_selector('[data-testid="replay"][data-step="0"]')
    assert hands() == dealt


def test_rules_page_on_a_phone_follows_the_page_language(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    page = open_page(f"{live_server.url}/rules/remmi_demmi", **PHONE)
    page.wait_for_selector('[data-testid="rules-page"] [data-game="remmi_demmi"]')
    assert page.get_by_test_id("rules-title").inner_text() == "Remmi Demmi"
    check_pictures(page, {"demmi": (3, True), "not_demmi": (3, False),
                          "remmi": (9, True), "not_remmi": (9, False)})
    assert page.locator('[data-testid="rules-figure-remmi"] .rd-card').count() == 9
    assert_fits(page)

    set_lang(page, "sr")
    page.wait_for_selector('[data-testid="rules"][data-lang="sr"]')
    text = page.get_by_test_id("rules-page").inner_text()
    assert "Provera" in text and "Nazad" in text and "Važi" in text
    assert not RAW_CARD_ID.search(text) and not RULE_ID.search(text)

    page.get_by_test_id("rules-link-indonesian_remi").click()
    page.wait_for_selector('[data-testid="rules"][data-game="indonesian_remi"]')
    assert page.get_by_test_id("rules-title").inner_text() == "Indonežanski remi"
    check_pictures(page, {"sequence": (4, True), "set": (3, True), "bad_ten": (3, False),
                          "bad_ace": (3, False)})
    assert_fits(page)


def test_a_replay_that_is_not_there_says_so(live_server: LiveServer, open_page: OpenPage) -> None:
    page = open_page(f"{live_server.url}/?replay=nope")
    unavailable = page.get_by_test_id("replay-unavailable")
    unavailable.wait_for(timeout=15_000)
    assert unavailable.get_attribute("data-code") == "no_replay"


NOTES_SCRIPT = """async ([game, result, lang]) => {
  document.documentElement.lang = lang;
  const { dealNotes } = await import('/static/js/help.js');
  const names = ['Ana', 'Budi', 'Citra'];
  const notes = dealNotes(game, result, {
    name: (s) => names[s], seats: [0, 1, 2], options: { hand_melds_count: true },
  });
  return [...notes.querySelectorAll('li')].map((li) => li.textContent);
}"""


def test_deal_results_explained_line_by_line(live_server: LiveServer, open_page: OpenPage) -> None:
    page = open_page(f"{live_server.url}/rules")
    page.wait_for_selector('[data-testid="rules-page"]')

    basic = {"deal": 1, "winner": 0, "points": 34, "rummy": True, "void": False,
             "hands": [[], ["KS", "QS", "4H"], ["9D", "3C"]], "hand_values": [0, 24, 10]}
    lines = page.evaluate(NOTES_SCRIPT, ["basic_rummy", basic, "en"])
    assert lines == [
        "Ana went out: +34 from the cards left in the others' hands.",
        "Budi still held 24 points.",
        "Citra still held 10 points.",
        "Rummy: Ana went out in one turn without having melded before, so the points are doubled.",
    ]

    # Budi holds three sevens but no sequence: in Indonesian Remi they count minus.
    remi = {"deal": 1, "winner": 0, "closing_card": "AS", "bonus": 150, "seats": [
        {"seat": 0, "table_melds": [{"kind": "run", "cards": ["2H", "3H", "4H"]}],
         "table_points": 15, "hand_melds": [], "hand_points": 0, "minus_cards": [],
         "minus_points": 0, "bonus": 150, "points": 165},
        {"seat": 1, "table_melds": [], "table_points": 0, "hand_melds": [], "hand_points": 0,
         "minus_cards": ["7S", "7H", "7D", "KC"], "minus_points": 25, "bonus": 0, "points": -25},
        {"seat": 2, "table_melds": [], "table_points": 0,
         "hand_melds": [{"kind": "run", "cards": ["JD", "QD", "KD"]},
                        {"kind": "set", "cards": ["9S", "9H", "9C"]}],
         "hand_points": 45, "minus_cards": [], "minus_points": 0, "bonus": 0, "points": 45},
    ]}
    lines = page.evaluate(NOTES_SCRIPT, ["indonesian_remi", remi, "id"])
    assert lines[0] == "Ana menutup dengan A♠: sepuluh kali nilainya, +150."
    assert lines[1] == "Ana: +15 untuk kombinasi di meja, +150 karena menutup = +165."
    assert lines[2] == "Budi: \u221225 untuk kartu lainnya = -25."
    assert lines[3] == "Budi tidak punya seri, jadi set tidak dihitung: kartunya minus."
    assert lines[4] == "Citra: +45 untuk kombinasi yang masih di tangan = +45."
    assert len(lines) == 5

    traditional = {"deal": 1, "winner": 2, "hunt": True, "void": False,
                   "hand_values": [12, 30, 0], "penalties": [37, 55, 0]}
    lines = page.evaluate(NOTES_SCRIPT, ["traditional_remi", traditional, "sr"])
    assert lines[0] == ("Ana dobija 37: 12 za karte u ruci i još 25 zato što je pobednik "
                        "izašao iz ruke.")
    assert lines[2] == "Citra je izašao i ne dobija kaznene bodove."

    demmi = {"deal": 1, "claims": [{"seat": 1, "valid": True, "awarded": 4, "points": 4},
                                   {"seat": 0, "valid": False, "awarded": None, "points": -5}],
             "penalties": [{"seat": 2, "points": -1, "reason": "peek"}]}
    lines = page.evaluate(NOTES_SCRIPT, ["remmi_demmi", demmi, "fr"])
    assert lines == [
        "Budi a annoncé un vrai Remmi et prend le bonhomme à 4 points : +4.",
        "Ana a crié Remmi-Demmi ! sans avoir de Remmi : -5.",
        "Citra : -1 (peek).",
    ]


def test_rules_over_a_table_on_a_phone_keep_the_table(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 4, game="indonesian_remi")
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    set_lang(page, "fr")
    dialog = open_rules_dialog(page)
    assert dialog.get_by_test_id("rules-title").inner_text() == "Remi indonésien"
    assert "pioche" in dialog.inner_text() and "défausse" in dialog.inner_text()
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["width"] <= PHONE["width"]
    assert_fits(page)
    dialog.get_by_test_id("rules-close").click()
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    assert page.get_by_test_id("table").get_attribute("data-room") == room
    assert page.url.endswith(f"/?room={room}")
