"""The concurrency lab, run for real: `python -m labs.concurrency --quick` in a subprocess, JSON lines parsed.

Assertions compare models with each other (speedups), never against fixed times.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.labs.conftest import run_lab_process

ROOT = Path(__file__).resolve().parents[2]
MODELS = {"sequential", "threads", "asyncio", "processes"}
WORKLOADS = {"io_bound", "cpu_bound"}

pytestmark = pytest.mark.slow


def run_lab(*args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, list[dict[str, Any]]]:
    return run_lab_process("concurrency", *args, timeout=timeout)


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("concurrency")
    proc, messages = run_lab("--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return messages


@pytest.fixture(scope="module")
def result(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return messages[-1]["result"]


def test_protocol_stream(messages: list[dict[str, Any]]) -> None:
    assert [m["type"] for m in messages[:-1]] == ["progress"] * (len(messages) - 1)
    assert messages[-1]["type"] == "result"
    fractions = [m["fraction"] for m in messages[:-1]]
    assert fractions == sorted(fractions) and fractions[0] >= 0 and fractions[-1] == 1.0


def test_result_has_the_contract_keys(result: dict[str, Any]) -> None:
    for key in (
        "lab",
        "status",
        "summary",
        "tables",
        "findings",
        "timings",
        "speedups",
        "gil_enabled",
        "cores",
        "best",
    ):
        assert key in result
    assert result["lab"] == "concurrency" and result["status"] == "ok"
    assert set(result["timings"]) == set(result["speedups"]) == set(result["best"]) == WORKLOADS
    for workload in WORKLOADS:
        assert set(result["timings"][workload]) == set(result["speedups"][workload]) == MODELS
        assert set(result["cores_used"][workload]) == MODELS
    # waiting uses almost no CPU; a CPU-bound loop keeps one core busy
    assert result["cores_used"]["io_bound"]["sequential"] < 0.2
    assert result["cores_used"]["cpu_bound"]["sequential"] > 0.5
    assert isinstance(result["gil_enabled"], bool)
    assert result["cores"] == os.cpu_count()
    if not hasattr(sys, "_is_gil_enabled"):
        assert result["gil_status"] == "enabled (CPython < 3.13)"
    for table in result["tables"]:
        assert all(len(row) == len(table["columns"]) for row in table["rows"])


def test_speedups_and_best_are_computed_from_the_timings(result: dict[str, Any]) -> None:
    for workload in WORKLOADS:
        timings = result["timings"][workload]
        for model in MODELS:
            assert timings[model] == statistics.median(result["runs"][workload][model])
            assert result["speedups"][workload][model] == pytest.approx(
                timings["sequential"] / timings[model], rel=1e-12
            )
        assert result["best"][workload] == min(timings, key=timings.__getitem__)


def test_io_bound_threads_and_asyncio_overlap_the_waits(result: dict[str, Any]) -> None:
    speedups = result["speedups"]["io_bound"]
    assert speedups["threads"] > 3
    assert speedups["asyncio"] > 3
    assert result["best"]["io_bound"] in ("threads", "asyncio")


def test_cpu_bound_threads_do_not_beat_the_gil(result: dict[str, Any]) -> None:
    if not result["gil_enabled"]:
        pytest.skip("free-threaded build: threads may use several cores")
    assert result["speedups"]["cpu_bound"]["threads"] < 1.3
    assert result["speedups"]["cpu_bound"]["asyncio"] < 1.3
    # the direct evidence: all those threads together used about one core's worth of CPU time
    assert result["cores_used"]["cpu_bound"]["threads"] < 1.2
    assert result["cores_used"]["cpu_bound"]["asyncio"] < 1.2


def test_cpu_bound_processes_beat_threads_on_several_cores(result: dict[str, Any]) -> None:
    if result["usable_cores"] < 2:
        pytest.skip("one usable core: processes cannot run in parallel")
    cores_used = result["cores_used"]["cpu_bound"]["processes"]
    if cores_used < 0.75 * min(result["usable_cores"], result["workers"]["cpu_bound"]["processes"]):
        # the lab measures how much CPU its workers got; another program held the other core(s)
        pytest.skip(f"machine busy: process workers got {cores_used:.2f} cores of CPU time")
    cpu = result["timings"]["cpu_bound"]
    assert cpu["processes"] < cpu["threads"]
    assert result["best"]["cpu_bound"] == "processes"


@pytest.mark.parametrize("args", [["--bogus"], ["--repeats", "0"], ["--processes", "0"], ["--io-ms", "x"]])
def test_bad_options_exit_2_with_one_line(args: list[str]) -> None:
    proc, messages = run_lab(*args, timeout=30)
    assert proc.returncode == 2
    assert len(messages) == 1 and messages[0]["type"] == "error" and messages[0]["kind"] == "usage"
    assert "\n" not in messages[0]["message"]


def test_a_best_model_within_noise_is_called_a_tie() -> None:
    from labs.concurrency.lab import io_findings, ranges_overlap

    assert ranges_overlap([1.0, 1.2], [1.1, 1.3]) and not ranges_overlap([1.0, 1.05], [1.1, 1.3])
    settings = {"io_tasks": 16, "io_ms": 20, "threads": 8, "processes": 2}
    r = {
        "speedups": {"io_bound": {"sequential": 1.0, "threads": 7.42, "asyncio": 7.63, "processes": 1.95}},
        "timings": {
            "io_bound": {"sequential": 0.33, "threads": 0.0445, "asyncio": 0.0433, "processes": 0.169}
        },
        "cores_used": {"io_bound": {"sequential": 0.01, "threads": 0.02, "asyncio": 0.02, "processes": 0.05}},
        "best": {"io_bound": "asyncio"},
        "runs": {"io_bound": {"threads": [0.043, 0.046], "asyncio": [0.042, 0.045]}},
        "settings": settings,
    }
    assert any("말할 수 없다" in f for f in io_findings(r))
    r["runs"]["io_bound"] = {"threads": [0.060, 0.062], "asyncio": [0.040, 0.041]}
    assert not any("말할 수 없다" in f for f in io_findings(r))
