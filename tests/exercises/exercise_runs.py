"""Run real exercise checkers for the tests: `studyapp.exercises.checker.run_check` in this
process (no outer `python -m studyapp`), on a copy of the folder (a checker must never depend on
writing next to the repository's files), with `--quick` settings.

The starter, the reference solution and every recorded slip of each exercise (its *variants*,
studyapp.exercises.verify) are checked once per test session by the `catalogue` fixture
(tests/exercises/conftest.py): tests/exercises/test_catalogue.py judges each with verify's rules,
and the lab test files read the same runs for their message-wording checks. `check_folder` is for
the other edits a lab test plants by hand.

Plausible wrong solutions are kept as small patches on the reference solution, one file per slip:
tests/exercises/wrong/ID/NAME.yaml (the format is in studyapp/exercises/verify.py and
docs/EXERCISES.md).
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
from pathlib import Path
from typing import Any

from studyapp.exercises import checker, verify
from studyapp.exercises.registry import ExerciseInfo, scan
from studyapp.exercises.verify import Slip, Variant, VariantResult
from tests.conftest import REPO

LABS = REPO / "labs"
WRONG = Path(__file__).resolve().parent / "wrong"

# What `studyapp exercise check` exits with for each verdict (docs/EXERCISES.md, "Verdicts").
EXIT_CODES = {checker.PASSED: 0, checker.UNDECIDED: 3, checker.USAGE: 2, checker.INTERRUPTED: 130}


@functools.cache
def exercises() -> dict[str, ExerciseInfo]:
    """Every exercise of the checkout's labs (read once; not $STUDYAPP_LABS)."""
    return scan(LABS).exercises


def checker_module(exercise_id: str) -> Any:
    """An exercise's check.py imported as a module, to test its helpers and messages on values
    chosen by hand (the checker itself runs only under `python check.py`)."""
    path = exercises()[exercise_id].check_script
    spec = importlib.util.spec_from_file_location(f"{exercise_id.replace('-', '_')}_check", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exercise_folder(lab: str, exercise_id: str) -> Path:
    return LABS / lab / "exercises" / exercise_id


def report_of(outcome: checker.CheckOutcome) -> tuple[int, dict[str, Any]]:
    """(exit code, the --json report) that `studyapp exercise check --json` gives for `outcome`."""
    assert "Traceback" not in outcome.message, outcome.message  # one line, never a traceback
    return EXIT_CODES.get(outcome.verdict, 1), outcome.to_dict()


def check_folder(exercise_id: str, folder: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """Copy `folder` into tmp_path and check it; returns (exit code, the --json report)."""
    workspace = tmp_path / f"{exercise_id}-{folder.name}"
    shutil.copytree(folder, workspace)
    return report_of(checker.run_check(exercises()[exercise_id], workspace, quick=True))


def failed(report: dict[str, Any]) -> dict[str, str]:
    """{requirement name: message} of the requirements that did not pass."""
    return {r["name"]: r["message"] for r in report["requirements"] if not r["passed"]}


def solution_folder(exercise_id: str) -> Path:
    """labs/LAB/exercises/ID/solution, whichever lab the exercise belongs to."""
    (folder,) = LABS.glob(f"*/exercises/{exercise_id}/solution")
    return folder


def wrong_solutions(exercise_id: str) -> list[str]:
    """The names of the wrong solutions kept for an exercise (tests/exercises/wrong/ID/NAME.yaml)."""
    return [path.stem for path in verify.slip_paths(exercise_id, WRONG)]


def load_wrong_solution(exercise_id: str, name: str) -> Slip:
    return verify.load_slip(WRONG / exercise_id / f"{name}.yaml")


def build_wrong_solution(exercise_id: str, name: str, tmp_path: Path) -> Path:
    """A folder with the reference solution of `exercise_id` and the slip `name` planted in it."""
    slip = load_wrong_solution(exercise_id, name)
    return verify.plant_slip(slip, solution_folder(exercise_id), tmp_path / "wrong" / name)


class Catalogue:
    """Each variant of each exercise, checked at most once (on first use) and kept."""

    def __init__(self, work_dir: Path) -> None:
        self.work_dir = work_dir
        self._results: dict[tuple[str, str], VariantResult] = {}

    def variants(self, exercise_id: str) -> list[Variant]:
        return verify.variants(exercises()[exercise_id], WRONG)

    def result(self, exercise_id: str, variant: str) -> VariantResult:
        """The judged run of `variant` ("starter", "solution" or "wrong/NAME")."""
        key = (exercise_id, variant)
        if key not in self._results:
            (chosen,) = [v for v in self.variants(exercise_id) if v.name == variant]
            self._results[key] = verify.run_variant(exercises()[exercise_id], chosen, self.work_dir)
        return self._results[key]

    def report(self, exercise_id: str, variant: str) -> tuple[int, dict[str, Any]]:
        """(exit code, the --json report) of the cached run, as `check_folder` gives them."""
        outcome = self.result(exercise_id, variant).outcome
        assert outcome is not None, self.result(exercise_id, variant).line()  # the variant was built
        return report_of(outcome)

    def wrong(self, exercise_id: str, name: str) -> tuple[int, dict[str, Any]]:
        """The report of the recorded slip tests/exercises/wrong/ID/NAME.yaml."""
        return self.report(exercise_id, verify.SLIP_PREFIX + name)


def assert_starter_fails_usefully(catalogue: Catalogue, exercise_id: str, lab: str) -> dict[str, Any]:
    """The untouched starter: exit 1, every requirement fails, each says which TODO is missing,
    and the traceback shows the learner's file only."""
    code, report = catalogue.report(exercise_id, verify.STARTER)
    assert code == 1 and report["verdict"] == "failed", report
    assert report["requirements"] and not any(r["passed"] for r in report["requirements"]), report
    for requirement in report["requirements"]:
        assert "NotImplementedError" in requirement["message"] and "TODO" in requirement["message"], (
            requirement
        )
    traceback = report["learner_traceback"]
    starter_files = [p.name for p in (exercise_folder(lab, exercise_id) / "starter").glob("*.py")]
    assert traceback and any(name in traceback for name in starter_files), traceback
    assert "check.py" not in traceback and "labs/_exercise" not in traceback, traceback
    return report
