"""Test helpers shared by the three rummy games (Basic Rummy, Traditional Remi, Indonesian Remi).

Nothing here is a test. Three parts:

- positions and moves: card lists written as text, action builders, and a
  :class:`RummyTable` that lays out a fixed first deal (a scenario), plays
  actions checking that ``legal_actions`` offered them, checks refusals,
  and plays whole deals with a game's bot against itself or a random-legal
  player;
- :func:`seat0_view`: a hand-built view of seat 0 on its own turn, for the
  bots of the games that lay off (Basic Rummy, Traditional Remi);
- :class:`RummyChecks`: the Hypothesis machinery behind each game's
  properties: random matches (shuffled, or short-stock scenarios), steps
  drawn by Hypothesis, and after every step the checks every rummy game
  keeps: cards conserved, no hidden card in any view or event, refused
  actions change nothing, offered actions are accepted and accepted ones
  were offered, snapshots round-trip through JSON, and the same seed and
  actions give the same game. A game subclasses it with its own extras,
  and binds the tests it builds (``random_games_test``, ``replay_test``,
  ``same_seed_test``) to its own test names.

Asserts here are plain ones: pytest rewrites the asserts of test modules
only, so a failure shows the failing line rather than the compared values
unless this module is registered with ``pytest.register_assert_rewrite``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from engine.bots.random_legal import choose_random
from engine.cards import is_standard_card
from engine.errors import BadOptions, GameError, IllegalAction, NotYourTurn
from engine.game import Action, Outcome, View
from engine.games.rummy import RummyGame, RummyState
from engine.rng import Rng
from tests.engine.pure_apply import apply_purely, refusal_text
from tests.examples import examples

ONE_DEAL = {"deals": 1, "deal_pause_ms": 0}
STOCK = {"kind": "draw", "from": "stock"}

Normal = Callable[[Any], Any]
Bot = Callable[[View], Action | None]


# --- positions and moves ----------------------------------------------------------------


def cards(text: str) -> list[str]:
    """Card ids written as space-separated text."""
    return text.split()


def meld(text: str) -> dict[str, Any]:
    return {"kind": "meld", "cards": cards(text)}


def discard(card: str) -> dict[str, Any]:
    return {"kind": "discard", "card": card}


def lay_off(card: str, meld_id: str) -> dict[str, Any]:
    return {"kind": "lay_off", "card": card, "meld": meld_id}


def all_cards(state: RummyState) -> list[str]:
    """Every card of the deal: hands, stock, discard pile and table."""
    found = [c for h in state.hands for c in h] + state.stock + state.discard
    return found + [c for m in state.melds for c in m.cards]


def normal_meld(action: Any) -> Any:
    """An action with a meld's cards sorted, so melds compare whatever their order."""
    if isinstance(action, dict) and action.get("kind") == "meld" and isinstance(
            action.get("cards"), list):
        return {**action, "cards": sorted(action["cards"])}
    return action


def normal_any_order(action: Any) -> Any:
    """An action with every card list sorted and a draw from the stock written plainly.

    For Indonesian Remi, whose takes and closes carry card lists too and
    whose draw is the same action with or without ``"from": "stock"``.
    """
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


@dataclass(frozen=True)
class RummyTable:
    """One game's fixed deals, checked moves and bot-played deals.

    ``normal`` makes actions comparable with what ``legal_actions`` offers;
    ``choose`` is the game's bot, for the helpers that play with it.
    """

    game: RummyGame
    normal: Normal = normal_meld
    choose: Bot | None = None

    def deal(self, hands: Sequence[str | list[str]], stock: str = "", discard: str = "",
             dealer: int | None = None, now: int = 0, seed: int = 7,
             **options: Any) -> RummyState:
        """A match whose first deal is fixed. By default the last seat deals.

        Hands are text (or card lists); the stock is listed top first and the
        discard pile bottom to top, as on the wire.
        """
        players = len(hands)
        scenario = {
            "dealer": players - 1 if dealer is None else dealer,
            "hands": [cards(h) if isinstance(h, str) else list(h) for h in hands],
            "stock": cards(stock),
            "discard": cards(discard),
        }
        opts = self.game.validate_options({**options, "scenario": scenario}, players)
        return self.game.setup(opts, players, seed=seed, now=now)

    def offered(self, state: RummyState, seat: int) -> list[Any]:
        return [self.normal(a) for a in self.game.legal_actions(state, seat)]

    def play(self, state: RummyState, seat: int, action: dict[str, Any], now: int = 0
             ) -> tuple[RummyState, list[dict[str, Any]]]:
        """Applies a legal action, checking that legal_actions offered it."""
        offered = self.offered(state, seat)
        new, events = self.game.apply(state, seat, action, now)
        assert self.normal(action) in offered, f"{action} was accepted but not offered"
        return new, events

    def play_turn(self, state: RummyState, seat: int, *actions: dict[str, Any],
                  now: int = 0) -> RummyState:
        """Plays ``actions`` in order for ``seat`` with :meth:`play`."""
        for action in actions:
            state, _ = self.play(state, seat, action, now)
        return state

    def turn_order(self, state: RummyState, turns: int, draw: dict[str, Any]) -> list[int]:
        """The seats that play ``turns`` turns, each a ``draw`` and the drawn card's discard.

        Checks on the way that every other seat is refused as not on turn.
        """
        order = []
        for _ in range(turns):
            seat = state.turn
            order.append(seat)
            for other in range(state.players):
                if other != seat:
                    self.refused(state, other, draw, NotYourTurn)
            state, _ = self.play(state, seat, draw)
            state, _ = self.play(state, seat, discard(state.hands[seat][-1]))
        return order

    def refused(self, state: RummyState, seat: int, action: Any,
                error: type[GameError] = IllegalAction) -> str:
        """Checks that ``action`` is refused with ``error``, changes nothing and is not offered.

        Returns the refusal as "<reason> <rule> <message>", so that a test can
        look for the exact refusal, the rule it cites or words of its sentence.
        """
        before = self.game.snapshot(state)
        deep = copy.deepcopy(state)
        with pytest.raises(error) as caught:
            self.game.apply(state, seat, action, 0)
        assert self.game.snapshot(state) == before and state == deep
        assert self.normal(action) not in self.offered(state, seat)
        return refusal_text(caught.value)

    def check_player_counts(self, fewest: int, most: int) -> None:
        """Checks that the game seats ``fewest`` to ``most`` players and refuses one fewer
        or one more."""
        assert (self.game.min_players, self.game.max_players) == (fewest, most)
        for players in (fewest - 1, most + 1):
            with pytest.raises(BadOptions):
                self.game.validate_options({}, players)

    def check_snapshot(self, state: RummyState, seat: int) -> dict[str, Any]:
        """Checks that ``state`` survives a JSON snapshot round trip and that an unknown
        snapshot version is refused; returns the snapshot."""
        data = self.game.snapshot(state)
        restored = self.game.restore(json.loads(json.dumps(data)))
        assert restored == state
        assert self.game.view(restored, seat) == self.game.view(state, seat)
        with pytest.raises(ValueError):
            self.game.restore({"version": 99})
        return data

    # -- the bot --

    def bot(self, state: RummyState, seat: int, view: View | None = None) -> Action:
        """The bot's action for ``seat`` (from ``view``, if given: that seat's view)."""
        assert self.choose is not None
        action = self.choose(self.game.view(state, seat) if view is None else view)
        assert action is not None, f"the bot of seat {seat} passed on its turn"
        return action

    def one_deal(self, hands: list[str], stock: str, discard: str) -> RummyState:
        """A one-deal match with a fixed deal; seat 1 deals, so seat 0 plays first (two seats)."""
        return self.deal(hands, stock, discard, dealer=1, seed=1, **ONE_DEAL)

    def bot_turn(self, state: RummyState) -> tuple[RummyState, list[dict[str, Any]]]:
        """Lets the bot play the turn seat's whole turn; returns the state and its actions."""
        seat = state.turn
        actions = []
        while state.phase == "playing" and state.turn == seat:
            action = self.bot(state, seat)
            assert self.normal(action) in self.offered(state, seat)
            actions.append(action)
            state, _ = self.game.apply(state, seat, action, 0)
        return state, actions

    def finish_deal(self, state: RummyState, limit: int = 5_000) -> RummyState:
        """Plays the current deal to its end with the bot in every seat."""
        for _ in range(limit):
            if state.phase != "playing":
                return state
            seat = state.turn
            state, _ = self.game.apply(state, seat, self.bot(state, seat), 0)
        raise AssertionError("the deal did not end")

    def play_deal(self, seed: int, players: dict[int, str], rng: Rng, *,
                  options: dict[str, Any] | None = None,
                  turn_cap: int | None = None) -> RummyState:
        """Plays one seeded one-deal match; ``players`` maps a seat to "bot" or "random".

        Every action must be legal; the bot never discards the card it must
        not. With ``turn_cap``, play stops after that many draws.
        """
        game = self.game
        state = game.setup({**ONE_DEAL, **(options or {})}, len(players), seed, 0)
        turns = 0
        while game.to_act(state) and (turn_cap is None or turns < turn_cap):
            seat = game.to_act(state)[0]
            legal = self.offered(state, seat)
            if players[seat] == "bot":
                seen = game.view(state, seat)
                action = self.bot(state, seat, seen)
                assert self.normal(action) in legal, f"seed {seed}: {action} is not legal"
                if action["kind"] == "discard":
                    assert action["card"] != seen.get("must_not_discard")
            else:
                action = choose_random(game, state, seat, rng)
                assert self.normal(action) in legal
            state, _ = game.apply(state, seat, action, 0)
            turns += action["kind"] == "draw"
        return state

    def against_random(self, deals: int, turn_cap: int | None = None
                       ) -> Iterator[tuple[dict[int, str], RummyState]]:
        """Two-seat deals 0 .. ``deals``-1 of the bot against the random-legal player.

        The bot sits at seat 0 in even deals and seat 1 in odd ones. Yields
        who sits where and the finished (or capped) deal.
        """
        for seed in range(deals):
            bot_seat = seed % 2
            players = {bot_seat: "bot", 1 - bot_seat: "random"}
            yield players, self.play_deal(seed, players, Rng(1000 + seed), turn_cap=turn_cap)

    def won_against_random(self, deals: int, turn_cap: int | None = None
                           ) -> Iterator[tuple[str, dict[int, str], dict[str, Any]]]:
        """The decided deals of :meth:`against_random`: who won ("bot" or "random"),
        who sat where, and the deal's result."""
        for players, state in self.against_random(deals, turn_cap):
            result = state.result
            if result is not None and result["winner"] is not None:
                yield players[result["winner"]], players, result


def seat0_view(game: str, hand: str, *, step: str = "play",
               melds: Sequence[tuple[str, str]] = (), discard: str = "", stock_count: int = 20,
               opponent_cards: int = 10, options: dict[str, Any] | None = None,
               must: str | None = None, can_meld: bool = True,
               **extra: Any) -> dict[str, Any]:
    """Seat 0's view on its own turn of a two-seat deal (seat 1 deals), as ``game`` builds it.

    ``melds`` are (kind, cards) owned by seat 1; ``extra`` adds the game's
    own view keys.
    """
    table = [
        {"id": f"m{i}", "kind": kind, "cards": cards(text), "owner": 1}
        for i, (kind, text) in enumerate(melds, start=1)
    ]
    return {
        "game": game,
        "phase": "playing",
        "step": step,
        "you": 0,
        "dealer": 1,
        "turn": 0,
        "deal": 1,
        "options": dict(options or {}),
        "seats": [
            {"seat": 0, "hand_count": len(cards(hand)), "score": 0, "melds": []},
            {"seat": 1, "hand_count": opponent_cards, "score": 0,
             "melds": [{k: m[k] for k in ("id", "kind", "cards")} for m in table]},
        ],
        "hand": cards(hand),
        "stock_count": stock_count,
        "discard": cards(discard),
        "melds": table,
        "must_not_discard": must,
        "can_meld": can_meld and step == "play",
        "result": None,
        "results": [],
        "next_deal_at": None,
        "winners": None,
        **extra,
    }


# --- random games -----------------------------------------------------------------------


def random_actions(card_ids: Sequence[str], meld_ids: Sequence[Any], oddities: Sequence[Any],
                   *more: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Random, mostly illegal actions: draws, melds, lay-offs and discards of ``card_ids``,
    next_deal, the game's ``more`` and a few ``oddities``."""
    card = st.sampled_from(list(card_ids))
    return st.one_of(
        st.builds(lambda f: {"kind": "draw", "from": f},
                  st.sampled_from(["stock", "discard", "hand", None])),
        st.builds(lambda cs: {"kind": "meld", "cards": cs}, st.lists(card, max_size=5)),
        st.builds(lambda c, m: {"kind": "lay_off", "card": c, "meld": m},
                  card, st.sampled_from(list(meld_ids))),
        st.builds(lambda c: {"kind": "discard", "card": c}, card),
        *more,
        st.just({"kind": "next_deal"}),
        st.sampled_from(list(oddities)),
    )


def card_ids(value: Any, decks: int = 1) -> Iterator[str]:
    """Every string in a JSON-like value that is a card id."""
    if isinstance(value, str):
        if is_standard_card(value, decks):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from card_ids(key, decks)
            yield from card_ids(item, decks)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_ids(item, decks)


@dataclass
class Match:
    """A match being played, with what the checks need to know about it."""

    state: RummyState
    named: set[str]  # the cards in play during the first deal
    now: int = 0
    log: list[tuple[str, int, Any, int]] = field(default_factory=list)


GameArgs = tuple[dict[str, Any], int, int]  # options, player count, seed
TestFunction = Callable[..., None]


class RummyChecks:
    """The properties every rummy game keeps, over random games. A game subclasses it.

    A subclass sets the class attributes and may extend the hooks
    (``draw_options``, ``check_view``, ``draw_hides_card``, ``after_apply``,
    ``check_state``, ``pick``, ``check_outcome``).
    """

    game: RummyGame
    deck: list[str]
    random_action: st.SearchStrategy[Any]
    decks = 1
    players = (2, 4)  # the player counts drawn
    scenario_stock = 8  # at most this many stock cards in a scenario
    scenario_discard = 4  # and this many in its discard pile
    rotations = False  # scenarios may deal a rotated, unshuffled deck (runs dealt whole)
    steps = 5  # a step draws a mode 0 .. steps; mode 0 is a random action
    own_fields: tuple[str, ...] = ("hand",)  # view keys that may show the viewer's cards
    hands_public_after_deal = False  # once a deal is over, hands count as public in events
    milestones: tuple[str, ...] = ("deal_over", "game_over")  # events to count
    lowest_wins = False

    def normal(self, action: Any) -> Any:
        """``action`` in a form that compares equal to the same action offered."""
        return normal_meld(action)

    # -- matches --

    def draw_options(self, draw: st.DrawFn) -> dict[str, Any]:
        """The game's own options of a new match."""
        return {}

    def matches(self) -> st.SearchStrategy[GameArgs]:
        """Options, player count and seed of a new match, maybe with a short-stock scenario."""
        return _matches(self)

    def new_match(self, options: dict[str, Any], players: int, seed: int) -> Match:
        opts = self.game.validate_options(options, players)
        state = self.game.setup(opts, players, seed, 0)
        scenario = options.get("scenario")
        if scenario is None:
            named = set(self.deck)
        else:
            named = {c for h in scenario["hands"] for c in h}
            named |= set(scenario["stock"]) | set(scenario["discard"])
        return Match(state, named)

    # -- the checks --

    def public_cards(self, state: RummyState) -> set[str]:
        shown = set(state.discard) | {c for m in state.melds for c in m.cards}
        if self.hands_public_after_deal and state.phase != "playing":
            shown |= {c for h in state.hands for c in h}  # the result shows every hand
        return shown

    def check_cards_conserved(self, match: Match) -> None:
        state = match.state
        found = all_cards(state)
        assert len(found) == len(set(found)), "a card is in two places"
        expected = match.named if state.deal == 1 else set(self.deck)
        assert set(found) == expected

    def check_views(self, state: RummyState) -> None:
        public = self.public_cards(state)
        revealed = {c for h in state.hands for c in h} if state.phase != "playing" else set()
        for seat in [None, *range(state.players)]:
            view = self.game.view(state, seat)
            json.dumps(view)
            own = set(state.hands[seat]) if seat is not None else set()
            hidden = set(card_ids(view, self.decks)) - public - own - revealed
            assert not hidden, f"seat {seat} sees {hidden}"
            if seat is None:
                assert "hand" not in view
            else:
                assert view["hand"] == state.hands[seat]
            if state.phase == "playing":
                assert view["result"] is None
                # Outside the result, a hidden card shows only in its holder's own fields.
                rest = {k: v for k, v in view.items() if k not in self.own_fields}
                assert not set(card_ids(rest, self.decks)) - public
            self.check_view(state, seat, view, own, public)

    def check_view(self, state: RummyState, seat: int | None, view: View, own: set[str],
                   public: set[str]) -> None:
        """The game's own checks of one view."""

    def draw_hides_card(self, happened: dict[str, Any]) -> bool:
        """Whether a "drew" event must not show the card drawn."""
        return bool(happened["from"] == "stock")

    def check_events(self, before: RummyState, after: RummyState, events: list[Any]) -> None:
        json.dumps(events)
        shown = set(card_ids(events, self.decks))
        public = self.public_cards(before) | self.public_cards(after)
        assert shown <= public, "an event shows a hidden card"
        for happened in events:
            if happened["kind"] == "drew" and self.draw_hides_card(happened):
                assert "card" not in happened

    def apply_checked(self, match: Match, seat: int, action: Any) -> bool:
        """Applies ``action``; checks purity either way. True if it was accepted."""
        game = self.game
        state = match.state
        applied = apply_purely(game, state, seat, action, match.now)
        if applied is None:
            return False
        new, events = applied
        assert self.normal(action) in [self.normal(a) for a in game.legal_actions(state, seat)], (
            f"{action} was accepted but not offered")
        self.check_events(state, new, events)
        for happened in events:
            if happened["kind"] in self.milestones:
                event(f"reached {happened['kind']}")  # shown by --hypothesis-show-statistics
        self.after_apply(state, seat, action, new, events)
        match.state = new
        match.log.append(("apply", seat, copy.deepcopy(action), match.now))
        return True

    def after_apply(self, before: RummyState, seat: int, action: dict[str, Any],
                    after: RummyState, events: list[dict[str, Any]]) -> None:
        """The game's own checks of an accepted action."""

    def check_legal_actions_accepted(self, state: RummyState) -> None:
        for seat in range(state.players):
            actions = self.game.legal_actions(state, seat)
            if state.phase == "playing" and seat != state.turn:
                assert actions == []
            for action in actions:
                self.game.apply(state, seat, action, 0)  # raises if the offer was wrong

    def check_everything(self, match: Match) -> None:
        game = self.game
        state = match.state
        self.check_cards_conserved(match)
        self.check_views(state)
        self.check_legal_actions_accepted(state)
        assert game.restore(json.loads(json.dumps(game.snapshot(state)))) == state
        if state.phase == "playing":
            assert game.to_act(state) == [state.turn]
            assert game.legal_actions(state, state.turn), "the player to act has no move"
        else:
            assert game.to_act(state) == []
        self.check_state(state)

    def check_state(self, state: RummyState) -> None:
        """The game's own checks of a state."""

    # -- playing --

    def step(self, match: Match, data: st.DataObject) -> None:
        """One step of the game, drawn by Hypothesis."""
        game = self.game
        state = match.state
        match.now += 1000
        mode = data.draw(st.integers(0, self.steps), label="mode")
        if mode == 0:
            action = data.draw(self.random_action, label="random action")
            seat = data.draw(st.integers(-1, state.players), label="random seat")
            self.apply_checked(match, seat, action)
            return
        if state.phase == "deal_over":
            if data.draw(st.booleans(), label="wait"):
                assert state.next_deal_at is not None
                match.now = max(match.now, state.next_deal_at)
                assert game.next_deadline(state) == state.next_deal_at
                new, events = game.on_timeout(state, match.now)
                self.check_events(state, new, events)
                match.state = new
                match.log.append(("timeout", -1, None, match.now))
            else:
                seat = data.draw(st.integers(0, state.players - 1), label="next_deal seat")
                assert self.apply_checked(match, seat, {"kind": "next_deal"})
            return
        seat = state.turn
        action = self.pick(state, seat, mode, data)
        assert self.apply_checked(match, seat, action), f"{action} was refused"

    def pick(self, state: RummyState, seat: int, mode: int, data: st.DataObject) -> Any:
        """The action of the player on turn, for a step of ``mode`` (1 or more)."""
        return pick_legal(self.game.legal_actions(state, seat), data)

    def play(self, match: Match, data: st.DataObject, steps: int) -> None:
        """Plays up to ``steps`` steps, checking everything after each one."""
        self.check_everything(match)
        for _ in range(steps):
            if match.state.phase == "game_over":
                break
            self.step(match, data)
            self.check_everything(match)
        outcome = self.game.outcome(match.state)
        if match.state.phase == "game_over":
            assert outcome is not None
            best = (min if self.lowest_wins else max)(outcome.scores)
            assert outcome.winners == [s for s, v in enumerate(outcome.scores) if v == best]
            self.check_outcome(match, outcome)
        else:
            assert outcome is None

    def check_outcome(self, match: Match, outcome: Outcome) -> None:
        """The game's own checks of a finished match."""

    # -- determinism --

    def all_views(self, state: RummyState) -> list[View]:
        return [self.game.view(state, seat) for seat in [None, *range(state.players)]]

    def check_replay(self, args: GameArgs, data: st.DataObject, steps: int) -> None:
        """Plays a random match, then replays its log: the same views and snapshot."""
        match = self.new_match(*args)
        self.play(match, data, steps)
        replay = self.new_match(*args)
        assert self.all_views(replay.state) == self.all_views(self.new_match(*args).state)
        for what, seat, action, now in match.log:
            if what == "timeout":
                replay.state, _ = self.game.on_timeout(replay.state, now)
            else:
                replay.state, _ = self.game.apply(replay.state, seat, action, now)
        assert self.all_views(replay.state) == self.all_views(match.state)
        assert self.game.snapshot(replay.state) == self.game.snapshot(match.state)

    def check_same_seed(self, seed: int, players: int) -> None:
        """Two deals set up from one seed are the same."""
        opts = self.game.validate_options({}, players)
        first = self.game.setup(opts, players, seed, 0)
        second = self.game.setup(opts, players, seed, 0)
        assert first == second
        assert self.all_views(first) == self.all_views(second)

    # -- the tests every game runs, for a test module to bind to its test names --

    def random_games_test(self, runs: settings, steps: int) -> TestFunction:
        """Random matches of up to ``steps`` steps, everything checked after each step."""
        @runs
        @given(game=self.matches(), data=st.data())
        def random_game(game: GameArgs, data: st.DataObject) -> None:
            self.play(self.new_match(*game), data, steps)

        return random_game

    def replay_test(self, runs: settings, steps: int) -> TestFunction:
        """Random matches of up to ``steps`` steps, replayed from their log."""
        @runs
        @given(game=self.matches(), data=st.data())
        def replayed_game(game: GameArgs, data: st.DataObject) -> None:
            self.check_replay(game, data, steps)

        return replayed_game

    def same_seed_test(self) -> TestFunction:
        """Deals set up twice from one seed, for every player count (:meth:`check_same_seed`)."""
        @settings(max_examples=examples(25), deadline=None)
        @given(seed=st.integers(0, 2**63 - 1), players=st.integers(*self.players))
        def same_seed_deal(seed: int, players: int) -> None:
            self.check_same_seed(seed, players)

        return same_seed_deal


def pick_legal(actions: list[dict[str, Any]], data: st.DataObject) -> dict[str, Any]:
    """One of ``actions``, picked by index."""
    return actions[data.draw(st.integers(0, len(actions) - 1), label="action index")]


@st.composite
def _matches(draw: st.DrawFn, checks: RummyChecks) -> GameArgs:
    players = draw(st.integers(*checks.players))
    seed = draw(st.integers(0, 2**63 - 1))
    options = checks.draw_options(draw)
    options["deal_pause_ms"] = draw(st.sampled_from([0, 1000]))
    if draw(st.booleans()):
        deck = checks.deck
        if checks.rotations and draw(st.booleans()):
            # Runs dealt out whole, so that players can meld or close at once.
            shift = draw(st.integers(0, len(deck) - 1))
            dealt = deck[shift:] + deck[:shift]
        else:
            dealt = draw(st.permutations(deck))
        size = checks.game.rules.hand_size(players)
        hands = [dealt[i * size:(i + 1) * size] for i in range(players)]
        rest = dealt[players * size:]
        stock_size = draw(st.integers(0, min(checks.scenario_stock, len(rest))))
        discard_size = draw(st.integers(0, min(checks.scenario_discard, len(rest) - stock_size)))
        options["scenario"] = {
            "dealer": draw(st.integers(0, players - 1)),
            "hands": hands,
            "stock": rest[:stock_size],
            "discard": rest[stock_size:stock_size + discard_size],
        }
    return options, players, seed
