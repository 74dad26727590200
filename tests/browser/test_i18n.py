"""The client's dictionaries (no browser): every language has every key, and
every key the client uses is in English.

The dictionaries are ES modules kept in a strict shape, ``export default``
followed by a JSON object and a final ``;``, so they are read here as JSON.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[2] / "static" / "js"
LANG = STATIC / "lang"
LANGUAGES = ["en", "id", "fr", "nb", "sr"]
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A key as the client writes it: t('lobby.title'), or any quoted 'ns.key' of a known namespace.
T_CALL = re.compile(r"\bt[n]?\(\s*'([^'$`]+)'")
QUOTED_KEY = re.compile(r"'([a-z][a-z_]*(?:\.[A-Za-z0-9_]+)+)'")


def read_dict(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    start = re.search(r"^export default", text, re.M).end()  # type: ignore[union-attr]
    end = text.rindex(";")
    value = json.loads(text[start:end])
    assert isinstance(value, dict), f"{path.name} must export an object"
    return value


# One `key: 'sentence'` of a plain object literal (keys bare or quoted, either quotes).
JS_ENTRY = re.compile(
    r"""(?:"([^"]+)"|'([^']+)'|([A-Za-z_]\w*))\s*:\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')"""
)


def read_sentences(path: Path) -> dict[str, str]:
    """errors.<lang>.js: strict JSON, or a plain object literal of quoted sentences."""
    try:
        return read_dict(path)
    except json.JSONDecodeError:
        text = path.read_text(encoding="utf-8")
        body = text[text.index("export default") : text.rindex("}") + 1]
        return {
            next(k for k in match[:3] if k): next(v for v in match[3:] if v)
            for match in JS_ENTRY.findall(body)
        }


def placeholders(value: Any) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


@pytest.fixture(scope="module")
def dictionaries() -> dict[str, dict[str, Any]]:
    return {code: read_dict(LANG / f"{code}.js") for code in LANGUAGES}


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_every_language_has_exactly_the_english_keys(
    dictionaries: dict[str, dict[str, Any]], code: str
) -> None:
    english = set(dictionaries["en"])
    other = set(dictionaries[code])
    assert not english - other, f"{code}.js lacks {sorted(english - other)}"
    assert not other - english, f"{code}.js has keys English lacks: {sorted(other - english)}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_entries_are_texts_or_plural_forms_with_the_english_placeholders(
    dictionaries: dict[str, dict[str, Any]], code: str
) -> None:
    english = dictionaries["en"]
    for key, value in dictionaries[code].items():
        if isinstance(value, dict):
            assert value and set(value) <= PLURAL_FORMS and "other" in value, (code, key, value)
            assert all(isinstance(v, str) and v for v in value.values()), (code, key)
        else:
            assert isinstance(value, str) and value.strip(), (code, key)
        if key in english:
            assert placeholders(value) == placeholders(english[key]), (code, key, value)


def test_every_key_the_client_uses_is_in_english(dictionaries: dict[str, dict[str, Any]]) -> None:
    english = dictionaries["en"]
    namespaces = {key.split(".")[0] for key in english}
    used: dict[str, str] = {}
    for path in sorted(STATIC.glob("*.js")):
        source = path.read_text(encoding="utf-8")
        for key in T_CALL.findall(source):
            used.setdefault(key, path.name)
        for key in QUOTED_KEY.findall(source):
            if key.split(".")[0] in namespaces:
                used.setdefault(key, path.name)
    assert len(used) > 200, "the client hardly uses t(): is the pattern still right?"
    # The rules, replay and help pages keep their words apart (lang/pages.*.js).
    pages = read_dict(STATIC / "lang" / "pages.en.js")
    missing = {key: where for key, where in used.items()
               if key not in english and key not in pages}
    assert not missing, f"keys used in static/js but missing from en.js: {missing}"


def test_the_refusal_sentences_exist_for_every_language() -> None:
    # One sentence per refusal reason, written with the server's reasons (stubs are {}).
    english = read_sentences(LANG / "errors.en.js")
    for code in LANGUAGES:
        sentences = read_sentences(LANG / f"errors.{code}.js")
        assert set(sentences) == set(english), (code, sorted(set(sentences) ^ set(english)))
        for reason, text in sentences.items():
            assert re.fullmatch(r"[a-z][a-z0-9_]*", reason), (code, reason)
            assert text.strip() and not re.search(r"\b[A-Z]{2}-\d+\b", text), (code, reason)
            assert placeholders(text) == placeholders(english[reason]), (code, reason)


def test_sentences_are_read_in_either_shape(tmp_path: Path) -> None:
    strict = tmp_path / "strict.js"
    strict.write_text('export default {"not_in_hand": "{card} is not in your hand."};\n')
    loose = tmp_path / "loose.js"
    loose.write_text(
        "export default {\n"
        "  not_in_hand: '{card} is not in your hand.',\n"
        '  "draw_first": "Draw a card first.",\n'
        "};\n"
    )
    assert read_sentences(strict) == {"not_in_hand": "{card} is not in your hand."}
    assert read_sentences(loose) == {
        "not_in_hand": "{card} is not in your hand.",
        "draw_first": "Draw a card first.",
    }


def test_no_language_shows_a_rule_id(dictionaries: dict[str, dict[str, Any]]) -> None:
    rule = re.compile(r"\b(BR|TR|IR|RD)-\d+\b")
    for code, words in dictionaries.items():
        for key, value in words.items():
            for text in value.values() if isinstance(value, dict) else [value]:
                assert not rule.search(text), (code, key, text)


# Each language's words for a mouse's click and a finger's tap, in sentences
# that tell the player what to do on the table (not the keyboard's help).
CLICK_WORDS = {"en": r"\bclick", "fr": r"\bcliqu", "id": r"\bklik\b", "nb": r"\bklikk",
               "sr": r"\bklikn"}
TAP_WORDS = {"en": r"\btap\b", "fr": r"\btouchez\b", "id": r"\bketuk\b", "nb": r"\btrykk\b",
             "sr": r"\bdodirn"}


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_sentence_naming_a_gesture_has_a_mouse_form_and_a_touch_form(
    dictionaries: dict[str, dict[str, Any]], code: str
) -> None:
    words = dictionaries[code]
    click = re.compile(CLICK_WORDS[code], re.I)
    tap = re.compile(TAP_WORDS[code], re.I)
    pairs = 0
    for key, value in words.items():
        if key.startswith("keys.") or not isinstance(value, str):
            continue  # the keyboard's help presses keys
        if key.endswith(".touch"):
            base = words.get(key.removesuffix(".touch"))
            assert isinstance(base, str), f"{code}: {key} has no mouse form"
            assert tap.search(value) and not click.search(value), (code, key, value)
            assert click.search(base) and not tap.search(base), (code, key, base)
            pairs += 1
        elif click.search(value) or tap.search(value):
            assert f"{key}.touch" in words, f"{code}: {key} names a gesture but has no touch form"
    assert pairs >= 12, pairs
