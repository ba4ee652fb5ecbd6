"""The amdahl lab's exercise, checked as a learner checks it: `studyapp exercise check amdahl
--path DIR --json --quick` in a subprocess, on the untouched starter, the reference solution and the
plausible wrong solutions kept as patches in tests/exercises/wrong/amdahl/NAME.yaml."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.exercises.exercise_runs import check_folder, check_wrong_solution, failed

EXERCISE = REPO / "labs" / "amdahl" / "exercises" / "amdahl"


def check(folder: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    return check_folder("amdahl", folder, tmp_path)


def test_starter_fails_on_each_todo(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check(EXERCISE / "starter", tmp_path)
    assert code == 1
    problems = failed(result)
    assert set(problems) == {"amdahl_speedup() runs", "gustafson_speedup() runs", "karp_flatt() runs"}
    assert "NotImplementedError: TODO: amdahl_speedup(p, n) (laws.py:" in problems["amdahl_speedup() runs"]
    assert result["learner_traceback"].startswith("Traceback")


def test_solution_passes_every_property(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check(EXERCISE / "solution", tmp_path)
    assert (code, result["verdict"]) == (0, "passed"), failed(result)
    assert len(result["requirements"]) == 7


def test_parallel_and_serial_fractions_swapped_is_caught(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check_wrong_solution("amdahl", "p-is-serial", tmp_path)
    assert code == 1
    problems = failed(result)
    assert (
        "amdahl_speedup(0, 2) = 2, expected 1" in problems["amdahl_speedup follows S = 1 / ((1 − p) + p / n)"]
    )
    assert "impossible inputs raise ValueError" not in problems  # only the maths is wrong


def test_missing_input_checks_are_caught(isolated_home: Path, tmp_path: Path) -> None:
    code, result = check_wrong_solution("amdahl", "no-validation", tmp_path)
    assert code == 1
    problems = failed(result)
    assert set(problems) == {"impossible inputs raise ValueError"}
    assert (
        "amdahl_speedup(-0.1, 4) = 0.930233: returned a number"
        in problems["impossible inputs raise ValueError"]
    )


def test_a_limit_below_one_over_serial_is_caught(isolated_home: Path, tmp_path: Path) -> None:
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
    code, result = check(folder, tmp_path)
    assert code == 1
    assert "amdahl_speedup follows S = 1 / ((1 − p) + p / n)" in failed(result)
