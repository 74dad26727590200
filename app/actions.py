"""Checks at the edge: a frame's nesting, and an action's shape against its game.

Terms:

- *depth*: how many arrays and objects a JSON text opens inside one another
  (``{"a": [1]}`` is 2). Counted on the raw text, before parsing, so that a
  hostile frame never reaches a recursive parser or serialiser.
- *action schema*: each game's ``action_fields`` (:mod:`engine.schema`).

An ``act`` frame's action is checked against its room's game before the room
sees it: an unknown kind is refused with ``illegal_action`` (as the rules
would), a known field of the wrong type or over its size bound with
``bad_message``, and fields the kind does not read are dropped. The room,
its action log and its replays only ever see the cleaned action.
"""

from __future__ import annotations

import re
from typing import Any

from engine.game import Action, Game
from engine.room import RoomError
from engine.schema import ActionField

MAX_KIND_CHARS = 32

# A JSON string (escapes included), or one bracket.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def json_depth_over(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays and objects deeper than ``limit``.

    Brackets inside strings do not count. Text with no more brackets than the
    limit cannot be too deep: that common case costs two counts in C.
    """
    if text.count("{") + text.count("[") <= limit:
        return False
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _shape_error(name: str, value: Any, spec: ActionField) -> str | None:
    """Why ``value`` does not fit ``spec``, or None when it does."""
    if value is None:
        return None if spec.nullable else f"{name} must not be null"
    shape = spec.shape
    if shape == "str":
        if not isinstance(value, str):
            return f"{name} must be a string"
        if len(value) > spec.max_chars:
            return f"{name} is longer than {spec.max_chars} characters"
        return None
    if shape == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be an integer"
        if not spec.low <= value <= spec.high:
            return f"{name} must be from {spec.low} to {spec.high}"
        return None
    if shape == "bool":
        return None if isinstance(value, bool) else f"{name} must be true or false"
    if shape == "str_list":
        if not isinstance(value, list):
            return f"{name} must be a list of ids"
        if len(value) > spec.max_items:
            return f"{name} has more than {spec.max_items} items"
        if not all(isinstance(item, str) and len(item) <= spec.max_chars for item in value):
            return f"{name} must hold ids (strings of at most {spec.max_chars} characters)"
        return None
    # str_lists: a list of lists of ids
    if not isinstance(value, list) or len(value) > spec.max_groups:
        return f"{name} must be a list of at most {spec.max_groups} lists of ids"
    for index, group in enumerate(value):
        problem = _shape_error(f"{name}[{index}]", group,
                               ActionField("str_list", max_chars=spec.max_chars,
                                           max_items=spec.max_items))
        if problem is not None:
            return problem
    return None


def check_action(game: Game, action: dict[str, Any]) -> Action:
    """The action as the room may see it: only the fields its kind reads.

    Raises RoomError (``illegal_action`` for an unknown kind, ``bad_message``
    for a field of the wrong shape); nothing has been applied then.
    """
    schema = game.action_fields
    kind = action.get("kind")
    if not isinstance(kind, str) or len(kind) > MAX_KIND_CHARS or kind not in schema:
        shown = kind if isinstance(kind, str) and len(kind) <= MAX_KIND_CHARS else None
        raise RoomError.of("illegal_action", "unknown_action", kind=shown)
    fields = schema[kind]
    clean: Action = {"kind": kind}
    for name, spec in fields.items():
        if name not in action:
            continue  # a missing field is for the rules to refuse (or default)
        value = action[name]
        problem = _shape_error(f"action.{name}", value, spec)
        if problem is not None:
            raise RoomError.of("bad_message", "bad_field", field=f"action.{name}",
                               problem=problem)
        clean[name] = value
    return clean
