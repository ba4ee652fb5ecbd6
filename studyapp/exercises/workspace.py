"""The learner's workspace: a copy of an exercise's starter that they edit.

`start` never overwrites the learner's edits: a workspace that differs from the starter is left
alone (the learner checks it, or asks for `--force`), and even `--force` moves the old files
aside to `DIR.bak-TIMESTAMP` instead of deleting them.
"""

from __future__ import annotations

import errno
import filecmp
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from studyapp.atomicfile import file_target
from studyapp.errors import StudyappError
from studyapp.exercises.registry import IGNORED_PARTS, ExerciseInfo, ignored

# Files looked at in an existing folder before it counts as "not a workspace": `--dir /` or
# `--dir /usr` is refused at once instead of walking the whole tree (or tripping over /proc).
SCAN_LIMIT = 2_000


def default_workspace(data_dir: Path, exercise_id: str) -> Path:
    return data_dir / "exercises" / exercise_id


@dataclass(frozen=True)
class StartResult:
    path: Path
    copied: list[Path]  # starter files written now (relative)
    fresh: bool  # the folder did not hold a started workspace before
    backup: Path | None  # where --force moved the learner's old files


def workspace_files(path: Path) -> list[Path] | None:
    """Every file under `path` (relative, sorted, without caches); None when the folder holds more
    than SCAN_LIMIT files or cannot be read whole: no workspace studyapp made looks like that.
    Symbolic links to folders are not followed (a link loop cannot trap the walk)."""
    found: list[Path] = []
    seen = 0

    def unreadable(error: OSError) -> None:
        raise error

    try:
        for root, folders, files in os.walk(path, onerror=unreadable):
            folders[:] = [name for name in folders if name not in IGNORED_PARTS]
            seen += len(files) + len(folders)
            if seen > SCAN_LIMIT:
                return None
            for name in files:
                relative = Path(root, name).relative_to(path)
                if not ignored(relative) and Path(root, name).is_file():
                    found.append(relative)
    except OSError:
        return None
    return sorted(found)


def edited_files(info: ExerciseInfo, path: Path, files: list[Path] | None = None) -> list[Path]:
    """Starter files the learner changed, and files they added (relative paths)."""
    starter = set(info.starter_files())
    changed = []
    if files is None:
        files = workspace_files(path) or []
    for relative in files:
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
    try:
        path = path.expanduser().resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a symbolic link loop
        raise StudyappError(
            f"cannot use {path}: a symbolic link loop; choose another folder with --dir"
        ) from None
    if path.exists() and not path.is_dir():
        raise StudyappError(f"{path} exists and is not a folder; choose another with --dir")
    backup = None
    files = workspace_files(path) if path.is_dir() else []
    if files is None:
        raise StudyappError(
            f"{path} is not a workspace (a large or partly unreadable folder); choose an empty folder with --dir"
        )
    edited = edited_files(info, path, files)
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
        try:
            os.replace(path, backup)
        except OSError as exc:  # a read-only parent, a mount point (EBUSY): nothing was moved
            why = "it is a mount point" if exc.errno == errno.EBUSY else (exc.strerror or str(exc))
            raise StudyappError(
                f"cannot move your work in {path} aside to {backup.name}: {why}; nothing was changed"
            ) from None
        files = []
    had_files = bool(files) and backup is None
    made_folder = not path.exists()
    copied: list[Path] = []
    try:
        path.mkdir(parents=True, exist_ok=True)
        for relative in info.starter_files():
            target = path / relative
            if target.exists():
                continue  # identical to the starter (anything else was an edit, handled above)
            target.parent.mkdir(parents=True, exist_ok=True)
            file_target(target)  # a link to nothing, another user's link: refused, not written through
            copied.append(relative)  # before the copy: a copy cut short is removed too
            shutil.copy2(info.starter_dir / relative, target)
            target.chmod(target.stat().st_mode | 0o200)  # a read-only install must give a writable copy
    except OSError as exc:
        _undo_start(path, copied, made_folder)
        raise StudyappError(f"cannot create the workspace {path}: {exc.strerror or exc}") from None
    return StartResult(path=path, copied=copied, fresh=not had_files, backup=backup)


def _undo_start(path: Path, copied: list[Path], made_folder: bool) -> None:
    """Remove what a failed start wrote (a full disk leaves an empty laws.py that the next start
    would take for the learner's work)."""
    if made_folder:
        shutil.rmtree(path, ignore_errors=True)
        return
    for relative in copied:
        try:
            (path / relative).unlink(missing_ok=True)
        except OSError:
            continue
