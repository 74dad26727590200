"""Bots: one per game, each a pure ``choose(view) -> action | None``.

A bot sees exactly what a seated player sees (its own seat's
:meth:`engine.game.Game.view`) and returns the next single action to play, or
None when it has nothing to do (not its turn, deal over). The room calls it
again after every applied action, so a turn of several actions is several
calls. Bots use no randomness and no clock: the same view always gives the
same action, which keeps bot games replayable.

:mod:`engine.bots.random_legal` is the exception that proves the rule: a
baseline that picks uniformly among the legal actions from a seeded
:class:`engine.rng.Rng`, used by benchmarks and tests to measure the others.
"""
