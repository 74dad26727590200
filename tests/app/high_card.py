"""High Card: the smallest whole game, to hold kartu to its word that a new
game is one module plus one registry line, and its bot one function plus
one line (README, "Adding a game").

Each player is dealt three cards. In turn, each plays one face up; once
every card is down, a seat scores the ranks of the cards it played (ace 1
to king 13) and the highest total wins. A bot plays its highest card.

:func:`register` is the two registry lines; :func:`serving` runs them in a
server process before the app is imported, as the source lines would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from engine.cards import rank_index, sort_key, standard_deck
from engine.errors import BadOptions, IllegalAction, NotYourTurn
from engine.game import Action, Event, Outcome, View
from engine.rng import Rng
from engine.schema import CARD, ActionFields, action_fields

HAND = 3


@dataclass(frozen=True)
class HighCardState:
    hands: tuple[tuple[str, ...], ...]
    played: tuple[tuple[str, ...], ...]
    turn: int

    @property
    def over(self) -> bool:
        return not any(self.hands)


class HighCard:
    name: ClassVar[str] = "high_card"
    title: ClassVar[str] = "High Card"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    turn_based: ClassVar[bool] = True
    default_seats: ClassVar[int] = 2
    fill_bots_by_default: ClassVar[bool] = True
    short_options: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    action_fields: ClassVar[ActionFields] = action_fields({"play": {"card": CARD}})
    lowest_wins: ClassVar[bool] = False

    def default_options(self) -> dict[str, Any]:
        return {}

    def validate_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        if not self.min_players <= players <= self.max_players:
            raise BadOptions(f"{self.title} is for 2 to 4 players")
        if options:
            raise BadOptions(f"unknown option(s) for {self.title}: {', '.join(sorted(options))}")
        return {}

    def setup(self, options: dict[str, Any], players: int, seed: int, now: int) -> HighCardState:
        deck = standard_deck()
        Rng(seed).shuffle(deck)
        hands = tuple(tuple(sorted(deck[s * HAND:(s + 1) * HAND], key=sort_key))
                      for s in range(players))
        return HighCardState(hands=hands, played=((),) * players, turn=0)

    def apply(self, state: HighCardState, seat: int, action: Action, now: int
              ) -> tuple[HighCardState, list[Event]]:
        if not isinstance(action, dict):
            raise IllegalAction.of("not_an_action")
        if action.get("kind") != "play":
            raise IllegalAction.of("unknown_action", kind=str(action.get("kind")))
        if state.over:
            raise IllegalAction.of("game_over")
        if seat != state.turn:
            raise NotYourTurn.of("not_your_turn")
        card = action.get("card")
        if not isinstance(card, str):
            raise IllegalAction.of("missing_card")
        if card not in state.hands[seat]:
            raise IllegalAction.of("not_held", cards=[card])
        hands = list(state.hands)
        played = list(state.played)
        hands[seat] = tuple(c for c in hands[seat] if c != card)
        played[seat] = (*played[seat], card)
        new = HighCardState(hands=tuple(hands), played=tuple(played),
                            turn=(seat + 1) % len(hands))
        return new, [{"kind": "played", "seat": seat, "card": card}]

    def view(self, state: HighCardState, seat: int | None) -> View:
        return {**self.public_view(state), **self.own_view(state, seat)}

    def public_view(self, state: HighCardState) -> View:
        over = self.outcome(state)
        players = len(state.hands)
        # The keys every game's view has (docs/protocol.md), then the game's own.
        return {
            "game": self.name,
            "phase": "game_over" if over else "playing",
            "dealer": None,
            "turn": None if over else state.turn,
            "deal": 1,
            "seats": [{"seat": s, "hand_count": len(hand), "score": _score(played),
                       "melds": [], "played": list(played)}
                      for s, (hand, played) in enumerate(zip(state.hands, state.played,
                                                             strict=True))],
            "stock_count": 52 - HAND * players,
            "discard": [],
            "melds": [],
            "result": None if over is None else {"scores": over.scores},
            "winners": None if over is None else over.winners,
        }

    def own_view(self, state: HighCardState, seat: int | None) -> View:
        return {"you": seat, "hand": [] if seat is None else list(state.hands[seat])}

    def own_key(self, state: HighCardState, seat: int | None) -> None:
        return None

    def to_act(self, state: HighCardState) -> list[int]:
        return [] if state.over else [state.turn]

    def next_deadline(self, state: HighCardState) -> int | None:
        return None

    def on_timeout(self, state: HighCardState, now: int) -> tuple[HighCardState, list[Event]]:
        return state, []

    def legal_actions(self, state: HighCardState, seat: int) -> list[Action]:
        if state.over or seat != state.turn:
            return []
        return [{"kind": "play", "card": card} for card in state.hands[seat]]

    def outcome(self, state: HighCardState) -> Outcome | None:
        if not state.over:
            return None
        scores = [_score(played) for played in state.played]
        return Outcome(scores=scores, winners=[s for s, v in enumerate(scores)
                                               if v == max(scores)])

    def snapshot(self, state: HighCardState) -> dict[str, Any]:
        return {"hands": [list(h) for h in state.hands],
                "played": [list(p) for p in state.played], "turn": state.turn}

    def restore(self, data: dict[str, Any]) -> HighCardState:
        return HighCardState(hands=tuple(tuple(h) for h in data["hands"]),
                             played=tuple(tuple(p) for p in data["played"]),
                             turn=data["turn"])


def _score(played: tuple[str, ...]) -> int:
    return sum(rank_index(card) for card in played)


def choose(view: View) -> Action | None:
    """High Card's bot: on its turn, its highest card."""
    if view.get("turn") != view.get("you") or not view.get("hand"):
        return None
    return {"kind": "play", "card": max(view["hand"], key=rank_index)}


GAME = HighCard()


def register() -> None:
    """The game's line in the game registry and its bot's in the bot registry."""
    from engine import bots, games

    games._GAMES[GAME.name] = GAME
    bots._BOTS[GAME.name] = bots.seedless(choose)


# The registry lines run before the app is imported, as they would in the source.
SERVE = """
import sys
from tests.app.high_card import register
register()
from app.__main__ import default_ws, serve
from app.main import create_app
serve(create_app(), host="127.0.0.1", port=int(sys.argv[1]), ws=default_ws())
"""


@contextmanager
def serving(tmp_path: Path) -> Iterator[str]:
    """A live server (``python -m app`` as it serves) that knows High Card; its URL."""
    # Here, not at the top: the server process imports this module too.
    from tests.live import free_port, wait_healthy

    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop("REDIS_URL", None)
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-c", SERVE, str(port)], cwd=tmp_path,
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, lambda: process.poll() is None, log)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
