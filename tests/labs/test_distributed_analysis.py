"""The distributed lab's arithmetic on planted numbers whose answer is known (no processes, no torch)."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from labs.distributed import analysis, lab, launcher
from tests.conftest import REPO


def test_union_counts_overlapping_time_once() -> None:
    assert analysis.merge([(3, 4), (0, 2), (1, 2.5), (5, 5)]) == [(0, 2.5), (3, 4)]
    assert analysis.union_length([(0, 2), (1, 3), (5, 6)]) == 4
    assert analysis.covered_within([(0, 2), (1, 3), (5, 6)], 1.5, 5.5) == pytest.approx(2.0)


def test_a_step_splits_into_overlapped_and_exposed_communication() -> None:
    # bucket 0 reduces while backward still runs; bucket 1 is launched last at 8 and done at 11
    record = analysis.decompose_step(0.0, 12.0, [2.0, 8.0], [6.0, 11.0])
    assert record["comm_s"] == 7.0  # [2, 6] ∪ [8, 11]
    assert record["exposed_s"] == 3.0  # after the last launch
    assert record["comm_sum_s"] == 7.0
    assert record["spans"] == [(2.0, 6.0), (8.0, 11.0)]
    # two backward passes in one step (accumulation): each pass's tail is exposed
    two = analysis.decompose_step(0.0, 20.0, [2.0, 4.0, 12.0, 14.0], [5.0, 6.0, 13.0, 17.0], [(0, 2), (2, 4)])
    assert two["exposed_s"] == (6.0 - 4.0) + (17.0 - 14.0)


def test_medians_of_steps_stay_consistent() -> None:
    records = [
        analysis.decompose_step(0, step, [a], [b])
        for step, a, b in [(10, 2, 9), (30, 5, 29), (12, 8, 11), (11, 1, 3), (50, 40, 49)]
    ]
    summary = analysis.summarise_steps(records)
    assert summary["step_s"] == summary["compute_s"] + summary["exposed_s"]
    assert summary["comm_s"] == pytest.approx(summary["overlap_s"] + summary["exposed_s"])
    assert 0 <= summary["exposed_s"] <= summary["comm_s"] and summary["overlap_s"] >= 0
    assert summary["compute_share"] + summary["exposed_share"] == pytest.approx(1.0)


def test_latency_and_bandwidth_are_recovered() -> None:
    alpha, beta = 300e-6, 0.8e9
    sizes = [1 << k for k in range(10, 25, 2)]
    times = [alpha + s / beta for s in sizes]
    fit = analysis.fit_latency_bandwidth(sizes, times)
    assert fit["latency_s"] == pytest.approx(alpha, rel=1e-6)
    assert fit["bandwidth_Bps"] == pytest.approx(beta, rel=1e-6)
    assert fit["crossover_bytes"] == pytest.approx(alpha * beta, rel=1e-6)


def test_ring_allreduce_sends_two_n_minus_one_over_n() -> None:
    assert [analysis.ring_factor(n) for n in (2, 4, 8)] == [1.0, 1.5, 1.75]
    assert analysis.ring_comm_s(1, 8e6, 2, 1e-4, 1e9) == 0.0
    assert analysis.ring_comm_s(4, 8e6, 2, 1e-4, 1e9) == pytest.approx(2 * 1e-4 * 3 + 1.5 * 8e6 / 1e9)


def test_amdahl_with_communication_recovers_the_planted_model() -> None:
    fixed, split, grad, buckets, alpha, beta, multiplier = 0.004, 0.080, 8e6, 2, 3e-4, 1e9, 1.5

    def wire(n: int) -> float:
        return analysis.ring_comm_s(n, grad, buckets, alpha, beta)  # latency per peer = alpha at N = 2

    measured = {n: fixed + split / n + multiplier * wire(n) for n in (1, 2, 4)}
    compute = {n: fixed + split / n for n in (1, 2, 4)}
    fit = analysis.amdahl_with_comm(measured, compute, grad, buckets, alpha, beta, sweep_world=2)
    assert fit["fixed_s"] == pytest.approx(fixed) and fit["split_s"] == pytest.approx(split)
    assert fit["comm_multiplier"] == pytest.approx(multiplier)
    assert all(abs(r) < 1e-12 for r in fit["residuals_s"].values())
    speedups = {n: row["speedup"] for n, row in fit["predicted"].items()}
    best = fit["best_n"]
    assert speedups[best] == max(speedups.values())
    # past the best count one more process costs more communication than it saves computing
    assert speedups[best + 1] < speedups[best] and speedups[64] < speedups[best]


def test_karp_flatt_is_the_amdahl_labs() -> None:
    assert analysis.karp_flatt(1.6, 2) == pytest.approx((1 / 1.6 - 0.5) / 0.5)


def planted_trace(path: Path) -> Path:
    """Two steps; step 1 has two collectives on two gloo threads that overlap, one queued 2 ms."""
    main, gloo_a, gloo_b = 1, 2, 3
    events = [
        {"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "ts": 0, "dur": 10_000, "tid": main},
        {"ph": "X", "name": "c10d::allreduce_", "cat": "cpu_op", "ts": 1_000, "dur": 50, "tid": main},
        {
            "ph": "X",
            "name": "gloo:all_reduce",
            "cat": "user_annotation",
            "ts": 3_000,
            "dur": 4_000,
            "tid": gloo_a,
        },
        {"ph": "X", "name": "c10d::allreduce_", "cat": "cpu_op", "ts": 5_000, "dur": 50, "tid": main},
        {
            "ph": "X",
            "name": "gloo:all_reduce",
            "cat": "user_annotation",
            "ts": 5_000,
            "dur": 3_000,
            "tid": gloo_b,
        },
        {
            "ph": "X",
            "name": "ProfilerStep#2",
            "cat": "user_annotation",
            "ts": 10_000,
            "dur": 10_000,
            "tid": main,
        },
        {"ph": "X", "name": "c10d::allreduce_", "cat": "cpu_op", "ts": 12_000, "dur": 50, "tid": main},
        {
            "ph": "X",
            "name": "gloo:all_reduce",
            "cat": "user_annotation",
            "ts": 12_000,
            "dur": 5_000,
            "tid": gloo_a,
        },
        {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "ts": 100, "dur": 900, "tid": main},
        {"ph": "i", "name": "[memory]", "ts": 10, "tid": main},
    ]
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    return path


def test_trace_share_counts_overlapping_collectives_once(tmp_path: Path) -> None:
    result = analysis.trace_comm_analysis(analysis.load_trace(planted_trace(tmp_path / "t.json")))
    assert result["steps"] == 2 and result["collectives"] == 3 and result["backend_threads"] == 2
    assert result["step_s"] == pytest.approx(0.020)
    assert result["comm_s"] == pytest.approx(0.005 + 0.005)  # [3, 8] in step 1, [12, 17] in step 2
    assert result["comm_sum_s"] == pytest.approx(0.012)
    assert result["comm_share"] == pytest.approx(0.5)
    assert result["queue_wait_s"] == pytest.approx(0.002)  # the first collective waited 1 → 3 ms
    assert result["launch_to_done_share"] == pytest.approx((0.007 + 0.005) / 0.020)
    # exposed: after the last launch (5 ms) until 8 ms, and 12 → 17 in step 2
    assert result["exposed_s"] == pytest.approx(0.003 + 0.005)


def test_a_collective_running_into_the_next_step_counts_in_both_shares(tmp_path: Path) -> None:
    """A bucket queued late in step 1 still runs in step 2: launch-to-done covers it there too."""
    main, gloo = 1, 2
    events = [
        {"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "ts": 0, "dur": 10_000, "tid": main},
        {"ph": "X", "name": "c10d::allreduce_", "cat": "cpu_op", "ts": 9_000, "dur": 50, "tid": main},
        {
            "ph": "X",
            "name": "gloo:all_reduce",
            "cat": "user_annotation",
            "ts": 9_000,
            "dur": 4_000,
            "tid": gloo,
        },
        {
            "ph": "X",
            "name": "ProfilerStep#2",
            "cat": "user_annotation",
            "ts": 10_000,
            "dur": 10_000,
            "tid": main,
        },
    ]
    path = tmp_path / "carried.json"
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    result = analysis.trace_comm_analysis(analysis.load_trace(path))
    assert result["comm_s"] == pytest.approx(0.001 + 0.003)  # [9, 10] in step 1, [10, 13] in step 2
    assert result["launch_to_done_s"] == pytest.approx(result["comm_s"])
    assert result["launch_to_done_share"] >= result["comm_share"]


def test_proc_net_addresses_decode() -> None:
    assert launcher.decode_address("0100007F", 4) == ipaddress.IPv4Address("127.0.0.1")
    assert launcher.decode_address("00000000", 4) == ipaddress.IPv4Address("0.0.0.0")
    assert launcher.decode_address("00000000000000000000000001000000", 6) == ipaddress.IPv6Address("::1")
    mapped = launcher.decode_address("0000000000000000FFFF00000100007F", 6)
    assert mapped == ipaddress.IPv4Address("127.0.0.1") and mapped.is_loopback


def test_world_sizes_double_up_to_the_largest() -> None:
    assert lab.world_sizes(2) == [1, 2]
    assert lab.world_sizes(4) == [1, 2, 4]
    assert lab.world_sizes(6) == [1, 2, 4, 6]


@pytest.mark.parametrize(
    "argv", [["--world-size", "1"], ["--world-size", "99"], ["--bucket-caps", "0"], ["--batch", "x"]]
)
def test_bad_options_are_usage_errors(argv: list[str]) -> None:
    from labs._protocol import LabUsageError

    with pytest.raises(LabUsageError):
        lab.main(argv)


def test_a_batch_too_small_to_split_is_refused(tmp_path: Path) -> None:
    from labs._protocol import LabUsageError

    with pytest.raises(LabUsageError, match="micro-batch"):
        lab.main(["--quick", "--batch", "4", "--out", str(tmp_path)])


# A rank whose lab dies: Linux's PR_SET_PDEATHSIG, and the polling thread used elsewhere.
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]])
print(child.pid, flush=True)
time.sleep(60)
"""
CHILD = """
import os, sys, time
sys.path.insert(0, {repo!r})
if sys.argv[1] == "poll":
    sys.platform = "darwin"  # as on macOS: no prctl, the watcher thread must notice
from labs.distributed.worker import die_with_parent
die_with_parent(os.getppid())
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["prctl", "poll"])
def test_a_rank_exits_when_its_lab_is_killed(how: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, CHILD.format(repo=str(REPO)), how], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(1.0)  # the child has imported the worker and armed itself
        assert Path(f"/proc/{child}").exists()
        parent.kill()
        parent.wait(5)
        deadline = time.monotonic() + 5
        while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
            stat = (
                Path(f"/proc/{child}/stat").read_text(errors="replace")
                if Path(f"/proc/{child}").exists()
                else ""
            )
            if stat and stat.rsplit(")", 1)[1].split()[0] == "Z":
                break  # exited; a zombie until init reaps it
            time.sleep(0.05)
        else:
            assert not Path(f"/proc/{child}").exists(), f"rank {child} outlived its lab"
    finally:
        if parent.poll() is None:
            parent.kill()
