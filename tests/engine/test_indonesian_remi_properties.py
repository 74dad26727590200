"""Indonesian Remi properties, checked over random games played through the Game interface.

Each example sets up a game (shuffled from a seed, or a random scenario with
a short stock and a few discards, so that takes and empty stocks come often),
then plays steps drawn by Hypothesis: a legal action picked by index, the
bot's action (so that deals also end by closing), or a random (usually
illegal) action from a random seat. After every step:

- every card is in exactly one place (hands, stock, discard, melds): the 52
  cards, or the cards a scenario named during its deal;
- no view (each seat and the spectator) shows a card its viewer may not see;
  events show only public cards;
- a refused action raised a GameError and changed nothing, and ``apply``
  never changed the state it was given;
- every action ``legal_actions`` offers is accepted, and every accepted
  action was offered;
- the state survives a JSON snapshot round trip.

Then: the same seed and actions give the same game, and
:func:`engine.melds.best_partition` agrees with a brute force over every
partition of random hands.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.bots.indonesian_remi import choose
from engine.cards import is_standard_card, standard_deck
from engine.errors import GameError
from engine.games.indonesian_remi import MELDS, IndonesianRemi, card_value
from engine.games.rummy import RummyState
from engine.melds import (
    HIGH_ACE,
    LOW_ACE,
    MeldRules,
    SetsAllowed,
    best_partition,
    brute_force_partition_score,
    is_run,
    is_set,
)

GAME = IndonesianRemi()
DECK = standard_deck()
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CARD = st.sampled_from([*DECK, "ZZ", "", "10H", "as"])
CARDS = st.lists(CARD, max_size=5)
RANDOM_ACTION = st.one_of(
    st.builds(lambda f: {"kind": "draw", "from": f},
              st.sampled_from(["stock", "discard", "hand", None])),
    st.just({"kind": "draw"}),
    st.builds(lambda c, w: {"kind": "take", "card": c, "with": w}, CARD, CARDS),
    st.builds(lambda cs: {"kind": "meld", "cards": cs}, CARDS),
    st.builds(lambda c, m: {"kind": "lay_off", "card": c, "meld": m},
              CARD, st.sampled_from(["m1", "m2", "x", 1])),
    st.builds(lambda c: {"kind": "discard", "card": c}, CARD),
    st.builds(lambda ms, c: {"kind": "close", "melds": ms, "card": c},
              st.lists(CARDS, max_size=3), CARD),
    st.just({"kind": "next_deal"}),
    st.sampled_from([None, "draw", [], 3, {}, {"kind": 1}, {"kind": "pass"},
                     {"kind": "take", "card": "AS", "with": "2S 3S"},
                     {"kind": "close", "melds": [["AS"]]}, {"kind": "discard"}]),
)


@dataclass
class Match:
    """A game being played, with what the checks need to know about it."""

    state: RummyState
    named: set[str]  # the cards in play during the first deal
    now: int = 0
    log: list[tuple[str, int, Any, int]] = field(default_factory=list)


@st.composite
def matches(draw: st.DrawFn) -> tuple[dict[str, Any], int, int]:
    """Options, player count and seed of a new game, maybe with a short-stock scenario."""
    players = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**63 - 1))
    options: dict[str, Any] = {
        "deals": draw(st.sampled_from([None, 1, 2, 3])),
        "deal_pause_ms": draw(st.sampled_from([0, 1000])),
        "hand_melds_count": draw(st.booleans()),
    }
    if options["deals"] is None:
        options["target"] = draw(st.sampled_from([50, 150]))
    if draw(st.booleans()):
        if draw(st.booleans()):
            cards = draw(st.permutations(DECK))
        else:
            # Runs dealt out whole, so that players can close at once.
            shift = draw(st.integers(0, 51))
            cards = DECK[shift:] + DECK[:shift]
        hands = [cards[i * 7:(i + 1) * 7] for i in range(players)]
        rest = cards[players * 7:]
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
        if is_standard_card(value):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_ids(key)
            yield from card_ids(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_ids(item)


def public_cards(state: RummyState) -> set[str]:
    shown = set(state.discard) | {c for m in state.melds for c in m.cards}
    if state.phase != "playing":
        shown |= {c for h in state.hands for c in h}  # the result shows every hand
    return shown


def check_cards_conserved(match: Match) -> None:
    state = match.state
    found = [c for h in state.hands for c in h] + state.stock + state.discard
    found += [c for m in state.melds for c in m.cards]
    assert len(found) == len(set(found)), "a card is in two places"
    expected = match.named if state.deal == 1 else set(DECK)
    assert set(found) == expected


def check_views(state: RummyState) -> None:
    public = public_cards(state)
    for seat in [None, *range(state.players)]:
        view = GAME.view(state, seat)
        json.dumps(view)
        own = set(state.hands[seat]) if seat is not None else set()
        hidden = set(card_ids(view)) - public - own
        assert not hidden, f"seat {seat} sees {hidden}"
        if seat is None:
            assert "hand" not in view and view["can_close"] is False
        else:
            assert view["hand"] == state.hands[seat]
        assert view["takeable"] == (state.discard[-3:] if state.phase == "playing" else [])
        if state.phase == "playing":
            assert view["result"] is None
            rest = {k: v for k, v in view.items() if k != "hand"}
            assert not set(card_ids(rest)) - public
            closes = seat == state.turn and any(
                a["kind"] == "close" for a in GAME.legal_actions(state, state.turn))
            assert view["can_close"] == closes


def check_events(before: RummyState, after: RummyState, events: list[Any]) -> None:
    json.dumps(events)
    shown = set(card_ids(events))
    assert shown <= public_cards(before) | public_cards(after), "an event shows a hidden card"
    for happened in events:
        if happened["kind"] == "drew":
            assert "card" not in happened


def normal(action: Any) -> Any:
    """An action with its card lists sorted, so that actions compare whatever their order."""
    if not isinstance(action, dict):
        return action
    action = dict(action)
    if action.get("kind") == "draw" and action.get("from") == "stock":
        del action["from"]
    for key in ("cards", "with"):
        if isinstance(action.get(key), list):
            action[key] = sorted(map(str, action[key]))
    if isinstance(action.get("melds"), list) and all(
            isinstance(m, list) for m in action["melds"]):
        action["melds"] = sorted(sorted(map(str, m)) for m in action["melds"])
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
        if happened["kind"] in ("took", "closed", "stock_out", "deal_over", "game_over"):
            event(f"reached {happened['kind']}")  # shown by --hypothesis-show-statistics
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
        assert all(state.hands), "a player on turn or waiting has no card"
    else:
        assert GAME.to_act(state) == []
        assert state.result is not None
        assert [s["points"] for s in state.result["seats"]] == state.result["points"]


def step(match: Match, data: st.DataObject) -> None:
    """One step of the game, drawn by Hypothesis."""
    state = match.state
    match.now += 1000
    mode = data.draw(st.integers(0, 5), label="mode")
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
    if mode >= 3:
        action = choose(GAME.view(state, seat))
        assert action is not None
    else:
        actions = GAME.legal_actions(state, seat)
        action = actions[data.draw(st.integers(0, len(actions) - 1), label="action index")]
    assert apply_checked(match, seat, action)


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
        assert outcome.scores == [
            sum(r["points"][s] for r in match.state.results)
            for s in range(match.state.players)]
    else:
        assert GAME.outcome(match.state) is None


@SETTINGS
@given(game=matches(), data=st.data())
def test_random_games_conserve_cards_and_hide_hands(
    game: tuple[dict[str, Any], int, int], data: st.DataObject
) -> None:
    play(new_match(*game), data, steps=120)


@SETTINGS
@given(game=matches(), data=st.data())
def test_same_seed_and_actions_give_identical_views(
    game: tuple[dict[str, Any], int, int], data: st.DataObject
) -> None:
    match = new_match(*game)
    play(match, data, steps=50)
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


# --- the best partition against a brute force -------------------------------------------


@st.composite
def hands(draw: st.DrawFn) -> list[str]:
    """Up to eight cards, often crowded into few suits and ranks so that melds overlap."""
    pool = DECK
    if draw(st.booleans()):
        suits = draw(st.sampled_from(["S", "SH", "HD"]))
        ranks = draw(st.sampled_from(["A2345678", "789TJQKA", "23456789TJQKA"]))
        pool = [c for c in DECK if c[1] in suits or c[0] in ranks[:3]]
    return draw(st.lists(st.sampled_from(pool), max_size=8, unique=True))


SETS_ALLOWED: list[SetsAllowed] = [True, False, "with_run"]
RULES = [MELDS, MeldRules(), MeldRules(sequences=(LOW_ACE, HIGH_ACE))]


@settings(max_examples=400, deadline=None)
@given(hand=hands(), sets_allowed=st.sampled_from(SETS_ALLOWED),
       rules=st.sampled_from(RULES), values=st.sampled_from(["indonesian", "flat"]))
def test_best_partition_matches_a_brute_force_over_every_partition(
    hand: list[str], sets_allowed: SetsAllowed, rules: MeldRules, values: str
) -> None:
    value = card_value if values == "indonesian" else _flat
    found = best_partition(hand, rules, value, sets_allowed=sets_allowed)
    assert found.score == brute_force_partition_score(hand, rules, value,
                                                      sets_allowed=sets_allowed)
    # The partition is a real one, and its score is what it says.
    laid = [c for m in found.melds for c in m.cards]
    assert len(laid) == len(set(laid))
    assert sorted(laid + list(found.rest)) == sorted(hand)
    for meld in found.melds:
        assert (is_run if meld.kind == "run" else is_set)(list(meld.cards), rules)
    kinds = {m.kind for m in found.melds}
    if sets_allowed is False:
        assert "set" not in kinds
    if sets_allowed == "with_run" and "set" in kinds:
        assert "run" in kinds
    plus = sum(value(c) for c in laid)
    assert found.score == plus - sum(value(c) for c in found.rest)
    # The same hand in another order gives the same answer.
    again = best_partition(list(reversed(hand)), rules, value, sets_allowed=sets_allowed)
    assert again == found


def _flat(card: str) -> int:
    return 1
