"""Remmi Demmi as a Hypothesis state machine: random real-time play by 4-9 players.

Steps interleave, from any seat: offers (valid Demmis, invalid ones, aimed or
not, answers to open offers), withdrawals, returns and keeps (by either side
of any trade), claims, starting the timer, frantic reveal and peek, the next
deal, random garbage, and time passing (deadlines fire through
``on_timeout``). After every step:

- every card in play is in exactly one place (a hand or a claim); no card is
  in two offers; offered and locked cards are in their owner's hand; locked
  cards are in no offer; each seat has at most one offer and no two open
  offers could match each other;
- an unclaimed hand keeps its size for the whole round;
- no view (each seat, the spectator) shows a card id its viewer may not see
  before the check, and no event does;
- a refused action raised a GameError and changed nothing; ``apply`` never
  changes the state it was given;
- the state survives a JSON snapshot.

At the end the recorded actions are replayed from the same seed: the same
views and state come out.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine.games.remmi_demmi import (
    RemmiDemmi,
    RemmiDemmiState,
    deck_for,
    find_remmi,
    hand_size,
    is_card,
    locked_cards,
)
from engine.rng import Rng
from tests.engine.pure_apply import apply_purely
from tests.examples import examples

GAME = RemmiDemmi()
T0 = 5_000_000

GARBAGE = st.one_of(
    st.sampled_from([None, "offer", 7, [], {}, {"kind": 3}, {"kind": "fly"}, {"kind": "offer"},
                     {"kind": "offer", "cards": "OR1"}, {"kind": "claim", "cards": [1] * 9},
                     {"kind": "return", "trade": None}, {"kind": "keep", "trade": "t999"},
                     {"kind": "start_timer", "speed": "warp"}, {"kind": "withdraw"},
                     {"kind": "next_deal"}, {"kind": "reveal"}, {"kind": "peek"}]),
    st.builds(lambda cards, to: {"kind": "offer", "cards": cards, "to": to},
              st.lists(st.sampled_from(["OR1", "GL9", "PJ5", "XX1", ""]), max_size=3),
              st.one_of(st.none(), st.integers(-1, 9), st.just("1"))),
)


def card_ids(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if is_card(value) else set()
    if isinstance(value, dict):
        return set().union(set(), *(card_ids(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(card_ids(v) for v in value))
    return set()


def compatible(older_seat: int, older_to: int | None, older_size: int,
               seat: int, to: int | None, size: int) -> bool:
    """RD-11, restated: same size, different seats, targets respected both ways."""
    return (older_seat != seat and older_size == size
            and to in (None, older_seat) and older_to in (None, seat))


def check_matching(before: RemmiDemmiState, seat: int, action: dict[str, Any],
                   events: list[Any]) -> None:
    """An arriving offer traded with the oldest compatible open offer, or with none."""
    size, to = len(action["cards"]), action.get("to")
    candidates = [o for o in before.offers if o.seat != seat
                  and compatible(o.seat, o.to, len(o.cards), seat, to, size)]
    traded = [e for e in events if e["kind"] == "traded"]
    if not candidates:
        assert not traded
        return
    assert len(traded) == 1
    assert (traded[0]["a"], traded[0]["b"], traded[0]["size"]) == (candidates[0].seat, seat, size)


def remmi_scenario(players: int, rng: Rng) -> list[list[str]]:
    """Seats 0 and 1 hold a Remmi (plus a tenth card with four players); the rest is shuffled."""
    copies = 5 if players <= 5 else 7 if players <= 7 else 9
    remmis = [
        [f"OR{n}" for n in range(1, copies + 1)] + [f"OJ{n}" for n in range(1, 10 - copies)],
        [f"PR{n}" for n in range(1, copies + 1)] + [f"PJ{n}" for n in range(1, 10 - copies)],
    ]
    rest = [c for c in deck_for(players) if c not in remmis[0] + remmis[1]]
    rng.shuffle(rest)
    size = hand_size(players)
    hands = [list(r) for r in remmis]
    for seat in range(players):
        if seat >= 2:
            hands.append([])
        while len(hands[seat]) < size:
            hands[seat].append(rest.pop())
    return hands


class RemmiDemmiMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state: RemmiDemmiState
        self.now = T0
        self.setup_args: tuple[dict[str, Any], int, int] = ({}, 4, 0)
        self.log: list[tuple[str, int, Any, int]] = []
        self.round_cards: dict[int, list[str]] = {}
        self.round_sizes: dict[int, list[int]] = {}

    # -- setup and helpers --

    @initialize(
        players=st.integers(4, 9),
        seed=st.integers(0, 2**63 - 1),
        frantic=st.booleans(),
        window=st.integers(1, 5),
        pause=st.sampled_from([0, 2000]),
        rounds=st.integers(1, 3),
        timer=st.sampled_from([None, 10, 30, 60]),
        remmis=st.booleans(),
    )
    def setup(self, players: int, seed: int, frantic: bool, window: int, pause: int,
              rounds: int, timer: int | None, remmis: bool) -> None:
        options: dict[str, Any] = {
            "frantic": frantic, "return_window_s": window, "round_pause_ms": pause,
            "rounds": rounds, "timer_s": timer,
        }
        if remmis:
            options["scenario"] = {"hands": remmi_scenario(players, Rng(seed))}
        self.setup_args = (options, players, seed)
        self.state = GAME.setup(GAME.validate_options(options, players), players, seed, T0)

    def apply(self, seat: Any, action: Any) -> bool:
        """Applies ``action`` at the current time, checking purity; True if accepted."""
        state = self.state
        applied = apply_purely(GAME, state, seat, action, self.now)
        if applied is None:
            return False
        new, events = applied
        self.check_events(new, events)
        if isinstance(action, dict) and action.get("kind") == "offer" and any(
                e["kind"] == "offered" for e in events):
            check_matching(state, seat, action, events)
        self.state = new
        self.log.append(("apply", seat, copy.deepcopy(action), self.now))
        self.fire()
        return True

    def fire(self) -> None:
        """Runs the deadlines that are due, as the room's tick does."""
        due = GAME.next_deadline(self.state)
        if due is not None and due <= self.now:
            before = copy.deepcopy(self.state)
            new, events = GAME.on_timeout(self.state, self.now)
            assert self.state == before
            self.check_events(new, events)
            self.state = new
            self.log.append(("timeout", -1, None, self.now))

    def check_events(self, new: RemmiDemmiState, events: list[Any]) -> None:
        json.dumps(events)
        revealed: set[str] = set()
        for event in events:
            if event["kind"] == "checked":
                for claim in event["claims"]:
                    revealed |= set(claim["cards"]) | set(claim["aside"])
            else:
                assert not card_ids(event), f"event {event} shows cards"
        claimed = {c for claim in self.state.claims + new.claims
                   for c in claim.cards + claim.aside}
        assert revealed <= claimed

    def seat(self, data: st.DataObject, label: str = "seat") -> int:
        return data.draw(st.integers(0, self.state.players - 1), label=label)

    @property
    def trading(self) -> bool:
        return self.state.phase == "playing" and self.state.stage == "trading"

    # -- rules --

    @rule(data=st.data())
    def start_timer(self, data: st.DataObject) -> None:
        state = self.state
        seat = state.dealer if data.draw(st.booleans(), label="by dealer") else self.seat(data)
        speed = data.draw(st.sampled_from(["snail", "lightning"]), label="speed")
        accepted = self.apply(seat, {"kind": "start_timer", "speed": speed})
        if accepted:
            assert seat == state.dealer and state.stage == "dealt"

    @rule(data=st.data())
    def frantic_signals(self, data: st.DataObject) -> None:
        seat = self.seat(data)
        kind = data.draw(st.sampled_from(["reveal", "peek"]), label="kind")
        self.apply(seat, {"kind": kind})

    @rule(data=st.data())
    def offer(self, data: st.DataObject) -> None:
        seat = self.seat(data)
        hand = self.state.hands[seat]
        if hand and data.draw(st.integers(0, 4), label="from hand") > 0:
            if data.draw(st.booleans(), label="demmi"):
                card = data.draw(st.sampled_from(hand), label="first")
                key = data.draw(st.sampled_from([0, 1]), label="by")
                group = [c for c in hand if c[key] == card[key]]
                size = data.draw(st.integers(1, min(3, len(group))), label="size")
                cards = group[:size]
            else:
                cards = data.draw(st.lists(st.sampled_from(hand), min_size=1,
                                           max_size=min(4, len(hand)), unique=True), label="cards")
        else:
            cards = data.draw(st.lists(st.sampled_from(deck_for(9)), min_size=1, max_size=3,
                                       unique=True), label="any cards")
        to = data.draw(st.one_of(st.none(), st.integers(0, self.state.players - 1)), label="to")
        self.apply(seat, {"kind": "offer", "cards": cards, "to": to})

    @precondition(lambda self: bool(self.state.offers))
    @rule(data=st.data())
    def answer(self, data: st.DataObject) -> None:
        """Another seat offers the size of an open offer: trades happen often."""
        target = data.draw(st.sampled_from(self.state.offers), label="offer")
        seat = self.seat(data, "answering seat")
        hand = [c for c in self.state.hands[seat] if c not in locked_cards(self.state, seat)]
        size = len(target.cards)
        if len(hand) < size:
            return
        cards = data.draw(st.permutations(hand), label="cards")[:size]
        aim = data.draw(st.booleans(), label="aim")
        self.apply(seat, {"kind": "offer", "cards": cards, "to": target.seat if aim else None})

    @rule(data=st.data())
    def withdraw(self, data: st.DataObject) -> None:
        seat = self.seat(data)
        had = any(o.seat == seat for o in self.state.offers)
        assert self.apply(seat, {"kind": "withdraw"}) == (had and self.trading)

    @precondition(lambda self: bool(self.state.trades))
    @rule(data=st.data())
    def return_or_keep(self, data: st.DataObject) -> None:
        open_ = [t for t in self.state.trades if t.status == "returnable"]
        if open_ and data.draw(st.integers(0, 3), label="open one") > 0:
            # Mostly a side that may still decide, so that returns and keeps happen.
            trade = data.draw(st.sampled_from(open_), label="open trade")
            sides = [i for i in (0, 1) if trade.pending[i]]
            seat = trade.seats[data.draw(st.sampled_from(sides), label="pending side")]
        else:
            trade = data.draw(st.sampled_from(self.state.trades), label="trade")
            seat = trade.seats[data.draw(st.integers(0, 1), label="side")]
            if data.draw(st.integers(0, 5), label="anyone") == 0:
                seat = self.seat(data)
        kind = data.draw(st.sampled_from(["return", "keep"]), label="kind")
        before = self.state
        accepted = self.apply(seat, {"kind": kind, "trade": trade.id})
        if accepted and kind == "return":
            for side in (0, 1):
                assert sorted(self.state.hands[trade.seats[side]]) == sorted(
                    [c for c in before.hands[trade.seats[side]]
                     if c not in trade.received(side)] + list(trade.gave[side]))

    @rule(data=st.data())
    def claim(self, data: st.DataObject) -> None:
        seat = self.seat(data)
        hand = self.state.hands[seat]
        cards = find_remmi(hand)
        if cards is None or data.draw(st.integers(0, 3), label="any nine") == 0:
            # Claims without a Remmi end rounds early: make them rarer than trades.
            if data.draw(st.integers(0, 3), label="bluff") > 0:
                return
            cards = hand[:9]
        before = self.state
        if self.apply(seat, {"kind": "claim", "cards": cards}):
            assert not locked_cards(before, seat)
            assert not any(o.seat == seat for o in before.offers)

    @rule(data=st.data())
    def next_deal(self, data: st.DataObject) -> None:
        phase = self.state.phase
        assert self.apply(self.seat(data), {"kind": "next_deal"}) == (phase == "deal_over")

    @rule(ms=st.sampled_from([1, 200, 500, 1000, 2000, 5000, 12_000, 40_000]))
    def wait(self, ms: int) -> None:
        self.now += ms
        self.fire()

    @rule(data=st.data())
    def legal(self, data: st.DataObject) -> None:
        seat = self.seat(data)
        actions = GAME.legal_actions(self.state, seat)
        if not actions:
            return
        index = data.draw(st.integers(0, len(actions) - 1), label="index")
        assert self.apply(seat, actions[index]), f"legal {actions[index]} refused"

    @rule(action=GARBAGE, seat=st.integers(-1, 9))
    def garbage(self, action: Any, seat: int) -> None:
        self.apply(seat, action)

    # -- invariants --

    @invariant()
    def cards_are_conserved(self) -> None:
        state = self.state
        found = [c for h in state.hands for c in h]
        for claim in state.claims:
            found += list(claim.cards) + list(claim.aside)
        assert len(found) == len(set(found)), "a card is in two places"
        expected = self.round_cards.setdefault(state.deal, sorted(found))
        assert sorted(found) == expected
        assert set(found) <= set(deck_for(state.players))

    @invariant()
    def offers_and_locks_are_consistent(self) -> None:
        state = self.state
        offered = [c for o in state.offers for c in o.cards]
        assert len(offered) == len(set(offered)), "a card is in two offers"
        seats = [o.seat for o in state.offers]
        assert len(seats) == len(set(seats)), "a seat has two offers"
        claimed = {c.seat for c in state.claims}
        for offer in state.offers:
            assert set(offer.cards) <= set(state.hands[offer.seat])
            assert not set(offer.cards) & locked_cards(state, offer.seat)
            assert offer.seat not in claimed and offer.to not in claimed
        for i, older in enumerate(state.offers):
            for newer in state.offers[i + 1:]:
                compatible = (len(older.cards) == len(newer.cards)
                              and newer.to in (None, older.seat)
                              and older.to in (None, newer.seat))
                assert not compatible, "two open offers could have matched"
        for seat in range(state.players):
            assert locked_cards(state, seat) <= set(state.hands[seat])
        if state.phase != "playing" or state.stage != "trading":
            assert state.offers == []
            assert all(t.status != "returnable" for t in state.trades)

    @invariant()
    def hands_keep_their_size(self) -> None:
        state = self.state
        claimed = {c.seat for c in state.claims}
        sizes = self.round_sizes.setdefault(state.deal, [len(h) for h in state.hands])
        assert sizes == [hand_size(state.players)] * state.players
        for seat, hand in enumerate(state.hands):
            assert len(hand) == (0 if seat in claimed else sizes[seat])

    @invariant()
    def views_hide_what_they_must(self) -> None:
        state = self.state
        over = state.phase != "playing"
        everything = set(self.round_cards.get(state.deal, []))
        for seat in [None, *range(state.players)]:
            view = GAME.view(state, seat)
            json.dumps(view)
            allowed: set[str] = set()
            if seat is not None:
                hidden = not state.revealed and not state.peeked[seat]
                if not hidden:
                    allowed |= set(state.hands[seat])
                else:
                    assert view["hand"] == [] and view["hand_hidden"] is True
                for trade in state.trades:
                    if seat in trade.seats:
                        allowed |= set(trade.gave[0]) | set(trade.gave[1])
                for claim in state.claims:
                    if claim.seat == seat:
                        allowed |= set(claim.cards) | set(claim.aside)
            else:
                assert "hand" not in view
            if over:
                allowed |= everything
            shown = card_ids(view)
            assert shown <= allowed, f"seat {seat} sees {shown - allowed}"
            assert view["turn"] is None and view["stock_count"] == 0

    @invariant()
    def the_clock_and_the_actors_agree(self) -> None:
        state = self.state
        due = GAME.next_deadline(state)
        assert due is None or due > self.now
        claimed = {c.seat for c in state.claims}
        expected = ([s for s in range(state.players) if s not in claimed]
                    if state.phase == "playing" else [])
        assert GAME.to_act(state) == expected
        assert (GAME.outcome(state) is not None) == (state.phase == "game_over")

    @invariant()
    def snapshots_round_trip(self) -> None:
        data = json.loads(json.dumps(GAME.snapshot(self.state)))
        assert GAME.restore(data) == self.state

    def teardown(self) -> None:
        if not hasattr(self, "state"):
            return
        options, players, seed = self.setup_args
        replay = GAME.setup(GAME.validate_options(options, players), players, seed, T0)
        for what, seat, action, now in self.log:
            if what == "timeout":
                replay, _ = GAME.on_timeout(replay, now)
            else:
                replay, _ = GAME.apply(replay, seat, action, now)
        assert GAME.snapshot(replay) == GAME.snapshot(self.state)
        for seat in [None, *range(players)]:
            assert GAME.view(replay, seat) == GAME.view(self.state, seat)


RemmiDemmiMachine.TestCase.settings = settings(
    max_examples=examples(100), stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRemmiDemmiMachine = RemmiDemmiMachine.TestCase
