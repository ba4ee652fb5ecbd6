"""The profiler lab on real traces nobody here wrote, checked against HTA and the real TensorBoard plugin.

GPU traces and HTA's own figures for them are in tests/data/hta-traces (MIT, see its README); the
lab is run through `studyapp lab profiler --trace`, as a learner would. The plugin test starts the
real torch-tb-profiler (the `tensorboard` extra, installed by CI) on the lab's own run.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "hta-traces"
HTA = json.loads((DATA / "hta_reference.json").read_text(encoding="utf-8"))
GPU_TRACES = ["alexnet.json.gz", "simple_add.json.gz", "mi250_rocm.json.gz", "two_ranks"]
HTA_LABELS = {"COMPUTATION": "computation", "COMMUNICATION": "communication", "MEMORY": "memory"}


def lab(*args: str) -> dict[str, Any]:
    result = run_cli("lab", "profiler", *args, "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return payload.get("result", payload)


def hta_kernel_label(name: str) -> str:
    """'COMPUTATION overlapping COMMUNICATION' → 'computation+communication' (the lab's label)."""
    return "+".join(HTA_LABELS[part] for part in name.split(" overlapping "))


@pytest.fixture(scope="module", params=GPU_TRACES)
def traced(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, lab("--trace", str(DATA / request.param))


def test_temporal_breakdown_matches_hta_within_2_points(traced: tuple[str, dict[str, Any]]) -> None:
    name, result = traced
    ranks = {r["rank"]: r for r in result["gpu"]["ranks"]}
    for expected in HTA[name]["temporal"]:
        ours = ranks[expected["rank"]]["gpu_time_breakdown"]
        for key in ("idle_pct", "compute_pct", "non_compute_pct"):
            assert ours[key] == pytest.approx(expected[key], abs=2.0), (name, key)
        assert ours["span_ms"] * 1000 == pytest.approx(expected["span_us"], rel=1e-3)
        assert ours["idle_pct"] + ours["compute_pct"] + ours["non_compute_pct"] == pytest.approx(100.0)


def test_kernel_type_breakdown_matches_hta_within_2_points(traced: tuple[str, dict[str, Any]]) -> None:
    name, result = traced
    ours = result["gpu"]["kernel_type_pct"]
    for label, pct in HTA[name]["kernel_type_pct"].items():
        assert ours.get(hta_kernel_label(label), 0.0) == pytest.approx(pct, abs=2.0), (name, label)
    assert sum(ours.values()) == pytest.approx(100.0)


def test_idle_time_by_stream_matches_hta(traced: tuple[str, dict[str, Any]]) -> None:
    name, result = traced
    rows = [r for r in HTA[name]["idle_by_stream_us"] if r["us"] > 1000]
    if not rows:
        pytest.skip("HTA reports no idle time above 1 ms for this trace")
    ranks = {r["rank"]: r for r in result["gpu"]["ranks"]}
    for expected in rows:
        stream = ranks[expected["rank"]]["idle_by_stream_ms"][str(expected["stream"])]
        assert stream[expected["category"]] * 1000 == pytest.approx(expected["us"], rel=0.02), expected


def test_gpu_findings_say_what_to_try(traced: tuple[str, dict[str, Any]]) -> None:
    _, result = traced
    text = " ".join(result["findings"])
    assert "GPU 시간 분해" in text and "kernel 종류별" in text
    assert result["device"] == "cuda"


def test_two_ranks_are_one_directory() -> None:
    result = lab("--trace", str(DATA / "two_ranks"))
    assert [r["rank"] for r in result["gpu"]["ranks"]] == [0, 1]
    assert len(result["trace_files"]) == 2
    assert any("통신 kernel" in f for f in result["findings"])  # NCCL-heavy: overlap advice


def test_pageable_copies_and_idle_causes_on_alexnet() -> None:
    result = lab("--trace", str(DATA / "alexnet.json.gz"))
    rank = result["gpu"]["ranks"][0]
    assert rank["copies"]["pageable_copies"] > 0
    assert any("pin_memory" in f for f in result["findings"])
    gaps = rank["idle_gaps"]
    assert gaps == sorted(gaps, key=lambda g: -g["ms"])
    assert len(rank["streams_ms"]) == 2


def test_cpu_only_trace_has_no_gpu_section() -> None:
    result = lab("--trace", str(DATA / "cpu_only.json.gz"))
    assert result["gpu"] is None and result["device"] == "cpu"


def test_compare_two_ranks_reports_the_differences() -> None:
    result = lab(
        "--compare", str(DATA / "two_ranks" / "rank-0.json.gz"), str(DATA / "two_ranks" / "rank-1.json.gz")
    )
    diff = result["compare"]
    assert diff["operators"] and diff["gpu"] is not None
    g = diff["gpu"]["idle_pct"]
    assert g["delta"] == pytest.approx(g["b"] - g["a"])
    for row in diff["operators"]:
        assert row["delta_ms"] == pytest.approx(row["b_ms_per_step"] - row["a_ms_per_step"])


@pytest.fixture(scope="module")
def own_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("profiler-run")
    args = ["--quick", "--out", str(out)]
    if importlib.util.find_spec("torch_tb_profiler") and importlib.util.find_spec("tensorboard"):
        args += ["--tensorboard", "--serve-seconds", "0"]
    return lab(*args)


@pytest.mark.slow
def test_own_run_overview_and_step_table_add_up(own_run: dict[str, Any]) -> None:
    overview = own_run["tensorboard_overview"]
    assert sum(overview["pct"].values()) == pytest.approx(100.0, abs=0.01)
    corrected = own_run["tensorboard_overview_corrected"]
    assert corrected["pct"]["DataLoader"] > 5  # the lab's Dataset sleeps: steps wait for data
    assert overview["pct"]["DataLoader"] == 0.0  # …which the plugin's parsing cannot see
    assert any(d["category"] == "DataLoader" for d in own_run["tensorboard_overview_disagrees"])
    rows = own_run["step_table"]
    assert [r["step"] for r in rows] == own_run["steps"]
    for row in rows:
        assert row["data_wait_ms"] + row["compute_ms"] <= row["step_ms"] + 1e-6
    summary = own_run["step_summary"]
    assert summary["slowest_ms"] == max(r["step_ms"] for r in rows)


@pytest.mark.slow
def test_real_plugin_overview_matches_within_3_points(own_run: dict[str, Any]) -> None:
    if "tensorboard" not in own_run:
        pytest.skip("the tensorboard extra is not installed (CI installs it)")
    plugin = own_run["tensorboard"]["plugin_overview"]
    ours = own_run["tensorboard_overview_runs"]
    assert set(plugin) == set(ours)
    for run, theirs in plugin.items():
        assert "error" not in theirs, theirs
        for category, pct in theirs["pct"].items():
            assert ours[run]["pct"][category] == pytest.approx(pct, abs=3.0), (run, category)
        assert theirs["max_gap_pp"] <= 3.0
        assert theirs["pct"].get("DataLoader", 0.0) == 0.0  # the plugin's known blind spot, reproduced


def test_tensorboard_without_the_extra_is_one_line(tmp_path: Path) -> None:
    """Hide the plugin's packages: one line saying how to install it and that Perfetto is maintained."""
    shadow = tmp_path / "shadow"
    for package in ("tensorboard", "torch_tb_profiler"):
        (shadow / package).mkdir(parents=True)
        (shadow / package / "__init__.py").write_text("raise ImportError('hidden for the test')\n")
    (shadow / "sitecustomize.py").write_text(
        "import importlib.util, sys\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n in ('tensorboard', 'torch_tb_profiler') else _find(n, *a)\n"
    )
    result = run_cli(
        "lab",
        "profiler",
        "--trace",
        str(DATA / "simple_add.json.gz"),
        "--tensorboard",
        env={"PYTHONPATH": str(shadow)},
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "studyapp[tensorboard]" in lines[0] and "Perfetto" in lines[0]


@pytest.mark.slow
def test_compare_a_run_directory_with_itself_changes_nothing(own_run: dict[str, Any]) -> None:
    run_dir = str(Path(own_run["trace_path"]).parent)
    result = lab("--compare", run_dir, run_dir)
    assert result["compare"]["operators"]
    assert all(row["delta_ms"] == 0 for row in result["compare"]["operators"])
    assert all(row["delta_ms"] == 0 for row in result["compare"]["categories"])
