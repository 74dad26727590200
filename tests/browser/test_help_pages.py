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

from tests.browser.conftest import OpenPage, create_room
from tests.browser.game_rooms import PHONE, assert_fits, start_with_bots
from tests.live import LiveServer
from tests.wsclient import new_guest

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

    # Indonesian, once the player picks it; opened before the game starts, as
    # with a one-second turn clock and instant bots the table never rests after.
    page.get_by_test_id("lang-select").select_option("id")
    dialog = open_rules_dialog(page)
    assert dialog.get_by_test_id("rules-title").inner_text() == "Remi Dasar"
    text = dialog.inner_text()
    assert "tumpukan" in text and "buang" in text and "Sah" in text
    check_pictures(dialog, {"run": (4, True), "set": (3, True), "bad": (3, False)})
    assert not RAW_CARD_ID.search(text)
    page.keyboard.press("Escape")
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    page.get_by_test_id("lang-select").select_option("en")
    start_with_bots(page)

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
    # Another language: the replay goes on from where it was, as fast, still playing.
    page.get_by_test_id("lang-select").select_option("nb")
    page.wait_for_selector('[data-testid="replay"] h1:has-text("Reprise")')
    assert int(replay.get_attribute("data-step")) > total // 2
    assert page.get_by_test_id("replay-speed").input_value() == "4"
    step = int(replay.get_attribute("data-step"))
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=\"replay\"]').dataset.step) > n",
        arg=step)
    page.get_by_test_id("lang-select").select_option("en")
    page.wait_for_selector('[data-testid="replay"] h1:has-text("Replay")')
    page.get_by_test_id("btn-replay-play").click()

    # The end: the scores the table showed.
    page.get_by_test_id("btn-replay-last").click()
    page.wait_for_selector(
        f'[data-testid="replay"][data-step="{total - 1}"][data-phase="game_over"]')
    scores = [page.get_by_test_id(f"replay-score-{seat}").inner_text() for seat in (0, 1)]
    assert [re.sub(r"\D", "", s) for s in scores] == totals
    assert "How the deal was scored" in page.get_by_test_id("deal-notes").inner_text()

    # In French, the same last move, the game named as the lobby names it.
    page.get_by_test_id("lang-select").select_option("fr")
    page.wait_for_selector('[data-testid="replay"] h1:has-text("Rediffusion")')
    assert replay.get_attribute("data-step") == str(total - 1)
    assert page.get_by_test_id("replay-step").inner_text() == f"Coup {total - 1} sur {total - 1}"
    assert page.locator('[data-testid="replay"] h1').inner_text() == "Rami simple · Rediffusion"
    assert page.title() == "Rediffusion · Rami simple · Kartu"

    # The lobby lists the game among yours, with its replay, in French too.
    page.get_by_test_id("btn-lobby").click()
    recent = page.get_by_test_id(f"recent-{room}")
    recent.wait_for()
    assert recent.locator("strong").inner_text() == "Rami simple"
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


GAME_NAMES = """async games => {
  const { t } = await import('/static/js/i18n.js');
  return Object.fromEntries(games.map(g => [g, t(`game.${g}`)]));
}"""
RULES_GAMES = ["basic_rummy", "indonesian_remi", "traditional_remi", "remmi_demmi"]


def test_rules_pages_name_each_game_as_the_lobby_and_table_do(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    page = open_page(f"{live_server.url}/?rules=indonesian_remi")
    page.wait_for_selector('[data-testid="rules"][data-lang="en"]')
    for lang in ("en", "fr", "id", "nb", "sr"):
        page.get_by_test_id("lang-select").select_option(lang)
        page.wait_for_selector(f'[data-testid="rules"][data-lang="{lang}"]')
        names = page.evaluate(GAME_NAMES, RULES_GAMES)
        shown = {"indonesian_remi": page.get_by_test_id("rules-title").inner_text()}
        for game in RULES_GAMES[:1] + RULES_GAMES[2:]:
            shown[game] = page.get_by_test_id(f"rules-link-{game}").inner_text()
        assert shown == names, lang


def test_a_replay_that_is_not_there_says_so(live_server: LiveServer, open_page: OpenPage) -> None:
    page = open_page(f"{live_server.url}/?replay=nope")
    unavailable = page.get_by_test_id("replay-unavailable")
    unavailable.wait_for(timeout=15_000)
    assert unavailable.get_attribute("data-code") == "no_replay"


NOTES_SCRIPT = """async ([game, result, lang]) => {
  // The page's words and the table's follow the same switch.
  const { setLanguage } = await import('/static/js/i18n.js');
  setLanguage(lang);
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

    basic = {"deal": 1, "winner": 0, "points": 68, "rummy": True, "void": False,
             "hands": [[], ["KS", "QS", "4H"], ["9D", "3C"]], "hand_values": [0, 24, 10]}
    lines = page.evaluate(NOTES_SCRIPT, ["basic_rummy", basic, "en"])
    assert lines == [
        "Ana went out and scores the value of the cards left in the other hands.",
        "Budi still held 24 points.",
        "Citra still held 10 points.",
        "Rummy: Ana laid the whole hand down in one turn without having melded before, so the"
        " points are doubled: (24 + 10) \u00d7 2 = +68.",
    ]
    plain = {**basic, "points": 34, "rummy": False}
    assert page.evaluate(NOTES_SCRIPT, ["basic_rummy", plain, "en"])[-1] == "Ana scores +34."
    void = {"deal": 2, "winner": None, "points": 0, "void": True}
    assert page.evaluate(NOTES_SCRIPT, ["basic_rummy", void, "en"]) == [
        "Nobody went out before the stock and the discard pile ran out: the deal is void and"
        " nobody scores."]

    # Budi holds four jacks and three aces but no sequence: in Indonesian Remi
    # sets count only together with a sequence, so all seven are minus (-85).
    remi = {"deal": 1, "winner": 0, "closing_card": "AS", "bonus": 150, "seats": [
        {"seat": 0, "table_melds": [{"kind": "run", "cards": ["2H", "3H", "4H"]}],
         "table_points": 15, "hand_melds": [], "hand_points": 0, "minus_cards": [],
         "minus_points": 0, "bonus": 150, "points": 165},
        {"seat": 1, "table_melds": [], "table_points": 0, "hand_melds": [], "hand_points": 0,
         "minus_cards": ["JS", "JH", "JD", "JC", "AC", "AH", "AD"], "minus_points": 85,
         "bonus": 0, "points": -85},
        {"seat": 2, "table_melds": [], "table_points": 0,
         "hand_melds": [{"kind": "run", "cards": ["JD", "QD", "KD"]},
                        {"kind": "set", "cards": ["9S", "9H", "9C"]}],
         "hand_points": 45, "minus_cards": [], "minus_points": 0, "bonus": 0, "points": 45},
    ]}
    lines = page.evaluate(NOTES_SCRIPT, ["indonesian_remi", remi, "en"])
    assert lines == [
        "Ana closed with A\u2660: ten times its value, +150.",
        "Cards in melds count plus, on the table or still in the hand; every other card counts"
        " minus. Sets count only for a player who has a sequence.",
        "Ana: +15 for melds on the table, +150 for closing = +165.",
        "Budi: \u221285 for cards in no meld = -85.",
        "Budi had no sequence, so the sets J\u2660 J\u2665 J\u2666 J\u2663 and"
        " A\u2663 A\u2665 A\u2666 do not count: their cards are minus.",
        "Citra: +45 for melds still in hand = +45.",
    ]
    lines = page.evaluate(NOTES_SCRIPT, ["indonesian_remi", remi, "id"])
    assert lines[0] == "Ana menutup dengan A\u2660: sepuluh kali nilainya, +150."
    assert lines[3] == "Budi: \u221285 untuk kartu di luar kombinasi = -85."
    assert lines[4] == ("Budi tidak punya seri, jadi set J\u2660 J\u2665 J\u2666 J\u2663 dan"
                        " A\u2663 A\u2665 A\u2666 tidak dihitung: kartu-kartunya dihitung minus.")

    traditional = {"deal": 1, "winner": 2, "hunt": True, "void": False,
                   "hand_values": [12, 30, 0], "penalties": [37, 55, 0]}
    lines = page.evaluate(NOTES_SCRIPT, ["traditional_remi", traditional, "sr"])
    assert lines[0] == ("Lov: Citra spušta sve karte u jednom potezu, bez ranijeg spuštanja,"
                        " pa svi ostali dobijaju još 25.")
    assert lines[1] == "Ana dobija 37: 12 za karte u ruci i još 25 za lov."
    assert lines[3] == "Citra završava i ne dobija kaznene poene."

    demmi = {"deal": 1, "claims": [{"seat": 1, "valid": True, "awarded": 4, "points": 4},
                                   {"seat": 0, "valid": False, "awarded": None, "points": -5}],
             "penalties": [{"seat": 2, "points": -1,
                            "reason": "looked at the cards before the sign"},
                           {"seat": 1, "points": -1, "reason": "something new"}]}
    lines = page.evaluate(NOTES_SCRIPT, ["remmi_demmi", demmi, "fr"])
    assert lines == [
        "Budi a crié Remmi-Demmi ! avec un vrai Remmi et prend le bonhomme à 4 points : +4.",
        "Ana a crié Remmi-Demmi ! mais ses neuf cartes ne forment pas un Remmi : -5, et pas de"
        " bonhomme.",
        "Citra : -1 (a regardé ses cartes avant le signal).",
        "Budi : -1 de pénalité.",
    ]
    for lang in ("en", "id", "fr", "nb", "sr"):
        for game, result in [("basic_rummy", basic), ("indonesian_remi", remi),
                             ("traditional_remi", traditional), ("remmi_demmi", demmi)]:
            for line in page.evaluate(NOTES_SCRIPT, [game, result, lang]):
                assert not RAW_CARD_ID.search(line) and not RULE_ID.search(line), (lang, line)
                assert "{" not in line, (lang, line)


# A table of `game` showing `result` at the end of a deal, its result panel
# rendered without a server: each explanation of the score, in its words.
PANEL_SCRIPT = """async ([module, cls, game, result, options]) => {
  const mod = await import(`/static/js/${module}.js`);
  const table = Object.create(mod[cls].prototype);
  table.selected = new Set();
  table.ctx = { identity: () => null, roomId: 'r', leave() {}, notice: null };
  table.view = {
    game, phase: 'deal_over', deal: 1, you: null, options, result,
    seats: [{ seat: 0, name: 'Ana', score: 10 }, { seat: 1, name: 'Budi', score: -85 },
            { seat: 2, name: 'Citra', score: 0 }],
  };
  const panel = table.resultPanel();
  const notes = panel.querySelectorAll('[data-testid="deal-notes"]');
  const out = panel.cloneNode(true);
  out.querySelectorAll('[data-testid="deal-notes"]').forEach((n) => n.remove());
  return { notes: notes.length, rest: out.textContent };
}"""


def test_each_result_panel_explains_the_scoring_once(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    page = open_page(f"{live_server.url}/rules")
    page.wait_for_selector('[data-testid="rules-page"]')
    remi = {"deal": 1, "winner": None, "ended": "stock_out", "closing_card": None, "bonus": 0,
            "seats": [{"seat": s, "table_melds": [], "table_points": 0, "hand_melds": [],
                       "hand_points": 0, "minus_cards": ["JS", "JH", "JD", "JC"],
                       "minus_points": 40, "bonus": 0, "points": -40} for s in range(3)]}
    cases = [
        ("table_basic_rummy", "BasicRummyTable", "basic_rummy",
         {"deal": 1, "winner": 0, "points": 34, "rummy": True, "void": False,
          "hands": [[], ["KS"], ["9D"]], "hand_values": [0, 10, 9]}, {}),
        ("table_basic_rummy", "BasicRummyTable", "basic_rummy",
         {"deal": 1, "winner": None, "points": 0, "void": True}, {}),
        ("table_indonesian_remi", "IndonesianRemiTable", "indonesian_remi", remi,
         {"hand_melds_count": True}),
        ("table_traditional_remi", "TraditionalRemiTable", "traditional_remi",
         {"deal": 1, "winner": 0, "hunt": True, "void": False, "hands": [[], ["KS"], ["9D"]],
          "hand_values": [0, 10, 9], "penalties": [0, 35, 34]}, {}),
        ("table_traditional_remi", "TraditionalRemiTable", "traditional_remi",
         {"deal": 1, "winner": None, "hunt": False, "void": True}, {}),
        ("table_remmi_demmi", "RemmiDemmiTable", "remmi_demmi",
         {"deal": 1, "ended_by": "timer", "claims": [],
          "penalties": [{"seat": 2, "points": -1,
                         "reason": "looked at the cards before the sign"}],
          "points": [0, 0, -1]}, {}),
    ]
    # What the notes say, and the old second explanations, stay out of the rest of the panel.
    repeated = re.compile(r"doubled for rummy|value of the cards left|counts? minus|"
                          r"count plus|sequence|nobody scores|penalty points|point man|"
                          r"costs points|looked at the cards|Penalties|rummy \(|in one turn")
    for module, cls, game, result, options in cases:
        shown = page.evaluate(PANEL_SCRIPT, [module, cls, game, result, options])
        assert shown["notes"] == 1, (game, shown)
        assert not repeated.search(shown["rest"]), (game, shown["rest"])


def test_rules_over_a_table_on_a_phone_keep_the_table(
    live_server: LiveServer, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana, 4, game="indonesian_remi")
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, **PHONE)
    page.wait_for_selector('[data-testid="table"][data-phase="waiting"]')
    set_lang(page, "fr")
    dialog = open_rules_dialog(page)
    assert dialog.get_by_test_id("rules-title").inner_text() == "Rami indonésien"
    assert "pioche" in dialog.inner_text() and "défausse" in dialog.inner_text()
    box = dialog.bounding_box()
    assert box["x"] >= 0 and box["width"] <= PHONE["width"]
    assert_fits(page)
    dialog.get_by_test_id("rules-close").click()
    page.get_by_test_id("rules-dialog").wait_for(state="detached")
    assert page.get_by_test_id("table").get_attribute("data-room") == room
    assert page.url.endswith(f"/?room={room}")
