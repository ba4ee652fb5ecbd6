"""Run a real exercise's checker the way a learner does: `studyapp exercise check ID --path DIR
--json --quick` in a subprocess, on a copy of the folder (a checker must never depend on writing
next to the repository's files).

Plausible wrong solutions are kept as small patches on the reference solution, one file per slip:
tests/exercises/wrong/ID/NAME.yaml holds

    why: the slip it plants, in one line
    file: the solution file it edits
    replace:
      - old: text of the solution, found exactly once
        new: what the learner wrote instead

`build_wrong_solution` copies the exercise's solution/ and applies the replacements at test time,
so a wrong solution is always "the reference, except for this slip": when the solution changes
under a patch, the patch fails loudly instead of quietly testing an old copy. A quoted `old` is
plain text, possibly part of a line. An `old` written as a YAML `|` block is whole lines, written
without the code's indentation so the YAML stays readable: it is matched at any one indentation,
and `new` (a `|` block too) goes in at that same indentation.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

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


def solution_folder(exercise_id: str) -> Path:
    """labs/LAB/exercises/ID/solution, whichever lab the exercise belongs to."""
    (folder,) = LABS.glob(f"*/exercises/{exercise_id}/solution")
    return folder


def wrong_solutions(exercise_id: str) -> list[str]:
    """The names of the wrong solutions kept for an exercise (tests/exercises/wrong/ID/NAME.yaml)."""
    return sorted(p.stem for p in (WRONG / exercise_id).glob("*.yaml"))


@dataclass(frozen=True)
class WrongSolution:
    """One planted slip: `replacements` (old, new) applied to `file` of the reference solution."""

    exercise_id: str
    name: str
    why: str
    file: str
    replacements: list[tuple[str, str]]


def load_wrong_solution(exercise_id: str, name: str) -> WrongSolution:
    path = WRONG / exercise_id / f"{name}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if set(data) != {"why", "file", "replace"}:
        raise AssertionError(f"{path}: expected the keys why, file, replace; got {sorted(data)}")
    why = str(data["why"]).strip()
    if not why or "\n" in why:
        raise AssertionError(f"{path}: `why` must be one line saying which slip this plants")
    pairs = []
    for entry in data["replace"]:
        if set(entry) != {"old", "new"} or not entry["old"]:
            raise AssertionError(f"{path}: each replacement is {{old: ..., new: ...}}; got {entry!r}")
        pairs.append((str(entry["old"]), str(entry["new"])))
    if not pairs:
        raise AssertionError(f"{path}: no replacements: this would be the reference solution")
    return WrongSolution(exercise_id, name, why, str(data["file"]), pairs)


def _indented(block: list[str], indent: str) -> list[str]:
    return [indent + line if line.strip() else line for line in block]


def replace_once(text: str, old: str, new: str, where: str = "the file") -> str:
    """`text` with `old` replaced by `new`; AssertionError unless `old` occurs exactly once.

    An `old` ending in a newline is whole lines, matched at any one indentation (module docstring).
    """
    if old.endswith("\n") and new and not new.endswith("\n"):
        raise AssertionError(f"{where}: {old!r} is whole lines, so its `new` must be whole lines too")
    if not old.endswith("\n"):
        count = text.count(old)
        if count != 1:
            raise AssertionError(f"{where}: {old!r} occurs {count} times, expected exactly once")
        return text.replace(old, new)
    lines = text.splitlines(keepends=True)
    old_lines = old.splitlines(keepends=True)
    found = []
    for start, line in enumerate(lines):
        indent = line[: len(line) - len(line.lstrip(" "))]
        if lines[start : start + len(old_lines)] == _indented(old_lines, indent):
            found.append((start, indent))
    if len(found) != 1:
        first = old_lines[0].strip()
        raise AssertionError(
            f"{where}: the {len(old_lines)} line(s) from {first!r} occur {len(found)} times, "
            "expected exactly once"
        )
    start, indent = found[0]
    new_lines = _indented(new.splitlines(keepends=True), indent)
    return "".join(lines[:start] + new_lines + lines[start + len(old_lines) :])


def build_wrong_solution(exercise_id: str, name: str, tmp_path: Path) -> Path:
    """A folder with the reference solution of `exercise_id` and the slip `name` planted in it."""
    wrong = load_wrong_solution(exercise_id, name)
    folder = tmp_path / "wrong" / name
    shutil.copytree(solution_folder(exercise_id), folder)
    target = folder / wrong.file
    text = target.read_text(encoding="utf-8")
    where = f"wrong/{exercise_id}/{name}.yaml on solution/{wrong.file}"
    for old, new in wrong.replacements:
        text = replace_once(text, old, new, where)
    target.write_text(text, encoding="utf-8")
    return folder


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
    assert "check.py" not in traceback and "labs/_exercise" not in traceback, traceback
    return report


def check_wrong_solution(exercise_id: str, name: str, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """Plant the slip `name` in the reference solution and check it: (exit code, the --json report)."""
    return check_folder(exercise_id, build_wrong_solution(exercise_id, name, tmp_path), tmp_path)
