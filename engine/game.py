"""The interface every game implements, and the words it uses.

- *seat*: a player's place at the table, ``0..players-1``; play passes
  clockwise, i.e. to ``(seat + 1) % players``.
- *state*: a game's whole authoritative state, a plain object owned by the
  room actor. Only the views turn it into something a client sees:
  :meth:`Game.public_view` and :meth:`Game.own_view` for the room's frames,
  :meth:`Game.view` (both in one) for bots and replays.
- *action*: a dict from a client or a bot, ``{"kind": ..., ...}``.
- *event*: a dict describing a public change (``{"kind": "drew", ...}``);
  events carry only what every viewer may see.
- *now*: epoch milliseconds, passed in by the caller; rules never read a clock.

``apply`` is a pure transition: it returns a new state and never mutates the
one it was given, so a refused action (a :class:`engine.errors.GameError`)
leaves everything as it was.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

from engine.schema import ActionFields

Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]

S = TypeVar("S")


def copy_json(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, scalars) that shares no
    container with it (tuples, being immutable, are shared): what a view or a
    snapshot hands out of a state. Not copy.deepcopy, which pays for cycles
    and arbitrary objects that plain data never holds."""
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    return value


def shallow_copy(state: S) -> S:
    """A new state object with the same field values, for ``apply`` to copy
    the containers it changes into. Not dataclasses.replace, which goes
    through __init__ field by field: this runs on every action."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    return new


@dataclass(frozen=True)
class Outcome:
    """A finished game: final totals per seat and the winning seats (ties share)."""

    scores: list[int]
    winners: list[int]
    details: dict[str, Any] = field(default_factory=dict)


class Game(Protocol):
    """One game's rules. Implementations are stateless singletons in the registry."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    # Turn-based games get the room's turn clock (``turn_clock_s``); real-time
    # games set their own deadlines through ``next_deadline``.
    turn_based: ClassVar[bool]
    # The seats of a new table when whoever opens it names no count.
    default_seats: ClassVar[int]
    # Whether a new table gives its empty seats to bots when the game starts,
    # unless whoever opens it says otherwise (the room option ``fill_bots``).
    fill_bots_by_default: ClassVar[bool]
    # Options (over the defaults) for a short game, one a coffee break fits;
    # the daily deal plays these.
    short_options: ClassVar[Mapping[str, Any]]
    # Per action kind, the fields it reads and their shapes (engine.schema):
    # what the server lets through to a room.
    action_fields: ClassVar[ActionFields]

    @property
    def lowest_wins(self) -> bool:
        """True where the lowest final score wins (penalty points), else the highest."""
        ...

    def default_options(self) -> dict[str, Any]:
        """The game's own options with their defaults (shown in the catalog)."""
        ...

    def validate_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        """Checks the game's options (and ``scenario``, if given) for ``players`` seats.

        Returns the options merged over the defaults; raises BadOptions for
        a bad value or an option the game does not know. Room-level options
        (``seed``, ``bot_delay_ms``, ...) never reach it:
        :func:`engine.options.validate_room_options` takes them out first.
        """
        ...

    def setup(self, options: dict[str, Any], players: int, seed: int, now: int) -> Any:
        """A new game, its first deal dealt. ``options['scenario']`` fixes that deal."""
        ...

    def apply(self, state: Any, seat: int, action: Action, now: int) -> tuple[Any, list[Event]]:
        """Plays ``action`` for ``seat``; raises GameError (NotYourTurn, IllegalAction)."""
        ...

    def view(self, state: Any, seat: int | None) -> View:
        """What ``seat`` may see (None: a spectator), as plain data (dicts, lists,
        strings, numbers) that shares no container with the state. The only
        way a card leaves the engine: ``{**public_view(state),
        **own_view(state, seat)}``."""
        ...

    def public_view(self, state: Any) -> View:
        """The part of :meth:`view` every seat and spectator sees alike (made
        once per change for all of them): no card that is not face up."""
        ...

    def own_view(self, state: Any, seat: int | None) -> View:
        """The rest of ``seat``'s :meth:`view`: what only it sees (its hand,
        its choices). Never empty (``you`` at least); no key of the public part."""
        ...

    def own_key(self, state: Any, seat: int | None) -> Hashable | None:
        """A value of immutable parts (tuples, frozen dataclasses, strings,
        numbers) that is equal for two states of a game whenever ``seat``'s
        :meth:`own_view` of them is: the server makes that part again only
        when its key changed. None: made every time (a part cheaper to make
        than to key)."""
        ...

    def to_act(self, state: Any) -> list[int]:
        """Seats that may act now (the turn seat in a turn-based game; [] when nobody)."""
        ...

    def next_deadline(self, state: Any) -> int | None:
        """When :meth:`on_timeout` must run next (epoch ms), or None."""
        ...

    def on_timeout(self, state: Any, now: int) -> tuple[Any, list[Event]]:
        """Applies whatever the rules say happens at the deadline."""
        ...

    def legal_actions(self, state: Any, seat: int) -> list[Action]:
        """Actions ``seat`` could play now (every one legal; for bots and tests)."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """The final result once the game is over, else None."""
        ...

    def snapshot(self, state: Any) -> dict[str, Any]:
        """The state as JSON-ready data (to save a running game)."""
        ...

    def restore(self, data: dict[str, Any]) -> Any:
        """The state back from :meth:`snapshot`."""
        ...
