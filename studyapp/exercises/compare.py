"""The learner's code against the reference solution, after a pass: one unified diff per file.

Seeing another way to write what already works is how a pass teaches twice (the review's
"show my diff against the solution"). Only the solution's files are compared: helpers the
learner added are theirs. No Textual here; the exercises screen renders the diffs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from studyapp.exercises.registry import ExerciseInfo


@dataclass(frozen=True)
class FileChange:
    name: str  # the file's path inside the workspace, with / separators
    diff: str  # unified diff, `mine` → `solution`; "" when the files are the same
    missing: bool = False  # the workspace has no such file

    @property
    def same(self) -> bool:
        return not self.missing and not self.diff


def _read(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError):
        return None


def compare_with_solution(info: ExerciseInfo, workspace: Path) -> list[FileChange]:
    """Every solution file against the same file in `workspace` (lines starting with `-` are the
    learner's, `+` the solution's)."""
    changes: list[FileChange] = []
    for relative in info.solution_files():
        name = relative.as_posix()
        solution = _read(info.solution_dir / relative) or []
        mine = _read(workspace / relative)
        if mine is None:
            changes.append(FileChange(name, "", missing=True))
            continue
        lines = difflib.unified_diff(mine, solution, fromfile=f"mine/{name}", tofile=f"solution/{name}", n=2)
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        changes.append(FileChange(name, text.rstrip("\n")))
    return changes


__all__ = ["FileChange", "compare_with_solution"]
