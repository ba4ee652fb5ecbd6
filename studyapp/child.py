"""Run a child process that speaks JSON lines on stdout: a lab, or an exercise's checker.

One set of rules for both, so they cannot drift apart:

- the child gets its own process group (`start_new_session`; a Job Object on Windows): a stop
  reaches everything it started;
- stdout is read as JSON objects, one per line, each with a string `type`; a line that is not one,
  or longer than `max_line_bytes`, is counted as unreadable (a child cannot fill studyapp's memory);
- `cancel` (or Ctrl+C) and the time `limit` stop the whole group: SIGTERM, then SIGKILL;
- the child's exit ends the run even when a process it left behind still holds stdout open
  (after `DRAIN_S` for the last lines), and whatever is left in its group is then killed;
- stderr is kept as a tail of the last `STDERR_LINES` lines, and copied whole to `stderr_log`;
- a child may say it has done its measured work and now serves something (`Serving`, e.g. a lab
  showing TensorBoard): from then on the time limit no longer runs, and a cancel (or Ctrl+C) asks
  it to finish (SIGINT) instead of stopping it, so its report still comes.

Every child runs under `childguard.py` (a tiny process of its own), which makes sure nothing the
child starts outlives the run, even what left the process group (`setsid`, a double fork, issue 25):
it is a child subreaper (Linux), kills every descendant still alive when the child exits, and stops
the whole tree when studyapp dies (its stdin, a pipe only studyapp writes to, reaches end of file).
What it had to stop comes back in `ChildRun.leftovers`. Nothing is passed by inherited descriptor
(its report is a file), so the same runner works on Linux, macOS and Windows; on Windows each guard
is also held in a Job Object (`studyapp/winjob.py`, kill on job close) that ends its whole tree.
What a platform lacks is looked up, not assumed (`_SESSIONS`, `_WINDOWS`): README, "Platforms".
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import enum
import json
import math
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

STOPPED_CANCELLED = "cancelled"
STOPPED_TIMEOUT = "timeout"

MAX_LINE_BYTES = 16 * 1024 * 1024  # far above any real result; a line without end is refused
STDERR_LINES = 40
STDERR_CHUNK = 8192  # stderr is read in pieces of at most this many bytes
DRAIN_S = 1.0  # after the child exits, how long its last lines may take to arrive
STOP_GRACE_S = 4.0  # between SIGTERM and SIGKILL (the guard needs at most TERM_GRACE_S + SWEEP_LIMIT_S)
POLL_S = 0.05
# Every process of a run inherits RUN_MARKER=<a random id> (the learner's code too: labs/_exercise
# keeps it): the parent's backstop finds by it what a killed guard could not sweep (`_sweep_marked`).
RUN_MARKER = "STUDYAPP_CHILD_RUN"
WIND_DOWN_S = 30.0  # a serving child asked to finish: this long to stop its server and report
GUARD = Path(__file__).with_name("childguard.py")
GUARD_START_S = 30.0  # how long the guard may take to start the child and say its pid (a busy machine)
LEFTOVERS_SHOWN = 100  # processes listed by name in `ChildRun.leftovers` (the count is always whole)
REPORT_FILE = "guard-report.jsonl"

# What this platform offers to hold a process tree (read at import: the test emulations of other
# platforms, tests/emulation/, take facilities away before studyapp is imported):
# - POSIX: a session of its own for the guard, so one killpg reaches the guard's group;
# - Windows: a Job Object per run (studyapp/winjob.py), which holds the whole tree;
# - neither (an emulated platform): the guard alone, which still kills what it can find.
_WINDOWS = sys.platform == "win32"
_SESSIONS = not _WINDOWS and hasattr(os, "setsid") and hasattr(os, "killpg")
KILL = getattr(signal, "SIGKILL", signal.SIGTERM)  # Windows: os.kill(SIGTERM) is TerminateProcess


class _Mark(enum.Enum):
    """What the stdout reader queues besides lines."""

    OVERSIZED = "a line over the limit"
    END = "stdout closed"


class ChildStartError(OSError):
    """The child could not be started at all (the OSError of Popen, kept as the cause)."""


@dataclass
class ChildRun:
    """How a child run ended. `stopped_for` is "" when the child ended by itself.

    `leftovers`: "name (pid N)" of each process the child (or what it ran) left running and the
    guard had to kill after it exited; `leftover_count` counts them all (the list stops at
    LEFTOVERS_SHOWN).
    """

    stopped_for: str  # "" | cancelled | timeout
    exit_code: int | None
    unreadable_lines: int
    stderr_tail: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    leftovers: list[str] = field(default_factory=list)
    leftover_count: int = 0
    served: bool = False  # the child said it was serving (see `Serving`)


@dataclass(frozen=True)
class Serving:
    """A child's word that its measured work is done and it now serves something until asked to
    stop (or for `limit_s` seconds): the run's time limit no longer applies."""

    limit_s: float | None = None


# The children this studyapp started and has not reaped: stopped at exit, whatever ends the app
# (ctrl+q in the TUI, an exception), so no lab or checker outlives the app that shows it.
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


def _stop_all_at_exit() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        stop_process_group(process)


atexit.register(_stop_all_at_exit)


def describe_leftovers(names: list[str], count: int) -> str:
    """'sleep ×4, python3' from ['sleep (pid 1)', …]: what was stopped, by program name."""
    programs: dict[str, int] = {}
    for entry in names:
        program = entry.rsplit(" (pid ", 1)[0]
        programs[program] = programs.get(program, 0) + 1
    shown = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in programs.items())
    return shown + (f", … ({count - len(names)} more)" if count > len(names) else "")


# `python -c CODE` puts the current folder first on sys.path, so a learner's `statistics.py` there
# would replace the standard library's in a lab (reliability review M2). `-P` (Python 3.11+) leaves
# it out; on 3.10 the code itself drops it (`SAFE_PATH_PRELUDE`) before importing anything.
SAFE_PATH_FLAGS: tuple[str, ...] = ("-P",) if sys.version_info >= (3, 11) else ()
SAFE_PATH_PRELUDE = "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "


def python_code_command(code: str, *args: str) -> list[str]:
    """`python -c CODE ARGS` that never imports from the current folder (see SAFE_PATH_FLAGS)."""
    return [sys.executable, *SAFE_PATH_FLAGS, "-c", SAFE_PATH_PRELUDE + code, *args]


def child_env(pythonpath: Sequence[str], **settings: str) -> dict[str, str]:
    """This process's environment for a Python child: `pythonpath` first, unbuffered output,
    torch's C++ log quiet unless the learner set it, and `settings` on top."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"  # progress must arrive while the child runs
    env.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    paths = [*pythonpath, *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(settings)
    return env


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a child started in its own process group (or job), and everything it started."""
    if process.poll() is not None:
        return
    _continue(process.pid)  # a stopped guard (learner code can SIGSTOP it) must run to sweep
    if not _signal_group(process.pid, signal.SIGTERM):
        process.terminate()  # the guard stops its command and what it finds (Windows: the job does)
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        if not _signal_group(process.pid, KILL):
            process.kill()
        process.wait()
    job = _JOBS.get(process.pid)
    if job is not None:
        job.terminate()


def _signal_group(group: int, signum: int) -> bool:
    """Signal a process group; False where there are none (Windows, an emulated platform)."""
    if not _SESSIONS:
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)
    return True


def _continue(group: int) -> None:
    """SIGCONT to a process group: learner code may have stopped the guard (SIGSTOP), which would
    then neither notice its child's end nor sweep what it left (reliability review L1)."""
    if hasattr(signal, "SIGCONT"):
        _signal_group(group, signal.SIGCONT)


def _sweep_marked(marker: str) -> None:
    """Kill every process whose environment carries this run's marker (Linux, /proc).

    The backstop when the guard died before its own sweep (learner code can SIGKILL it): what the
    guard had adopted went to init, out of every group studyapp knows, but it still carries the
    environment it inherited. Rounds of SIGKILL until none is left, 1 s at most (it may fork).
    """
    needle = f"{RUN_MARKER}={marker}".encode()
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        try:
            entries = [entry for entry in os.listdir("/proc") if entry.isdigit()]
        except OSError:
            return  # no /proc: nothing to read the marker from
        found = 0
        for entry in entries:
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle not in handle.read().split(b"\0"):
                        continue
                os.kill(int(entry), KILL)
                found += 1
            except (OSError, ValueError):
                continue  # ended meanwhile, or another user's
        if not found:
            return
        time.sleep(0.01)


def _sweep_leftovers(process: subprocess.Popen[bytes], command_pid: int | None) -> None:
    """The backstop behind the guard: kill the guard's group and the child's group, in case the
    guard itself was killed before it could sweep (the guard's own sweep also catches processes
    that left both groups)."""
    for group in (process.pid, command_pid):
        if group is not None:
            _signal_group(group, KILL)


class _GuardReport:
    """The guard's side channel, a file (no inherited descriptor: the same on every platform): the
    child's pid first, then what the guard stopped at the end (JSON lines)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.command_pid: int | None = None
        self.start_error: str | None = None
        self.swept = False  # the guard reported its final sweep (it was not killed before it)

    def _lines(self) -> list[bytes]:
        try:
            return self.path.read_bytes()[: 1024 * 1024].splitlines(keepends=True)
        except OSError:
            return []

    def wait_for_start(self, process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + GUARD_START_S
        lines = self._lines()
        while not (lines and lines[0].endswith(b"\n")) and time.monotonic() < deadline:
            if process.poll() is not None:
                lines = self._lines()
                break
            time.sleep(0.005)
            lines = self._lines()
        message = _json_object(lines[0]) if lines else {}
        pid = message.get("pid")
        self.command_pid = pid if isinstance(pid, int) and pid > 0 else None
        if "pid" in message and self.command_pid is None:
            self.start_error = str(message.get("error") or "the child could not be started")

    def stopped(self) -> tuple[list[str], int]:
        """What the guard stopped (read once the guard has exited)."""
        lines = [line for line in self._lines() if line.strip()]
        message = _json_object(lines[-1]) if len(lines) > 1 else {}
        entries = message.get("stopped")
        if not isinstance(entries, list):
            return [], 0
        self.swept = True
        names = [
            f"{entry.get('name')} (pid {entry.get('pid')})" for entry in entries if isinstance(entry, dict)
        ]
        count = message.get("count")
        return names[:LEFTOVERS_SHOWN], count if isinstance(count, int) else len(names)


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def parse_message(raw: bytes) -> dict[str, Any] | None:
    """One protocol line as a message (a JSON object with a string `type`), else None."""
    try:
        message = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: nested past any real message
        return None
    return message if isinstance(message, dict) and isinstance(message.get("type"), str) else None


def _pump_stdout(stream: IO[bytes], lines: queue.Queue[bytes | _Mark], max_line_bytes: int) -> None:
    while True:
        line = stream.readline(max_line_bytes + 1)
        if not line:
            break
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            lines.put(_Mark.OVERSIZED)  # counted now: a line without end never finishes dropping
            while line and not line.endswith(b"\n"):  # drop the rest of it, piece by piece
                line = stream.readline(max_line_bytes)
            continue
        lines.put(line)
    lines.put(_Mark.END)


def _pump_stderr(stream: IO[bytes], tail: collections.deque[str], log: IO[bytes] | None) -> None:
    while chunk := stream.readline(STDERR_CHUNK):
        if log is not None:
            try:
                log.write(chunk)
                log.flush()  # the log is read while a lab runs, and after a crash
            except (OSError, ValueError):  # a full disk, or the log closed after the run
                log = None
        text = chunk.decode("utf-8", errors="replace").rstrip()
        if text:
            tail.append(text)


def run_child(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    limit: float,
    on_message: Callable[[dict[str, Any]], bool],
    cwd: Path | None = None,
    cancel: threading.Event | None = None,
    stderr_log: IO[bytes] | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    serving: Callable[[], Serving | None] | None = None,
) -> ChildRun:
    """Run `command` to its end, `limit` seconds at most; blocking (a UI calls it from a thread).

    `on_message` is called on this thread for each message as it arrives; it returns False for
    a message it does not understand (counted as unreadable). `serving`, asked as messages come,
    returns a `Serving` once the child said it serves (the caller's `on_message` reads that
    message). Raises ChildStartError when the child cannot start.
    """
    if not (math.isfinite(limit) and limit > 0):  # a NaN limit is never passed: the run would be unbounded
        raise ValueError(f"a child's time limit must be a positive number of seconds, not {limit!r}")
    started = time.monotonic()
    marker = os.urandom(8).hex()
    with tempfile.TemporaryDirectory(prefix="studyapp-guard-", ignore_cleanup_errors=True) as scratch:
        report = _GuardReport(Path(scratch) / REPORT_FILE)
        guarded = [
            sys.executable,
            "-I",  # isolated: the learner's PYTHON* variables and site-packages do not reach the guard
            "-S",
            str(GUARD),
            str(report.path),
            *command,
        ]
        try:
            with _LIVE_LOCK:  # a sweep of another run never sees this child before it is listed
                process = subprocess.Popen(
                    guarded,
                    cwd=cwd,
                    stdin=subprocess.PIPE,  # the lifeline: studyapp holds the only write end, EOF = gone
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env={**env, RUN_MARKER: marker},
                    **_popen_options(),
                )
                _LIVE.add(process)
        except OSError as exc:
            raise ChildStartError(str(exc)) from exc
        job = _hold_in_job(process)
        try:
            report.wait_for_start(process)
            if report.start_error is not None:
                process.wait()
                raise ChildStartError(report.start_error)
            run = _read_child(
                process, report, started, limit, on_message, cancel, stderr_log, max_line_bytes, serving
            )
            if not report.swept:  # the guard was killed (or stopped for good) before its sweep
                _sweep_marked(marker)
            if job is not None:
                _end_job(job, run)
            return run
        finally:
            if process.poll() is None:  # only when something above raised
                stop_process_group(process)
            with _LIVE_LOCK:
                _LIVE.discard(process)
            if job is not None:
                job.close()  # kill on job close: nothing of the tree is left
                _JOBS.pop(process.pid, None)
            with contextlib.suppress(OSError):
                process.stdin.close()  # type: ignore[union-attr]


def _popen_options() -> dict[str, Any]:
    """How the guard starts: its own session (POSIX), its own console group for CTRL_BREAK (Windows)."""
    if _WINDOWS:
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
    return {"start_new_session": True} if _SESSIONS else {}


# Windows: each live guard's Job Object, by the guard's pid (stop_process_group ends the job too).
_JOBS: dict[int, Any] = {}


def _hold_in_job(process: subprocess.Popen[bytes], kernel32: Any | None = None) -> Any | None:
    """Windows: put the guard in a Job Object (kill-on-job-close), so its whole tree is held.

    None elsewhere, or where the job cannot be made: the run goes on with the guard alone — a
    limit of the machine, never reported as the learner's fault. `kernel32`: a fake, in tests."""
    if not _WINDOWS and kernel32 is None:
        return None
    from studyapp.winjob import JobObject

    try:
        job = JobObject(kernel32)
        if not job.assign(int(process._handle)):  # type: ignore[attr-defined]
            job.close()
            return None
    except OSError:
        return None
    _JOBS[process.pid] = job
    return job


def _end_job(job: Any, run: ChildRun) -> None:
    """After the guard's exit: what still runs in the job was left by the child; stop and count it."""
    pids, count = job.pids()
    job.terminate()
    if count:
        run.leftovers = [*run.leftovers, *(f"process (pid {pid})" for pid in pids)][:LEFTOVERS_SHOWN]
        run.leftover_count += count


def _read_child(
    process: subprocess.Popen[bytes],
    report: _GuardReport,
    started: float,
    limit: float,
    on_message: Callable[[dict[str, Any]], bool],
    cancel: threading.Event | None,
    stderr_log: IO[bytes] | None,
    max_line_bytes: int,
    serving: Callable[[], Serving | None] | None,
) -> ChildRun:
    assert process.stdout is not None and process.stderr is not None
    lines: queue.Queue[bytes | _Mark] = queue.Queue()
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
    readers = [
        threading.Thread(target=_pump_stdout, args=(process.stdout, lines, max_line_bytes), daemon=True),
        threading.Thread(target=_pump_stderr, args=(process.stderr, tail, stderr_log), daemon=True),
    ]
    for reader in readers:
        reader.start()

    unreadable = 0
    stopped_for = ""
    exited_at: float | None = None
    served: Serving | None = None
    served_since = 0.0
    asked_to_finish_at: float | None = None

    def ask_to_finish() -> bool:
        """A serving child is asked to end serving (SIGINT, passed on by the guard); False if not serving."""
        nonlocal asked_to_finish_at
        if served is None or asked_to_finish_at is not None:
            return False
        with contextlib.suppress(ProcessLookupError, OSError):
            # Windows: CTRL_BREAK reaches the guard's console group (labs/_protocol makes it a
            # KeyboardInterrupt); POSIX: SIGINT to the guard, which passes it on.
            process.send_signal(
                getattr(signal, "CTRL_BREAK_EVENT", signal.SIGINT) if _WINDOWS else signal.SIGINT
            )
        asked_to_finish_at = time.monotonic()
        return True

    try:
        while True:
            try:
                now = time.monotonic()
                # A cancel while serving asks the child to finish (once); otherwise it stops the child.
                cancelled = cancel is not None and cancel.is_set()
                if cancelled and not ask_to_finish() and asked_to_finish_at is None:
                    stopped_for = STOPPED_CANCELLED
                    break
                if asked_to_finish_at is not None and now - asked_to_finish_at > WIND_DOWN_S:
                    stopped_for = STOPPED_CANCELLED  # asked to finish serving, and it did not
                    break
                if served is None and now - started > limit:
                    stopped_for = STOPPED_TIMEOUT
                    break
                if (
                    served is not None
                    and served.limit_s is not None
                    and now - served_since > served.limit_s + WIND_DOWN_S
                ):
                    stopped_for = STOPPED_TIMEOUT  # it said how long it would serve, and overran
                    break
                try:
                    raw = lines.get(timeout=POLL_S)
                except queue.Empty:
                    _continue(process.pid)  # the guard is kept running, whatever the learner's code sends it
                    # A process the child left behind may hold stdout open after the child exited:
                    # the child's exit, not the end of the pipe, ends the run (after a short drain).
                    if process.poll() is not None:
                        exited_at = exited_at or time.monotonic()
                        if time.monotonic() - exited_at > DRAIN_S:
                            break
                    continue
                if raw is _Mark.END:
                    break
                if raw is _Mark.OVERSIZED:
                    message = None
                elif raw.strip():
                    message = parse_message(raw)
                else:
                    continue  # a blank line says nothing
                if message is None or not on_message(message):
                    unreadable += 1
                if served is None and serving is not None:
                    served = serving()
                    served_since = time.monotonic()
            except KeyboardInterrupt:
                if not ask_to_finish():  # serving: Ctrl+C ends serving, the report still comes
                    stopped_for = STOPPED_CANCELLED  # otherwise (or a second Ctrl+C): stop it
                    break
    finally:
        time_left = WIND_DOWN_S if served is not None else limit - (time.monotonic() - started)
        stopped_for = _end(process, stopped_for, time_left)
        _sweep_leftovers(process, report.command_pid)
    for reader in readers:
        reader.join(timeout=1)  # a process that escaped the group may hold a pipe: do not wait on it
    leftovers, count = report.stopped()
    return ChildRun(
        stopped_for,
        process.returncode,
        unreadable,
        list(tail),
        time.monotonic() - started,
        leftovers,
        count,
        served is not None,
    )


def _end(process: subprocess.Popen[bytes], stopped_for: str, time_left: float) -> str:
    """Stop the child if the run was stopped, else wait for its exit; returns why it was stopped."""
    if stopped_for:
        stop_process_group(process)
        return stopped_for
    try:
        process.wait(timeout=max(1.0, time_left))
    except subprocess.TimeoutExpired:
        stopped_for = STOPPED_TIMEOUT
    except KeyboardInterrupt:
        stopped_for = STOPPED_CANCELLED
    if stopped_for:
        stop_process_group(process)
    return stopped_for
