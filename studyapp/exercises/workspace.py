"""The learner's workspace: a copy of an exercise's starter that they edit.

`start` never overwrites the learner's edits: a workspace that differs from the starter is left
alone (the learner checks it, or asks for `--force`), and even `--force` moves the old files
aside to `DIR.bak-TIMESTAMP` instead of deleting them.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from studyapp.errors import StudyappError
from studyapp.exercises.registry import ExerciseInfo, tree_files


def default_workspace(data_dir: Path, exercise_id: str) -> Path:
    return data_dir / "exercises" / exercise_id


@dataclass(frozen=True)
class StartResult:
    path: Path
    copied: list[Path]  # starter files written now (relative)
    fresh: bool  # the folder did not hold a started workspace before
    backup: Path | None  # where --force moved the learner's old files


def edited_files(info: ExerciseInfo, path: Path) -> list[Path]:
    """Starter files the learner changed, and files they added (relative paths)."""
    starter = set(info.starter_files())
    changed = []
    for relative in tree_files(path):
        original = info.starter_dir / relative
        if relative not in starter or not filecmp.cmp(original, path / relative, shallow=False):
            changed.append(relative)
    return changed


def _backup_name(path: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bak-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.bak-{stamp}-{counter}")
        counter += 1
    return target


def start(info: ExerciseInfo, path: Path, force: bool = False) -> StartResult:
    """Copy the starter into `path`. Raises StudyappError when that would touch the learner's edits."""
    path = path.expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise StudyappError(f"{path} exists and is not a folder; choose another with --dir")
    backup = None
    edited = edited_files(info, path) if path.is_dir() else []
    if edited:
        if not any((path / relative).exists() for relative in info.starter_files()):
            # Not a workspace of this exercise (an unrelated folder): --force must not move it.
            raise StudyappError(f"{path} already holds other files; choose an empty folder with --dir")
        if not force:
            shown = ", ".join(p.as_posix() for p in edited[:3]) + (" …" if len(edited) > 3 else "")
            raise StudyappError(
                f"{path} already holds your work ({shown}); check it with `studyapp exercise check {info.id}`"
                ", or start over with --force (your files are moved aside, not deleted)"
            )
        backup = _backup_name(path)
        os.replace(path, backup)
    had_files = path.is_dir() and bool(tree_files(path))
    copied = []
    try:
        path.mkdir(parents=True, exist_ok=True)
        for relative in info.starter_files():
            target = path / relative
            if target.exists():
                continue  # identical to the starter (anything else was an edit, handled above)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(info.starter_dir / relative, target)
            target.chmod(target.stat().st_mode | 0o200)  # a read-only install must give a writable copy
            copied.append(relative)
    except OSError as exc:
        raise StudyappError(f"cannot create the workspace {path}: {exc.strerror or exc}") from None
    return StartResult(path=path, copied=copied, fresh=not had_files, backup=backup)
