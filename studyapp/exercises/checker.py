"""Run an exercise's checker in a subprocess and read its JSON lines (docs/EXERCISES.md).

`python check.py --workspace DIR [--quick]` runs with the labs root on PYTHONPATH, the workspace
as its working directory and STUDYAPP_EXERCISE_PROTOCOL=jsonl. Whatever the checker does —
prints garbage, crashes, hangs past the timeout, is interrupted — the run ends in one
`CheckOutcome` with a one-line message; the caller never sees a traceback of the checker.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studyapp import locations
from studyapp.child import (
    STOPPED_CANCELLED,
    STOPPED_TIMEOUT,
    ChildRun,
    ChildStartError,
    child_env,
    run_child,
)
from studyapp.exercises.registry import ExerciseInfo
from studyapp.i18n import Translator
from studyapp.safetext import printable

# Verdicts of a check. The first three come from the checker; the rest are what studyapp saw.
PASSED = "passed"
FAILED = "failed"
UNDECIDED = "undecided"
ERROR = "error"  # the checker crashed or spoke something other than the protocol
TIMEOUT = "timeout"
INTERRUPTED = "interrupted"
USAGE = "usage"  # bad usage or a missing dependency (checker exit 2)

MESSAGE_LIMIT = 300


@dataclass(frozen=True)
class Requirement:
    name: str
    passed: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "message": self.message}


@dataclass(frozen=True)
class CheckEvent:
    """What the checker reported while running: progress or one requirement."""

    kind: str  # progress | requirement
    message: str
    requirement: Requirement | None = None


@dataclass
class CheckOutcome:
    exercise_id: str
    verdict: str
    requirements: list[Requirement]
    message: str  # one line for the learner
    learner_traceback: str | None
    duration_s: float
    exit_code: int | None
    workspace: Path
    garbage_lines: int = 0
    progress: list[str] = field(default_factory=list)
    # What the learner's code left running after the check, stopped by studyapp (studyapp.child).
    stopped_processes: list[str] = field(default_factory=list)
    stopped_count: int = 0
    # Passes that appeared in the store while this check ran, not counted (exercise_store.record_check).
    forged_passes: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict == PASSED

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.exercise_id,
            "verdict": self.verdict,
            "passed": self.passed,
            "message": self.message,
            "requirements": [r.to_dict() for r in self.requirements],
            "learner_traceback": self.learner_traceback,
            "duration_s": round(self.duration_s, 3),
            "checker_exit_code": self.exit_code,
            "workspace": str(self.workspace),
            "stopped_processes": self.stopped_processes,
            "stopped_count": self.stopped_count,
        }

    def details(self) -> dict[str, Any]:
        """What is stored with the check (`exercise_checks.details_json`)."""
        data = self.to_dict()
        data.pop("id")
        data.pop("duration_s")
        return data


def one_line(value: Any, limit: int = MESSAGE_LIMIT) -> str:
    """One line of what a checker said (it may quote the learner's exception text): whitespace
    folded, cut at `limit`, and terminal control characters shown as `\\x1b`, never sent raw."""
    text = printable(" ".join(str(value if value is not None else "").split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def missing_modules(info: ExerciseInfo) -> list[str]:
    """`needs` that this interpreter cannot import (looked up, not imported: torch stays unloaded)."""
    missing = []
    for name in info.needs:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+')


def trim_traceback(text: str | None, workspace: Path) -> str | None:
    """Keep the frames in the learner's files (and the final error line); drop the checker's.

    Checkers already trim (labs._exercise); this is the safety net for one that does not.
    """
    if not text or not str(text).strip():
        return None
    lines = printable(str(text)).rstrip().splitlines()  # the learner's exception text: no raw escapes
    root = str(workspace.resolve())
    kept: list[str] = []
    keep_code = False
    saw_frame = False
    for line in lines:
        match = _FRAME.match(line)
        if match:
            saw_frame = True
            path = match.group("file")
            if path.startswith("<"):  # <string>, <frozen runpy>: never the learner's file
                inside = False
            else:
                inside = not os.path.isabs(path) or os.path.realpath(path).startswith(root + os.sep)
            keep_code = inside
            if inside:
                kept.append(line.replace(root + os.sep, ""))
            continue
        if line.startswith("Traceback"):
            kept.append(line)
            keep_code = False
            continue
        if line.startswith((" ", "\t")):
            if keep_code:
                kept.append(line)
            continue
        keep_code = False
        kept.append(line)  # the exception line (and chained-exception headers)
    if not saw_frame:
        return "\n".join(lines[-20:])
    return "\n".join(kept[-40:])


def _requirement(message: dict[str, Any]) -> Requirement | None:
    name = message.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    return Requirement(one_line(name, 120), message.get("passed") is True, one_line(message.get("message")))


def checker_command(info: ExerciseInfo, workspace: Path, quick: bool) -> list[str]:
    command = [sys.executable, str(info.check_script), "--workspace", str(workspace)]
    if quick:
        command.append("--quick")
    return command


def checker_env(info: ExerciseInfo, lang: str | None = None) -> dict[str, str]:
    # The labs root that holds this exercise's lab (so `from labs._exercise import ...` works).
    root = str(info.path.parent.parent.parent.parent)
    paths = [root] if str(locations.labs_root()) == root else [root, str(locations.labs_root())]
    env = child_env(
        paths,
        STUDYAPP_EXERCISE_PROTOCOL="jsonl",
        PYTHONDONTWRITEBYTECODE="1",  # keep the learner's folder free of __pycache__
        # the learner's language: the checker's requirement names and messages follow it
        # (labs/_exercise/messages.py); English when none is given
        STUDYAPP_LANG=lang or "en",
    )
    # A checker does not need to know where the learner's data is, and the learner's code under it
    # must not be told (it cannot forge a check in a store it is not shown); labs/_exercise/learner.py
    # gives that code only an allow-listed environment.
    for name in _DATA_LOCATIONS:
        env.pop(name, None)
    return env


_DATA_LOCATIONS = ("STUDYAPP_HOME", "STUDYAPP_CACHE", "STUDYAPP_CONTENT", "STUDYAPP_NOW")


@dataclass
class _CheckReport:
    """What a checker said on the protocol: progress, requirements as they are decided, a result."""

    on_event: Callable[[CheckEvent], None] | None
    requirements: list[Requirement] = field(default_factory=list)
    progress: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def read(self, message: dict[str, Any]) -> bool:
        """Take one protocol message; False for a nameless requirement (not the protocol)."""
        kind = message["type"]
        if kind == "progress":
            text = one_line(message.get("message"))
            self.progress.append(text)
            if self.on_event is not None:
                self.on_event(CheckEvent("progress", text))
        elif kind == "requirement":
            requirement = _requirement(message)
            if requirement is None:
                return False
            self.requirements.append(requirement)
            if self.on_event is not None:
                self.on_event(CheckEvent("requirement", requirement.message, requirement))
        elif kind == "result":
            self.result = message
        return True  # other types: a newer checker's extras, ignored on purpose


def run_check(
    info: ExerciseInfo,
    workspace: Path,
    *,
    quick: bool = False,
    timeout: float | None = None,
    on_event: Callable[[CheckEvent], None] | None = None,
    cancel: threading.Event | None = None,
    lang: str | None = None,
) -> CheckOutcome:
    """Run the checker to its verdict. Blocking; a UI calls it from a worker thread. `lang` ("ko",
    "en"): the language of the checker's requirement names and messages.

    Ctrl+C (KeyboardInterrupt) stops the checker and returns an `interrupted` outcome; the caller
    decides the exit code.
    """
    limit = timeout or (info.quick_timeout_s if quick else info.timeout_s)
    started = time.monotonic()
    workspace = workspace.resolve()

    def outcome(verdict: str, message: str, **extra: Any) -> CheckOutcome:
        return CheckOutcome(
            exercise_id=info.id,
            verdict=verdict,
            requirements=extra.pop("requirements", []),
            message=message,
            learner_traceback=extra.pop("learner_traceback", None),
            duration_s=time.monotonic() - started,
            exit_code=extra.pop("exit_code", None),
            workspace=workspace,
            **extra,
        )

    missing = missing_modules(info)
    if missing:
        # torch is an extra (pyproject.toml, `labs`): a plain `pip install .` lacks it
        needs = Translator(lang)("ex.needs", modules=", ".join(missing), first=missing[0])
        return outcome(USAGE, needs)
    if not workspace.is_dir():
        return outcome(USAGE, f"no workspace at {workspace}")
    report = _CheckReport(on_event)
    try:
        run = run_child(
            checker_command(info, workspace, quick),
            env=checker_env(info, lang),
            cwd=workspace,
            limit=limit,
            cancel=cancel,
            on_message=report.read,
        )
    except ChildStartError as exc:
        return outcome(ERROR, f"cannot start the checker: {exc}")
    verdict, message, requirements, traceback = _verdict(run, report, workspace, limit)
    return outcome(
        verdict,
        message,
        requirements=requirements,
        learner_traceback=traceback,
        exit_code=run.exit_code,
        garbage_lines=run.unreadable_lines,
        progress=report.progress,
        stopped_processes=run.leftovers,
        stopped_count=run.leftover_count,
    )


def _verdict(
    run: ChildRun, report: _CheckReport, workspace: Path, limit: float
) -> tuple[str, str, list[Requirement], str | None]:
    """Verdict, one line for the learner, the requirements and the learner's traceback.

    The checker's own verdict is trusted only as far as its requirements bear it out.
    """
    requirements, result, code, garbage = (
        report.requirements,
        report.result,
        run.exit_code,
        run.unreadable_lines,
    )
    if run.stopped_for == STOPPED_CANCELLED:
        return INTERRUPTED, "check interrupted; nothing about your code was decided", requirements, None
    if run.stopped_for == STOPPED_TIMEOUT:
        message = (
            f"the check did not finish within {limit:g} s (an endless loop in your code? "
            "run `studyapp exercise check` again, or check the README)"
        )
        if garbage:  # the learner's output never reaches the checker's stdout: the checker is at fault
            message = (
                f"the check did not finish within {limit:g} s, and the checker printed {garbage} line(s) "
                "that are not the checker protocol (or one without end); this is a fault of the exercise"
            )
        return TIMEOUT, message, requirements, None
    if result is None:
        tail = run.stderr_tail
        if code == 2:
            return (
                USAGE,
                one_line(tail[-1] if tail else "the checker refused to run (exit 2)"),
                requirements,
                None,
            )
        if code == 130 or (code is not None and code < 0):
            # studyapp did not stop it (that is `stopped_for`): a signal from elsewhere, most
            # likely the learner's code (os.kill of its parent, killpg of the checker's group).
            what = "SIGINT or SIGTERM" if code == 130 else _signal_name(-code)
            message = (
                f"the checker was stopped by {what} before its verdict, and not by studyapp: "
                "does your code send signals (os.kill, os.killpg) to other processes?"
            )
            return ERROR, message, requirements, None
        why = (
            f"it printed {garbage} line(s) that are not the checker protocol"
            if garbage
            else f"it ended with exit code {code} without a verdict"
        )
        last = f": {one_line(tail[-1], 160)}" if tail else ""
        message = f"the checker stopped without a verdict ({why}{last}); this is a fault of the exercise, not your code"
        return ERROR, message, requirements, None

    reported = result.get("requirements")
    if not requirements and isinstance(reported, list):
        requirements = [r for r in (_requirement(m) for m in reported if isinstance(m, dict)) if r]
    verdict = result.get("verdict")
    failing = [r for r in requirements if not r.passed]
    if verdict not in (PASSED, FAILED, UNDECIDED):
        verdict = FAILED if failing or code not in (0, None) else ERROR
    if verdict == PASSED and (failing or not requirements):
        verdict = FAILED if failing else ERROR  # a pass must be every requirement, and at least one
    if verdict == PASSED:
        message = f"all {len(requirements)} requirements pass"
    elif verdict == FAILED:
        message = f"{len(failing)} of {len(requirements)} requirements not met yet"
    elif verdict == UNDECIDED:
        message = (
            "the machine was too busy to tell your code from the noise: close other programs and check again"
        )
    else:
        message = (
            "the checker gave no verdict studyapp understands; this is a fault of the exercise, not your code"
        )
    return verdict, message, requirements, trim_traceback(result.get("learner_traceback"), workspace)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
