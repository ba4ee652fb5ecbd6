"""Run one lab in a subprocess and collect what it reports.

The lab speaks the JSON-lines protocol of `labs/_protocol.py` on stdout. Its stderr (torch's C++
layer writes there freely) goes to a log file in the artifact directory, never to the screen.
A lab that crashes, prints garbage, hangs past its timeout or is cancelled ends in one clear
`LabOutcome`; the app itself never crashes with it.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from studyapp import locations
from studyapp.labrunner.registry import LabInfo

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

    @property
    def summary(self) -> str:
        if self.result and self.result.get("summary"):
            return str(self.result["summary"])
        return self.message


def default_out_dir(lab: str, data_dir: Path | None = None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    return (data_dir or locations.data_dir()) / "runs" / lab / stamp


# `python -m labs.NAME` would look in the current directory first; this puts the labs root first
# so the lab that runs is the one the registry found, whatever directory the learner is in.
_LAUNCH = "import runpy, sys; sys.path.insert(0, {root!r}); runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"


def lab_command(info: LabInfo, lab_args: Sequence[str], quick: bool, out_dir: Path) -> list[str]:
    launch = _LAUNCH.format(root=str(info.path.parent.parent), module=f"labs.{info.id}")
    command = [sys.executable, "-c", launch, *lab_args, "--out", str(out_dir)]
    if quick:
        command.append("--quick")
    return command


def _lab_env(data_dir: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if data_dir is not None:  # labs that keep state (saved benchmark runs) keep it with the learner's data
        env["STUDYAPP_HOME"] = str(data_dir)
    env["STUDYAPP_LAB_PROTOCOL"] = "jsonl"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    root = str(locations.labs_root())
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the lab and everything it started (worker processes too)."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        process.terminate()
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
        process.wait()


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
) -> LabOutcome:
    """Run a lab to the end (or until cancelled / timed out). Blocking; call from a thread in a UI."""
    out_dir = out_dir or default_out_dir(info.id)
    out_dir.mkdir(parents=True, exist_ok=True)
    limit = timeout or (info.quick_timeout_s if quick else info.timeout_s)
    stderr_log = out_dir / "lab-stderr.log"
    started = time.monotonic()
    events: list[ProgressEvent] = []
    lines: queue.Queue[bytes | None] = queue.Queue()

    with stderr_log.open("wb") as err:
        process = subprocess.Popen(
            lab_command(info, lab_args, quick, out_dir),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            env=_lab_env(data_dir),
            start_new_session=True,  # its own process group: we stop it and its workers together
        )

        def pump() -> None:
            assert process.stdout is not None
            for raw in process.stdout:
                lines.put(raw)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        result: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        garbage = 0
        stopped_for = ""
        try:
            finished_output = False
            while not finished_output:
                if cancel is not None and cancel.is_set():
                    stopped_for = "cancelled"
                    break
                if time.monotonic() - started > limit:
                    stopped_for = "timeout"
                    break
                try:
                    raw = lines.get(timeout=0.1)
                except queue.Empty:
                    continue
                if raw is None:
                    finished_output = True
                    continue
                message = _parse_line(raw)
                if message is None:
                    garbage += 1
                elif message.get("type") == "progress":
                    event = ProgressEvent(
                        str(message.get("phase", "")),
                        _fraction(message.get("fraction")),
                        str(message.get("message", "")),
                    )
                    events.append(event)
                    if on_progress is not None:
                        on_progress(event)
                elif message.get("type") == "result" and isinstance(message.get("result"), dict):
                    result = message["result"]
                elif message.get("type") == "error":
                    error = message
                else:
                    garbage += 1
        except KeyboardInterrupt:
            stopped_for = "cancelled"
        finally:
            if stopped_for:
                _stop(process)
            else:
                try:
                    process.wait(timeout=max(1.0, limit - (time.monotonic() - started)))
                except subprocess.TimeoutExpired:
                    stopped_for = "timeout"
                    _stop(process)
    elapsed = time.monotonic() - started
    code = process.returncode

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
            events,
        )

    if stopped_for == "cancelled":
        return outcome(STATUS_CANCELLED, f"{info.id}: cancelled after {elapsed:.1f} s", "cancelled")
    if stopped_for == "timeout":
        return outcome(STATUS_FAILED, f"{info.id}: stopped after {limit:.0f} s (timeout)", "timeout")
    if code == 0 and result is not None:
        (out_dir / "result.json").write_text(
            json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8"
        )
        return outcome(STATUS_OK, str(result.get("summary", "")))
    if code == EXIT_INTERRUPTED or (error and error.get("kind") == "cancelled"):
        return outcome(STATUS_CANCELLED, f"{info.id}: cancelled", "cancelled")
    if error is not None:
        reason = str(error.get("kind", "crash"))
        text = _one_line(str(error.get("message", "")))
        if reason == "crash":
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
        STATUS_FAILED, f"{info.id} lab failed with exit code {code} (details: {stderr_log})", reason
    )


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _fraction(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return min(1.0, max(0.0, float(value)))
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def run_and_record(store: Any, info: LabInfo, lab_args: Sequence[str] = (), **kwargs: Any) -> LabOutcome:
    """Run a lab and record the run (start, end, status, summary, artifacts) in the progress store."""
    out_dir = kwargs.pop("out_dir", None) or default_out_dir(info.id, store.path.parent)
    run_uid = store.start_lab_run(info.id, str(out_dir))
    outcome: LabOutcome | None = None
    try:
        outcome = run_lab(info, lab_args, out_dir=out_dir, data_dir=store.path.parent, **kwargs)
    finally:
        if outcome is None:  # interrupted before an outcome existed
            store.finish_lab_run(run_uid, STATUS_CANCELLED, "interrupted", None)
    store.finish_lab_run(run_uid, outcome.status, outcome.summary, outcome.result)
    return outcome
