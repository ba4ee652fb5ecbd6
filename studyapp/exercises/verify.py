"""Verify exercises the way rustlings' `dev check` does: for each exercise, the untouched starter
fails usefully, the reference solution passes, and every recorded slip is caught.

A recorded slip (a plausible wrong solution) is a small patch on the reference solution, one file
per slip, `tests/exercises/wrong/ID/NAME.yaml` in the checkout:

    why: the slip it plants, in one line
    file: the solution file it edits
    replace:
      - old: text of the solution, found exactly once
        new: what the learner wrote instead
    fails: [a requirement that must fail on this slip, ...]   # optional

The patch is applied to a copy of solution/ when the slip is checked, so a slip is always "the
reference, except for this slip": when the solution changes under a patch, the patch fails loudly
instead of quietly checking an old copy. A quoted `old` is plain text, possibly part of a line. An
`old` written as a YAML `|` block is whole lines, written without the code's indentation: it is
matched at any one indentation, and `new` (a `|` block too) goes in at that same indentation.

Every variant is checked with `checker.run_check` on a copy (a checker must never write next to
the exercise's own files). The rules are judged on the structured outcome; nothing here prints
except `verify_command`, which the CLI calls.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from studyapp import locations
from studyapp.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.exercises import checker
from studyapp.exercises.checker import CheckOutcome, Requirement
from studyapp.exercises.registry import IGNORED_PARTS, ExerciseInfo

STARTER = "starter"
SOLUTION = "solution"
SLIP = "slip"
SLIP_PREFIX = "wrong/"

# What verification concluded about one variant.
OK = "ok"
UNDECIDED = "undecided"  # a speed check could not tell on this machine: reported, not a fault
CANNOT_RUN = "cannot run"  # a dependency in the exercise's `needs` is missing here
PROBLEM = "problem"

MARKS = {OK: "✓", UNDECIDED: "?", CANNOT_RUN: "-", PROBLEM: "✗"}

# The names labs._exercise.Checker gives the requirement it adds when the checker itself broke
# (an exception of check.py's own code, or a check that reported nothing): never a useful failure.
CHECKER_FAULTS = frozenset({"the check ran to the end", "the check ran"})

SLIP_KEYS = frozenset({"why", "file", "replace", "fails"})
WHY_LIMIT = 140  # one line a reader takes in at a glance
SHOWN = 160  # how much of a requirement's message a result line quotes


class SlipError(StudyappError):
    """A recorded slip that cannot be planted: malformed YAML, or an `old` text not found once."""


@dataclass(frozen=True)
class Slip:
    """One recorded slip: `replacements` (old, new) applied to `file` of the reference solution."""

    exercise_id: str
    name: str
    why: str
    file: str
    replacements: tuple[tuple[str, str], ...]
    must_fail: tuple[str, ...]  # requirement names that must fail (empty: any failure will do)
    path: Path


@dataclass(frozen=True)
class Variant:
    """What is checked: the starter, the solution, or the solution with one slip planted."""

    exercise_id: str
    name: str  # "starter", "solution" or "wrong/NAME"
    slip_path: Path | None = None

    @property
    def kind(self) -> str:
        return SLIP if self.slip_path is not None else self.name


@dataclass(frozen=True)
class VariantResult:
    variant: Variant
    status: str  # OK, UNDECIDED, CANNOT_RUN or PROBLEM
    detail: str  # one line: what the check showed, or what is wrong
    outcome: CheckOutcome | None = None  # None when the variant could not even be prepared

    @property
    def is_problem(self) -> bool:
        return self.status == PROBLEM

    def line(self) -> str:
        """One line for an author: mark, exercise, variant, status and what was seen."""
        took = f" ({self.outcome.duration_s:.1f} s)" if self.outcome is not None else ""
        status = "" if self.status == OK else f"{self.status.upper()}: "
        return f"{MARKS[self.status]} {self.variant.exercise_id} {self.variant.name}: {status}{self.detail}{took}"


# -- recorded slips -------------------------------------------------------------------------------


def default_wrong_dir() -> Path:
    """Where the checkout keeps the recorded slips (absent from an installed wheel)."""
    return locations.labs_root() / "tests" / "exercises" / "wrong"


def slip_paths(exercise_id: str, wrong_dir: Path) -> list[Path]:
    return sorted((wrong_dir / exercise_id).glob("*.yaml"))


def load_slip(path: Path) -> Slip:
    """Read wrong/ID/NAME.yaml; SlipError (one line naming the file) when it is malformed."""
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SlipError(f"{path}: cannot read the slip: {checker.one_line(exc)}") from None
    if not isinstance(data, dict) or not {"why", "file", "replace"} <= set(data) <= SLIP_KEYS:
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise SlipError(f"{path}: expected the keys why, file, replace (and optionally fails); got {keys}")
    why = str(data["why"]).strip()
    if not why or "\n" in why:
        raise SlipError(f"{path}: `why` must be one line saying which slip this plants")
    pairs = []
    for entry in data["replace"] or []:
        if not isinstance(entry, dict) or set(entry) != {"old", "new"} or not entry["old"]:
            raise SlipError(f"{path}: each replacement is {{old: ..., new: ...}}; got {entry!r}")
        pairs.append((str(entry["old"]), str(entry["new"] or "")))
    if not pairs:
        raise SlipError(f"{path}: no replacements: this would be the reference solution")
    fails = data.get("fails") or []
    if not isinstance(fails, list) or not all(isinstance(name, str) and name for name in fails):
        raise SlipError(f"{path}: `fails` is a list of requirement names; got {fails!r}")
    return Slip(path.parent.name, path.stem, why, str(data["file"]), tuple(pairs), tuple(fails), path)


def _indented(block: list[str], indent: str) -> list[str]:
    return [indent + line if line.strip() else line for line in block]


def replace_once(text: str, old: str, new: str, where: str = "the file") -> str:
    """`text` with `old` replaced by `new`; SlipError unless `old` occurs exactly once.

    An `old` ending in a newline is whole lines, matched at any one indentation (module docstring).
    """
    if old.endswith("\n") and new and not new.endswith("\n"):
        raise SlipError(f"{where}: {old!r} is whole lines, so its `new` must be whole lines too")
    if not old.endswith("\n"):
        count = text.count(old)
        if count != 1:
            raise SlipError(f"{where}: {old!r} occurs {count} times, expected exactly once")
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
        raise SlipError(
            f"{where}: the {len(old_lines)} line(s) from {first!r} occur {len(found)} times, "
            "expected exactly once"
        )
    start, indent = found[0]
    new_lines = _indented(new.splitlines(keepends=True), indent)
    return "".join(lines[:start] + new_lines + lines[start + len(old_lines) :])


def _copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*IGNORED_PARTS, "*.pyc"))


def plant_slip(slip: Slip, solution_dir: Path, target: Path) -> Path:
    """Copy the reference solution to `target` and plant the slip in it; returns `target`."""
    _copy_tree(solution_dir, target)
    edited = target / slip.file
    if not edited.is_file():
        raise SlipError(f"{slip.path}: the solution has no file {slip.file!r}")
    text = edited.read_text(encoding="utf-8")
    where = f"wrong/{slip.exercise_id}/{slip.name}.yaml on solution/{slip.file}"
    for old, new in slip.replacements:
        text = replace_once(text, old, new, where)
    edited.write_text(text, encoding="utf-8")
    return target


# -- variants and the rules -----------------------------------------------------------------------


def variants(info: ExerciseInfo, wrong_dir: Path) -> list[Variant]:
    """The starter, the solution and each recorded slip, in that order."""
    slips = [Variant(info.id, SLIP_PREFIX + path.stem, path) for path in slip_paths(info.id, wrong_dir)]
    return [Variant(info.id, STARTER), Variant(info.id, SOLUTION), *slips]


def prepare(info: ExerciseInfo, variant: Variant, target: Path, slip: Slip | None = None) -> Path:
    """Write the folder the variant is checked in (a fresh copy at `target`); returns it. A slip
    variant reads its YAML unless the caller already did (`slip`)."""
    if variant.slip_path is not None:
        return plant_slip(slip or load_slip(variant.slip_path), info.solution_dir, target)
    _copy_tree(info.starter_dir if variant.name == STARTER else info.solution_dir, target)
    return target


def _quoted(requirement: Requirement) -> str:
    return checker.one_line(f"{requirement.name} — {requirement.message}", SHOWN)


def _failing(outcome: CheckOutcome) -> list[Requirement]:
    return [r for r in outcome.requirements if not r.passed]


def judge(variant: Variant, outcome: CheckOutcome, must_fail: Iterable[str] = ()) -> VariantResult:
    """The rules, on a finished check: the starter fails with a message, the solution passes, a
    slip fails (the requirements it names included). `undecided` is never called a failure: a
    speed check could not tell on this machine, and the result says so."""

    def result(status: str, detail: str) -> VariantResult:
        return VariantResult(variant, status, detail, outcome)

    must_fail = tuple(must_fail)

    if outcome.verdict == checker.USAGE:
        return result(CANNOT_RUN, outcome.message)
    if outcome.verdict not in (checker.PASSED, checker.FAILED, checker.UNDECIDED):
        return result(PROBLEM, f"no verdict ({outcome.verdict}): {outcome.message}")
    failing = _failing(outcome)
    broken = [r for r in failing if r.name in CHECKER_FAULTS]
    if broken:
        return result(PROBLEM, f"the checker itself broke: {_quoted(broken[0])}")
    total = len(outcome.requirements)
    if outcome.verdict == checker.UNDECIDED:
        return _judge_undecided(variant, outcome, must_fail)
    if variant.kind == SOLUTION:
        if outcome.verdict == checker.PASSED:
            return result(OK, f"passes: all {total} requirements")
        return result(
            PROBLEM, f"the reference solution fails {len(failing)} of {total}: {_quoted(failing[0])}"
        )
    what = "the untouched starter" if variant.kind == STARTER else f"the slip {variant.name}"
    if outcome.verdict == checker.PASSED:
        return result(PROBLEM, f"{what} passes every requirement: nothing catches it")
    useful = [r for r in failing if r.message.strip()]
    if not useful:
        return result(PROBLEM, f"{what} fails, but no failing requirement says why")
    if variant.kind == SLIP:
        missed = _missed(outcome, must_fail)
        if missed:
            return result(PROBLEM, f"{what} is caught, but not by {missed}")
    verb = "fails usefully" if variant.kind == STARTER else "caught"
    return result(OK, f"{verb}: {len(failing)} of {total} fail, e.g. {_quoted(useful[0])}")


def _missed(outcome: CheckOutcome, must_fail: Iterable[str]) -> str:
    """The recorded `fails` names that did not fail, described for one line ('' when none)."""
    reported = {r.name for r in outcome.requirements}
    failing = {r.name for r in _failing(outcome)}
    unknown = [name for name in must_fail if name not in reported]
    passed = [name for name in must_fail if name in reported and name not in failing]
    parts = []
    if passed:
        parts.append("; ".join(f"'{name}' (it passed)" for name in passed))
    if unknown:
        parts.append("; ".join(f"'{name}' (no requirement of that name was reported)" for name in unknown))
    return "; ".join(parts)


def _judge_undecided(variant: Variant, outcome: CheckOutcome, must_fail: tuple[str, ...]) -> VariantResult:
    """Undecided: a speed requirement could not be told from the noise, and nothing failed."""
    undecided = _failing(outcome)
    shown = _quoted(undecided[0]) if undecided else outcome.message
    if variant.kind == SLIP:
        missed = _missed(outcome, must_fail)
        if missed:  # a requirement the slip must fail passed outright: no busy machine explains that
            return VariantResult(
                variant, PROBLEM, f"the slip {variant.name} is not caught by {missed}", outcome
            )
    return VariantResult(variant, UNDECIDED, f"too busy to tell: {shown}", outcome)


# -- running -------------------------------------------------------------------------------------


def _fresh_folder(parent: Path, name: str) -> Path:
    """parent/name, or parent/name-2, -3 ... when an earlier run left that folder (never removed)."""
    parent.mkdir(parents=True, exist_ok=True)
    target, number = parent / name, 1
    while target.exists():
        number += 1
        target = parent / f"{name}-{number}"
    return target


def run_variant(
    info: ExerciseInfo,
    variant: Variant,
    work_dir: Path,
    *,
    quick: bool = True,
    timeout: float | None = None,
) -> VariantResult:
    """Prepare the variant in a fresh folder under `work_dir`, check it and judge the outcome."""
    target = _fresh_folder(work_dir / info.id, variant.name.replace("/", "-"))
    try:
        slip = load_slip(variant.slip_path) if variant.slip_path is not None else None
        folder = prepare(info, variant, target, slip)
    except SlipError as exc:
        return VariantResult(variant, PROBLEM, str(exc))
    outcome = checker.run_check(info, folder, quick=quick, timeout=timeout)
    return judge(variant, outcome, slip.must_fail if slip is not None else ())


def verify(
    info: ExerciseInfo,
    wrong_dir: Path | None = None,
    *,
    work_dir: Path | None = None,
    quick: bool = True,
    on_result: Callable[[VariantResult], None] | None = None,
) -> list[VariantResult]:
    """Check every variant of one exercise (in a temporary folder unless `work_dir` is given)."""
    chosen = variants(info, wrong_dir or default_wrong_dir())
    with tempfile.TemporaryDirectory(prefix=f"studyapp-verify-{info.id}-") as scratch:
        results = []
        for variant in chosen:
            result = run_variant(info, variant, work_dir or Path(scratch), quick=quick)
            if result.outcome is not None and result.outcome.verdict == checker.INTERRUPTED:
                raise KeyboardInterrupt  # Ctrl+C stopped the checker: stop verifying, not just this one
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def missing_slips(exercise_ids: Iterable[str], wrong_dir: Path) -> list[str]:
    """An exercise with no recorded slip is untested against wrong answers: one line each."""
    return [
        f"exercise '{exercise_id}' has no recorded slip: add {wrong_dir / exercise_id}/NAME.yaml"
        for exercise_id in sorted(set(exercise_ids))
        if not slip_paths(exercise_id, wrong_dir)
    ]


def stray_slips(exercise_ids: Iterable[str], wrong_dir: Path) -> list[str]:
    """A wrong/ folder naming no exercise, or a file in wrong/ID/ that is not a NAME.yaml slip."""
    known = set(exercise_ids)
    problems: list[str] = []
    if not wrong_dir.is_dir():
        return problems
    for folder in sorted(p for p in wrong_dir.iterdir() if p.is_dir()):
        if folder.name not in known:
            problems.append(f"{folder}: names no exercise (known: {', '.join(sorted(known))})")
        problems.extend(
            f"{path}: not a slip (a wrong solution is one NAME.yaml patch)"
            for path in sorted(folder.iterdir())
            if path.suffix != ".yaml"
        )
    return problems


def catalogue_problems(exercise_ids: Iterable[str], wrong_dir: Path) -> list[str]:
    """What the catalogue lacks or holds in vain (`missing_slips` and `stray_slips`)."""
    ids = list(exercise_ids)
    return missing_slips(ids, wrong_dir) + stray_slips(ids, wrong_dir)


def verify_command(
    exercises: dict[str, ExerciseInfo],
    exercise_id: str | None,
    *,
    quick: bool = True,
    wrong_dir: Path | None = None,
    echo: Callable[[str], None] = print,
) -> int:
    """`studyapp exercise verify [ID]`: one line per variant, then a summary. Exit 0 when every
    variant is as it should be (undecided included), 1 on any problem, 2 when nothing is wrong but
    an exercise could not run here (a missing dependency)."""
    wrong_dir = wrong_dir or default_wrong_dir()
    if exercise_id is not None and exercise_id not in exercises:
        raise StudyappError(f"unknown exercise '{exercise_id}'. Exercises: {', '.join(exercises) or 'none'}")
    if exercise_id is None:
        chosen = list(exercises.values())
        problems = catalogue_problems(exercises, wrong_dir)
    else:
        chosen = [exercises[exercise_id]]
        problems = missing_slips([exercise_id], wrong_dir)
    for problem in problems:
        echo(f"{MARKS[PROBLEM]} {problem}")
    results: list[VariantResult] = []
    for info in chosen:
        results += verify(info, wrong_dir, quick=quick, on_result=lambda result: echo(result.line()))
    counts = {status: sum(r.status == status for r in results) for status in MARKS}
    counts[PROBLEM] += len(problems)
    echo(
        f"{len(chosen)} exercise(s), {len(results)} variant(s): {counts[OK]} ok, "
        f"{counts[UNDECIDED]} undecided, {counts[CANNOT_RUN]} cannot run, {counts[PROBLEM]} problem(s)"
    )
    if counts[PROBLEM]:
        return EXIT_FAILURE
    return EXIT_USAGE if counts[CANNOT_RUN] else EXIT_OK
