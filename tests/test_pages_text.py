"""The words of the client's own pages: every language has every word, and
every game's rules have every section in every language.

``static/js/lang/pages.*.js`` and ``static/js/rules/*.js`` hold plain JSON
after ``export default``, so they are read here without JavaScript.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[1] / "static" / "js"
LANGS = ("en", "id", "fr", "nb", "sr")
GAMES = ("basic_rummy", "indonesian_remi", "traditional_remi", "remmi_demmi")
# A card id ("TD", "AH2", "OR3") or a rule id ("BR-12") has no place on screen.
RAW_CARD_ID = re.compile(r"\b[A2-9TJQK][SHDC]\d?\b|\b[OPG][RJL]\d\b")
RULE_ID = re.compile(r"\b(BR|IR|TR|RD)-\d+")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def module_json(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    start = re.search(r"^export default", text, re.MULTILINE)
    assert start, path
    body = text[start.end():].strip()
    assert body.endswith(";"), path
    return json.loads(body[:-1])


def texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in texts(v)]
    return []


def test_every_pages_dictionary_has_the_english_keys_and_placeholders() -> None:
    english = module_json(STATIC / "lang" / "pages.en.js")
    assert english and all(isinstance(v, str) and v for v in english.values())
    for lang in LANGS[1:]:
        words = module_json(STATIC / "lang" / f"pages.{lang}.js")
        assert list(words) == list(english), lang
        for key, text in words.items():
            assert isinstance(text, str) and text.strip(), (lang, key)
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), \
                (lang, key)


@pytest.mark.parametrize("game", GAMES)
def test_every_rules_module_has_five_languages_with_the_same_sections(game: str) -> None:
    rules = module_json(STATIC / "rules" / f"{game}.js")
    assert set(rules) == {"pictures", *LANGS}
    pictures = rules["pictures"]
    assert any(p["ok"] for p in pictures.values()) and any(not p["ok"] for p in pictures.values())
    shown: set[str] = set()
    english = rules["en"]
    for lang in LANGS:
        words = rules[lang]
        assert words["title"] and words["intro"], lang
        assert [s["id"] for s in words["sections"]] == [s["id"] for s in english["sections"]], lang
        for section, model in zip(words["sections"], english["sections"], strict=True):
            assert section["title"] and section["text"], (lang, section["id"])
            assert len(section["text"]) == len(model["text"]), (lang, section["id"])
            assert list(section.get("figures", {})) == list(model.get("figures", {})), \
                (lang, section["id"])
            shown.update(section.get("figures", {}))
        for text in texts(words):
            assert not RAW_CARD_ID.search(text), (lang, text)
            assert not RULE_ID.search(text), (lang, text)
    # Every picture is shown, and only pictures that exist.
    assert shown == set(pictures)
