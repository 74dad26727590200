"""Partition speed: how long ``best_partition`` takes on every kind of 7-8 card hand.

    python -m bench.partition_speed [--hands N] [--brute N] [--seed S]

:func:`engine.melds.best_partition` splits a hand into the melds that score
best (Indonesian Remi's IR-16); it runs for every seat at the end of every
deal and many times a turn inside the bot. This bench times it with
Indonesian Remi's rules and card values on seeded hands of seven and eight
cards, in four kinds:

- ``random``: any cards;
- ``runs``: two or three sequences of three to five cards, overlapping where
  they can, topped up with random cards;
- ``sets``: two or three groups of three or four cards of a rank, topped up;
- ``mixed``: a sequence and a set sharing cards where they can, topped up
  from a crowded pool (few suits and ranks, so melds overlap).

Each kind is timed twice: for a player with a sequence on the table (sets
count: ``sets_allowed=True``) and without (``"with_run"``: sets count only
beside a run in the same split). For every kind and case it prints the time
per call (p50, p99, max, in microseconds) over ``--hands`` hands (each hand
is run ``--repeat`` times and its fastest call counts, which keeps a busy
machine's pauses out of the tail; ``--repeat 1`` shows them), then the
same for the brute force over every partition
(:func:`engine.melds.brute_force_partition_score`) on the first ``--brute``
of them, with the speed-up of the medians, and checks that both agree.
The last line is the whole table as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from engine.cards import standard_deck
from engine.games.indonesian_remi import MELDS, card_value
from engine.melds import SetsAllowed, best_partition, brute_force_partition_score
from engine.rng import Rng

DECK = standard_deck()
SUITS = "SHDC"
NUMBERS = "23456789T"
FACES = "JQK"
RANKS = "A23456789TJQK"


def _top_up(hand: list[str], size: int, rng: Rng, pool: list[str] | None = None) -> list[str]:
    pool = [c for c in (pool or DECK) if c not in hand]
    while len(hand) < size and pool:
        hand.append(pool.pop(rng.below(len(pool))))
    return hand[:size]


def _run(rng: Rng, suit: str, length: int) -> list[str]:
    order = NUMBERS if length > 3 or rng.below(4) else FACES
    length = min(length, len(order))
    start = rng.below(len(order) - length + 1)
    return [rank + suit for rank in order[start:start + length]]


def _set(rng: Rng, rank: str, size: int) -> list[str]:
    suits = list(SUITS)
    rng.shuffle(suits)
    return [rank + s for s in suits[:size]]


def random_hand(rng: Rng, size: int) -> list[str]:
    return _top_up([], size, rng)


def runs_hand(rng: Rng, size: int) -> list[str]:
    hand: list[str] = []
    for _ in range(2 + rng.below(2)):
        run = _run(rng, SUITS[rng.below(4)], 3 + rng.below(3))
        hand.extend(c for c in run if c not in hand)
    return _top_up(hand[:size], size, rng)


def sets_hand(rng: Rng, size: int) -> list[str]:
    hand: list[str] = []
    for _ in range(2 + rng.below(2)):
        group = _set(rng, RANKS[rng.below(13)], 3 + rng.below(2))
        hand.extend(c for c in group if c not in hand)
    return _top_up(hand[:size], size, rng)


def mixed_hand(rng: Rng, size: int) -> list[str]:
    suit = SUITS[rng.below(4)]
    run = _run(rng, suit, 3 + rng.below(3))
    rank = run[rng.below(len(run))][0]  # the set shares a card with the run where it can
    hand = list(run)
    hand.extend(c for c in _set(rng, rank, 3 + rng.below(2)) if c not in hand)
    suits = {suit, SUITS[rng.below(4)]}
    ranks = {rank, RANKS[rng.below(13)], RANKS[rng.below(13)]}
    crowded = [c for c in DECK if c[1] in suits or c[0] in ranks]
    return _top_up(hand[:size], size, rng, crowded)


KINDS: dict[str, Callable[[Rng, int], list[str]]] = {
    "random": random_hand, "runs": runs_hand, "sets": sets_hand, "mixed": mixed_hand,
}
CASES: dict[str, SetsAllowed] = {"table sequence": True, "no sequence": "with_run"}


def percentile(sorted_values: list[float], share: float) -> float:
    index = min(len(sorted_values) - 1, round(share * (len(sorted_values) - 1)))
    return sorted_values[index]


def bench(hands: int, brute: int, seed: int, repeat: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for kind, make in KINDS.items():
        rng = Rng(seed)
        sample = [make(rng, 7 + i % 2) for i in range(hands)]
        for case, sets_allowed in CASES.items():
            fast: list[float] = []
            scores: list[int] = []
            for hand in sample:
                best = None
                for _ in range(repeat):
                    started = time.perf_counter_ns()
                    found = best_partition(hand, MELDS, card_value, sets_allowed=sets_allowed)
                    took = time.perf_counter_ns() - started
                    best = took if best is None else min(best, took)
                assert best is not None
                fast.append(best / 1000)
                scores.append(found.score)
            slow: list[float] = []
            for hand, score in zip(sample[:brute], scores, strict=False):
                started = time.perf_counter_ns()
                expected = brute_force_partition_score(hand, MELDS, card_value,
                                                       sets_allowed=sets_allowed)
                slow.append((time.perf_counter_ns() - started) / 1000)
                if expected != score:
                    raise AssertionError(f"{hand} ({case}): {score} but brute force {expected}")
            fast.sort()
            slow.sort()
            melded = sum(1 for s, h in zip(scores, sample, strict=True)
                         if s > -sum(card_value(c) for c in h))
            rows.append({
                "kind": kind, "case": case, "hands": len(fast), "with_melds": melded,
                "p50_us": percentile(fast, 0.5), "p99_us": percentile(fast, 0.99),
                "max_us": fast[-1],
                "brute_hands": len(slow), "brute_p50_us": percentile(slow, 0.5) if slow else None,
                "brute_p99_us": percentile(slow, 0.99) if slow else None,
                "brute_max_us": slow[-1] if slow else None,
                "speedup_p50": percentile(slow, 0.5) / percentile(fast, 0.5) if slow else None,
            })
    return rows


def print_table(rows: list[dict[str, object]]) -> None:
    print("best_partition, Indonesian Remi rules and values, 7-8 card hands (microseconds)")
    print(f"{'kind':8}{'case':16}{'hands':>7}{'melds':>7}{'p50':>9}{'p99':>9}{'max':>9}"
          f"{'brute p50':>11}{'brute p99':>11}{'brute max':>11}{'x p50':>8}")
    for r in rows:
        brute = (f"{r['brute_p50_us']:>11.0f}{r['brute_p99_us']:>11.0f}{r['brute_max_us']:>11.0f}"
                 f"{r['speedup_p50']:>8.0f}" if r["brute_hands"] else "")
        print(f"{r['kind']!s:8}{r['case']!s:16}{r['hands']:>7}{r['with_melds']:>7}"
              f"{r['p50_us']:>9.1f}{r['p99_us']:>9.1f}{r['max_us']:>9.1f}{brute}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=2000,
                        help="hands timed per kind and case (default 2000)")
    parser.add_argument("--brute", type=int, default=100,
                        help="of those, hands also run through the brute force (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3,
                        help="calls per hand, the fastest counts (default 3; 1 = raw)")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = bench(args.hands, args.brute, args.seed, args.repeat)
    print_table(rows)
    print(f"run time {time.perf_counter() - started:.1f} s; every brute-force score agreed")
    print(json.dumps({"bench": "partition_speed", "rows": rows}, sort_keys=True))


if __name__ == "__main__":
    main()
