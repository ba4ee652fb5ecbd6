"""The checker's side of an exercise check: its options, its requirements and the protocol lines.

A checker (`labs/NAME/exercises/ID/check.py`) reports through a `Checker`: JSON lines when
STUDYAPP_EXERCISE_PROTOCOL=jsonl (written by `labs._wire`), else a readable report; it exits 0 passed,
1 failed, 2 bad usage, 3 undecided, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

from labs._exercise.messages import say, translate_message, translate_name
from labs._wire import EXERCISE_PROTOCOL_ENV as PROTOCOL_ENV
from labs._wire import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_PASSED,
    EXIT_UNDECIDED,
    EXIT_USAGE,
    emit,
    protocol_mode,
)

if TYPE_CHECKING:  # for annotations only: learner.py and speed.py import this module
    from labs._exercise.learner import LearnerResult
    from labs._exercise.speed import SpeedVerdict

PASSED = "passed"
FAILED = "failed"
UNDECIDED = "undecided"

MESSAGE_LIMIT = 300

# The requirement every learner run is held to (labs/_exercise/learner.py watches it).
HYGIENE = "your code leaves nothing running when it returns"


def one_line(value: Any, limit: int = MESSAGE_LIMIT) -> str:
    """Any text as one line of at most `limit` characters (messages must be one line)."""
    text = " ".join(str(value if value is not None else "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- usage -------------------------------------------------------------------------------------------


def fail_usage(message: str) -> NoReturn:
    """Bad usage or a missing dependency: one line on stderr, exit 2 (no verdict is recorded)."""
    sys.stderr.write(one_line(message) + "\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_USAGE)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own error prints usage on two lines
        fail_usage(f"{self.prog}: {message}")


def parse_args(argv: Sequence[str] | None = None, *, description: str | None = None) -> argparse.Namespace:
    """`--workspace DIR` (must exist; resolved to an absolute Path) and `--quick`."""
    parser = _Parser(prog=Path(sys.argv[0]).name or "check.py", description=description)
    parser.add_argument("--workspace", required=True, help="the folder holding the learner's files")
    parser.add_argument("--quick", action="store_true", help="smaller settings (CI and tests)")
    args = parser.parse_args(argv)
    workspace = Path(args.workspace).expanduser()
    if not workspace.is_dir():
        fail_usage(f"no workspace folder at {workspace}")
    args.workspace = workspace.resolve()
    return args


# -- the checker's report ----------------------------------------------------------------------------


class _StopCheck(Exception):
    """Raised by `Checker.stop()`: the rest of the check depends on what just failed."""


class _Terminated(KeyboardInterrupt):
    """SIGTERM (studyapp's Esc or timeout) handled like Ctrl+C, so the learner's child is stopped."""


@dataclass
class _Requirement:
    name: str
    passed: bool
    message: str
    undecided: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "passed": self.passed, "message": self.message}
        if self.undecided:
            data["undecided"] = True
        return data


class Checker:
    """Collects requirements and reports them; use it as a context manager around the whole check.

    Leaving the with-block (normally, through `stop()`, or on an unexpected exception) writes the
    result and exits: 0 when every requirement passed, 1 when one failed, 3 when none failed but a
    speed check could not decide, 130 on Ctrl+C or SIGTERM. `fail_usage()` inside it exits 2.
    """

    def __init__(self, args: argparse.Namespace | None = None, *, jsonl: bool | None = None) -> None:
        self.workspace: Path | None = getattr(args, "workspace", None)
        self.quick: bool = bool(getattr(args, "quick", False))
        self.jsonl = protocol_mode(PROTOCOL_ENV) if jsonl is None else jsonl
        self.requirements: list[_Requirement] = []
        self.learner_traceback: str | None = None
        self._finished = False
        self._out: Any = sys.stdout
        self._saved_stdout_fd: int | None = None
        self._old_sigterm: Any = None

    # context manager ------------------------------------------------------------------------------

    def __enter__(self) -> Checker:
        if self.jsonl:
            # The protocol gets a private copy of stdout; fd 1 itself now goes to stderr, so a
            # library printing on stdout (from Python or from C) cannot break a protocol line.
            sys.stdout.flush()
            self._saved_stdout_fd = os.dup(1)
            self._out = open(os.dup(self._saved_stdout_fd), "w", encoding="utf-8", buffering=1)
            os.dup2(2, 1)
        if threading.current_thread() is threading.main_thread():
            self._old_sigterm = signal.signal(signal.SIGTERM, _raise_terminated)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if self._finished:
            return False  # finish() already reported and is exiting
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            self._restore()
            raise SystemExit(EXIT_INTERRUPTED)
        if kind is not None and issubclass(kind, SystemExit):
            code = error.code if isinstance(error, SystemExit) else None
            if code == EXIT_USAGE:
                self._restore()
                return False  # fail_usage(): no verdict
        elif kind is not None and not issubclass(kind, _StopCheck):
            where = _checker_frame(tb)
            self.requirement(
                "the check ran to the end",
                False,
                say(
                    f"the check stopped on an unexpected {kind.__name__}: {error}{where}",
                    f"검사가 예상하지 못한 {kind.__name__}로 멈췄습니다: {error}{where}",
                ),
            )
        self.finish()
        return False  # not reached: finish() exits

    def _restore(self) -> None:
        if self._old_sigterm is not None:
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGTERM, self._old_sigterm)
            self._old_sigterm = None
        if self._saved_stdout_fd is not None:
            sys.stdout.flush()
            os.dup2(self._saved_stdout_fd, 1)
            os.close(self._saved_stdout_fd)
            self._saved_stdout_fd = None

    # reporting ------------------------------------------------------------------------------------

    def progress(self, message: str) -> None:
        """What the check is doing now (shown live by `studyapp exercise check`)."""
        text = one_line(message)
        if self.jsonl:
            emit("progress", out=self._out, message=text)
        else:
            self._out.write(f"… {text}\n")
            self._out.flush()

    def requirement(self, name: str, passed: bool, message: str) -> bool:
        """Report one requirement; returns `passed` so a checker can branch on it."""
        return self._add(_Requirement(one_line(name, 120), bool(passed), one_line(message)))

    def require(self, name: str, condition: Any, ok_message: str, fail_message: str) -> bool:
        """`requirement` with a message for each outcome; returns whether `condition` holds."""
        passed = bool(condition)
        return self.requirement(name, passed, ok_message if passed else fail_message)

    def undecided(self, name: str, message: str) -> bool:
        """A requirement the machine was too noisy to decide: the verdict is `undecided` (exit 3)
        unless another requirement failed. Always returns False."""
        self._add(_Requirement(one_line(name, 120), False, one_line(message), undecided=True))
        return False

    def require_ran(self, name: str, result: LearnerResult, ok_message: str | None = None) -> bool:
        """Fail `name` with the learner's error when their code raised or timed out (keeping their
        traceback for the result); report nothing when it ran unless `ok_message` is given."""
        if result.ok:
            if ok_message is not None:
                self.requirement(name, True, ok_message)
            self.require_clean(result)
            return True
        if result.traceback and self.learner_traceback is None:
            self.learner_traceback = result.traceback
        self.requirement(
            name, False, result.error or say("your code did not run", "여러분의 코드가 실행되지 않았습니다")
        )
        return False

    def require_clean(self, result: LearnerResult) -> bool:
        """Fail HYGIENE, once per check, when the learner's code left something running: threads,
        executors or pools not shut down, child processes, or an event loop it blocked."""
        if not result.hygiene:
            return True
        if any(r.name == translate_name(HYGIENE) for r in self.requirements):
            return False  # already reported: one failure says it
        return self.requirement(HYGIENE, False, "; ".join(result.hygiene))

    def speed(self, name: str, verdict: SpeedVerdict) -> bool:
        """Report a `compare_speed` verdict as a requirement (undecided stays undecided)."""
        if verdict.traceback and self.learner_traceback is None:
            self.learner_traceback = verdict.traceback
        return self.decision(name, verdict.decision, verdict.message)

    def decision(self, name: str, decision: str, message: str) -> bool:
        """Report a decision (PASSED / FAILED / UNDECIDED, e.g. from `decide_with_control`) as a
        requirement: undecided stays undecided."""
        if decision == UNDECIDED:
            return self.undecided(name, message)
        if decision not in (PASSED, FAILED):
            raise ValueError(f"a decision is passed, failed or undecided, not {decision!r}")
        return self.requirement(name, decision == PASSED, message)

    def stop(self) -> NoReturn:
        """End the check now (the rest depends on a requirement that just failed)."""
        raise _StopCheck()

    def _add(self, requirement: _Requirement) -> bool:
        # In the learner's language (STUDYAPP_LANG, from `--lang`); English when none is given.
        requirement.name = one_line(translate_name(requirement.name), 120)
        requirement.message = one_line(translate_message(requirement.message))
        self.requirements.append(requirement)
        if self.jsonl:
            emit("requirement", out=self._out, **requirement.to_dict())
        else:
            mark = "?" if requirement.undecided else ("✓" if requirement.passed else "✗")
            self._out.write(f"{mark} {requirement.name}: {requirement.message}\n")
            self._out.flush()
        return requirement.passed

    @property
    def verdict(self) -> str:
        if any(not r.passed and not r.undecided for r in self.requirements):
            return FAILED
        if any(r.undecided for r in self.requirements):
            return UNDECIDED
        return PASSED

    def finish(self) -> NoReturn:
        """Write the result line (or the report's last lines) and exit with the verdict's code."""
        if not self.requirements:
            self.requirement(
                "the check ran",
                False,
                say(
                    "the checker checked nothing (a fault of the exercise)",
                    "checker가 아무것도 검사하지 않았습니다 (과제의 결함)",
                ),
            )
        self._finished = True
        verdict = self.verdict
        if self.jsonl:
            emit(
                "result",
                out=self._out,
                verdict=verdict,
                requirements=[r.to_dict() for r in self.requirements],
                learner_traceback=self.learner_traceback,
            )
        else:
            failed = sum(1 for r in self.requirements if not r.passed)
            if self.learner_traceback:
                self._out.write("\nyour code raised:\n" + self.learner_traceback.rstrip() + "\n")
            summary = {
                PASSED: say(
                    f"passed: all {len(self.requirements)} requirements hold",
                    f"통과: 요구 사항 {len(self.requirements)}개를 모두 만족합니다",
                ),
                FAILED: say(
                    f"not yet: {failed} of {len(self.requirements)} requirements fail",
                    f"아직: 요구 사항 {len(self.requirements)}개 중 {failed}개를 만족하지 못합니다",
                ),
                UNDECIDED: say(
                    "undecided: the machine was too busy to tell; close other programs and check again",
                    "판정 보류: 기계가 너무 바빠 판단할 수 없습니다; 다른 프로그램을 닫고 다시 검사하세요",
                ),
            }[verdict]
            self._out.write(f"\n{summary}\n")
            self._out.flush()
        self._restore()
        raise SystemExit({PASSED: EXIT_PASSED, FAILED: EXIT_FAILED, UNDECIDED: EXIT_UNDECIDED}[verdict])


def _raise_terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


def _checker_frame(tb: TracebackType | None) -> str:
    """` (check.py:42)`: where in the checker it broke, for whoever maintains the exercise."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    if not frames:
        return ""
    last = frames[-1]
    return f" ({Path(last.filename).name}:{last.lineno})"
