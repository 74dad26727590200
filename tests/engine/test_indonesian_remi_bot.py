"""The Indonesian Remi bot: hand-built positions, then whole seeded deals through the rules.

Positions are views as :meth:`IndonesianRemi.view` builds them for the bot's
seat (seat 0, on turn, two players). Hands are written as space-separated
card ids.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest

from engine.bots.indonesian_remi import choose
from engine.games.indonesian_remi import IndonesianRemi
from engine.rng import Rng
from tests.engine.rummy_harness import RummyTable, cards
from tests.engine.rummy_harness import normal_any_order as normal

GAME = IndonesianRemi()
TABLE = RummyTable(GAME, normal=normal, choose=choose)


def view(
    hand: str,
    *,
    step: str = "play",
    discard: str = "",
    melds: Sequence[tuple[int, str, str]] = (),
    stock_count: int = 20,
    hand_melds_count: bool = True,
) -> dict[str, Any]:
    """Seat 0's view on its own turn; ``melds`` are (owner, kind, cards)."""
    table = [
        {"id": f"m{i}", "kind": kind, "cards": cards(text), "owner": owner}
        for i, (owner, kind, text) in enumerate(melds, start=1)
    ]
    return {
        "game": "indonesian_remi",
        "phase": "playing",
        "step": step,
        "you": 0,
        "dealer": 0,
        "turn": 0,
        "deal": 1,
        "options": {"deals": 8, "target": None, "hand_melds_count": hand_melds_count},
        "seats": [
            {"seat": s, "hand_count": 7, "score": 0,
             "melds": [{k: m[k] for k in ("id", "kind", "cards")} for m in table
                       if m["owner"] == s],
             "has_sequence": any(m["owner"] == s and m["kind"] == "run" for m in table)}
            for s in (0, 1)
        ],
        "hand": cards(hand),
        "stock_count": stock_count,
        "discard": cards(discard),
        "takeable": cards(discard)[-3:],
        "melds": table,
        "can_close": False,
        "result": None,
        "results": [],
        "next_deal_at": None,
        "winners": None,
    }


# --- when to act ----------------------------------------------------------------------


def test_waits_unless_it_is_playing_and_on_turn() -> None:
    assert choose({**view("2C 3D 9S"), "turn": 1}) is None
    assert choose({**view("2C 3D 9S"), "phase": "deal_over", "turn": None}) is None
    assert choose({**view("2C 3D 9S"), "phase": "game_over", "turn": None}) is None


def test_same_view_same_action_and_the_view_is_left_alone() -> None:
    position = view("7H 7D 7C 2S 3S 4S 9D KC", discard="5D 6D")
    before = copy.deepcopy(position)
    assert choose(position) == choose(position)
    assert position == before


# --- closing --------------------------------------------------------------------------


def test_closes_with_the_ace_when_it_can() -> None:
    assert normal(choose(view("2H 3H 4H 5H 6S 7S 8S AC"))) == normal(
        {"kind": "close", "melds": [cards("2H 3H 4H 5H"), cards("6S 7S 8S")], "card": "AC"})


def test_closes_with_the_costliest_card_that_leaves_only_melds() -> None:
    # Without 5H, 6S or 9S the rest is two sequences; KC would leave both loose.
    action = choose(view("2H 3H 4H 5H 6S 7S 8S KC"))
    assert action is not None and action["kind"] == "close" and action["card"] == "KC"
    action = choose(view("2H 3H 4H 5H 6S 7S 8S 9S"))
    assert action is not None and action["kind"] == "close" and action["card"] in ("5H", "6S", "9S")


def test_a_close_lays_its_sets_after_a_sequence() -> None:
    action = choose(view("7S 7D 7C 2H 3H 4H 5H AD"))
    assert normal(action) == normal(
        {"kind": "close", "melds": [cards("2H 3H 4H 5H"), cards("7S 7D 7C")], "card": "AD"})


def test_discarding_the_last_card_closes() -> None:
    assert choose(view("QS")) == {"kind": "discard", "card": "QS"}


# --- the draw -------------------------------------------------------------------------


def test_takes_the_discard_that_makes_a_sequence() -> None:
    action = choose(view("5H 6H 9S KD 2C 4D QS", step="draw", discard="7H"))
    assert normal(action) == normal({"kind": "take", "card": "7H", "with": ["5H", "6H"]})


def test_takes_the_second_card_when_it_pays() -> None:
    action = choose(view("5H 6H 9S KD 2C 4D QS", step="draw", discard="AC 7H 3D"))
    assert normal(action) == normal({"kind": "take", "card": "7H", "with": ["5H", "6H"]})


def test_draws_from_the_stock_when_no_take_helps() -> None:
    assert choose(view("5H 6H 9S KD 2C 4D QS", step="draw", discard="7C")) == {"kind": "draw"}
    assert choose(view("5H 6H 9S KD 2C 4D QS", step="draw")) == {"kind": "draw"}


def test_takes_no_set_without_a_sequence_but_does_with_one() -> None:
    # IR-11: 9H and the two nines in hand make a set, which needs a sequence first.
    assert choose(view("9S 9D KD 2C 4D QS 6C", step="draw", discard="9H")) == {"kind": "draw"}
    position = view("9S 9D KD 2C 4D QS 6C", step="draw", discard="9H",
                    melds=[(0, "run", "2H 3H 4H")])
    assert normal(choose(position)) == normal(
        {"kind": "take", "card": "9H", "with": ["9S", "9D"]})


def test_from_an_empty_stock_takes_rather_than_end_the_deal() -> None:
    action = choose(view("5H 6H 9S KD 2C 4D QS", step="draw", discard="7H", stock_count=0))
    assert action is not None and action["kind"] == "take"


# --- the play step --------------------------------------------------------------------


def test_keeps_melds_in_hand_but_lays_a_first_sequence_beside_a_pair() -> None:
    # No pair: the sequence counts in hand just as well and stays flexible.
    action = choose(view("2H 3H 4H 9S KD 2C QS 8D"))
    assert action is not None and action["kind"] == "discard"
    # A loose pair: a sequence on the table lets the bot take a third card for it (IR-11).
    assert normal(choose(view("2H 3H 4H 9S 9D KC QS 6D"))) == normal(
        {"kind": "meld", "cards": ["2H", "3H", "4H"]})


def test_lays_every_meld_when_only_table_melds_count() -> None:
    action = choose(view("2H 3H 4H 9S KD 2C QS 8D", hand_melds_count=False))
    assert normal(action) == normal({"kind": "meld", "cards": ["2H", "3H", "4H"]})
    action = choose(view("9S 9D 9C KD 2C QS 8D AH", hand_melds_count=False,
                         melds=[(0, "run", "2H 3H 4H")]))
    assert normal(action) == normal({"kind": "meld", "cards": ["9S", "9D", "9C"]})


def test_keeps_an_ace_as_the_closing_card() -> None:
    # Both sequences are whole; AC and 9D are loose. Kept, the ace may close for 150.
    assert choose(view("2H 3H 4H 6S 7S 8S AC 9D")) == {"kind": "discard", "card": "9D"}


def test_keeps_a_pair_early_and_sheds_high_cards_as_the_stock_runs_low() -> None:
    hand = "2H 3H 4H 5H 6H QD QS 9C"
    table = [(0, "run", "JC QC KC")]
    assert choose(view(hand, stock_count=30, melds=table)) == {"kind": "discard", "card": "9C"}
    action = choose(view(hand, stock_count=0, melds=table))
    assert action is not None and action["card"] in ("QD", "QS")


def test_discards_the_highest_loose_card() -> None:
    assert choose(view("2H 3H 4H 6S 7S 8S 5D KC", stock_count=0)) == {
        "kind": "discard", "card": "KC"}


# --- whole deals through the rules ----------------------------------------------------


@pytest.mark.parametrize(("players", "hand_melds_count"),
                         [(2, True), (3, True), (4, True), (2, False), (4, False)])
def test_bots_play_only_legal_actions(players: int, hand_melds_count: bool) -> None:
    closed = 0
    for seed in range(25):
        state = TABLE.play_deal(seed, dict.fromkeys(range(players), "bot"), Rng(seed),
                                options={"hand_melds_count": hand_melds_count})
        assert state.phase == "game_over"
        assert state.result is not None
        closed += state.result["ended"] == "closed"
    assert closed > 0


def test_bot_beats_the_random_legal_player_by_a_wide_margin() -> None:
    points = {"bot": 0, "random": 0}
    wins = 0
    deals = 100
    for players, state in TABLE.against_random(deals):
        assert state.result is not None
        scored = {players[seat]: got for seat, got in enumerate(state.result["points"])}
        points["bot"] += scored["bot"]
        points["random"] += scored["random"]
        wins += scored["bot"] > scored["random"]
    assert wins >= 0.85 * deals
    assert points["bot"] / deals > 30 and points["random"] / deals < 0
