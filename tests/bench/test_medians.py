"""bench.load's medians of several runs: the way the targets are judged."""

from __future__ import annotations

from typing import Any

from bench.load import make_plan, medians, parse_args


def side(cpu: float, others_p50: float, p99: float = 1.5) -> dict[str, Any]:
    return {"connections": 1200, "actions_per_s": 2400.0, "own_p50_ms": 0.4,
            "own_p99_ms": p99, "others_p50_ms": others_p50, "others_p99_ms": p99,
            "cpu_us_per_action": cpu, "errors": 0, "server_disconnects": 0}


def test_a_ratio_is_the_median_of_each_runs_own_and_a_target_needs_most_runs() -> None:
    plan = make_plan(parse_args(["--shape", "turn"]))
    results = [
        # CPU 1.70x, others' p50 2.10x
        (side(cpu=170, others_p50=0.42), side(cpu=100, others_p50=0.20)),
        # 2.00x, 1.90x
        (side(cpu=160, others_p50=0.40), side(cpu=80, others_p50=0.21)),
        # 1.79x, 2.20x, and a p99 above 10 ms
        (side(cpu=150, others_p50=0.44, p99=11), side(cpu=84, others_p50=0.20)),
    ]

    figures, verdicts = medians(plan, results)

    cpu = next(f for f in figures if f["figure"] == "cpu_us_per_action")
    # Not 160 / 84 (the medians' ratio, 1.90x): the median of the runs' ratios.
    assert cpu["kartu"] == 160 and cpu["baseline"] == 84
    assert [round(r, 2) for r in cpu["ratios"]] == [1.7, 2.0, 1.79]
    assert round(cpu["ratio"], 2) == 1.79
    by_name = {v["target"]: v for v in verdicts}
    assert by_name["CPU per action <= 1.8x baseline"]["pass"] is True
    assert by_name["CPU per action <= 1.8x baseline"]["passed_runs"] == 2
    others = by_name["others p50 <= 2x baseline (1200 conns, 2400/s)"]
    assert (others["pass"], others["passed_runs"], others["judged_runs"]) == (False, 1, 3)
    assert round(next(f for f in figures if f["figure"] == "others_p50_ms")["ratio"], 2) == 2.1
    own_p99 = by_name["own p99 <= 2.5x baseline and <= 10 ms"]
    assert own_p99["passed_runs"] == 2 and own_p99["pass"] is True  # one run above 10 ms
    assert by_name["zero errors, zero server-initiated disconnects"]["passed_runs"] == 3
