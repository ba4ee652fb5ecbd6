"""The measure-resources exercise (labs/amdahl/exercises/measure-resources), checked as a learner
checks it. Its verdicts involve clocks, so the checker compares the learner's numbers with its own
measurement of the same call in the same run, and says `undecided` — never `failed` — when the
machine is too busy to tell; these tests hold on a busy CI machine for that reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.exercises.exercise_runs import (
    assert_starter_fails_usefully,
    check_folder,
    check_wrong_solution,
    exercise_folder,
    failed,
    wrong_solutions,
)

ID = "measure-resources"
LAB = "amdahl"

EXPECTED_SLIPS = {
    "current-not-peak": ("peak_memory_bytes: the peak of a known allocation", "report the peak"),
    "one-clock": ("io_wait_share: a sleep-heavy function waits", "same clock twice"),
    "waits-after-each-submit": ("parallel_efficiency: 4 tasks really run at once", ".result()"),
    "speedup-not-efficiency": (
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers",
        "divide it by the number of workers",
    ),
}


def test_every_wrong_solution_on_disk_has_an_expected_slip() -> None:
    assert set(wrong_solutions(ID)) == set(EXPECTED_SLIPS)


def test_it_is_listed_under_the_amdahl_lab_for_checklist_item_1() -> None:
    listed = {row["id"]: row for row in json.loads(run_cli("exercise", "list", "--json").stdout)}
    assert listed[ID]["lab"] == LAB and listed[ID]["checklist"] == ["measure-resources"]
    hints = (exercise_folder(LAB, ID) / "hints.md").read_text(encoding="utf-8")
    assert len([h for h in hints.split("\n---\n") if h.strip()]) >= 3


def test_the_untouched_starter_fails_and_says_what_to_write(tmp_path: Path) -> None:
    report = assert_starter_fails_usefully(ID, LAB, tmp_path)
    assert {r["name"] for r in report["requirements"]} == {
        "peak_memory_bytes() runs",
        "io_wait_share() runs",
        "parallel_efficiency() runs",
    }


def _passed_or_busy(code: int, report: dict) -> None:
    """passed, or undecided because the machine was busy — with every other requirement passed."""
    if report["verdict"] == "undecided":
        assert code == 1
        assert all("check again" in message for message in failed(report).values()), failed(report)
    else:
        assert code == 0 and report["verdict"] == "passed", failed(report)


def test_the_reference_solution_passes(tmp_path: Path) -> None:
    code, report = check_folder(ID, exercise_folder(LAB, ID) / "solution", tmp_path)
    _passed_or_busy(code, report)
    assert len(report["requirements"]) == 8


@pytest.mark.parametrize("wrong", sorted(EXPECTED_SLIPS))
def test_a_plausible_wrong_solution_fails_and_names_the_slip(wrong: str, tmp_path: Path) -> None:
    code, report = check_wrong_solution(ID, wrong, tmp_path)
    assert code == 1 and report["verdict"] == "failed", report
    requirement, fragment = EXPECTED_SLIPS[wrong]
    failures = failed(report)
    assert requirement in failures, failures
    assert fragment in failures[requirement], failures[requirement]


def test_a_machine_too_busy_for_the_cpu_bound_function_is_undecided_not_failed(tmp_path: Path) -> None:
    """A learner whose io_wait_share is right, on a machine that (as far as any clock can tell)
    keeps the CPU-bound function waiting: here the waiting is planted inside the measured window,
    so the checker's outside measurement sees it too. The verdict must be undecided, after the
    checker measured again, and the message must say why."""
    solution = (exercise_folder(LAB, ID) / "solution" / "resources.py").read_text(encoding="utf-8")
    busy = solution.replace(
        "    func(*args)\n    cpu = time.process_time() - cpu_start",
        "    func(*args)\n    time.sleep(0.4)  # stands in for a busy machine: waiting nobody asked for\n"
        "    cpu = time.process_time() - cpu_start",
    )
    assert busy != solution
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "resources.py").write_text(busy, encoding="utf-8")
    code, report = check_folder(ID, folder, tmp_path)
    assert code == 1 and report["verdict"] == "undecided", report
    (message,) = failed(report).values()
    assert "too busy" in message and "3 tries" in message and "check again" in message
