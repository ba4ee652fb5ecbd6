"""Which exercises exist: every `labs/NAME/exercises/ID/exercise.yaml`, read as plain data.

A broken exercise.yaml never stops the others from loading: it becomes one `Problem` line
(`FILE:LINE: message`), shown by `studyapp check` as an error and by `studyapp exercise ...` as
a warning.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studyapp import locations
from studyapp.content.problems import Problem
from studyapp.content.yamlfile import FileProblem, read_file_bytes, read_yaml
from studyapp.errors import StudyappError
from studyapp.safetext import printable

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
HINT_SEPARATOR = "---"
# Files a checker or Python leaves behind; they are never part of a starter, solution or hash.
MAX_TEXT_BYTES = 1024 * 1024  # exercise.yaml, README.md, hints.md: a few KB each
MAX_SOURCE_BYTES = 16 * 1024 * 1024  # check.py and its helpers, hashed for `checker_hash`
MAX_TIMEOUT_S = 86_400.0
IGNORED_PARTS = frozenset({"__pycache__", ".pytest_cache", ".benchmarks", ".mypy_cache", ".ruff_cache"})


@dataclass(frozen=True)
class ExerciseInfo:
    id: str
    title: str
    title_en: str
    lab: str
    checklist: tuple[str, ...]
    order: int
    needs: tuple[str, ...]
    timeout_s: float
    quick_timeout_s: float
    path: Path
    meta_line: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def starter_dir(self) -> Path:
        return self.path / "starter"

    @property
    def solution_dir(self) -> Path:
        return self.path / "solution"

    @property
    def check_script(self) -> Path:
        return self.path / "check.py"

    @property
    def readme(self) -> Path:
        return self.path / "README.md"

    def title_for(self, lang: str) -> str:
        return self.title_en if lang == "en" else self.title

    def readme_for(self, lang: str) -> str:
        """The README without its title, in the interface language: the Korean part comes first;
        the English summary is the paragraph that starts with *English.* (or **English.**)."""
        text = _read_text(self.readme)
        lines = [line for line in text.strip().splitlines() if not line.startswith("# ")]
        english_at = next(
            (i for i, line in enumerate(lines) if line.lstrip("*").startswith("English.")), None
        )
        if english_at is None:
            return "\n".join(lines).strip()
        korean = lines[:english_at]
        while korean and korean[-1].strip() in ("", "---"):
            korean.pop()
        if lang != "en":
            return "\n".join(korean).strip()
        # The marker finds the paragraph; it is not part of what the learner reads.
        english = [re.sub(r"^\*{0,2}English\.\*{0,2}\s*", "", lines[english_at]), *lines[english_at + 1 :]]
        return "\n".join(english).strip()

    def hints(self) -> list[str]:
        """The hints in order: hints.md split at lines holding only `---`."""
        text = _read_text(self.path / "hints.md")
        hints, current = [], []
        for line in text.splitlines():
            if line.strip() == HINT_SEPARATOR:
                hints.append("\n".join(current).strip())
                current = []
            else:
                current.append(line)
        hints.append("\n".join(current).strip())
        return [hint for hint in hints if hint]

    def starter_files(self) -> list[Path]:
        """The starter's files, relative to starter/."""
        return tree_files(self.starter_dir)

    def solution_files(self) -> list[Path]:
        return tree_files(self.solution_dir)

    def checker_hash(self) -> str:
        """A hash of the checker (check.py and every other .py beside it: drivers, pytest
        plugins) and of the solution: when any changes, earlier passes are stale."""
        # Home asks for every exercise's hash on each refresh: reading and hashing the files again
        # costs ~4 ms an exercise, a walk that sees whether any file changed ~0.2 ms.
        key = (self.path, fingerprint(self.path))
        if not settled(key[1]):
            return self._hash_files()
        if key not in _HASHES:
            if len(_HASHES) > _MEMO_LIMIT:
                _HASHES.clear()
            _HASHES[key] = self._hash_files()
        return _HASHES[key]

    def _hash_files(self) -> str:
        digest = hashlib.sha256()
        digest.update(b"check.py\0")
        digest.update(_read_bytes(self.check_script))
        for relative in tree_files(self.path):
            top = relative.parts[0]
            if (
                relative.suffix == ".py"
                and top not in ("starter", "solution")
                and relative.name != "check.py"
            ):
                digest.update(b"\0" + relative.as_posix().encode() + b"\0")
                digest.update(_read_bytes(self.path / relative))
        for relative in self.solution_files():
            digest.update(b"\0solution/" + relative.as_posix().encode() + b"\0")
            digest.update(_read_bytes(self.solution_dir / relative))
        return digest.hexdigest()[:16]


Fingerprint = tuple[tuple[str, int, int], ...]
_SETTLE_NS = 2_000_000_000
_MEMO_LIMIT = 256  # memo entries before both memos start over (a long session editing checkers)
_HASHES: dict[tuple[Path, Fingerprint], str] = {}
_SCANS: dict[tuple[Path, Fingerprint], Scan] = {}


def fingerprint(*roots: Path) -> Fingerprint:
    """(path, mtime, size) of every file and folder under `roots`: any saved edit, new or removed
    file changes it. Unreadable entries (a symlink loop) count with -1."""
    entries: list[tuple[str, int, int]] = []
    for root in roots:
        for folder, folders, files in os.walk(root):
            folders[:] = sorted(name for name in folders if name not in IGNORED_PARTS)
            for name in [".", *sorted(files)]:
                path = os.path.join(folder, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    entries.append((path, -1, -1))
                else:
                    entries.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(entries)


def settled(entries: Fingerprint) -> bool:
    """Nothing changed in the last seconds: file times tick in steps of a few ms, so two saves of
    the same size close together can share a fingerprint; files that recent are read again."""
    recent = time.time_ns() - _SETTLE_NS
    return all(mtime < recent for _path, mtime, _size in entries)


def _read_bytes(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """A regular file's bytes, at most `limit` (b"" for a FIFO, a device, a missing or huge file):
    a broken labs folder cannot hang or exhaust `exercise list` and `check`."""
    try:
        return read_file_bytes(path, limit)
    except FileProblem:
        return b""


def _read_text(path: Path) -> str:
    try:
        return _read_bytes(path, MAX_TEXT_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        return ""


def ignored(relative: Path) -> bool:
    return any(part in IGNORED_PARTS or part.endswith(".pyc") for part in relative.parts)


def tree_files(root: Path) -> list[Path]:
    """Every file under `root` (relative, sorted), without caches."""
    if not root.is_dir():
        return []
    return sorted(
        path.relative_to(root)
        for path in root.rglob("*")
        if path.is_file() and not ignored(path.relative_to(root))
    )


@dataclass
class Scan:
    """What discovery found: the usable exercises (by id, in listing order) and every problem."""

    exercises: dict[str, ExerciseInfo]
    problems: list[Problem]


def _shown(value: Any, limit: int = 60) -> str:
    """A bad value for a problem line: its repr cut short, control characters made visible."""
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return printable(text if len(text) <= limit else text[: limit - 1] + "…")


def read_exercise(meta: Path, problems: list[Problem]) -> ExerciseInfo | None:
    """One exercise from its `exercise.yaml` (None, with `problems` saying why, when it does not read)."""
    folder = meta.parent
    lab_dir = folder.parent.parent

    def problem(message: str, line: int = 1, warning: bool = False) -> None:
        problems.append(Problem(meta, line, message, warning))

    try:
        # The content files' reader: only a regular file, bounded, no anchors or aliases (a
        # billion-laughs `order:` ran `exercise list` out of memory), bounded integers.
        data: Any = read_yaml(meta, MAX_TEXT_BYTES)
    except FileProblem as unreadable:
        problem(f"exercise metadata: {unreadable.message}", unreadable.line)
        return None
    if not isinstance(data, dict):
        problem("exercise metadata must be a mapping (id: ..., title: ..., ...)")
        return None
    lines = dict(getattr(data, "key_lines", {}))
    ok = True

    def bad(key: str, message: str) -> None:
        nonlocal ok
        ok = False
        problem(message, lines.get(key, 1))

    exercise_id = data.get("id", folder.name)
    if not isinstance(exercise_id, str) or not SLUG.match(exercise_id):
        bad("id", f"exercise id must be a slug like 'trace-handler', not {_shown(exercise_id)}")
    elif exercise_id != folder.name:
        bad("id", f"exercise id '{exercise_id}' must match its folder name '{folder.name}'")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        bad("title", "exercise needs a non-empty 'title'")
    title_en = data.get("title_en", title)
    if not isinstance(title_en, str):
        bad("title_en", "'title_en' must be text")
    lab = data.get("lab", lab_dir.name)
    if lab != lab_dir.name:
        bad("lab", f"'lab: {lab}' must name the lab folder that holds the exercise ('{lab_dir.name}')")
    checklist = data.get("checklist")
    if not isinstance(checklist, list) or not checklist or not all(isinstance(c, str) for c in checklist):
        bad("checklist", "'checklist' must be a non-empty list of checklist ids")
        checklist = []
    order = data.get("order", 0)
    if not isinstance(order, int) or isinstance(order, bool):
        bad("order", f"'order' must be a whole number, not {_shown(order)}")
    needs = data.get("needs") or []
    if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
        bad("needs", "'needs' must be a list of module names")
        needs = []
    timeouts = {}
    for key, default in (("timeout_s", 120.0), ("quick_timeout_s", 60.0)):
        value = data.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)  # a NaN limit is never reached: the check would run unbounded
            or not 0 < value <= MAX_TIMEOUT_S
        ):
            bad(
                key,
                f"'{key}' must be a positive number of seconds, at most {MAX_TIMEOUT_S:g}, not {_shown(value)}",
            )
            value = default
        timeouts[key] = float(value)
    unknown = sorted(
        set(data) - {"id", "title", "title_en", "lab", "checklist", "order", "needs"} - set(timeouts)
    )
    for key in unknown:
        problem(f"unknown exercise field '{key}'", lines.get(key, 1), warning=True)
    for required, kind in (("check.py", "file"), ("starter", "folder"), ("solution", "folder")):
        target = folder / required
        if not (target.is_file() if kind == "file" else target.is_dir()):
            ok = False
            problem(f"exercise '{folder.name}' has no {required} {kind}")
    for optional in ("README.md", "hints.md"):
        if not (folder / optional).is_file():
            problem(f"exercise '{folder.name}' has no {optional}", warning=True)
    if not ok:
        return None
    info = ExerciseInfo(
        id=exercise_id,
        title=title.strip(),
        title_en=(title_en or title).strip(),
        lab=lab,
        checklist=tuple(checklist),
        order=order,
        needs=tuple(needs),
        timeout_s=timeouts["timeout_s"],
        quick_timeout_s=timeouts["quick_timeout_s"],
        path=folder,
        meta_line=lines,
    )
    if not info.starter_files():
        problem(f"exercise '{info.id}': starter/ is empty", warning=True)
    missing = sorted(set(info.starter_files()) - set(info.solution_files()))
    if missing:
        problem(
            f"exercise '{info.id}': solution/ lacks {', '.join(p.as_posix() for p in missing)} "
            "(it should mirror starter/)",
            warning=True,
        )
    return info


def scan(labs_dir: Path | None = None) -> Scan:
    """Every exercise under the labs directory, in listing order (lab, order, id); read again only
    when a file under a lab's exercises/ folder changed (Home, the plan and readiness each ask)."""
    root = labs_dir or locations.labs_dir()
    try:
        key = (root, fingerprint(*sorted(root.glob("*/exercises"))))
    except OSError:
        return _scan(root)
    if not settled(key[1]):
        return _scan(root)
    if key not in _SCANS:
        if len(_SCANS) > _MEMO_LIMIT:
            _SCANS.clear()
        _SCANS[key] = _scan(root)
    found = _SCANS[key]
    return Scan(dict(found.exercises), list(found.problems))  # the memo's own stay as they were


def _scan(root: Path) -> Scan:
    problems: list[Problem] = []
    found: dict[str, ExerciseInfo] = {}
    if not root.is_dir():
        return Scan({}, problems)
    for meta in sorted(root.glob("*/exercises/*/exercise.yaml")):
        info = read_exercise(meta, problems)
        if info is None:
            continue
        if info.id in found:
            problems.append(
                Problem(
                    meta,
                    info.meta_line.get("id", 1),
                    f"duplicate exercise id '{info.id}' (also in {found[info.id].path})",
                )
            )
            continue
        found[info.id] = info
    ordered = sorted(found.values(), key=lambda e: (e.lab, e.order, e.id))
    return Scan({e.id: e for e in ordered}, problems)


def discover(labs_dir: Path | None = None) -> dict[str, ExerciseInfo]:
    """The usable exercises (problems are left to `scan` callers that report them)."""
    return scan(labs_dir).exercises


def get(exercise_id: str, exercises: dict[str, ExerciseInfo]) -> ExerciseInfo:
    if exercise_id not in exercises:
        known = ", ".join(exercises) or "none"
        shown = printable(exercise_id if len(exercise_id) <= 80 else exercise_id[:79] + "…")  # echoed
        raise StudyappError(f"unknown exercise '{shown}'. Exercises: {known}")
    return exercises[exercise_id]


def metadata_problems(content: Any, known_labs: set[str]) -> list[Problem]:
    """What `studyapp check` reports about exercise metadata (errors and warnings).

    `content` (the checked Content, or None when it is unusable) gives the known checklist ids.
    """
    known_checklist = {entry.id for entry in content.checklist} if content is not None else None
    result = scan()
    problems = list(result.problems)
    for info in result.exercises.values():
        meta = info.path / "exercise.yaml"
        if known_labs and info.lab not in known_labs:
            problems.append(Problem(meta, info.meta_line.get("lab", 1), f"unknown lab '{info.lab}'"))
        for checklist_id in info.checklist:
            if known_checklist is not None and checklist_id not in known_checklist:
                problems.append(
                    Problem(
                        meta, info.meta_line.get("checklist", 1), f"unknown checklist id '{checklist_id}'"
                    )
                )
    return problems


def for_lab(lab: str, exercises: dict[str, ExerciseInfo]) -> list[ExerciseInfo]:
    return [e for e in exercises.values() if e.lab == lab]


def for_checklist(checklist_id: str, exercises: dict[str, ExerciseInfo]) -> list[ExerciseInfo]:
    return [e for e in exercises.values() if checklist_id in e.checklist]
