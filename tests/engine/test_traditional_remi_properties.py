"""Traditional Remi properties, checked over random games played through the Game interface.

Each example sets up a match (shuffled from a seed, or a random scenario with
a short stock so that the pile is reshuffled into a new stock often), then
plays steps drawn by Hypothesis: a legal action picked by index, the bot's
action (so that deals also reach their end), or sometimes a random (usually
illegal) action from a random seat. After every step:

- every card is in exactly one place (hands, stock, discard, melds): the 104
  cards, or the cards a scenario named during its deal;
- no view (each seat and the spectator) shows a card its viewer may not see;
  events show only public cards;
- a refused action raised a GameError and changed nothing, and ``apply``
  never changed the state it was given;
- every action ``legal_actions`` offers is accepted, every accepted action
  was offered, and none leaves a player without a card to discard (TR-10);
- the state survives a JSON snapshot round trip;
- the same seed and actions give the same states (the reshuffles included).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.bots.traditional_remi import choose
from engine.cards import is_standard_card, standard_deck
from engine.errors import GameError
from engine.games.rummy import RummyState
from engine.games.traditional_remi import HAND_SIZE, TraditionalRemi, prize_payouts

GAME = TraditionalRemi()
DECK = standard_deck(2)
SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CARD = st.sampled_from([*DECK, "ZZ", "", "AH", "AH3", "10H1"])
RANDOM_ACTION = st.one_of(
    st.builds(lambda f: {"kind": "draw", "from": f},
              st.sampled_from(["stock", "discard", "hand", None])),
    st.builds(lambda cs: {"kind": "meld", "cards": cs}, st.lists(CARD, max_size=5)),
    st.builds(lambda c, m: {"kind": "lay_off", "card": c, "meld": m},
              CARD, st.sampled_from(["m1", "m2", "m3", "x", 1])),
    st.builds(lambda c: {"kind": "discard", "card": c}, CARD),
    st.just({"kind": "next_deal"}),
    st.sampled_from([None, "draw", [], 3, {}, {"kind": 1}, {"kind": "take"},
                     {"kind": "meld", "cards": "AS1"}, {"kind": "discard"}]),
)


@dataclass
class Match:
    """A match being played, with what the checks need to know about it."""

    state: RummyState
    named: set[str]  # the cards in play during the first deal
    now: int = 0
    log: list[tuple[str, int, Any, int]] = field(default_factory=list)


@st.composite
def matches(draw: st.DrawFn) -> tuple[dict[str, Any], int, int]:
    """Options, player count and seed of a new match, maybe with a short-stock scenario."""
    players = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**63 - 1))
    options: dict[str, Any] = {
        "deals": draw(st.sampled_from([1, 1, 2, 3])),
        "stake": draw(st.sampled_from([0, 0, 100, 7])),
        "deal_pause_ms": draw(st.sampled_from([0, 1000])),
    }
    if draw(st.booleans()):
        cards = draw(st.permutations(DECK))
        hands = [cards[i * HAND_SIZE:(i + 1) * HAND_SIZE] for i in range(players)]
        rest = cards[players * HAND_SIZE:]
        stock_size = draw(st.integers(0, 8))
        discard_size = draw(st.integers(0, 4))
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
        if is_standard_card(value, 2):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_ids(key)
            yield from card_ids(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_ids(item)


def public_cards(state: RummyState) -> set[str]:
    return set(state.discard) | {c for m in state.melds for c in m.cards}


def check_cards_conserved(match: Match) -> None:
    state = match.state
    found = [c for h in state.hands for c in h] + state.stock + state.discard
    found += [c for m in state.melds for c in m.cards]
    assert len(found) == len(set(found)), "a card is in two places"
    expected = match.named if state.deal == 1 else set(DECK)
    assert set(found) == expected


def check_views(state: RummyState) -> None:
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
            rest = {k: v for k, v in view.items() if k != "hand"}
            assert not set(card_ids(rest)) - public
        assert view["must_not_discard"] is None  # TR: the taken card may be discarded
        assert view["pot"] == state.options["stake"] * state.players
        if state.phase == "game_over" and state.options["stake"]:
            assert view["payouts"] == prize_payouts(view["pot"], state.scores)
            assert sum(view["payouts"]) == view["pot"]
        else:
            assert view["payouts"] is None


def check_events(before: RummyState, after: RummyState, events: list[Any]) -> None:
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
    kinds = [e["kind"] for e in events]
    if action["kind"] in ("meld", "lay_off"):
        # TR-10: a meld or lay-off never empties the hand; only a discard ends a deal.
        assert new.hands[seat] and "deal_over" not in kinds
    for kind in kinds:
        if kind in ("stock_shuffled", "deal_over", "game_over"):
            event(f"reached {kind}")  # shown by --hypothesis-show-statistics
    if "deal_over" in kinds and new.result is not None and new.result["hunt"]:
        event("reached a hunt")
    match.state = new
    match.log.append(("apply", seat, copy.deepcopy(action), match.now))
    return True


def check_legal_actions_accepted(state: RummyState) -> None:
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
        if state.step == "draw":
            assert state.stock or len(state.discard) >= 2  # else the deal would be void
    else:
        assert GAME.to_act(state) == []


def step(match: Match, data: st.DataObject) -> None:
    """One step of the game, drawn by Hypothesis."""
    state = match.state
    match.now += 1000
    mode = data.draw(st.integers(0, 7), label="mode")
    if mode == 0:
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
    if mode <= 6:
        action = choose(GAME.view(state, seat))
        assert action is not None
        assert apply_checked(match, seat, action), f"the bot played an illegal {action}"
        return
    actions = GAME.legal_actions(state, seat)
    index = data.draw(st.integers(0, len(actions) - 1), label="action index")
    assert apply_checked(match, seat, actions[index])


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
        low = min(outcome.scores)  # TR-13: the lowest total wins
        assert outcome.winners == [s for s, v in enumerate(outcome.scores) if v == low]
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
def test_same_seed_and_actions_give_identical_states(
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


def all_views(state: RummyState) -> list[dict[str, Any]]:
    return [GAME.view(state, seat) for seat in [None, *range(state.players)]]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), players=st.integers(2, 4))
def test_deals_from_the_same_seed_are_identical(seed: int, players: int) -> None:
    opts = GAME.validate_options({}, players)
    first = GAME.setup(opts, players, seed, 0)
    second = GAME.setup(opts, players, seed, 0)
    assert first == second
    assert all_views(first) == all_views(second)


@settings(max_examples=200, deadline=None)
@given(pot=st.integers(0, 4_000_000), totals=st.lists(st.integers(0, 400), min_size=2,
                                                       max_size=4))
def test_the_prize_pool_is_shared_out_exactly(pot: int, totals: list[int]) -> None:
    payouts = prize_payouts(pot, totals)
    assert sum(payouts) == pot and min(payouts) >= 0
    best = min(totals)
    winners = [s for s, t in enumerate(totals) if t == best]
    # TR-14: the winner(s) keep at least 75% of the pot between them.
    assert 100 * sum(payouts[s] for s in winners) >= 75 * pot
    for seat, total in enumerate(totals):
        if total - best >= 80:
            assert payouts[seat] == 0
