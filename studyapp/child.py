"""Run a child process that speaks JSON lines on stdout: a lab, or an exercise's checker.

One set of rules for both, so they cannot drift apart:

- the child gets its own process group (`start_new_session`): a stop reaches everything it started;
- stdout is read as JSON objects, one per line, each with a string `type`; a line that is not one,
  or longer than `max_line_bytes`, is counted as unreadable (a child cannot fill studyapp's memory);
- `cancel` (or Ctrl+C) and the time `limit` stop the whole group: SIGTERM, then SIGKILL;
- the child's exit ends the run even when a process it left behind still holds stdout open
  (after `DRAIN_S` for the last lines), and whatever is left in its group is then killed;
- stderr is kept as a tail of the last `STDERR_LINES` lines, and copied whole to `stderr_log`.

A child that escapes its process group (`setsid`, a double fork) is not found by the sweep;
`_sweep_leftovers` is the one place where a subreaper or cgroup sweep would go (issue 25).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import enum
import json
import os
import queue
import signal
import subprocess
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
STOP_GRACE_S = 3.0  # between SIGTERM and SIGKILL
POLL_S = 0.05


class _Mark(enum.Enum):
    """What the stdout reader queues besides lines."""

    OVERSIZED = "a line over the limit"
    END = "stdout closed"


class ChildStartError(OSError):
    """The child could not be started at all (the OSError of Popen, kept as the cause)."""


@dataclass
class ChildRun:
    """How a child run ended. `stopped_for` is "" when the child ended by itself."""

    stopped_for: str  # "" | cancelled | timeout
    exit_code: int | None
    unreadable_lines: int
    stderr_tail: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


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
    """Stop a child started in its own process group, and everything it started (workers too)."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
        process.wait()


def _sweep_leftovers(process: subprocess.Popen[bytes]) -> None:
    """Kill what the child started and left running: its process group outlives it.

    The one place for a wider sweep (a subreaper or cgroup) of processes that left the group.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


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
            while line and not line.endswith(b"\n"):  # drop the rest of it, piece by piece
                line = stream.readline(max_line_bytes)
            lines.put(_Mark.OVERSIZED)
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
) -> ChildRun:
    """Run `command` to its end, `limit` seconds at most; blocking (a UI calls it from a thread).

    `on_message` is called on this thread for each message as it arrives; it returns False for
    a message it does not understand (counted as unreadable). Raises ChildStartError when the
    child cannot start.
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            start_new_session=True,  # its own process group: one stop reaches its workers too
        )
    except OSError as exc:
        raise ChildStartError(str(exc)) from exc
    with _LIVE_LOCK:
        _LIVE.add(process)
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
    try:
        while True:
            if cancel is not None and cancel.is_set():
                stopped_for = STOPPED_CANCELLED
                break
            if time.monotonic() - started > limit:
                stopped_for = STOPPED_TIMEOUT
                break
            try:
                raw = lines.get(timeout=POLL_S)
            except queue.Empty:
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
    except KeyboardInterrupt:
        stopped_for = STOPPED_CANCELLED
    finally:
        stopped_for = _end(process, stopped_for, limit - (time.monotonic() - started))
        _sweep_leftovers(process)
        with _LIVE_LOCK:
            _LIVE.discard(process)
    for reader in readers:
        reader.join(timeout=1)  # a process that escaped the group may hold a pipe: do not wait on it
    return ChildRun(stopped_for, process.returncode, unreadable, list(tail), time.monotonic() - started)


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
