"""bench.load still runs: a --quick run of each shape, end to end.

Each run starts real servers (kartu and the baseline: in turns for the
turn and realtime shapes, one after the other for idle) on loopback and
drives them over WebSockets for a few seconds. Nothing here is about speed:
only that the tool produces its JSON lines, that both sides handled the
rate offered, and that nothing failed on the way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

FIGURE_KEYS = {"kind", "shape", "figure", "label", "unit", "kartu", "baseline", "ratio"}
SUMMARY_KEYS = {"connections", "rooms", "processes", "actions_per_s", "views_per_s",
                "own_p50_ms", "own_p99_ms", "own_p999_ms", "others_p50_ms", "others_p99_ms",
                "others_p999_ms", "cpu_us_per_action", "server_rss_mb", "errors",
                "server_disconnects", "speed_probe_ms"}


def run_load(shape: str, out: Path, *more: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--quick", "--shape", shape, "--json", str(out),
         *more],
        cwd=ROOT, capture_output=True, text=True, timeout=100,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.timeout(110)
@pytest.mark.parametrize("shape", ["realtime", "idle"])
def test_a_quick_run_reports_every_figure(shape: str, tmp_path: Path) -> None:
    # (The turn shape's run is checked the same way in its --runs 2 test below.)
    lines = run_load(shape, tmp_path / "out.jsonl")
    kinds = [line["kind"] for line in lines]
    assert kinds[0] == "run" and kinds[-1] == "summary"
    check_run(shape, lines)


def check_run(shape: str, lines: list[dict[str, Any]]) -> None:
    """One run's lines (from its ``run`` line to its ``summary``) report every figure."""
    kinds = [line["kind"] for line in lines]
    assert "target" in kinds
    figures = [line for line in lines if line["kind"] == "figure"]
    assert figures and all(set(f) >= FIGURE_KEYS for f in figures)
    summary = lines[-1]
    kartu, baseline = summary["kartu"], summary["baseline"]
    assert set(kartu) >= SUMMARY_KEYS and set(baseline) >= SUMMARY_KEYS
    assert kartu["connections"] == baseline["connections"] > 0
    assert kartu["errors"] == 0, kartu["error_codes"]
    assert kartu["server_disconnects"] == 0, kartu["close_codes"]
    assert baseline["errors"] == 0 and baseline["server_disconnects"] == 0
    # The machine's speed was read around both windows.
    assert kartu["speed_probe_ms"] > 0 and baseline["speed_probe_ms"] > 0
    if shape != "idle":
        assert kartu["samples_own"] > 0 and kartu["samples_others"] > 0
        # Measured in turns, two slices each; each side acts at the rate
        # offered (40/s), not twice it after being paused and resumed.
        assert kartu["slices"] == baseline["slices"] == 2
        for side in (kartu, baseline):
            assert 0.7 * side["offered_rate"] <= side["actions_per_s"] <= 1.3 * side["offered_rate"]
        # Kartu counts its collector's passes (GET /healthz); the baseline keeps no count.
        assert kartu["collector_passes"] == sum(kartu["collector_passes_by_generation"]) >= 0
        assert len(kartu["collector_passes_by_generation"]) == 3
        assert kartu["collector_paused_ms"] >= 0
        assert baseline["collector_passes"] is None
        # And its loop's late probes (app.loopwatch), by how late.
        assert kartu["loop_late_10ms"] >= kartu["loop_late_50ms"] >= 0
        assert set(kartu["loop_late"]) >= {"over_10_ms", "over_50_ms"}
        assert kartu["loop_late_ms"] >= 0 and baseline["loop_late_ms"] is None
    else:
        assert kartu["rss_kb_per_conn"] is not None and kartu["rss_kb_per_room"] is not None


@pytest.mark.timeout(110)
def test_two_checkouts_of_kartu_can_be_compared(tmp_path: Path) -> None:
    # --against runs another checkout in the baseline's place and speaks
    # kartu's protocol to it: neither side could set up a room, let alone
    # act at the rate offered, were either side spoken to in the wrong one.
    lines = run_load("turn", tmp_path / "out.jsonl", "--against", str(ROOT))
    summary = lines[-1]
    kartu, other = summary["kartu"], summary["baseline"]
    for side in (kartu, other):
        assert side["errors"] == 0 and side["server_disconnects"] == 0
        assert 0.7 * side["offered_rate"] <= side["actions_per_s"] <= 1.3 * side["offered_rate"]
    assert any(f"kartu from {ROOT}" in note for note in summary["notes"])
    assert not any("padded" in note for note in summary["notes"])


def test_against_must_name_a_checkout_of_kartu(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bench.load", "--quick", "--against",
                           str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "is not a checkout of kartu" in done.stderr


@pytest.mark.timeout(110)
def test_several_runs_alternate_which_side_is_set_up_first_and_end_with_medians(
        tmp_path: Path) -> None:
    lines = run_load("turn", tmp_path / "out.jsonl", "--runs", "2")
    runs = [at for at, line in enumerate(lines) if line["kind"] == "run"]
    assert [lines[at]["first"] for at in runs] == ["kartu", "raw"]
    summaries = [line for line in lines if line["kind"] == "summary"]
    assert len(summaries) == 2
    check_run("turn", lines[runs[0]:lines.index(summaries[0]) + 1])
    for summary in summaries:
        for side in (summary["kartu"], summary["baseline"]):
            assert side["errors"] == 0 and side["server_disconnects"] == 0
            assert side["actions_per_s"] > 0
    # Set up before kartu was measured, the baseline took its padding from
    # the run before, and its views matched kartu's all the same.
    second = summaries[1]
    assert second["baseline"]["padding"] > 0
    assert any("baseline set up first" in note for note in second["notes"])
    # Then the medians of both runs.
    last = lines[-1]
    assert last["kind"] == "medians" and last["runs"] == 2
    cpu = next(f for f in last["figures"] if f["figure"] == "cpu_us_per_action")
    assert cpu["kartu"] is not None and len(cpu["ratios"]) == 2
    assert all(t["judged_runs"] == 2 for t in last["targets"] if t["pass"] is not None)
