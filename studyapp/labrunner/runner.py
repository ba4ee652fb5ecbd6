"""Run one lab in a subprocess and collect what it reports.

The lab speaks the JSON-lines protocol of `labs/_protocol.py` on stdout. Its stderr (torch's C++
layer writes there freely) goes to a log file in the artifact directory, never to the screen.
A lab that crashes, prints garbage, hangs past its timeout or is cancelled ends in one clear
`LabOutcome`; the app itself never crashes with it.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any

from studyapp import locations
from studyapp.atomicfile import open_regular_for_writing, write_text_atomically
from studyapp.child import (
    STOPPED_CANCELLED,
    STOPPED_TIMEOUT,
    ChildRun,
    Serving,
    child_env,
    python_code_command,
    run_child,
)
from studyapp.errors import StudyappError
from studyapp.labrunner.registry import LabInfo
from studyapp.safetext import printable, printable_data

try:  # advisory locks show which recorded runs still have a live studyapp behind them
    import fcntl
except ImportError:  # pragma: no cover - Windows: stale runs are not detected there
    fcntl = None  # type: ignore[assignment]

STATUS_OK = "ok"
STATUS_FAILED = "failed"
STATUS_CANCELLED = "cancelled"

EXIT_USAGE = 2
EXIT_DEPENDENCY = 3
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class ProgressEvent:
    phase: str
    fraction: float | None
    message: str


@dataclass
class LabOutcome:
    lab: str
    status: str  # ok | failed | cancelled
    result: dict[str, Any] | None
    message: str  # one line for the learner
    exit_code: int | None
    artifact_dir: Path
    elapsed_s: float
    reason: str = ""  # usage | dependency | crash | timeout | garbage | cancelled
    stderr_log: Path | None = None
    progress: list[ProgressEvent] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)  # processes the lab left running, stopped after it
    leftover_count: int = 0

    @property
    def summary(self) -> str:
        if self.result and self.result.get("summary"):
            return str(self.result["summary"])
        return self.message


# A run holds an exclusive lock on this file in its artifact directory while it runs; a "running"
# record whose lock is free belongs to a studyapp that was killed (see `sweep_stale_runs`).
RUN_LOCK = ".lab-run.lock"
STALE_GRACE = timedelta(minutes=2)  # a run just recorded may not hold its lock yet
INTERRUPTED_SUMMARY = "interrupted: studyapp ended before the lab finished"
LOW_SPACE_BYTES = 1024 * 1024
STDERR_LOG = "lab-stderr.log"  # in the artifact directory: the lab's stderr, whole


class OutDirError(StudyappError):
    """The artifact directory cannot be created or written: one line, exit 2, nothing recorded."""


def prepare_out_dir(out_dir: Path) -> None:
    """Create `out_dir` (and its parents) or explain in one line why it cannot be used."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if not out_dir.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a directory")
    except FileExistsError:
        raise OutDirError(f"cannot use --out {out_dir}: it is a file, not a directory") from None
    except OSError as exc:
        raise OutDirError(f"cannot use --out {out_dir}: {exc.strerror or exc}") from None


def _hold_run_lock(out_dir: Path) -> IO[bytes] | None:
    if fcntl is None:
        return None
    try:
        # never blocks on a FIFO someone put there, never locks a device or follows a link
        handle = os.fdopen(open_regular_for_writing(out_dir / RUN_LOCK), "wb")
    except OSError:
        return None  # a full or odd file system: the run still runs, only stale detection is lost
    for _ in range(100):  # a sweeper may hold a shared lock for an instant
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:
            break
    handle.close()  # another run uses the same --out and holds it: that run's lock covers both
    return None


def _release_run_lock(handle: IO[bytes] | None, out_dir: Path) -> None:
    if handle is None:
        return
    (out_dir / RUN_LOCK).unlink(missing_ok=True)
    handle.close()


def _owner_alive(artifact_dir: str | None) -> bool | None:
    """True when a live studyapp holds the run's lock, False when none does, None if unknown."""
    if fcntl is None or not artifact_dir:
        return None
    lock = Path(artifact_dir) / RUN_LOCK
    try:
        # artifact_dir may come from an imported file (review L4): a FIFO there would block a
        # plain open for ever, and `lab list` with it. A run's own lock is always a regular file.
        fd = os.open(lock, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        return False if exc.errno == errno.ELOOP else None  # a link: not a lock we made
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False
    finally:
        os.close(fd)


def sweep_stale_runs(
    store: Any,
    now: datetime | None = None,
    time_limit_s: Callable[[str], float | None] | None = None,
    summary: str = INTERRUPTED_SUMMARY,
) -> int:
    """Mark "running" records whose studyapp is gone (killed, crashed) as cancelled/interrupted.

    Without this a run whose studyapp was killed would show as running for ever in `lab list` and
    the TUI. Whether the owner is gone is read from the run's lock; where that cannot be known
    (no artifact folder), `time_limit_s(lab)` decides: a run older than its lab's limit plus a
    minute cannot still be running, since the runner stops a lab at its limit. Returns how many
    records were changed.
    """
    now = now or datetime.now(timezone.utc)
    changed = 0
    for run in store.lab_runs():
        if run.status != "running":
            continue
        started = run.started_at if run.started_at.tzinfo else run.started_at.replace(tzinfo=timezone.utc)
        if now - started < STALE_GRACE and not Path(run.artifact_dir or "").joinpath(RUN_LOCK).exists():
            continue
        owner_alive = _owner_alive(run.artifact_dir)
        if owner_alive is None and time_limit_s is not None:
            limit = time_limit_s(run.lab)
            owner_alive = limit is None or (now - started).total_seconds() <= limit + 60
        if owner_alive is False:
            try:
                store.finish_lab_run(run.uid, STATUS_CANCELLED, summary, None)
            except (sqlite3.Error, StudyappError):
                return changed  # a read-only or busy store: list the runs as they are
            changed += 1
    return changed


def default_out_dir(lab: str, data_dir: Path | None = None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    return (data_dir or locations.data_dir()) / "runs" / lab / stamp


# `python -m labs.NAME` would look in the current directory first; this puts the labs root first
# so the lab that runs is the one the registry found, whatever directory the learner is in, and
# `python_code_command` keeps the current directory off sys.path: a learner's `statistics.py` there
# must not replace the standard library's in the lab (reliability review M2).
_LAUNCH = "import runpy; sys.path.insert(0, {root!r}); runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"


def lab_command(info: LabInfo, lab_args: Sequence[str], quick: bool, out_dir: Path) -> list[str]:
    launch = _LAUNCH.format(root=str(info.path.parent.parent), module=f"labs.{info.id}")
    command = [*python_code_command(launch, *lab_args), "--out", str(out_dir)]
    if quick:
        command.append("--quick")
    return command


def _lab_env(data_dir: Path | None = None) -> dict[str, str]:
    env = child_env(
        [str(locations.labs_root())],
        STUDYAPP_LAB_PROTOCOL="jsonl",
        PYTHONIOENCODING="utf-8",  # the protocol pipe is read as UTF-8, whatever the terminal takes
    )
    if data_dir is not None:  # labs that keep state (saved benchmark runs) keep it with the learner's data
        env["STUDYAPP_HOME"] = str(data_dir)
    return env


@dataclass
class _LabReport:
    """What a lab said on the protocol: progress as it goes, then a result or an error."""

    on_progress: Callable[[ProgressEvent], None] | None
    events: list[ProgressEvent] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    serving: Serving | None = None  # the lab's measured work is done; it serves until Ctrl+C

    def read(self, message: dict[str, Any]) -> bool:
        """Take one protocol message; False for one that is not the lab protocol."""
        kind = message["type"]
        if kind == "progress":
            event = ProgressEvent(
                printable(str(message.get("phase", ""))),
                _fraction(message.get("fraction")),
                printable(str(message.get("message", ""))),
            )
            self.events.append(event)
            if self.on_progress is not None:
                self.on_progress(event)
        elif kind == "result" and isinstance(message.get("result"), dict):
            self.result = message["result"]
        elif kind == "error":
            self.error = message
        elif kind == "serving":
            self.serving = Serving(_serve_seconds(message.get("seconds")))
        else:
            return False
        return True


def _serve_seconds(value: Any) -> float | None:
    """How long a lab says it will serve: a number of seconds (at most a day), or None for 'until Ctrl+C'."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 86_400:
        return float(value)
    return None


def run_lab(
    info: LabInfo,
    lab_args: Sequence[str] = (),
    *,
    quick: bool = False,
    out_dir: Path | None = None,
    timeout: float | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    cancel: threading.Event | None = None,
    data_dir: Path | None = None,
    run_lock: IO[bytes] | None = None,
) -> LabOutcome:
    """Run a lab to the end (or until cancelled / timed out). Blocking; call from a thread in a UI.

    `run_lock`: the run's lock (`_hold_run_lock`) when the caller took it already; released here."""
    out_dir = out_dir or default_out_dir(info.id)
    prepare_out_dir(out_dir)
    limit = timeout or (info.quick_timeout_s if quick else info.timeout_s)
    report = _LabReport(on_progress)
    try:
        err = os.fdopen(open_regular_for_writing(out_dir / STDERR_LOG), "wb")
    except OSError as exc:
        _release_run_lock(run_lock, out_dir)
        raise OutDirError(f"cannot use --out {out_dir}: {exc.strerror or exc}") from None
    if run_lock is None:
        run_lock = _hold_run_lock(out_dir)
    try:
        with err:
            run = run_child(
                lab_command(info, lab_args, quick, out_dir),
                env=_lab_env(data_dir),
                limit=limit,
                cancel=cancel,
                on_message=report.read,
                stderr_log=err,
                serving=lambda: report.serving,  # serving does not count against `limit`
            )
    finally:
        _release_run_lock(run_lock, out_dir)
    return _lab_outcome(info, run, report, out_dir, limit)


def _lab_outcome(info: LabInfo, run: ChildRun, report: _LabReport, out_dir: Path, limit: float) -> LabOutcome:
    """The run's status and one line for the learner; an ok result is also saved as result.json."""
    elapsed, code, garbage, result = run.elapsed_s, run.exit_code, run.unreadable_lines, report.result
    stderr_log = out_dir / STDERR_LOG
    if result is not None:
        try:
            result = printable_data(result)  # shown on a terminal and in the TUI: no control characters
        except RecursionError:
            result, garbage = None, garbage + 1  # nested past any real result: unreadable output

    def outcome(status: str, message: str, reason: str = "") -> LabOutcome:
        return LabOutcome(
            info.id,
            status,
            result if status == STATUS_OK else None,
            message,
            code,
            out_dir,
            elapsed,
            reason,
            stderr_log,
            report.events,
            run.leftovers,
            run.leftover_count,
        )

    if run.stopped_for == STOPPED_CANCELLED:
        return outcome(STATUS_CANCELLED, f"{info.id}: cancelled after {elapsed:.1f} s", "cancelled")
    if run.stopped_for == STOPPED_TIMEOUT:
        return outcome(STATUS_FAILED, f"{info.id}: stopped after {limit:.0f} s (timeout)", "timeout")
    if code == 0 and result is not None:
        try:
            write_text_atomically(
                out_dir / "result.json", json.dumps(result, ensure_ascii=False, indent=2), prefix=".result-"
            )
        except OSError as exc:
            return outcome(
                STATUS_FAILED,
                f"{info.id}: cannot write {out_dir / 'result.json'}: {exc.strerror or exc}",
                "crash",
            )
        return outcome(STATUS_OK, printable(str(result.get("summary", ""))))
    error = report.error
    if code == EXIT_INTERRUPTED or (error and error.get("kind") == "cancelled"):
        return outcome(STATUS_CANCELLED, f"{info.id}: cancelled", "cancelled")
    full_disk = _full_disk_note(out_dir)
    if error is not None:
        reason = str(error.get("kind", "crash"))
        text = _one_line(str(error.get("message", "")))
        if reason == "crash" and full_disk:  # the cause first: the error is only its symptom
            text = f"{info.id} lab crashed{full_disk}: {text} (details: {stderr_log})"
        elif reason == "crash":
            text = f"{info.id} lab crashed: {text} (details: {stderr_log})"
        else:
            text = f"{info.id}: {text}"
        return outcome(STATUS_FAILED, text, reason)
    if code == 0:
        return outcome(
            STATUS_FAILED,
            f"{info.id}: the lab ended without a result ({garbage} unreadable output lines)",
            "garbage",
        )
    reason = "garbage" if garbage else "crash"
    return outcome(
        STATUS_FAILED,
        f"{info.id} lab failed with exit code {code}{full_disk} (details: {stderr_log})",
        reason,
    )


def _full_disk_note(out_dir: Path) -> str:
    """A note for a failed run whose artifact directory has (almost) no space left: the real cause.

    A lab that cannot write its artifacts often cannot write its error log either (same disk), so
    the log would be empty and the learner left guessing.
    """
    try:
        free = shutil.disk_usage(out_dir).free
    except OSError:
        return ""
    return f" — no space left on the disk of {out_dir} ({free} bytes free)" if free < LOW_SPACE_BYTES else ""


def _fraction(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return None


def _one_line(text: str) -> str:
    return printable(" ".join(text.split())[:300])


def run_and_record(store: Any, info: LabInfo, lab_args: Sequence[str] = (), **kwargs: Any) -> LabOutcome:
    """Run a lab and record the run (start, end, status, summary, artifacts) in the progress store."""
    out_dir = kwargs.pop("out_dir", None) or default_out_dir(info.id, store.path.parent)
    prepare_out_dir(out_dir)  # before the run is recorded: an unusable --out leaves no record behind
    # The lock is held before the run is recorded: a studyapp killed in between used to leave a
    # "running" record without a lock, which `sweep_stale_runs` leaves alone for STALE_GRACE (the
    # CI flake of test_a_run_of_a_killed_studyapp_is_not_running_for_ever under load).
    run_lock = _hold_run_lock(out_dir)
    try:
        run_uid = store.start_lab_run(info.id, str(out_dir))
    except BaseException:
        _release_run_lock(run_lock, out_dir)
        raise
    outcome: LabOutcome | None = None
    try:
        outcome = run_lab(
            info, lab_args, out_dir=out_dir, data_dir=store.path.parent, run_lock=run_lock, **kwargs
        )
    except OutDirError as exc:  # e.g. the disk filled between creating the folder and its log
        store.finish_lab_run(run_uid, STATUS_FAILED, str(exc), None)
        raise
    finally:
        if outcome is None and sys.exc_info()[0] is not OutDirError:  # interrupted before an outcome
            store.finish_lab_run(run_uid, STATUS_CANCELLED, "interrupted", None)
    store.finish_lab_run(run_uid, outcome.status, outcome.summary, outcome.result)
    return outcome
