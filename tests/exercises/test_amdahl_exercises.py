"""The amdahl lab's exercises (amdahl, measure-resources), checked as a learner checks them: the
untouched starter, the reference solution and the plausible wrong solutions kept as patches in
tests/exercises/wrong/ID/NAME.yaml. Those runs are the session's `catalogue` (each checked once,
judged generically by test_catalogue.py); this file checks what their messages say, and plants a
few more edits by hand.

measure-resources' verdicts involve clocks, so its checker compares the learner's numbers with its
own measurement of the same call in the same run, and says `undecided` — never `failed` — when the
machine is too busy to tell; these tests hold on a busy CI machine for that reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from studyapp.cli import main
from tests.exercises.exercise_runs import (
    Catalogue,
    assert_starter_fails_usefully,
    check_folder,
    exercise_folder,
    failed,
    wrong_solutions,
)

EXERCISE = exercise_folder("amdahl", "amdahl")


# -- amdahl --------------------------------------------------------------------------------------


def test_starter_fails_on_each_todo(catalogue: Catalogue) -> None:
    code, result = catalogue.report("amdahl", "starter")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {"amdahl_speedup() runs", "gustafson_speedup() runs", "karp_flatt() runs"}
    assert "NotImplementedError: TODO: amdahl_speedup(p, n) (laws.py:" in problems["amdahl_speedup() runs"]
    assert result["learner_traceback"].startswith("Traceback")


def test_solution_passes_every_property(catalogue: Catalogue) -> None:
    code, result = catalogue.report("amdahl", "solution")
    assert (code, result["verdict"]) == (0, "passed"), failed(result)
    assert len(result["requirements"]) == 7


def test_parallel_and_serial_fractions_swapped_is_caught(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("amdahl", "p-is-serial")
    assert code == 1
    problems = failed(result)
    message = problems["amdahl_speedup follows S = 1 / ((1 − p) + p / n)"]
    assert "amdahl_speedup(0, 2) = 2, expected 1" in message
    assert "that is S for p = 1: p is the parallel fraction; 1 − p is the serial one" in message
    assert "impossible inputs raise ValueError" not in problems  # only the maths is wrong


def test_a_rounded_speedup_is_told_to_return_the_exact_value(catalogue: Catalogue) -> None:
    """Review row 22: rounding is not a mix-up of p and 1 − p, and is not called one."""
    code, result = catalogue.wrong("amdahl", "rounded")
    assert code == 1
    message = failed(result)["amdahl_speedup follows S = 1 / ((1 − p) + p / n)"]
    assert "amdahl_speedup(0.5, 2) = 1.333, expected 1.33333" in message
    assert "return the exact value, not a rounded one" in message
    assert "serial" not in message


def test_missing_input_checks_are_caught(catalogue: Catalogue) -> None:
    code, result = catalogue.wrong("amdahl", "no-validation")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {"impossible inputs raise ValueError"}
    assert (
        "amdahl_speedup(-0.1, 4) = 0.930233: returned a number"
        in problems["impossible inputs raise ValueError"]
    )


def test_a_limit_below_one_over_serial_is_caught(tmp_path: Path) -> None:
    """A 'speedup' capped at n (min(n, 1/(1-p))) is monotone but wrong in between and at the limit."""
    folder = tmp_path / "capped"
    shutil.copytree(EXERCISE / "solution", folder)
    laws = folder / "laws.py"
    text = laws.read_text(encoding="utf-8")
    laws.write_text(
        text.replace(
            "    return 1.0 / ((1.0 - p) + p / n)", "    return min(n, 1.0 / (1.0 - p)) if p < 1 else n"
        ),
        encoding="utf-8",
    )
    code, result = check_folder("amdahl", folder, tmp_path)
    assert code == 1
    assert "amdahl_speedup follows S = 1 / ((1 − p) + p / n)" in failed(result)


# -- measure-resources ---------------------------------------------------------------------------

ID = "measure-resources"
LAB = "amdahl"
CLOCKS = "io_wait_share: 1 − CPU time / wall time, clamped to [0, 1], on the check's clocks"

EXPECTED_SLIPS = {
    "current-not-peak": ("peak_memory_bytes: the peak of a known allocation", "report the peak"),
    "process-peak-rss": ("peak_memory_bytes: the peak of a known allocation", "ru_maxrss"),
    "one-clock": ("io_wait_share: a sleep-heavy function waits", "same clock twice"),
    "waits-after-each-submit": (
        "parallel_efficiency: as many tasks run at once as there are workers",
        ".result()",
    ),
    "efficiency-per-cpu-count": (
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers",
        "but speedup / workers =",
    ),
    "speedup-not-efficiency": (
        "parallel_efficiency: speedup = serial / parallel, efficiency = speedup / workers",
        "divide it by the number of workers",
    ),
    # the check's own clocks: CPU time twice the wall time, then a call of 0 s wall time
    "no-clamp": (CLOCKS, "you returned -1, expected 0 — CPU time beyond the wall time"),
    "zero-wall-divides": (CLOCKS, "a call of 0 s wall time and 0 s CPU time"),
}


def test_measure_resources_every_wrong_solution_on_disk_has_an_expected_slip() -> None:
    assert set(wrong_solutions(ID)) == set(EXPECTED_SLIPS)


def test_measure_resources_is_listed_under_the_amdahl_lab_for_checklist_item_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["exercise", "list", "--json"]) == 0
    listed = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert listed[ID]["lab"] == LAB and listed[ID]["checklist"] == ["measure-resources"]
    hints = (exercise_folder(LAB, ID) / "hints.md").read_text(encoding="utf-8")
    assert len([h for h in hints.split("\n---\n") if h.strip()]) >= 3


def test_measure_resources_untouched_starter_fails_and_says_what_to_write(catalogue: Catalogue) -> None:
    report = assert_starter_fails_usefully(catalogue, ID, LAB)
    assert {r["name"] for r in report["requirements"]} == {
        "peak_memory_bytes() runs",
        "io_wait_share() runs",
        "parallel_efficiency() runs",
    }


def _passed_or_busy(code: int, report: dict[str, Any]) -> None:
    """passed, or undecided because the machine was busy — with every other requirement passed."""
    if report["verdict"] == "undecided":
        assert code == 3
        assert all("check again" in message for message in failed(report).values()), failed(report)
    else:
        assert code == 0 and report["verdict"] == "passed", failed(report)


def test_measure_resources_reference_solution_passes(catalogue: Catalogue) -> None:
    code, report = catalogue.report(ID, "solution")
    _passed_or_busy(code, report)
    assert len(report["requirements"]) == 9


@pytest.mark.parametrize("wrong", sorted(EXPECTED_SLIPS))
def test_measure_resources_wrong_solution_fails_and_names_the_slip(wrong: str, catalogue: Catalogue) -> None:
    code, report = catalogue.wrong(ID, wrong)
    assert code == 1 and report["verdict"] == "failed", report
    requirement, fragment = EXPECTED_SLIPS[wrong]
    failures = failed(report)
    assert requirement in failures, failures
    assert fragment in failures[requirement], failures[requirement]


def test_measure_resources_machine_too_busy_for_the_cpu_bound_function_is_undecided_not_failed(
    tmp_path: Path,
) -> None:
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
    assert code == 3 and report["verdict"] == "undecided", report
    (message,) = failed(report).values()
    assert "too busy" in message and "3 tries" in message and "check again" in message
