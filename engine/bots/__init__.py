"""Bots: one per game, each a pure ``choose(view) -> action | None``, and the
registry that finds a game's bot by the game's wire name.

A bot sees exactly what a seated player sees (its own seat's
:meth:`engine.game.Game.view`) and returns the next single action to play, or
None when it has nothing to do (not its turn, deal over). The room calls it
again after every applied action, so a turn of several actions is several
calls. Bots use no clock, and no randomness but the *seed* the room hands
them (a number fixed by the room's seed and its history): the same view and
seed always give the same action, which keeps bot games replayable.

Terms:

- *bot*: what the room calls, :data:`Bot`: ``bot(view, seed) -> action | None``.
  A bot that needs no chance (the rummy bots) ignores the seed
  (:func:`seedless`).
- *registry*: :data:`_BOTS`, game name -> bot. The bots live beside the rules,
  not in them: a bot imports its game's module for its constants and
  checks, and no game module imports a bot. Adding a bot is a module in this
  package and one line in :data:`_BOTS`.

:mod:`engine.bots.random_legal` is the exception that proves the rule: a
baseline that picks uniformly among the legal actions from a seeded
:class:`engine.rng.Rng`, used by benchmarks and tests to measure the others.
It reads the state, not a view, so it is no bot the room could seat.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.bots import basic_rummy, indonesian_remi, remmi_demmi, traditional_remi
from engine.game import Action, View

Bot = Callable[[View, int], Action | None]


def seedless(choose: Callable[[View], Action | None]) -> Bot:
    """``choose`` as a :data:`Bot`, for a bot that needs no chance: it drops the seed."""

    def bot(view: View, seed: int) -> Action | None:
        return choose(view)

    bot.__name__ = bot.__qualname__ = f"seedless({choose.__module__}.{choose.__name__})"
    return bot


_BOTS: dict[str, Bot] = {
    "basic_rummy": seedless(basic_rummy.choose),
    "indonesian_remi": seedless(indonesian_remi.choose),
    "remmi_demmi": remmi_demmi.choose,
    "traditional_remi": seedless(traditional_remi.choose),
}


def find_bot(game_name: str) -> Bot:
    """The bot of the game named ``game_name``; LookupError if it has none.

    Every game in :mod:`engine.games` has one (a test holds it to that): a
    room fills seats and covers absent players with it, so a game without
    a bot could stall its tables.
    """
    try:
        return _BOTS[game_name]
    except KeyError:
        raise LookupError(f"no bot plays {game_name!r}") from None


def bot_games() -> list[str]:
    """The names of the games that have a bot."""
    return list(_BOTS)
