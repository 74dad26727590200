"""The client in the player's language, in a real browser.

The language comes from the browser's (``locale``), or from the switcher in
the top bar, which is remembered. Refusals are sentences in that language:
never a rule id or a raw card id.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import OpenPage, Table
from tests.browser.test_table import ANA, start_scenario_room
from tests.wsclient import new_guest

pytestmark = pytest.mark.browser

RULE_ID = re.compile(r"\b(BR|TR|IR|RD)-\d+\b")
RAW_CARD = re.compile(r"\b[A2-9TJQK][SHDC]\d?\b")


def test_the_switcher_changes_the_language_and_is_remembered(
    live_server, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect  # here: the fixtures skip without it

    page = open_page(live_server.url + "/")
    heading = page.locator(".hero h1")
    expect(heading).to_have_text("Pull up a chair.")
    assert page.evaluate("document.documentElement.lang") == "en"

    page.get_by_test_id("lang-select").select_option("fr")
    expect(heading).to_have_text("Prenez une chaise.")
    assert page.evaluate("document.documentElement.lang") == "fr"
    expect(page.get_by_test_id("btn-save-name")).to_have_text("Enregistrer")

    page.reload()
    expect(heading).to_have_text("Prenez une chaise.")
    assert page.get_by_test_id("lang-select").input_value() == "fr"

    page.get_by_test_id("lang-select").select_option("nb")
    expect(heading).to_have_text("Trekk frem en stol.")
    page.get_by_test_id("lang-select").select_option("en")
    expect(heading).to_have_text("Pull up a chair.")


# The picker's closed face in the top bar: what it shows, and whether its
# words fit. On a phone the select lies invisibly over the short name.
PICKER_FACE = """() => {
    const select = document.querySelector('[data-testid="lang-select"]');
    const short = document.querySelector('[data-testid="lang-short"]');
    const shown = el => el.offsetParent !== null && getComputedStyle(el).opacity !== '0';
    const face = shown(select) ? select : short;
    const rect = face.getBoundingClientRect();
    return {text: shown(select) ? select.selectedOptions[0].text : short.innerText,
            cut: face.scrollWidth > face.clientWidth + 1,
            inside: rect.left >= 0 && rect.right <= document.documentElement.clientWidth,
            tap: select.getBoundingClientRect().height};
}"""


@pytest.mark.parametrize(("locale", "short", "name"), [
    ("en-US", "EN", "English"), ("id-ID", "ID", "Bahasa Indonesia"), ("fr-FR", "FR", "Français"),
    ("nb-NO", "NO", "Norsk bokmål"), ("sr-RS", "SR", "Srpski")])
def test_the_switcher_names_each_language_in_full_or_by_its_short_name_on_a_phone(
    live_server, open_page: OpenPage, locale: str, short: str, name: str
) -> None:
    """A phone's top bar has room for "FR", not for "Français" cut to "Françai":
    it shows the short name, and a tap opens the list of full names."""
    page = open_page(live_server.url + "/", width=360, height=640, touch=True, locale=locale)
    page.get_by_test_id("lang-select").wait_for()
    face = page.evaluate(PICKER_FACE)
    assert face == {"text": short, "cut": False, "inside": True, "tap": face["tap"]}, face
    assert face["tap"] >= 32, face  # the whole face is the select's target
    page.get_by_test_id("lang-select").select_option("fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert page.evaluate(PICKER_FACE)["text"] == "FR"

    desktop = open_page(live_server.url + "/", locale=locale)
    desktop.get_by_test_id("lang-select").wait_for()
    face = desktop.evaluate(PICKER_FACE)
    assert (face["text"], face["cut"], face["inside"]) == (name, False, True), face


def test_an_indonesian_browser_gets_the_lobby_in_indonesian(
    live_server, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    page = open_page(live_server.url + "/", locale="id-ID")
    expect(page.locator(".hero h1")).to_have_text("Ayo duduk.")
    assert page.evaluate("document.documentElement.lang") == "id"
    assert page.get_by_test_id("lang-select").input_value() == "id"
    expect(page.get_by_test_id("btn-create")).to_have_text("Buka meja")
    # The name's limit shows while typing.
    page.get_by_test_id("name-input").fill("Fajar")
    expect(page.get_by_test_id("name-count")).to_have_text("5/24")


def test_an_indonesian_player_sees_an_indonesian_refusal(live_server, open_page: OpenPage) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    room, _ = start_scenario_room(live_server.url, ana, open_page)
    page = open_page(f"{live_server.url}/?room={room}", identity=ana, locale="id-ID")
    me = Table(page)
    me.wait_my_turn_to_draw()
    expect(page.get_by_test_id("phase")).to_have_text("Giliranmu")

    # Three cards that are no meld: the server refuses, and the client says
    # why in Indonesian, the cards as symbols.
    me.draw_stock()
    me.select("9S", "JD", "KC")
    page.get_by_test_id("btn-meld").click()
    error = page.get_by_test_id("error")
    error.wait_for(state="visible")
    text = error.inner_text()
    assert text.endswith("bukan kombinasi.") and "9♠" in text, text
    assert not RULE_ID.search(text) and not RAW_CARD.search(text)
    assert len(me.hand()) == len(ANA) + 1
    # Another language says the same refusal in its own words.
    page.get_by_test_id("lang-select").select_option("en")
    expect(error).to_have_text(re.compile(r"9♠.* is not a meld\.$"))
    page.get_by_test_id("lang-select").select_option("id")
    expect(error).to_have_text(text)

    # A refusal as the server sends it now (code, English message, rule,
    # reason, params): only the player's language shows, cards as symbols.
    shown = page.evaluate(
        """async () => {
            const { errorText } = await import('/static/js/i18n.js');
            return [
                errorText({ code: 'not_your_turn', reason: 'turn_order', rule: 'BR-4',
                            params: { card: 'QS' }, message: 'Not your turn (BR-4).' }),
                errorText({ code: 'illegal_action', reason: 'not_in_hand', rule: 'BR-12',
                            params: { card: 'QS' }, message: 'QS was just taken (BR-12).' }),
                errorText({ code: 'no_such_code', message: 'QS? (BR-99)' }),
            ];
        }"""
    )
    assert shown == [
        "Belum giliranmu.",
        "Langkah itu tidak boleh sekarang.",
        "Langkah itu tidak boleh sekarang.",
    ]


def test_a_reason_with_a_sentence_shows_it_with_its_card_as_a_symbol(
    live_server, open_page: OpenPage
) -> None:
    # errors.<lang>.js is written with the server's reasons; here, one sentence.
    page = open_page(live_server.url + "/", locale="id-ID")
    page.locator(".hero h1").wait_for()
    page.route(
        "**/static/js/lang/errors.id.js",
        lambda route: route.fulfill(
            content_type="text/javascript",
            body='export default {"not_in_hand": "{card} tidak ada di tanganmu."};',
        ),
    )
    page.reload()
    page.locator(".hero h1").wait_for()
    shown = page.evaluate(
        """async () => {
            const { errorText } = await import('/static/js/i18n.js');
            return [
                errorText({ code: 'illegal_action', reason: 'not_in_hand', rule: 'BR-12',
                            params: { card: 'QS' }, message: 'QS is not in your hand (BR-12).' }),
                errorText({ code: 'illegal_action', reason: 'not_in_hand',
                            params: { card: 'TD2' } }),
            ];
        }"""
    )
    assert shown == ["Q♠ tidak ada di tanganmu.", "10♦ tidak ada di tanganmu."]


def test_moves_that_are_always_refused_are_greyed_out_with_the_reason(
    live_server, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page)
    me = Table(page)
    me.wait_my_turn_to_draw()

    # Before drawing: neither Discard nor Meld, whatever is selected.
    for cards in [(), ("KC",), ("7H", "7D", "7C")]:
        if cards:
            me.select(*cards)
        for button in ("btn-discard", "btn-meld"):
            assert page.get_by_test_id(button).is_disabled(), (button, cards)
            assert "draw" in (page.get_by_test_id(button).get_attribute("title") or "").lower()
    page.get_by_test_id("btn-meld-why").click()
    expect(page.get_by_test_id("hint")).to_have_text(
        "Draw a card first: you can meld after drawing."
    )
    # The reason follows a change of language.
    page.get_by_test_id("lang-select").select_option("fr")
    expect(page.get_by_test_id("hint")).to_have_text(
        "Piochez d\u2019abord : vous pourrez poser ensuite."
    )
    page.get_by_test_id("lang-select").select_option("en")
    expect(page.get_by_test_id("hint")).to_have_text(
        "Draw a card first: you can meld after drawing."
    )

    # The top of the discard pile, just taken, may not go straight back.
    for card in ("KC", "7H", "7D", "7C"):
        page.get_by_test_id(f"card-{card}").click()
        page.wait_for_selector(f'[data-testid="card-{card}"][aria-pressed="false"]')
    taken = me.take_discard()
    me.select(taken)
    discard = page.get_by_test_id("btn-discard")
    expect(discard).to_be_disabled()
    assert "just taken" in (discard.get_attribute("title") or "")
    # Another card may go.
    page.get_by_test_id(f"card-{taken}").click()
    me.select("KC")
    expect(discard).to_be_enabled()


def test_a_bot_standing_in_for_an_away_player_is_named_so(open_page: OpenPage, live_server) -> None:
    # The status line as spectators see it, from a view where seat 0 is away.
    page = open_page(live_server.url + "/")
    page.locator(".hero h1").wait_for()
    text = page.evaluate(
        """async () => {
            const { BasicRummyTable } = await import('/static/js/table_basic_rummy.js');
            const table = Object.create(BasicRummyTable.prototype);
            return [
                table.waitingFor({ seat: 0, name: 'Fajar', away: true }),
                table.waitingFor({ seat: 0, name: 'Fajar' }),
            ];
        }"""
    )
    assert text == ["A bot is playing for Fajar…", "Waiting for Fajar…"]
    # Remmi Demmi: the timer waits on a person only when a person deals.
    dealer = page.evaluate(
        """async () => {
            const { RemmiDemmiTable } = await import('/static/js/table_remmi_demmi.js');
            const table = Object.create(RemmiDemmiTable.prototype);
            const said = (seat) => {
                table.view = { dealer: 0, seats: [seat] };
                return table.waitingDealer();
            };
            return [said({ seat: 0, name: 'Fajar', away: true }),
                    said({ seat: 0, name: 'Ada', bot: true }),
                    said({ seat: 0, name: 'Fajar' })];
        }"""
    )
    assert dealer == ["A bot starts the timer for Fajar…", "Ada (bot) is about to start the timer…",
                      "Waiting for Fajar to start the timer…"]


def test_switching_at_the_table_rewords_it_in_place(live_server, open_page: OpenPage) -> None:
    from playwright.sync_api import expect

    ana = new_guest(live_server.url, "Ana")
    _, page = start_scenario_room(live_server.url, ana, open_page)
    me = Table(page)
    me.wait_my_turn_to_draw()
    version = page.get_by_test_id("table").get_attribute("data-version")
    page.get_by_test_id("lang-select").select_option("sr")
    expect(page.get_by_test_id("phase")).to_have_text("Na potezu si")
    expect(page.get_by_test_id("btn-discard")).to_have_text("Baci")
    assert page.evaluate("document.documentElement.lang") == "sr-Latn"
    # The same seat, the same state: no new join, no reload.
    assert page.get_by_test_id("table").get_attribute("data-version") == version
    assert page.get_by_test_id("table").get_attribute("data-you") == "0"
    label = page.get_by_test_id("card-KC").get_attribute("aria-label")
    assert label == "kralj tref"
    me.draw_stock()
    expect(page.get_by_test_id("log")).to_contain_text("Vučeš iz špila.")


def test_name_limits_show_while_typing_and_the_name_error_clears(
    live_server, open_page: OpenPage
) -> None:
    from playwright.sync_api import expect

    page = open_page(live_server.url + "/")
    page.get_by_test_id("btn-create").click()
    error = page.get_by_test_id("create-form").get_by_test_id("error")
    expect(error).to_have_text("Choose your name first.")

    name = page.get_by_test_id("name-input")
    name.fill("")
    name.press_sequentially("Ana")
    expect(page.get_by_test_id("name-count")).to_have_text("3/24")
    name.fill("A name that is much too long for the limit")
    expect(page.get_by_test_id("name-cut")).to_be_visible()
    assert len(name.input_value()) == 24
    expect(page.get_by_test_id("name-count")).to_have_text("24/24")

    name.fill("Ana")
    page.get_by_test_id("btn-save-name").click()
    expect(page.get_by_test_id("identity-name")).to_have_text("Ana")
    expect(error).to_be_hidden()
