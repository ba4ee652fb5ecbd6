"""Mutation testing of an exercise's checker: `studyapp exercise verify --mutants [ID...]`.

A checker that passes wrong code tells a learner they are ready when they are not. Recorded slips
(verify.py) close the cases someone thought of; mutation testing asks the same question of every
small change a tool can make. cosmic-ray mutates a copy of the reference solution, one mutation at
a time, and runs the exercise's own checker on that copy as its test command: a checker that fails
the mutant kills it; one that passes it lets it survive.

A survivor either needs a check that kills it or is equivalent (it behaves like the reference, so
no checker could tell): each equivalent mutant is one line in the exercise's folder,

    # labs/LAB/exercises/ID/equivalent-mutants.yaml
    amdahl.py core/NumberReplacer 1f3a9c0b: "0.0 and -1.0 start a max() over non-negative numbers alike"

keyed by file, operator and a hash of the changed lines (not their line numbers), so a key stays
valid while the reference's other lines move. The score is killed / (mutants - equivalent).

cosmic-ray runs the mutants one after the other in one process (its `local` distributor): a
mutation run is long (a checker's seconds times a few hundred mutants) and stays out of CI.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from studyapp.errors import EXIT_FAILURE, EXIT_OK, StudyappError
from studyapp.exercises import checker
from studyapp.exercises.registry import IGNORED_PARTS, ExerciseInfo

EQUIVALENTS_FILE = "equivalent-mutants.yaml"

# What became of one mutant.
KILLED = "killed"
SURVIVED = "survived"
EQUIVALENT = "equivalent"  # survived, and recorded as behaving like the reference
UNDECIDED = "undecided"  # the checker could not tell (a speed check on a busy machine): not a kill
MARKS = {KILLED: "✓", SURVIVED: "✗", EQUIVALENT: "=", UNDECIDED: "?"}

# cosmic-ray's own timeout, past the exercise's limit that mutant_check's guard enforces first
MUTANT_TIMEOUT_MARGIN_S = 30.0
STUDYAPP_PARENT = str(Path(__file__).resolve().parents[2])
SCORE_GOAL = 0.95  # issue 31: at least 95 % of the non-equivalent mutants killed


class MutationError(StudyappError):
    """A mutation run that cannot start: no cosmic-ray, a reference that fails its own checker,
    a malformed equivalents file."""


@dataclass(frozen=True)
class Mutant:
    """One mutation cosmic-ray made and what the checker made of it."""

    file: str  # relative to solution/
    line: int
    operator: str
    removed: tuple[str, ...]  # the reference's lines the mutation changed, stripped
    added: tuple[str, ...]  # what it put in their place, stripped
    outcome: str  # KILLED, SURVIVED or UNDECIDED (EQUIVALENT is decided against the file)
    key: str = ""

    def change(self) -> str:
        """`old → new` on one line, for an author reading the list of survivors."""
        return checker.one_line(f"{' / '.join(self.removed)} → {' / '.join(self.added)}", 160)


@dataclass
class MutationReport:
    exercise_id: str
    mutants: list[Mutant]
    equivalents: dict[str, str]  # key -> reason, as recorded
    stale: list[str] = field(default_factory=list)  # recorded keys no mutant has any more

    def status(self, mutant: Mutant) -> str:
        if mutant.outcome == SURVIVED and mutant.key in self.equivalents:
            return EQUIVALENT
        return mutant.outcome

    def count(self, status: str) -> int:
        return sum(self.status(m) == status for m in self.mutants)

    @property
    def score(self) -> float:
        """killed / non-equivalent mutants (1.0 when every mutant is equivalent or there are none)."""
        counted = len(self.mutants) - self.count(EQUIVALENT)
        return self.count(KILLED) / counted if counted else 1.0

    def summary(self) -> str:
        return (
            f"{self.exercise_id}: {len(self.mutants)} mutants: {self.count(KILLED)} killed, "
            f"{self.count(SURVIVED)} survived, {self.count(EQUIVALENT)} equivalent, "
            f"{self.count(UNDECIDED)} undecided; score {self.score:.1%} (killed / non-equivalent)"
        )


# -- keys and the equivalents file -----------------------------------------------------------------


def _changed_lines(diff: str) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """The removed and added lines (stripped) of a unified diff, and the first changed line's number."""
    removed: list[str] = []
    added: list[str] = []
    line, first = 0, 0
    for text in diff.splitlines():
        if text.startswith(("---", "+++")):
            continue
        if text.startswith("@@"):
            line = int(text.split()[1].split(",")[0].lstrip("-"))  # "@@ -2,5 +2,5 @@": old start
            continue
        if text.startswith("-"):
            removed.append(text[1:].strip())
            first = first or line
        elif text.startswith("+"):
            added.append(text[1:].strip())
            continue  # an added line has no number in the reference
        if line:
            line += 1
    return tuple(removed), tuple(added), first


def mutant_key(file: str, operator: str, removed: Iterable[str], added: Iterable[str]) -> str:
    """`FILE OPERATOR HASH`: stable while other lines of the reference move or change."""
    change = "\n".join(["-" + text for text in removed] + ["+" + text for text in added])
    digest = hashlib.sha256(change.encode("utf-8")).hexdigest()[:8]
    return f"{file} {operator.removeprefix('core/')} {digest}"


def _keyed(mutants: list[Mutant]) -> list[Mutant]:
    """Give each mutant its key; the same change made twice (two identical lines) gets `#2`, `#3`."""
    seen: dict[str, int] = {}
    keyed = []
    for mutant in sorted(mutants, key=lambda m: (m.file, m.line, m.operator, m.added)):
        key = mutant_key(mutant.file, mutant.operator, mutant.removed, mutant.added)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key}#{seen[key]}"
        keyed.append(Mutant(**{**mutant.__dict__, "key": key}))
    return keyed


def load_equivalents(path: Path) -> dict[str, str]:
    """`key: reason` lines of an exercise's equivalents file ({} when it has none)."""
    if not path.is_file():
        return {}
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise MutationError(f"{path}: cannot read it: {checker.one_line(exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(
        isinstance(key, str) and isinstance(reason, str) and reason.strip() and "\n" not in reason.strip()
        for key, reason in data.items()
    ):
        raise MutationError(f"{path}: expected one `KEY: reason` line per equivalent mutant")
    return {key: reason.strip() for key, reason in data.items()}


# -- running cosmic-ray ----------------------------------------------------------------------------


def cosmic_ray_missing() -> bool:
    return importlib.util.find_spec("cosmic_ray") is None


def _cosmic_ray(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cosmic_ray.cli", *arguments],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _verdict_of(output: str) -> str | None:
    """The verdict of the checker's last protocol `result` line in `output` (None when none)."""
    for text in reversed(output.splitlines()):
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("type") == "result":
            return str(message.get("verdict"))
    return None


def _mutant(entry: list[Any], workspace: Path) -> Mutant | None:
    work_item, result = entry
    if result is None or not work_item.get("mutations"):
        return None
    mutation = work_item["mutations"][0]
    file = Path(mutation["module_path"]).resolve().relative_to(workspace).as_posix()
    removed, added, line = _changed_lines(result.get("diff") or "")
    if result.get("test_outcome") == "survived":
        outcome = SURVIVED
    elif _verdict_of(result.get("output") or "") == checker.UNDECIDED:
        outcome = UNDECIDED  # exit 3 is non-zero, but the checker did not call the mutant wrong
    else:
        outcome = KILLED  # failed, timed out, or the mutant broke the code (incompetent)
    line = line or int(mutation["start_pos"][0])
    return Mutant(file, line, mutation["operator_name"], removed, added, outcome)


def run_mutants(info: ExerciseInfo, *, quick: bool = True, scratch: Path | None = None) -> list[Mutant]:
    """Mutate a copy of the reference solution and run the checker on each mutant."""
    if cosmic_ray_missing():
        raise MutationError(
            "verify --mutants needs cosmic-ray: pip install 'studyapp[test]' (or pip install cosmic-ray)"
        )
    with tempfile.TemporaryDirectory(prefix=f"studyapp-mutants-{info.id}-", dir=scratch) as folder:
        root = Path(folder)
        workspace = root / "solution"
        shutil.copytree(info.solution_dir, workspace, ignore=shutil.ignore_patterns(*IGNORED_PARTS, "*.pyc"))
        baseline = checker.run_check(info, workspace, quick=quick)
        if baseline.verdict != checker.PASSED:
            raise MutationError(
                f"{info.id}: the reference solution does not pass its own checker "
                f"({baseline.verdict}: {baseline.message}); fix that before mutating it"
            )
        # Each mutant is checked as `exercise check` checks a learner (mutant_check.py: under the
        # child guard, with the exercise's limit); cosmic-ray's timeout is only the last resort.
        limit = (info.quick_timeout_s if quick else info.timeout_s) + MUTANT_TIMEOUT_MARGIN_S
        command = [
            sys.executable,
            "-m",
            "studyapp.exercises.mutant_check",
            str(info.path),
            str(workspace),
            *(["--quick"] if quick else []),
        ]
        config = root / "cosmic-ray.toml"
        config.write_text(
            "[cosmic-ray]\n"
            f"module-path = {json.dumps(str(workspace))}\n"
            f"timeout = {float(limit)}\n"
            "excluded-modules = []\n"
            f"test-command = {json.dumps(shlex.join(command))}\n"
            '\n[cosmic-ray.distributor]\nname = "local"\n',
            encoding="utf-8",
        )
        session = root / "session.sqlite"
        # The checker's own environment (labs importable, the JSON-lines protocol): cosmic-ray's test
        # command inherits it, and the protocol's result line tells `undecided` from `failed`.
        env = checker.checker_env(info)
        # mutant_check imports this studyapp, installed or not
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [STUDYAPP_PARENT, env.get("PYTHONPATH", "")]))
        for step in (("init", str(config), str(session)), ("exec", str(config), str(session))):
            done = _cosmic_ray(*step, env=env)
            if done.returncode != 0:
                raise MutationError(
                    f"{info.id}: cosmic-ray {step[0]} failed: {checker.one_line(done.stderr or done.stdout)}"
                )
        dump = _cosmic_ray("dump", str(session), env=env)
        mutants = []
        for text in dump.stdout.splitlines():
            mutant = _mutant(json.loads(text), workspace.resolve())
            if mutant is not None:
                mutants.append(mutant)
    return _keyed(mutants)


def report(info: ExerciseInfo, mutants: list[Mutant], equivalents: dict[str, str]) -> MutationReport:
    keys = {m.key for m in mutants}
    stale = sorted(key for key in equivalents if key not in keys)
    return MutationReport(info.id, mutants, equivalents, stale)


def mutants_command(
    exercises: dict[str, ExerciseInfo],
    exercise_ids: list[str],
    *,
    quick: bool = True,
    echo: Callable[[str], None] = print,
) -> int:
    """`studyapp exercise verify --mutants [ID...]`: per exercise, one line per surviving (and
    recorded equivalent) mutant and a summary with the score. Exit 0 when every survivor is
    recorded as equivalent, 1 otherwise, 2 on bad usage (an unknown exercise, no cosmic-ray)."""
    unknown = [exercise_id for exercise_id in exercise_ids if exercise_id not in exercises]
    if unknown:
        raise StudyappError(f"unknown exercise '{unknown[0]}'. Exercises: {', '.join(exercises) or 'none'}")
    if cosmic_ray_missing():
        raise MutationError(
            "verify --mutants needs cosmic-ray: pip install 'studyapp[test]' (or pip install cosmic-ray)"
        )
    chosen = [exercises[exercise_id] for exercise_id in exercise_ids] or list(exercises.values())
    # Every equivalents file is read first: a malformed one stops the run before minutes of mutants.
    recorded = {info.id: load_equivalents(info.path / EQUIVALENTS_FILE) for info in chosen}
    failing = False
    for info in chosen:
        echo(f"… {info.id}: mutating solution/ and running the checker on each mutant")
        result = report(info, run_mutants(info, quick=quick), recorded[info.id])
        for mutant in result.mutants:
            status = result.status(mutant)
            if status == KILLED:
                continue
            where = f"{mutant.file}:{mutant.line}"
            reason = f" — {result.equivalents[mutant.key]}" if status == EQUIVALENT else ""
            echo(f"{MARKS[status]} {status} {where} [{mutant.key}]: {mutant.change()}{reason}")
        for key in result.stale:
            echo(f"! {info.id}: {EQUIVALENTS_FILE} lists '{key}', which no mutant has now: remove it")
        echo(result.summary())
        failing = failing or result.count(SURVIVED) > 0
    if failing:
        echo(
            f"a survivor needs a check that kills it, or one line in the exercise's {EQUIVALENTS_FILE}: "
            '"KEY": "why it behaves like the reference"'
        )
    return EXIT_FAILURE if failing else EXIT_OK
