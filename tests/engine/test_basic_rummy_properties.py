"""Basic Rummy properties, checked over random games played through the Game interface.

Each example sets up a match (shuffled from a seed, or a random scenario with
a short stock so that the pile is turned over often), then plays steps drawn
by Hypothesis: mostly a legal action picked by index, sometimes a random
(usually illegal) action from a random seat. After every step:

- every card is in exactly one place (hands, stock, discard, melds): the 52
  cards, or the cards a scenario named during its deal;
- no view (each seat and the spectator) shows a card its viewer may not see;
  events show only public cards;
- a refused action raised a GameError and changed nothing, and ``apply``
  never changed the state it was given;
- every action ``legal_actions`` offers is accepted, and every accepted
  action was offered;
- the state survives a JSON snapshot round trip.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.cards import is_standard_card, standard_deck
from engine.errors import GameError
from engine.games.basic_rummy import HAND_SIZES, BasicRummy, BasicRummyState

GAME = BasicRummy()
DECK = standard_deck()
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CARD = st.sampled_from([*DECK, "ZZ", "", "10H", "as"])
RANDOM_ACTION = st.one_of(
    st.builds(lambda f: {"kind": "draw", "from": f},
              st.sampled_from(["stock", "discard", "hand", None])),
    st.builds(lambda cs: {"kind": "meld", "cards": cs}, st.lists(CARD, max_size=5)),
    st.builds(lambda c, m: {"kind": "lay_off", "card": c, "meld": m},
              CARD, st.sampled_from(["m1", "m2", "m3", "x", 1])),
    st.builds(lambda c: {"kind": "discard", "card": c}, CARD),
    st.just({"kind": "next_deal"}),
    st.sampled_from([None, "draw", [], 3, {}, {"kind": 1}, {"kind": "pass"},
                     {"kind": "meld", "cards": "AS"}, {"kind": "discard"}]),
)


@dataclass
class Match:
    """A match being played, with what the checks need to know about it."""

    state: BasicRummyState
    named: set[str]  # the cards in play during the first deal
    now: int = 0
    log: list[tuple[str, int, Any, int]] = field(default_factory=list)


@st.composite
def matches(draw: st.DrawFn) -> tuple[dict[str, Any], int, int]:
    """Options, player count and seed of a new match, maybe with a short-stock scenario."""
    players = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**63 - 1))
    options: dict[str, Any] = {
        "deals": draw(st.sampled_from([None, 1, 2, 3])),
        "deal_pause_ms": draw(st.sampled_from([0, 1000])),
    }
    if options["deals"] is None:
        options["target"] = draw(st.sampled_from([30, 100]))
    if draw(st.booleans()):
        cards = draw(st.permutations(DECK))
        size = HAND_SIZES[players]
        hands = [cards[i * size:(i + 1) * size] for i in range(players)]
        rest = cards[players * size:]
        stock_size = draw(st.integers(0, min(6, len(rest))))
        discard_size = draw(st.integers(0, min(3, len(rest) - stock_size)))
        options["scenario"] = {
            "dealer": draw(st.integers(0, players - 1)),
            "hands": hands,
            "stock": rest[:stock_size],
            "discard": rest[stock_size:stock_size + discard_size],
        }
    return options, players, seed


def new_match(options: dict[str, Any], players: int, seed: int) -> Match:
    opts = GAME.validate_options(options, players)
    state = GAME.setup(opts, players, seed, 0)
    scenario = options.get("scenario")
    if scenario is None:
        named = set(DECK)
    else:
        named = {c for h in scenario["hands"] for c in h}
        named |= set(scenario["stock"]) | set(scenario["discard"])
    return Match(state, named)


def card_ids(value: Any) -> Iterator[str]:
    """Every string in a JSON-like value that is a card id."""
    if isinstance(value, str):
        if is_standard_card(value):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_ids(key)
            yield from card_ids(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_ids(item)


def public_cards(state: BasicRummyState) -> set[str]:
    return set(state.discard) | {c for m in state.melds for c in m.cards}


def check_cards_conserved(match: Match) -> None:
    state = match.state
    found = [c for h in state.hands for c in h] + state.stock + state.discard
    found += [c for m in state.melds for c in m.cards]
    assert len(found) == len(set(found)), "a card is in two places"
    expected = match.named if state.deal == 1 else set(DECK)
    assert set(found) == expected


def check_views(state: BasicRummyState) -> None:
    public = public_cards(state)
    revealed = {c for h in state.hands for c in h} if state.phase != "playing" else set()
    for seat in [None, *range(state.players)]:
        view = GAME.view(state, seat)
        json.dumps(view)
        own = set(state.hands[seat]) if seat is not None else set()
        hidden = set(card_ids(view)) - public - own - revealed
        assert not hidden, f"seat {seat} sees {hidden}"
        if seat is None:
            assert "hand" not in view
        else:
            assert view["hand"] == state.hands[seat]
        if state.phase == "playing":
            assert view["result"] is None
            # Outside the result, a hidden card shows only in its holder's own fields.
            rest = {k: v for k, v in view.items() if k not in ("hand", "must_not_discard")}
            assert not set(card_ids(rest)) - public
        if view["must_not_discard"] is not None:
            # The card taken from the discard: in the viewer's hand, or melded since.
            assert view["must_not_discard"] in own | public


def check_events(before: BasicRummyState, after: BasicRummyState, events: list[Any]) -> None:
    json.dumps(events)
    shown = set(card_ids(events))
    assert shown <= public_cards(before) | public_cards(after), "an event shows a hidden card"
    for happened in events:
        if happened["kind"] == "drew" and happened["from"] == "stock":
            assert "card" not in happened


def normal(action: Any) -> Any:
    if isinstance(action, dict) and action.get("kind") == "meld":
        return {**action, "cards": sorted(action["cards"])}
    return action


def apply_checked(match: Match, seat: int, action: Any) -> bool:
    """Applies ``action``; checks purity either way. True if it was accepted."""
    state = match.state
    before = GAME.snapshot(state)
    deep = copy.deepcopy(state)
    try:
        new, events = GAME.apply(state, seat, action, match.now)
    except GameError as error:
        assert error.message
        assert GAME.snapshot(state) == before and state == deep
        return False
    assert GAME.snapshot(state) == before and state == deep, "apply changed its input"
    assert normal(action) in [normal(a) for a in GAME.legal_actions(state, seat)], (
        f"{action} was accepted but not offered")
    check_events(state, new, events)
    for happened in events:
        if happened["kind"] in ("stock_turned", "deal_over", "game_over"):
            event(f"reached {happened['kind']}")  # shown by --hypothesis-show-statistics
    match.state = new
    match.log.append(("apply", seat, copy.deepcopy(action), match.now))
    return True


def check_legal_actions_accepted(state: BasicRummyState) -> None:
    for seat in range(state.players):
        actions = GAME.legal_actions(state, seat)
        if state.phase == "playing" and seat != state.turn:
            assert actions == []
        for action in actions:
            GAME.apply(state, seat, action, 0)  # raises if the offer was wrong


def check_everything(match: Match) -> None:
    state = match.state
    check_cards_conserved(match)
    check_views(state)
    check_legal_actions_accepted(state)
    assert GAME.restore(json.loads(json.dumps(GAME.snapshot(state)))) == state
    if state.phase == "playing":
        assert GAME.to_act(state) == [state.turn]
        assert GAME.legal_actions(state, state.turn), "the player to act has no move"
    else:
        assert GAME.to_act(state) == []


def step(match: Match, data: st.DataObject) -> None:
    """One step of the game, drawn by Hypothesis."""
    state = match.state
    match.now += 1000
    if data.draw(st.integers(0, 5), label="mode") == 0:
        action = data.draw(RANDOM_ACTION, label="random action")
        seat = data.draw(st.integers(-1, state.players), label="random seat")
        apply_checked(match, seat, action)
        return
    if state.phase == "deal_over":
        if data.draw(st.booleans(), label="wait"):
            assert state.next_deal_at is not None
            match.now = max(match.now, state.next_deal_at)
            assert GAME.next_deadline(state) == state.next_deal_at
            new, events = GAME.on_timeout(state, match.now)
            check_events(state, new, events)
            match.state = new
            match.log.append(("timeout", -1, None, match.now))
        else:
            seat = data.draw(st.integers(0, state.players - 1), label="next_deal seat")
            assert apply_checked(match, seat, {"kind": "next_deal"})
        return
    seat = state.turn
    actions = GAME.legal_actions(state, seat)
    if data.draw(st.integers(0, 3), label="guided") > 0:
        actions = guided(state, actions)
    index = data.draw(st.integers(0, len(actions) - 1), label="action index")
    assert apply_checked(match, seat, actions[index])


def connections(card: str, hand: list[str]) -> int:
    """How many cards of ``hand`` could share a meld with ``card`` (same rank, near in suit)."""
    rank = "A23456789TJQK".index(card[0])
    return sum(
        1 for other in hand if other != card and (
            other[0] == card[0]
            or (other[1] == card[1] and abs("A23456789TJQK".index(other[0]) - rank) <= 2)))


def guided(state: BasicRummyState, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sensible subset of ``actions``, so that random games also reach the end of deals.

    Take a discard that fits the hand, lay the longest meld, lay off, and
    otherwise throw away one of the least connected cards.
    """
    hand = state.hands[state.turn]
    if state.step == "draw":
        top = state.discard[-1] if state.discard else None
        wanted = top is not None and connections(top, hand) > 0
        return [a for a in actions if a["from"] == ("discard" if wanted else "stock")]
    melds = [a for a in actions if a["kind"] == "meld"]
    if melds:
        longest = max(len(a["cards"]) for a in melds)
        return [a for a in melds if len(a["cards"]) == longest]
    lay_offs = [a for a in actions if a["kind"] == "lay_off"]
    if lay_offs:
        return lay_offs
    discards = [a for a in actions if a["kind"] == "discard"]
    loosest = min(connections(a["card"], hand) for a in discards)
    return [a for a in discards if connections(a["card"], hand) == loosest]


def play(match: Match, data: st.DataObject, steps: int) -> None:
    check_everything(match)
    for _ in range(steps):
        if match.state.phase == "game_over":
            break
        step(match, data)
        check_everything(match)
    if match.state.phase == "game_over":
        outcome = GAME.outcome(match.state)
        assert outcome is not None
        best = max(outcome.scores)
        assert outcome.winners == [s for s, v in enumerate(outcome.scores) if v == best]
    else:
        assert GAME.outcome(match.state) is None


@SETTINGS
@given(game=matches(), data=st.data())
def test_random_games_conserve_cards_and_hide_hands(
    game: tuple[dict[str, Any], int, int], data: st.DataObject
) -> None:
    play(new_match(*game), data, steps=150)


@SETTINGS
@given(game=matches(), data=st.data())
def test_same_seed_and_actions_give_identical_views(
    game: tuple[dict[str, Any], int, int], data: st.DataObject
) -> None:
    match = new_match(*game)
    play(match, data, steps=60)
    replay = new_match(*game)
    assert all_views(replay.state) == all_views(new_match(*game).state)
    for what, seat, action, now in match.log:
        if what == "timeout":
            replay.state, _ = GAME.on_timeout(replay.state, now)
        else:
            replay.state, _ = GAME.apply(replay.state, seat, action, now)
    assert all_views(replay.state) == all_views(match.state)
    assert GAME.snapshot(replay.state) == GAME.snapshot(match.state)


def all_views(state: BasicRummyState) -> list[dict[str, Any]]:
    return [GAME.view(state, seat) for seat in [None, *range(state.players)]]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), players=st.integers(2, 6))
def test_deals_from_the_same_seed_are_identical(seed: int, players: int) -> None:
    opts = GAME.validate_options({}, players)
    first = GAME.setup(opts, players, seed, 0)
    second = GAME.setup(opts, players, seed, 0)
    assert first == second
    assert all_views(first) == all_views(second)
