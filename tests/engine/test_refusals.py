"""Every refusal names a reason that the protocol documents and every client
language says.

The reasons are found in the code itself (``IllegalAction.of("draw_first")``,
``RoomError.of("forbidden", "owner_only")``, ``reason="..."``, and the code
of a refusal made without a reason, which is its reason then:
``ApiError(404, "no_replay")``), so a refusal added without its
documentation or its sentences fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.refusals import REASONS, sentence

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "id", "fr", "nb", "sr")
SOURCES = [*sorted((ROOT / "engine" / "games").glob("*.py")), ROOT / "engine" / "room.py",
           *sorted((ROOT / "app").glob("*.py"))]

_GAME_OF = re.compile(r'(?:IllegalAction|NotYourTurn|GameError)\.of\(\s*"(\w+)"')
_ROOM_OF = re.compile(r'RoomError\.of\(\s*"\w+",\s*"(\w+)"')
_KEYWORD = re.compile(r'reason="(\w+)"')
# A refusal made by its code: ApiError(404, "no_replay", ...), RoomError("busy", ...),
# frames.error("bad_message", ...); the call is read on to see whether it names a reason.
_BY_CODE = re.compile(
    r'(?:\bApiError\(\s*\d+,|\bRoomError\(|\bframes\.error\(|(?<![\w.])error\()\s*"(\w+)"')
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_JS_ENTRY = re.compile(r"^  (\w+): '((?:[^'\\]|\\.)*)',$", re.M)


def raised_reasons() -> dict[str, set[str]]:
    """Each reason the code names, with the files naming it."""
    found: dict[str, set[str]] = {}
    for path in SOURCES:
        text = path.read_text()
        for pattern in (_GAME_OF, _ROOM_OF, _KEYWORD):
            for reason in pattern.findall(text):
                found.setdefault(reason, set()).add(path.name)
        for match in _BY_CODE.finditer(text):
            if "reason=" not in call_text(text, match.end()):
                found.setdefault(match[1], set()).add(path.name)
    return found


def call_text(text: str, start: int) -> str:
    """The rest of the call whose arguments begin before ``start``: up to its
    closing parenthesis."""
    depth = 1
    for at in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return text[start:at]
    return text[start:]


def documented() -> dict[str, str]:
    """The reasons table of docs/protocol.md: reason -> English sentence."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    return {m[1]: m[2].strip() for m in re.finditer(r"^\| `(\w+)` \| [^|]* \| (.*) \|$", text,
                                                     re.M)}


def language(lang: str) -> dict[str, str]:
    text = (ROOT / "static" / "js" / "lang" / f"errors.{lang}.js").read_text()
    assert text.count("export default {") == 1
    return {key: value.replace("\\'", "'") for key, value in _JS_ENTRY.findall(text)}


def test_the_code_raises_many_reasons_and_all_are_catalogued() -> None:
    found = raised_reasons()
    assert len(found) > 60, "the scan no longer finds the refusals"
    unknown = {reason: files for reason, files in found.items() if reason not in REASONS}
    assert not unknown


def test_no_game_refuses_without_a_reason() -> None:
    # A bare IllegalAction("sentence") would reach a player untranslated.
    for path in sorted((ROOT / "engine" / "games").glob("*.py")):
        text = path.read_text()
        for match in re.finditer(r"(?:IllegalAction|NotYourTurn)\(", text):
            # The call, as far as the next statement: a reason must be in it.
            call = re.split(r"\n\s*\n|\braise\b|\breturn\b", text[match.end():], maxsplit=1)[0]
            assert "reason=" in call, f"{path.name} refuses without a reason: {call[:60]!r}"


def test_every_reason_is_documented_with_its_sentence() -> None:
    table = documented()
    assert set(table) >= set(REASONS), set(REASONS) - set(table)
    for reason, english in REASONS.items():
        assert table[reason] == english.replace("|", "/"), reason


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_says_every_reason_with_the_same_placeholders(lang: str) -> None:
    sentences = language(lang)
    assert set(sentences) == set(REASONS), set(sentences) ^ set(REASONS)
    for reason, english in REASONS.items():
        assert sentences[reason].strip(), (lang, reason)
        assert (set(_PLACEHOLDER.findall(sentences[reason]))
                == set(_PLACEHOLDER.findall(english))), (lang, reason)
        assert not re.search(r"[<>]", sentences[reason]), "sentences are text, not HTML"


def test_english_file_is_the_catalogue() -> None:
    assert language("en") == REASONS


def test_sentences_fill_params_and_never_fail() -> None:
    assert sentence("not_held", {"cards": ["QS", "KH"]}) == "You do not hold QS, KH."
    assert sentence("card_just_taken", {"card": "QS"}).startswith("QS was just taken")
    assert sentence("not_held", {}) == "You do not hold {cards}."  # missing param: as is
    assert sentence("no_such_reason", {}) == "no such reason"
