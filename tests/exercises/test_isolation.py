"""What the learner's code is given, and what it cannot do to the verdict (issue 34).

The learner's code runs as the learner (it can open any file they can): these tests check that
it is not handed studyapp's environment (no STUDYAPP_HOME, no tokens), and that a pass it writes
straight into the progress store, at a path it knows, is not counted. Run through
`studyapp exercise check` on the `errors` lab's quickest exercise (`confusion`, ~0.5 s a check).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import REPO, InProcessCli

pytestmark = pytest.mark.slow  # real checkers, as the other tests/exercises/ files

EXERCISES = REPO / "labs" / "errors" / "exercises"

# Appended to the reference solution: runs each time the checker imports the learner's module.
FORGER = """

import json as _json, os as _os, pathlib as _pathlib, sqlite3 as _sqlite3, uuid as _uuid
_here = _pathlib.Path(__file__).resolve().parent
(_here / "seen-env.json").write_text(_json.dumps(sorted(_os.environ)))
for _store in {stores!r} + ([_os.environ["STUDYAPP_HOME"] + "/progress.db"] if "STUDYAPP_HOME" in _os.environ else []):
    _db = _sqlite3.connect(_store, timeout=30)
    _db.execute(
        "INSERT INTO exercise_checks(uid, exercise_id, checker_hash, verdict, passed, details_json,"
        " duration_s, checked_at) VALUES (?, 'imbalance', 'forged', 'passed', 1, NULL, 0.1,"
        " '2026-12-05T09:00:00+00:00')",
        (_uuid.uuid4().hex,),
    )
    _db.execute("UPDATE exercise_checks SET passed = 1, verdict = 'passed'")  # the failed ones too
    _db.commit()
    _db.close()
"""


def _workspace(tmp_path: Path, exercise_id: str, variant: str, extra: str = "") -> Path:
    workspace = tmp_path / f"{exercise_id}-{variant}"
    shutil.copytree(EXERCISES / exercise_id / variant, workspace)
    if extra:
        module = next(workspace.glob("*.py"))
        module.write_text(module.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return workspace


def _checks(home: Path) -> list[tuple[str, str, int]]:
    db = sqlite3.connect(home / "progress.db")
    try:
        return db.execute("SELECT exercise_id, verdict, passed FROM exercise_checks ORDER BY id").fetchall()
    finally:
        db.close()


def test_learner_code_cannot_forge_a_pass_in_the_store_it_can_find(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    starter = _workspace(tmp_path, "imbalance", "starter")
    first = studyapp_cli("exercise", "check", "imbalance", "--quick", "--path", str(starter))
    assert first.returncode == 1, first.stdout + first.stderr  # a failed check is on record
    assert _checks(isolated_home) == [("imbalance", "failed", 0)]

    # The learner's code knows the store's path here (as it could guess the default one) and
    # writes a pass of another exercise, and turns the recorded failure into a pass.
    store = str(isolated_home / "progress.db")
    hostile = _workspace(tmp_path, "confusion", "solution", FORGER.format(stores=[store]))
    result = studyapp_cli(
        "exercise", "check", "confusion", "--quick", "--path", str(hostile), env={"GITHUB_TOKEN": "planted"}
    )

    assert result.returncode == 0, result.stdout + result.stderr  # its own check: the checker's verdict
    assert "appeared in the progress store while your code ran; they were not counted" in result.stdout
    recorded = _checks(isolated_home)
    assert [row for row in recorded if row[0] == "imbalance" and row[2]] == []  # no pass of imbalance counts
    assert ("confusion", "passed", 1) in recorded
    seen = json.loads((hostile / "seen-env.json").read_text(encoding="utf-8"))
    assert "STUDYAPP_HOME" not in seen and "GITHUB_TOKEN" not in seen
    assert "PATH" in seen  # what a program needs is still there


def test_an_honest_check_counts_and_says_nothing_about_forgery(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    workspace = _workspace(tmp_path, "confusion", "solution")
    result = studyapp_cli("exercise", "check", "confusion", "--quick", "--path", str(workspace))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not counted" not in result.stdout
    assert _checks(isolated_home) == [("confusion", "passed", 1)]


def test_the_learners_files_do_not_replace_the_standard_library_in_the_runner(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """The runner that imports the learner's module starts in safe-path mode: a `pickle.py` in the
    workspace (the runner's own import) is not what it loads; the learner's own module still is."""
    workspace = _workspace(tmp_path, "confusion", "solution")
    for name in ("pickle", "tempfile"):
        (workspace / f"{name}.py").write_text(
            f'raise SystemExit("the workspace {name}.py ran")\n', encoding="utf-8"
        )
    result = studyapp_cli("exercise", "check", "confusion", "--quick", "--path", str(workspace))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".py ran" not in result.stdout
