"""The benchmark lab on a suite nobody here wrote: pytest-benchmark's own tests (tests/data/, BSD-2).

Run through `studyapp lab benchmark --path`, as a learner points it at their own suite, plus unit
checks of the cases that suite exposed: a min of 0 (timer resolution), tests that take the fixture
and record nothing, single-round pedantic benchmarks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

SUITE = REPO / "tests" / "data" / "pytest-benchmark-suite"


@pytest.fixture
def third_party(tmp_path: Path) -> Path:
    target = tmp_path / "suite"  # outside the repository, so its pytest config does not apply
    shutil.copytree(SUITE, target)
    return target


def lab_result(*args: str) -> dict[str, Any]:
    result = run_cli("lab", "benchmark", "--quick", *args, "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    return payload.get("result", payload)


@pytest.mark.slow
def test_third_party_suite_end_to_end(third_party: Path, tmp_path: Path) -> None:
    result = lab_result("--path", str(third_party), "--out", str(tmp_path / "out"))
    names = {b["name"] for b in result["benchmarks"]}
    assert {"test_fast", "test_slow", "test_xfast", "test_single"} <= names
    assert "test_control_fixed_work" not in names and result["control"]["group"] == "control"
    kinds = {t["name"]: t["kind"] for t in result["tests"]}
    assert kinds["test_skip"] == "benchmark_no_stats"  # takes the fixture, is skipped: not a "unit test"
    assert not [name for name, kind in kinds.items() if kind == "unit"]  # every test there uses the fixture
    # ungrouped tests are compared only within their module
    groups = {name: group for group, members in result["ratios"].items() for name in members}
    assert (
        groups["test_slow"] == "(module test_normal.py)"
        and groups["test_single"] == "(module test_pedantic.py)"
    )
    for group, ratios in result["ratios"].items():
        assert min(ratios.values()) == pytest.approx(1.0), group  # ratios are to the group's fastest
    # a 1-round pedantic benchmark is never called the steadiest
    steadiest = next(f for f in result["findings"] if f.startswith("변동계수"))
    single_round = [b["name"] for b in result["benchmarks"] if b["rounds"] < 5]
    assert single_round and not any(
        steadiest.split(":", 1)[1].strip().startswith(n + " ") for n in single_round
    )


@pytest.mark.slow
def test_compare_with_path_measures_the_control_and_says_what_was_removed(
    third_party: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    lab_result("--path", str(third_party), "--store", str(store), "--save", "mine")
    saved = json.loads((store / "mine.json").read_text(encoding="utf-8"))
    assert any(b.get("group") == "control" for b in saved["benchmarks"])  # saved with the yardstick
    result = lab_result("--path", str(third_party), "--store", str(store), "--compare", "mine")
    rows = result["comparison"]
    assert rows and all(r["machine_drift"] is not None for r in rows)
    drift = rows[0]["machine_drift"]
    for row in rows:
        assert row["drift_adjusted_ratio"] == pytest.approx(row["ratio"] / drift)
        if row["too_few_rounds"]:
            assert row["noise_verdict"] == "unchanged"


@pytest.mark.slow
def test_compare_with_a_run_saved_without_control_says_drift_was_not_removed(
    third_party: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    lab_result("--path", str(third_party), "--store", str(store), "--save", "old")
    saved_path = store / "old.json"
    saved = json.loads(saved_path.read_text(encoding="utf-8"))
    saved["benchmarks"] = [b for b in saved["benchmarks"] if b.get("group") != "control"]  # an older save
    saved_path.write_text(json.dumps(saved), encoding="utf-8")
    result = lab_result("--path", str(third_party), "--store", str(store), "--compare", "old")
    assert all(r["machine_drift"] is None and r["drift_adjusted_ratio"] is None for r in result["comparison"])
    assert any("drift를 빼지 않았다" in f for f in result["findings"])


def _bench(name: str, minimum: float, median: float, rounds: int = 20, group: str | None = None) -> dict:
    stats = {
        "min": minimum,
        "max": median * 2,
        "mean": median,
        "median": median,
        "stddev": median * 0.1,
        "iqr": median * 0.05,
        "outliers": "0;0",
        "rounds": rounds,
        "ops": 1 / median if median else 0.0,
    }
    return {"name": name, "fullname": f"t/test_m.py::{name}", "group": group, "stats": stats}


def test_a_zero_min_never_divides() -> None:
    from labs.benchmark.compare import noise_findings
    from labs.benchmark.lab import compare_runs, compare_within_groups, groups_table, summarise

    report = {"benchmarks": [_bench("zero", 0.0, 0.0), _bench("a", 1e-6, 1.2e-6), _bench("b", 2e-6, 2.4e-6)]}
    rows = [summarise(b) for b in report["benchmarks"]]
    assert rows[0]["below_resolution"] and not rows[1]["below_resolution"]
    fastest, ratios = compare_within_groups(rows)
    assert fastest == {"(module test_m.py)": "a"} and "zero" not in ratios["(module test_m.py)"]
    table = groups_table(rows, fastest)
    zero_row = next(r for r in table["rows"] if r[1] == "zero")
    assert zero_row[3] is None and zero_row[4] is None
    assert any("타이머 해상도 미만" in f and "zero" in f for f in noise_findings(rows))
    compared = compare_runs(report, report)
    assert [c["name"] for c in compared] == ["a", "b"]  # the 0-second one is not compared


def test_control_with_zero_min_gives_no_drift() -> None:
    from labs.benchmark.compare import machine_drift

    old = {"c": _bench("c", 0.0, 1e-6, group="control")}
    new = {"c": _bench("c", 1e-6, 1e-6, group="control")}
    assert machine_drift(old, new) is None
