"""Plain words at the table (issue 26): what the page says is said once, in the
player's language, with card symbols and never a rule id; a bot playing a
seat is named as a bot; the setup asks for seconds.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import OpenPage, Table, create_room
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

RULE_ID = re.compile(r"\b(BR|TR|IR|RD)-\d+")
RAW_CARD = re.compile(r"\b[A2-9TJQK][SHDC]\d?\b|\b[OPG][RJL]\d\b")
LANGS = ("en", "id", "fr", "nb", "sr")

# Refusals as the server sends them (code, reason, rule, params, English
# message with the rule and the card ids), a few for each game.
REFUSALS: list[dict[str, Any]] = [
    {"code": "illegal_action", "reason": "card_just_taken", "rule": "BR-12",
     "params": {"card": "QS"}, "message": "QS was just taken (BR-12)."},
    {"code": "illegal_action", "reason": "not_a_meld", "rule": "BR-6, BR-7",
     "params": {"cards": ["9S", "JD", "KC"]}, "message": "9S, JD, KC is not a meld."},
    {"code": "illegal_action", "reason": "not_in_top_three", "rule": "IR-10",
     "params": {"card": "7H"}, "message": "7H is not one of the top three (IR-10)."},
    {"code": "illegal_action", "reason": "take_from_hand_only", "rule": "IR-6, IR-7",
     "params": {"cards": ["QS", "TD"]}, "message": "You do not hold QS, TD."},
    {"code": "illegal_action", "reason": "only_taken_card_left", "rule": "TR-9",
     "params": {"card": "TD"}, "message": "That would leave you only TD."},
    {"code": "illegal_action", "reason": "cards_locked", "rule": "RD-11",
     "params": {"cards": ["OR3", "PJ1"]}, "message": "OR3, PJ1 stay with you (RD-11)."},
    {"code": "not_your_turn", "reason": "not_your_turn", "rule": "RD-8",
     "params": {"turn": 2}, "message": "It is not your turn (RD-8)."},
    {"code": "bad_options", "reason": "needs_deals_or_target", "rule": "BR-5",
     "params": {"detail": "The game needs a number of deals or a target score."},
     "message": "The game needs a number of deals or a target score."},
]

ERRORS_SCRIPT = """async ([lang, refusals]) => {
  const { errorText, setLanguage } = await import('/static/js/i18n.js');
  setLanguage(lang);
  return refusals.map((err) => errorText(err));
}"""


def test_refusals_of_every_game_are_sentences_with_card_symbols(
    live_server: Any, open_page: OpenPage
) -> None:
    page = open_page(live_server.url + "/")
    page.locator(".hero h1").wait_for()
    english = page.evaluate(ERRORS_SCRIPT, ["en", REFUSALS])
    assert english[0] == (
        "Q♠ was just taken from the discard pile and cannot be discarded this turn.")
    assert english[1] == "9♠ J♦ K♣ is not a meld."
    assert english[5] == ("orange running, purple jumping stay with you until the trade's"
                          " return window closes.")
    assert english[7] == "The game needs a number of deals or a target score."
    for lang in LANGS:
        shown = page.evaluate(ERRORS_SCRIPT, [lang, REFUSALS])
        for err, text in zip(REFUSALS, shown, strict=True):
            assert text and not RULE_ID.search(text) and not RAW_CARD.search(text), (lang, text)
            assert "{" not in text, (lang, text)
            if lang != "en":
                assert text != err["message"], (lang, text)
        assert "Q♠" in shown[0] and "10♦" in shown[4], (lang, shown)


def test_options_refused_by_the_server_are_said_in_the_players_language(
    live_server: Any, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    page = open_page(live_server.url + "/", identity=ana, locale="id-ID")
    page.get_by_test_id("opt-target").wait_for()
    # Basic Rummy without a number of deals and without a target: no game length.
    page.get_by_test_id("opt-deals").fill("")
    page.get_by_test_id("opt-target").fill("")
    page.get_by_test_id("btn-create").click()
    error = page.get_by_test_id("create-form").get_by_test_id("error")
    expect(error).to_have_text("Permainan perlu jumlah ronde atau skor target.")


def test_setup_asks_for_times_in_seconds(live_server: Any, open_page: OpenPage) -> None:
    ana = new_guest(live_server.url, "Ana")
    page = open_page(live_server.url + "/", identity=ana)
    form = page.get_by_test_id("create-form")
    page.get_by_test_id("opt-deal_pause_ms").wait_for()
    for game in ("basic_rummy", "indonesian_remi", "traditional_remi", "remmi_demmi"):
        page.get_by_test_id("create-game").select_option(game)
        text = form.inner_text()
        assert not re.search(r"\bms\b|millisec|_ms|_s\b", text), (game, text)
        assert "seconds" in text, game
    page.get_by_test_id("create-game").select_option("basic_rummy")
    pause = page.get_by_test_id("opt-deal_pause_ms")
    label = pause.locator("xpath=ancestor::label").inner_text()
    assert label.startswith("Pause between deals") and "(seconds)" in label
    # The server's default, 4000 ms or so, shows as seconds.
    assert float(pause.input_value()) < 60


def test_an_invite_opened_after_the_start_says_so_once(
    live_server: Any, open_page: OpenPage
) -> None:
    olga = new_guest(live_server.url, "Olga")
    room = create_room(live_server.url, olga, 2, bot_delay_ms=0)
    host = open_page(f"{live_server.url}/?room={room}", identity=olga)
    Table(host).add_bots_and_start(1)

    late = new_guest(live_server.url, "Cleo")
    page = open_page(f"{live_server.url}/?room={room}", identity=late)
    banner = page.get_by_test_id("spectator-banner")
    banner.wait_for()
    page.wait_for_function(
        "() => /started/.test(document.querySelector('[data-testid=\"spectator-banner\"]')"
        ".textContent)")
    text = banner.inner_text()
    assert text == ("The game has already started, so you are watching it. "
                    "You see what every player sees, never a hand."), text
    body = page.locator("#app").inner_text()
    # Said once: no second "watching" line, no refusal repeating it.
    assert len(re.findall(r"started", body)) == 1, body
    assert len(re.findall(r"you are watching|watching it|can watch", body, re.I)) == 1, body
    assert "You are watching" not in body and "you can watch it" not in body
    assert not page.get_by_test_id("table").get_by_test_id("error").inner_text().strip()


def test_a_bot_playing_for_an_away_player_is_named_so(
    live_server: Any, open_page: OpenPage
) -> None:
    ana = new_guest(live_server.url, "Ana")
    # Ana never moves: after a one-second turn clock a bot plays her turns.
    room = create_room(live_server.url, ana, 2, turn_clock_s=1, bot_delay_ms=400,
                       seed=1)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana)
    me = Table(page)
    me.add_bots_and_start(1)
    watcher = open_page(f"{live_server.url}/?room={room}&watch=1",
                        identity=new_guest(live_server.url, "Dewi"))
    Table(watcher).wait_phase("playing")

    # The spectator is told that a bot plays for Ana, not to wait for her.
    watcher.wait_for_function(
        "() => document.querySelector('[data-testid=\"status\"]')?.textContent"
        " === 'A bot is playing for Ana…'", timeout=30_000)

    # Ana's log tells the bot's moves for her as the bot's, never as hers.
    me.wait_log("The bot playing for you drew from the stock.")
    me.wait_log("The bot playing for you discarded")

    def own_lines(p: Any) -> list[str]:
        return list(p.locator('[data-testid="log"] li').all_inner_texts())

    mine = re.compile(r"You (drew|took|melded|laid off|discarded|went out)")
    lines = own_lines(page)
    assert not [line for line in lines if mine.match(line)], lines
    # A reload fills the log from the server's table log: the same words.
    page.reload()
    me.wait_log("The bot playing for you drew from the stock.")
    lines = own_lines(page)
    assert not [line for line in lines if mine.match(line)], lines
    # Others see Ana's name with the stand-in's mark.
    assert any(re.fullmatch(r"Ana drew from the stock\. \(bot standing in\)", line)
               for line in own_lines(watcher)), own_lines(watcher)


def test_the_daily_name_first_error_clears_once_the_name_is_saved(
    live_server: Any, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    page = open_page(f"{live_server.url}/?daily")
    page.get_by_test_id("daily-play-indonesian_remi").click()
    error = page.get_by_test_id("daily").get_by_test_id("error")
    expect(error).to_have_text("Choose a name first: your score goes on the leaderboard under it.")
    page.get_by_test_id("name-input").fill("Ana")
    page.get_by_test_id("btn-save-name").click()
    expect(page.get_by_test_id("name-input")).to_have_count(0)
    expect(error).to_have_count(0)


# The texts of [key, params] pairs in a language, as the client's t() makes them.
TEXTS_SCRIPT = """async ([lang, asks]) => {
  const { t, setLanguage } = await import('/static/js/i18n.js');
  setLanguage(lang);
  return asks.map(([key, params]) => t(key, params));
}"""
GESTURE_KEYS = ["br.hint_draw", "tr.hint_draw", "rd.hint_tap_again"]
# How each language starts those sentences, for a mouse and for a finger.
GESTURES = {
    "en": ("Click", "Tap"), "fr": ("Cliquez", "Touchez"), "id": ("Klik", "Ketuk"),
    "nb": ("Klikk", "Trykk"), "sr": ("Klikni", "Dodirni"),
}


@pytest.mark.parametrize("touch", [False, True], ids=["mouse", "finger"])
def test_every_language_taps_on_a_touch_screen_and_clicks_with_a_mouse(
    live_server: Any, open_page: OpenPage, touch: bool
) -> None:
    page = open_page(live_server.url + "/", touch=touch, width=390 if touch else 1280,
                     height=844 if touch else 800)
    page.locator(".hero h1").wait_for()
    for lang in LANGS:
        words = page.evaluate(TEXTS_SCRIPT, [lang, [[key, {}] for key in GESTURE_KEYS]])
        verb = GESTURES[lang][touch]
        assert all(w.startswith(verb) for w in words), (lang, words)


def test_one_card_offered_is_this_card_not_these_1(
    live_server: Any, open_page: OpenPage
) -> None:
    page = open_page(live_server.url + "/")
    page.locator(".hero h1").wait_for()
    said = {}
    for lang in ("en", "fr", "nb", "sr"):
        for key in ("rd.hint_demmi", "rd.answer_title"):
            asks = [[key, {"n": n, "name": "Bram"}] for n in (1, 3)]
            said[f"{lang} {key}"] = page.evaluate(TEXTS_SCRIPT, [lang, asks])
    assert said["en rd.hint_demmi"] == ["Offer this card: a Demmi.", "Offer these 3: a Demmi."]
    assert said["en rd.answer_title"] == [
        "Offer your selected card to Bram", "Offer your 3 selected cards to Bram"]
    for where, (one, three) in said.items():
        assert "1" not in one and "3" in three, (where, one, three)
