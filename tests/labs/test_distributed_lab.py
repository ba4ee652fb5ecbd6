"""The distributed lab, run as a learner runs it: `studyapp lab distributed --quick --json` in a subprocess.

One run serves every check here (module fixture). Assertions are sums and ratios of the reported
figures, never constants or formatted timings: on a machine shared with other programs the times
themselves move by factors. While the run goes, a watcher reads /proc to see what the lab's
processes listen on, independently of what the lab says about itself.
"""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for sockets and processes"),
]

RUN_TIMEOUT_S = 240
REL = 1e-9


# -- watching processes and sockets from outside (/proc) ----------------------------------------


def children_of(pid: int) -> set[int]:
    """Every live descendant of `pid`."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def listening_addresses(pids: set[int]) -> set[tuple[str, int]]:
    """(local address in /proc's hex, port) of every LISTEN socket that one of `pids` holds."""
    inodes = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as handle:
            for line in handle.read().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    address, port = fields[1].split(":")
                    found.add((address, int(port, 16)))
    return found


LOOPBACK_HEX = {
    "0100007F",  # 127.0.0.1 as /proc writes it (little-endian)
    "00000000000000000000000001000000",  # ::1
    "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1
}


def is_loopback(address_hex: str) -> bool:
    if len(address_hex) == 8:
        return address_hex.upper().endswith("7F")  # 127.x.y.z, little-endian: the last byte is 127
    return address_hex.upper() in LOOPBACK_HEX


# -- the run ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("studyapp-home")
    out = tmp_path_factory.mktemp("distributed-out")
    env = dict(os.environ, STUDYAPP_HOME=str(home), STUDYAPP_LANG="en", PYTHONPATH=str(REPO))
    env.pop("STUDYAPP_LABS", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "lab", "distributed", "--quick", "--json", "--out", str(out)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: set[tuple[str, int]] = set()
    most_processes = 0
    done = threading.Event()

    def watch() -> None:
        nonlocal most_processes
        while not done.is_set():
            pids = children_of(process.pid)
            most_processes = max(most_processes, len(pids))
            seen.update(listening_addresses(pids))
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        done.set()
        watcher.join(5)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr[-3000:]
    return {"result": json.loads(stdout), "listening": seen, "out": out, "processes": most_processes}


@pytest.fixture(scope="module")
def result(run: dict[str, Any]) -> dict[str, Any]:
    return run["result"]


def test_the_result_is_the_labs(result: dict[str, Any]) -> None:
    assert result["lab"] == "distributed" and result["status"] == "ok"
    assert result["world_sizes"] == [1, 2] and result["world_size"] == 2
    assert set(result["scaling"]) == {"1", "2"}
    assert result["summary"] and result["findings"]
    for table in result["tables"]:
        assert all(len(row) == len(table["columns"]) for row in table["rows"]), table["title"]


def assert_decomposed(row: dict[str, Any]) -> None:
    """step = compute + exposed communication; communication = overlapped + exposed; shares sum."""
    assert row["step_s"] == pytest.approx(row["compute_s"] + row["exposed_s"], rel=REL)
    assert row["comm_s"] == pytest.approx(row["overlap_s"] + row["exposed_s"], rel=REL, abs=1e-12)
    assert 0 <= row["exposed_s"] <= row["comm_s"] and row["exposed_s"] <= row["step_s"]
    assert row["compute_share"] + row["exposed_share"] == pytest.approx(1.0, rel=REL)
    assert row["comm_share"] == pytest.approx(row["comm_s"] / row["step_s"], rel=REL)
    assert 0 <= row["overlap_fraction"] <= 1


def test_every_step_decomposes_into_compute_and_exposed_communication(result: dict[str, Any]) -> None:
    for row in [*result["scaling"].values(), *result["buckets"], *result["grid"]]:
        assert_decomposed(row)
    for variant in ("every", "no_sync"):
        assert_decomposed(result["accumulation"][variant])
    one = result["scaling"]["1"]
    assert one["comm_s"] == 0 and one["buckets"] == 0  # one process: nothing to all-reduce
    two = result["scaling"]["2"]
    assert two["buckets"] >= 1 and two["comm_s"] > 0
    assert two["interference_s"] == pytest.approx(two["compute_s"] - two["nosync_compute_s"], rel=REL)


def test_scaling_efficiency_is_t1_over_n_tn(result: dict[str, Any]) -> None:
    t1 = result["scaling"]["1"]["step_s"]
    for n, row in result["scaling"].items():
        assert row["speedup"] == pytest.approx(t1 / row["step_s"], rel=REL)
        assert row["efficiency"] == pytest.approx(t1 / (int(n) * row["step_s"]), rel=REL)
        assert result["efficiency"][n] == row["efficiency"]
        assert row["batch_per_rank"] * int(n) == result["settings"]["global_batch"]


def test_bigger_buckets_mean_fewer_of_them(result: dict[str, Any]) -> None:
    rows = sorted(result["buckets"], key=lambda b: b["bucket_cap_mb"])
    assert [b["bucket_cap_mb"] for b in rows] == sorted(result["settings"]["bucket_caps_mb"])
    counts = [b["buckets"] for b in rows]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]


def test_no_sync_accumulation_all_reduces_once_per_optimizer_step(result: dict[str, Any]) -> None:
    acc = result["accumulation"]
    assert acc["every"]["allreduce_calls"] == acc["k"] * acc["no_sync"]["allreduce_calls"]
    assert acc["step_ratio"] == pytest.approx(acc["no_sync"]["step_s"] / acc["every"]["step_s"], rel=REL)
    # k all-reduces of the same buckets against one: a gap far wider than any noise seen here
    assert acc["no_sync"]["comm_s"] < acc["every"]["comm_s"]


def test_model_size_times_batch_grid(result: dict[str, Any]) -> None:
    grid = result["grid"]
    settings = result["settings"]
    assert {(g["width"], g["batch_per_rank"]) for g in grid} == {
        (w, b) for w in settings["grid_widths"] for b in settings["grid_batches"]
    }
    for g in grid:
        assert g["params"] == settings["depth"] * (g["width"] ** 2 + g["width"])
        assert g["grad_bytes"] == 4 * g["params"]


def test_allreduce_sweep_and_its_fit(result: dict[str, Any]) -> None:
    sweep = result["allreduce"]
    n = sweep["world_size"]
    assert sweep["ring_factor"] == pytest.approx(2 * (n - 1) / n, rel=REL)
    assert [row["bytes"] for row in sweep["rows"]] == sorted(result["settings"]["sweep_bytes"])
    assert sweep["latency_s"] >= 0 and sweep["bandwidth_Bps"] > 0
    assert sweep["crossover_bytes"] == pytest.approx(sweep["latency_s"] * sweep["bandwidth_Bps"], rel=REL)
    for row in sweep["rows"]:
        assert row["algbw_Bps"] == pytest.approx(row["bytes"] / row["time_s"], rel=REL)
        assert row["busbw_Bps"] == pytest.approx(sweep["ring_factor"] * row["algbw_Bps"], rel=REL)
        model = sweep["latency_s"] + row["bytes"] / sweep["bandwidth_Bps"]
        assert row["model_s"] == pytest.approx(model, rel=REL)
        assert row["bound"] == ("latency" if row["bytes"] < sweep["crossover_bytes"] else "bandwidth")


def test_trace_shows_the_gloo_collectives_and_agrees_with_the_timers_or_says_why(
    result: dict[str, Any], run: dict[str, Any]
) -> None:
    trace = result["trace"]
    assert "gloo:all_reduce" in trace["collective_names"]
    assert trace["steps"] == result["settings"]["profile_steps"]
    assert trace["collectives"] >= trace["steps"]  # at least one bucket per step
    assert Path(trace["file"]).is_file() and Path(trace["file"]).parent == run["out"]
    # a union never exceeds the plain sum; queued-to-finished covers at least the execution
    assert trace["trace_comm_s"] <= trace["trace_comm_sum_s"] * (1 + REL)
    assert trace["trace_comm_share"] <= trace["trace_launch_to_done_share"] + 1e-9
    gap = trace["timer_comm_share"] - trace["trace_comm_share"]
    assert trace["share_gap"] == pytest.approx(gap, rel=REL, abs=1e-12)
    assert trace["gap_queue_share"] + trace["gap_rest_share"] == pytest.approx(gap, rel=1e-6, abs=1e-12)
    tolerance = result["trace_tolerance"]
    assert trace["agree"] == (abs(gap) <= tolerance)
    if not trace["agree"]:
        # the lab must say where the two differ: the measured queue part and the rest, in numbers
        assert f"{trace['gap_queue_share']:+.0%}" in trace["explanation"]
        assert trace["explanation"] in " ".join(result["findings"])


def test_amdahl_with_communication_fit(result: dict[str, Any]) -> None:
    am = result["amdahl"]
    t1 = result["scaling"]["1"]["step_s"]
    for n, row in am["predicted"].items():
        assert row["step_s"] == pytest.approx(row["compute_s"] + row["comm_s"], rel=REL)
        assert row["compute_s"] == pytest.approx(am["fixed_s"] + am["split_s"] / int(n), rel=REL)
        assert row["speedup"] == pytest.approx(t1 / row["step_s"], rel=REL)
        assert row["efficiency"] == pytest.approx(row["speedup"] / int(n), rel=REL)
    assert am["predicted"]["1"]["comm_s"] == 0
    assert am["best_speedup"] == max(row["speedup"] for row in am["predicted"].values())
    for n, residual in am["residuals_s"].items():
        assert residual == pytest.approx(
            result["scaling"][n]["step_s"] - am["predicted"][n]["step_s"], abs=1e-12
        )
    speedup_2 = result["scaling"]["2"]["speedup"]
    assert am["karp_flatt"]["2"] == pytest.approx((1 / speedup_2 - 1 / 2) / (1 - 1 / 2), rel=REL)


def test_nothing_listens_beyond_loopback(result: dict[str, Any], run: dict[str, Any]) -> None:
    seen = run["listening"]
    assert seen, "the watcher saw no listening socket: the check did not run"
    assert all(is_loopback(address) for address, _ in seen), seen
    assert result["loopback_only"] is True
    assert result["listening"] and all(s["address"] == "127.0.0.1" for s in result["listening"])
    # what the lab reported is what the watcher saw from outside
    assert {s["port"] for s in result["listening"]} <= {port for _, port in seen}
    assert run["processes"] >= 3  # studyapp's lab process and its two ranks were all watched


def test_one_usable_core_is_said_to_measure_time_sharing(result: dict[str, Any]) -> None:
    said = any("time-sharing" in f for f in result["findings"])
    if result["usable_cores"] < 2:
        assert result["time_sharing"] and said
    else:
        assert result["time_sharing"] == bool(result["time_shared_sizes"])
    # the same numbers as if this process could use one CPU (taskset -c 0): the note comes first
    from labs.distributed.lab import findings

    one_core = copy.deepcopy(result) | {"usable_cores": 1, "time_sharing": True}
    first = findings(one_core)[0]
    assert "CPU가 1개뿐" in first and "time-sharing" in first


# -- stopping -------------------------------------------------------------------------------------------


def start_lab() -> subprocess.Popen[str]:
    env = dict(os.environ, STUDYAPP_LAB_PROTOCOL="jsonl")
    return subprocess.Popen(
        [sys.executable, "-m", "labs.distributed", "--quick"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def wait_gone(pids: set[int], timeout_s: float) -> set[int]:
    deadline = time.monotonic() + timeout_s
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if os.path.exists(f"/proc/{pid}") and not zombie(pid)}
        time.sleep(0.1)
    return alive


def zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_a_killed_lab_leaves_no_rank_behind() -> None:
    """SIGKILL to the lab alone (not its group), while the ranks are in the middle of DDP steps."""
    lab = start_lab()
    try:
        assert lab.stdout is not None
        for line in lab.stdout:
            message = json.loads(line)
            if message.get("phase") == "scaling":  # the ranks have joined and are all-reducing
                break
        else:
            pytest.fail("the lab ended before its ranks reported a step")
        ranks = children_of(lab.pid)
        assert len(ranks) >= 2, ranks
        lab.send_signal(signal.SIGKILL)
        lab.wait(10)
        assert wait_gone(ranks, 15) == set()
    finally:
        if lab.poll() is None:
            lab.kill()


def test_sigterm_stops_the_ranks_and_exits_as_interrupted() -> None:
    lab = start_lab()
    try:
        deadline = time.monotonic() + 60
        ranks: set[int] = set()
        while time.monotonic() < deadline and len(ranks) < 2:  # the ranks exist (starting up)
            ranks = {pid for pid in children_of(lab.pid) if "spawn_main" in cmdline(pid)}
            time.sleep(0.1)
        assert len(ranks) >= 2, ranks
        everyone = children_of(lab.pid)  # the ranks and multiprocessing's resource tracker
        lab.send_signal(signal.SIGTERM)
        assert lab.wait(30) == 130
        assert lab.stdout is not None
        messages = [json.loads(line) for line in lab.stdout.read().splitlines()]
        assert messages[-1]["type"] == "error" and messages[-1]["kind"] == "cancelled"
        assert wait_gone(everyone, 10) == set()
    finally:
        if lab.poll() is None:
            lab.kill()


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_math_is_finite(result: dict[str, Any]) -> None:
    """JSON has no NaN: a number that became None would mean a division went wrong."""

    def walk(value: Any) -> None:
        if isinstance(value, float):
            assert math.isfinite(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for key in ("scaling", "buckets", "accumulation", "grid", "allreduce", "trace", "amdahl"):
        walk(result[key])
