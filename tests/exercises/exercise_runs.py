"""Run a real exercise's checker the way a learner does: `studyapp exercise check ID --path DIR
--json --quick` in a subprocess, on a copy of the folder (a checker must never depend on writing
next to the repository's files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import REPO, run_cli

LABS = REPO / "labs"
WRONG = Path(__file__).resolve().parent / "wrong"


def exercise_folder(lab: str, exercise_id: str) -> Path:
    return LABS / lab / "exercises" / exercise_id


def check_folder(exercise_id: str, folder: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """Copy `folder` into tmp_path and check it; returns (exit code, the --json report)."""
    workspace = tmp_path / f"{exercise_id}-{folder.name}"
    shutil.copytree(folder, workspace)
    done = run_cli("exercise", "check", exercise_id, "--path", str(workspace), "--json", "--quick")
    assert "Traceback" not in done.stderr, done.stderr
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"not one JSON report: {done.stdout!r} {done.stderr!r}") from exc
    return done.returncode, report


def failed(report: dict[str, Any]) -> dict[str, str]:
    """{requirement name: message} of the requirements that did not pass."""
    return {r["name"]: r["message"] for r in report["requirements"] if not r["passed"]}


def wrong_solutions(exercise_id: str) -> list[str]:
    return sorted(p.name for p in (WRONG / exercise_id).iterdir() if p.is_dir())


def assert_starter_fails_usefully(exercise_id: str, lab: str, tmp_path: Path) -> dict[str, Any]:
    """The untouched starter: exit 1, every requirement fails, each says which TODO is missing,
    and the traceback shows the learner's file only."""
    code, report = check_folder(exercise_id, exercise_folder(lab, exercise_id) / "starter", tmp_path)
    assert code == 1 and report["verdict"] == "failed", report
    assert report["requirements"] and not any(r["passed"] for r in report["requirements"]), report
    for requirement in report["requirements"]:
        assert "NotImplementedError" in requirement["message"] and "TODO" in requirement["message"], (
            requirement
        )
    traceback = report["learner_traceback"]
    starter_files = [p.name for p in (exercise_folder(lab, exercise_id) / "starter").glob("*.py")]
    assert traceback and any(name in traceback for name in starter_files), traceback
    assert "check.py" not in traceback and "_exercise.py" not in traceback, traceback
    return report
