"""Bot strength: a rummy game's bot against a random-legal player.

    python -m bench.bot_strength [--game basic_rummy|traditional_remi|indonesian_remi]
                                 [--deals N] [--turn-cap T]

Plays N separate two-player deals (default 1,000) of ``--game`` (default
``basic_rummy``). Deal ``i`` is a fresh one-deal match,
``setup({"deals": 1, "deal_pause_ms": 0}, 2, seed=i)``, so each deal stands
on its own and any one can be replayed from its number. The game's bot
(``engine.bots.<game>.choose``, fed its own seat's view) sits at seat 0 in
even deals and seat 1 in odd ones; the other seat plays
:func:`engine.bots.random_legal.choose_random` with an Rng derived from
``i``. A deal that reaches ``--turn-cap`` turns (draws) is stopped and
counted as capped; a deal that ends with no winner is void (Basic Rummy:
BR-17 and its turnover limit; Traditional Remi: no stock can be rebuilt).
Neither is decided.

Points are what each side scored: in Basic Rummy the winner's points
(higher is better, "rummy" deals doubled); in Traditional Remi the penalty
points each side took (lower is better, "hunts" cost the loser 25 more).
In Indonesian Remi every seat scores each deal (IR-16): a deal is won by the
side that scored more, a tie counts as void, and the closes row counts who
closed (IR-17).

Prints a table (deals won, void and capped deals, points, points per deal,
the bot's win rate among decided deals with a 95% Wilson interval, run time
and the bot's mean time per call), then the same figures as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from engine.bots import basic_rummy as basic_rummy_bot
from engine.bots import indonesian_remi as indonesian_remi_bot
from engine.bots import traditional_remi as traditional_remi_bot
from engine.bots.random_legal import choose_random
from engine.game import Action, View
from engine.games.basic_rummy import BasicRummy
from engine.games.indonesian_remi import IndonesianRemi
from engine.games.rummy import RummyGame
from engine.games.traditional_remi import TraditionalRemi
from engine.rng import Rng, derive_seed

OPTIONS = {"deals": 1, "deal_pause_ms": 0}
Z_95 = 1.959964


@dataclass(frozen=True)
class Contest:
    """One game's bench: the rules, its bot and how a deal's result reads."""

    game: RummyGame
    choose: Callable[[View], Action | None]
    penalties: bool  # points are penalties taken (lower is better), not points won
    one_turn: str  # the result key of a win in one turn
    one_turn_label: str
    every_seat_scores: bool = False  # result["points"] lists each seat's score of the deal


CONTESTS: dict[str, Contest] = {
    "basic_rummy": Contest(BasicRummy(), basic_rummy_bot.choose, penalties=False,
                           one_turn="rummy", one_turn_label="of which rummy (x2)"),
    "traditional_remi": Contest(TraditionalRemi(), traditional_remi_bot.choose,
                                penalties=True, one_turn="hunt",
                                one_turn_label="of which hunts (+25)"),
    "indonesian_remi": Contest(IndonesianRemi(), indonesian_remi_bot.choose,
                               penalties=False, one_turn="closed",
                               one_turn_label="closes (bonus)", every_seat_scores=True),
}


@dataclass
class Tally:
    deals: int = 0
    wins: dict[str, int] = field(default_factory=lambda: {"bot": 0, "random": 0})
    points: dict[str, int] = field(default_factory=lambda: {"bot": 0, "random": 0})
    rummies: dict[str, int] = field(default_factory=lambda: {"bot": 0, "random": 0})
    void: int = 0
    capped: int = 0
    turns: int = 0
    bot_calls: int = 0
    bot_seconds: float = 0.0


def play_deal(index: int, tally: Tally, turn_cap: int,
              contest: Contest = CONTESTS["basic_rummy"]) -> None:
    """Plays deal ``index`` to its end (or the cap) and adds it to ``tally``."""
    game = contest.game
    state = game.setup(OPTIONS, 2, index, 0)
    bot_seat = index % 2
    rng = Rng(derive_seed("bench.bot_strength", index))
    turns = 0
    while game.to_act(state) and turns < turn_cap:
        seat = game.to_act(state)[0]
        if seat == bot_seat:
            started = time.perf_counter()
            action = contest.choose(game.view(state, seat))
            tally.bot_seconds += time.perf_counter() - started
            tally.bot_calls += 1
            if action is None:
                raise RuntimeError(f"deal {index}: the bot passed on its own turn")
        else:
            action = choose_random(game, state, seat, rng)
        state, _ = game.apply(state, seat, action, 0)
        turns += action["kind"] == "draw"
    tally.deals += 1
    tally.turns += turns
    result = game.view(state, None)["result"]
    if result is None:
        tally.capped += 1
    elif contest.every_seat_scores:
        side = {bot_seat: "bot", 1 - bot_seat: "random"}
        points = result["points"]
        for seat, scored in enumerate(points):
            tally.points[side[seat]] += scored
        if result["winner"] is not None:
            tally.rummies[side[result["winner"]]] += 1
        if points[0] == points[1]:
            tally.void += 1
        else:
            tally.wins[side[0 if points[0] > points[1] else 1]] += 1
    elif result["void"]:
        tally.void += 1
    else:
        who = "bot" if result["winner"] == bot_seat else "random"
        tally.wins[who] += 1
        tally.rummies[who] += bool(result[contest.one_turn])
        if contest.penalties:
            for seat, penalty in enumerate(result["penalties"]):
                tally.points["bot" if seat == bot_seat else "random"] += penalty
        else:
            tally.points[who] += result["points"]


def wilson(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Summary:
    """The figures derived from a tally, as printed and as the JSON line."""

    decided: int
    points_per_deal: dict[str, float]
    bot_win_rate: float | None
    bot_win_rate_ci95: tuple[float, float]
    turns_per_deal: float
    bot_ms_per_call: float
    seconds: float


def summarize(tally: Tally, seconds: float) -> Summary:
    decided = tally.wins["bot"] + tally.wins["random"]
    deals = max(tally.deals, 1)
    return Summary(
        decided=decided,
        points_per_deal={k: v / deals for k, v in tally.points.items()},
        bot_win_rate=tally.wins["bot"] / decided if decided else None,
        bot_win_rate_ci95=wilson(tally.wins["bot"], decided),
        turns_per_deal=tally.turns / deals,
        bot_ms_per_call=1000 * tally.bot_seconds / max(tally.bot_calls, 1),
        seconds=seconds,
    )


def print_table(tally: Tally, summary: Summary,
                contest: Contest = CONTESTS["basic_rummy"]) -> None:
    per_deal = summary.points_per_deal
    points = "penalty points" if contest.penalties else "points"
    print(f"{contest.game.title}, {tally.deals} two-player deals: "
          "bot vs random-legal (seats swapped)")
    print(f"{'':24}{'bot':>10}{'random':>10}")
    print(f"{'deals won':24}{tally.wins['bot']:>10}{tally.wins['random']:>10}")
    print(f"{'  ' + contest.one_turn_label:24}"
          f"{tally.rummies['bot']:>10}{tally.rummies['random']:>10}")
    print(f"{points:24}{tally.points['bot']:>10}{tally.points['random']:>10}")
    print(f"{points + ' per deal':24}{per_deal['bot']:>10.1f}{per_deal['random']:>10.1f}")
    print(f"{'void deals':24}{tally.void:>10}")
    print(f"{'capped deals':24}{tally.capped:>10}")
    if summary.bot_win_rate is not None:
        low, high = summary.bot_win_rate_ci95
        print(f"{'bot win rate':24}{summary.bot_win_rate:>10.1%}  "
              f"(95% CI {low:.1%} - {high:.1%}, {summary.decided} decided deals)")
    print(f"{'turns per deal':24}{summary.turns_per_deal:>10.1f}")
    print(f"{'bot time per call':24}{summary.bot_ms_per_call:>10.3f} ms")
    print(f"{'run time':24}{summary.seconds:>10.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(CONTESTS), default="basic_rummy",
                        help="the game to play (default basic_rummy)")
    parser.add_argument("--deals", type=int, default=1000, help="deals to play (default 1000)")
    parser.add_argument("--turn-cap", type=int, default=500,
                        help="turns after which a deal is stopped (default 500)")
    args = parser.parse_args()
    tally = Tally()
    started = time.perf_counter()
    contest = CONTESTS[args.game]
    for index in range(args.deals):
        play_deal(index, tally, args.turn_cap, contest)
    summary = summarize(tally, time.perf_counter() - started)
    print_table(tally, summary, contest)
    print(json.dumps({"bench": "bot_strength", "game": args.game, **asdict(tally),
                      **asdict(summary)}, sort_keys=True))


if __name__ == "__main__":
    main()
