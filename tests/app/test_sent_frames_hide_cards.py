"""No frame a room sends shows a card its audience may not see.

The engine's own property tests check ``view()``; these check what ships:
random games of every game are played through a room with a human in every
seat and a spectator, and after every command or timer each change is
framed as the registry frames it (one :class:`app.frames.RoomFrames` for the
room, its own parts kept from change to change), the wire bytes are decoded
back into JSON, and every card id in an audience's frames is checked against
what that audience may know. Each state frame must also be exactly the view
the change leaves its audience, made afresh: a kept own part that went
stale fails it.

What an audience may know in a deal: every card it has held in the deal
(its hand, and in Remmi Demmi its claim), every card that has been face up
in the deal (the discard pile, the melds, every hand once the deal is over),
and nothing else. Spectators know only the face-up cards.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.frames import RoomFrames, seat_channel, watch_channel
from app.wsprotocol import unwire
from engine.game import Game
from engine.room import Act, Join, OwnParts, RoomError, Start
from tests.engine.room_harness import make_room
from tests.examples import examples
from tests.games import known_game

Audience = int | None


def rummy_cards(state: Any) -> tuple[set[str], set[str], list[set[str]]]:
    """(every card, the face-up cards, each seat's own) of a rummy state."""
    hands = [set(hand) for hand in state.hands]
    melded = {card for meld in state.melds for card in meld.cards}
    up = set(state.discard) | melded
    if state.phase != "playing":
        up |= set().union(*hands)  # a deal's result shows every hand
    everything = set(state.stock) | set(state.discard) | melded | set().union(*hands)
    return everything, up, hands


def remmi_demmi_cards(state: Any) -> tuple[set[str], set[str], list[set[str]]]:
    """(every card, the face-up cards, each seat's own) of a Remmi Demmi state."""
    own = [set(hand) for hand in state.hands]
    for claim in state.claims:
        own[claim.seat] |= set(claim.cards) | set(claim.aside)
    everything = set().union(*own)
    up = everything if state.phase != "playing" else set()  # the round's check shows all
    return everything, up, own


CARDS: dict[str, Callable[[Any], tuple[set[str], set[str], list[set[str]]]]] = {
    "basic_rummy": rummy_cards,
    "indonesian_remi": rummy_cards,
    "traditional_remi": rummy_cards,
    "remmi_demmi": remmi_demmi_cards,
}
SEATS = {"basic_rummy": 4, "indonesian_remi": 4, "traditional_remi": 3, "remmi_demmi": 5}


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class Table:
    """A room with a human in every seat and one spectator, and what each
    audience may know of the deal being played."""

    def __init__(self, game: Game, seats: int, seed: int) -> None:
        self.game, self.seats = game, seats
        self.room, _ = make_room(game, seats, room_id="r1", seed=seed, turn_clock_s=0)
        self.players = ["ana", *(f"p{seat}" for seat in range(1, seats))]
        for player in self.players:
            self.room.handle(Join(player, player.title(), "player"), 0)
        self.room.handle(Join(None, None, "spectator"), 0)
        self.room.handle(Start("ana"), 1)
        self.deal = -1
        self.known: dict[Audience, set[str]] = {}
        self.frames_checked = 0
        self.framing = RoomFrames()
        self.learn()

    @property
    def state(self) -> Any:
        return self.room.state

    def learn(self) -> None:
        """Adds what the audiences may know now (a new deal starts afresh)."""
        everything, up, own = CARDS[self.game.name](self.state)
        if self.state.deal != self.deal:
            self.deal = self.state.deal
            self.known = {audience: set() for audience in [None, *range(self.seats)]}
            self.everything = everything
        self.everything |= everything
        for audience, known in self.known.items():
            known |= up
            if audience is not None:
                known |= own[audience]

    def sent(self) -> None:
        """Frames the room's changes and checks every card each audience is sent."""
        changes = self.room.take_changes()
        # What each audience knew before these changes and knows after them:
        # a change's events may name cards of the state before it (the last
        # deal's result, just as a new deal starts), its views those after.
        before = {audience: set(known) for audience, known in self.known.items()}
        self.learn()
        allowed = {audience: known | before[audience] for audience, known in self.known.items()}
        for change in changes:
            for channel, wire_bytes in self.framing.frames(change):
                audience = self.audience_of(channel)
                frames = [orjson.loads(payload) for payload in unwire(bytes(wire_bytes))]
                shown = {text for frame in frames for text in strings(frame)}
                leaked = (shown & self.everything) - allowed[audience]
                assert not leaked, f"{audience} was sent {sorted(leaked)} in v{change.version}"
                assert frames[-1]["view"] == change.view(audience), \
                    f"{audience} was sent a stale view in v{change.version}"
                self.frames_checked += 1

    def audience_of(self, channel: str) -> Audience:
        if channel == watch_channel("r1"):
            return None
        seat = next(s for s in range(self.seats) if channel == seat_channel("r1", s))
        return seat

    def step(self, rng: random.Random, now: int) -> int:
        """One random move, refused move or timer; the time after it."""
        actors = self.game.to_act(self.state)
        wakeup = self.room.next_wakeup()
        if not actors or (wakeup is not None and wakeup <= now) or rng.random() < 0.05:
            now = max(now, wakeup or now)
            self.room.tick(now)
            return now + 1
        seat = rng.choice(actors)
        legal = self.game.legal_actions(self.state, seat)
        action: dict[str, Any]
        if legal and rng.random() < 0.9:
            action = rng.choice(legal)
        else:  # a card of somebody else's, or nothing sensible: refused, changes nothing
            action = {"kind": rng.choice(["discard", "offer", "meld", "draw"]),
                      "card": rng.choice(sorted(self.everything)),
                      "cards": rng.sample(sorted(self.everything), 3)}
        with contextlib.suppress(RoomError):
            self.room.handle(Act(self.players[seat], seat, action), now)
        return now + rng.choice([1, 50, 500])


@pytest.mark.parametrize("name", sorted(CARDS))
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_no_frame_shows_an_audience_a_card_it_may_not_see(name: str, seed: int) -> None:
    game = known_game(name)
    table = Table(game, SEATS[name], seed)
    rng, now = random.Random(seed), 2
    own_parts: dict[tuple[Audience, Any], dict[str, Any]] = {}
    for _ in range(300):
        if table.room.status != "playing":
            break
        now = table.step(rng, now)
        table.sent()
        # The views a room sends are made in two parts: together, each must be
        # exactly the audience's view(); equal own keys, equal own parts.
        public = game.public_view(table.state)
        for audience in [None, *range(table.seats)]:
            own = game.own_view(table.state, audience)
            assert {**public, **own} == game.view(table.state, audience)
            assert not public.keys() & own.keys()
            key = game.own_key(table.state, audience)
            if key is not None:
                assert own_parts.setdefault((audience, key), own) == own
    assert table.frames_checked > 50


def test_the_check_finds_a_card_sent_to_the_wrong_seat() -> None:
    # The same check, fed a change whose view for seat 1 carries seat 0's
    # hand, must fail: otherwise the property above could pass for nothing.
    game = known_game("basic_rummy")
    table = Table(game, 2, 5)
    table.sent()  # the joins and the start: nothing wrong in them
    table.room.handle(Join("p1", "P1", "player"), 3)  # a change to both seats
    leaked_change = table.room.outbox[-1]
    leaked_change.own = Leaky(game, leaked_change.own.state)
    with pytest.raises(AssertionError, match="was sent"):
        table.sent()


class Leaky(OwnParts):
    """Own parts that show seat 1 seat 0's hand."""

    def view(self, audience: int | None) -> dict[str, Any]:
        view = super().view(audience)
        if audience == 1:
            view["leak"] = list(self.state.hands[0])
        return view


def test_the_check_finds_an_own_part_kept_past_its_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A game whose own key never moves has its first own parts sent for
    # ever: the frames must then fail the check against the fresh view.
    game = known_game("remmi_demmi")
    monkeypatch.setattr(type(game), "own_key", lambda self, state, seat: ())
    table = Table(game, 4, 5)
    rng, now = random.Random(5), 2
    with pytest.raises(AssertionError, match="stale view"):
        for _ in range(300):
            now = table.step(rng, now)
            table.sent()
