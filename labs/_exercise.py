"""The library every exercise checker (`labs/NAME/exercises/ID/check.py`) uses.

A checker is a small program that studyapp runs as `python check.py --workspace DIR [--quick]`
(docs/EXERCISES.md, "The checker contract"). This module does the parts every checker needs, so a
checker only says *what* it checks:

    from labs._exercise import Checker, parse_args, run_learner

    def main() -> None:
        args = parse_args()
        with Checker(args) as check:
            check.progress("calling your add()")
            result = run_learner(args.workspace, "adder.py", "add", 2, 3)
            if check.require_ran("add() runs", result):
                check.require("adds", result.value == 5, "add(2, 3) = 5", f"add(2, 3) = {result.value!r}")

- `Checker` writes the JSON-lines protocol when STUDYAPP_EXERCISE_PROTOCOL=jsonl (else a readable
  report), turns any unexpected exception of the checker's own code into one failed requirement,
  and exits 0 passed / 1 failed / 3 undecided / 130 interrupted.
- `run_learner` / `run_learner_script` run the learner's code in a child process with a timeout
  and bring back plain data, their output, and their traceback trimmed to their own files.
- `compare_speed` compares a candidate with a reference in the same child process, in interleaved
  rounds, and decides only when the ratio is clear of the threshold by more than the noise.
- `decide_with_control` decides a speed requirement measured by the checker itself (a speedup, a
  throughput), with the reference solution measured in the same rounds as the control: it fails
  the learner only where the reference, on this machine and at this moment, does better.

Only the standard library is imported here: a checker that needs torch imports it itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pickle
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn

from labs._protocol import _clean  # the labs' JSON-safe values: NaN/inf become null

PROTOCOL_ENV = "STUDYAPP_EXERCISE_PROTOCOL"

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNDECIDED = 3
EXIT_INTERRUPTED = 130

PASSED = "passed"
FAILED = "failed"
UNDECIDED = "undecided"

MESSAGE_LIMIT = 300
OUTPUT_LIMIT = 64_000  # bytes of the learner's stdout/stderr kept
TRACEBACK_FRAMES = 20

# The folder that holds the `labs` package: the learner's child process imports this module from it.
_LABS_PARENT = str(Path(__file__).resolve().parent.parent)


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
        self.jsonl = os.environ.get(PROTOCOL_ENV) == "jsonl" if jsonl is None else jsonl
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
                f"the check stopped on an unexpected {kind.__name__}: {error}{where}",
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

    def _emit(self, message: dict[str, Any]) -> None:
        self._out.write(json.dumps(_clean(message), ensure_ascii=False) + "\n")
        self._out.flush()

    def progress(self, message: str) -> None:
        """What the check is doing now (shown live by `studyapp exercise check`)."""
        text = one_line(message)
        if self.jsonl:
            self._emit({"type": "progress", "message": text})
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
            return True
        if result.traceback and self.learner_traceback is None:
            self.learner_traceback = result.traceback
        self.requirement(name, False, result.error or "your code did not run")
        return False

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
        self.requirements.append(requirement)
        if self.jsonl:
            self._emit({"type": "requirement", **requirement.to_dict()})
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
            self.requirement("the check ran", False, "the checker checked nothing (a fault of the exercise)")
        self._finished = True
        verdict = self.verdict
        if self.jsonl:
            self._emit(
                {
                    "type": "result",
                    "verdict": verdict,
                    "requirements": [r.to_dict() for r in self.requirements],
                    "learner_traceback": self.learner_traceback,
                }
            )
        else:
            failed = sum(1 for r in self.requirements if not r.passed)
            if self.learner_traceback:
                self._out.write("\nyour code raised:\n" + self.learner_traceback.rstrip() + "\n")
            summary = {
                PASSED: f"passed: all {len(self.requirements)} requirements hold",
                FAILED: f"not yet: {failed} of {len(self.requirements)} requirements fail",
                UNDECIDED: "undecided: the machine was too busy to tell; close other programs and check again",
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


# -- running the learner's code ----------------------------------------------------------------------


@dataclass
class LearnerResult:
    """What happened when the learner's code ran in a child process."""

    ok: bool  # it returned (a function) or exited 0 (a script) in time
    value: Any = None  # the function's return value, as plain data
    stdout: str = ""
    stderr: str = ""
    traceback: str | None = None  # trimmed to frames in the workspace, paths relative to it
    error: str | None = None  # one line: "ZeroDivisionError: division by zero (solution.py:3)"
    timed_out: bool = False
    exit_code: int | None = None
    duration_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def run_learner(
    workspace: str | os.PathLike[str],
    module_file: str | os.PathLike[str],
    function_name: str,
    *args: Any,
    timeout_s: float = 60.0,
    kwargs: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> LearnerResult:
    """Import `module_file` (relative to the workspace, or an absolute path such as a driver next to
    check.py) in a child process and call `function_name(*args, **kwargs)` there.

    The workspace is the child's working directory and first on its `sys.path`. Arguments travel
    by pickle; the return value must be plain data (None, bool, int, float, str, bytes, and
    lists, tuples, dicts, sets of them; numpy/torch values are turned into lists and numbers
    with `.tolist()`). The child is stopped, with everything it started, after `timeout_s`.
    """
    request = {
        "mode": "function",
        "module_file": str(module_file),
        "function": function_name,
        "args": args,
        "kwargs": kwargs or {},
    }
    return _run_child(Path(workspace), request, timeout_s, env)


def run_learner_script(
    workspace: str | os.PathLike[str],
    script: str | os.PathLike[str],
    *argv: str,
    timeout_s: float = 60.0,
    env: dict[str, str] | None = None,
) -> LearnerResult:
    """Run `script` (relative to the workspace, or absolute) as `__main__` with `argv`, in a child
    process as `run_learner` does. `ok` when it ends normally or with `sys.exit(0)`."""
    request = {"mode": "script", "module_file": str(script), "argv": [str(a) for a in argv]}
    return _run_child(Path(workspace), request, timeout_s, env)


def _child_env(extra: dict[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the learner's folder stays free of __pycache__
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    env.pop(PROTOCOL_ENV, None)  # the learner's code is not a checker
    env.update(extra or {})
    return env


def _run_child(
    workspace: Path, request: dict[str, Any], timeout_s: float, env: dict[str, str] | None
) -> LearnerResult:
    workspace = workspace.resolve()
    request["workspace"] = str(workspace)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="studyapp-learner-") as scratch:
        folder = Path(scratch)
        request_path, response_path = folder / "request.pkl", folder / "response.pkl"
        try:
            request_path.write_bytes(pickle.dumps(request))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            raise ValueError(f"arguments for the learner's code must be picklable: {exc}") from exc
        code = (
            f"import sys; sys.path.insert(0, {_LABS_PARENT!r}); "
            f"from labs._exercise import _child_main; _child_main({str(request_path)!r}, {str(response_path)!r})"
        )
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=workspace,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_child_env(env),
            start_new_session=True,  # its own group: a timeout stops its workers too
        )
        # Pipes drained by threads that keep only the first OUTPUT_LIMIT bytes: a learner's loop
        # printing without end can neither block the child nor fill the disk.
        readers = [_OutputReader(process.stdout), _OutputReader(process.stderr)]
        timed_out = False
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Also on Ctrl+C / SIGTERM of the checker: never leave the learner's code running.
            _kill_group(process)
            for reader in readers:
                reader.join()
        duration = time.monotonic() - started
        stdout, stderr = (reader.text() for reader in readers)
        response: dict[str, Any] = {}
        if not timed_out and response_path.is_file():
            with contextlib.suppress(Exception):
                response = pickle.loads(response_path.read_bytes())
    result = LearnerResult(
        ok=False, stdout=stdout, stderr=stderr, exit_code=process.returncode, duration_s=duration
    )
    if timed_out:
        result.timed_out = True
        result.error = (
            f"your code did not finish within {timeout_s:g} s (an endless loop, or waiting on something?)"
        )
        return result
    if not response:
        last = stderr.strip().splitlines()[-1:] if stderr.strip() else []
        why = f": {one_line(last[0], 160)}" if last else ""
        result.error = f"your code ended the process (exit code {process.returncode}){why}"
        return result
    result.ok = bool(response.get("ok"))
    result.value = response.get("value")
    result.traceback = response.get("traceback")
    result.error = response.get("error")
    result.extra = response.get("extra", {})
    if "exit_code" in response:
        result.exit_code = response["exit_code"]
    return result


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    with contextlib.suppress(Exception):
        process.wait(timeout=5)


class _OutputReader:
    """Reads a child's pipe to its end in a thread, keeping the first OUTPUT_LIMIT bytes."""

    def __init__(self, pipe: Any) -> None:
        self._pipe = pipe
        self._kept = bytearray()
        self._thread = threading.Thread(target=self._read, daemon=True, name="studyapp-learner-output")
        self._thread.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = self._pipe.read1(65536)
                if not chunk:
                    break
                room = OUTPUT_LIMIT - len(self._kept)
                if room > 0:
                    self._kept += chunk[:room]

    def join(self) -> None:
        # A process that escaped the group may hold the pipe open: do not wait for it for long.
        self._thread.join(timeout=2)
        if not self._thread.is_alive():  # closing under a blocked read could hang on its lock
            with contextlib.suppress(OSError):
                self._pipe.close()

    def text(self) -> str:
        return bytes(self._kept).decode("utf-8", errors="replace")


# -- inside the learner's child process --------------------------------------------------------------


def _child_main(request_path: str, response_path: str) -> None:
    """Entry point of the child: run what the request asks, write a pickled response."""
    with open(request_path, "rb") as handle:
        request = pickle.load(handle)
    workspace = request["workspace"]
    _watch_parent()
    sys.path.insert(0, workspace)
    response: dict[str, Any]
    try:
        if request["mode"] == "function":
            function = _load_function(workspace, request["module_file"], request["function"])
            value = function(*request["args"], **request["kwargs"])
            response = _returned(value)
        elif request["mode"] == "script":
            response = _run_script(workspace, request["module_file"], request["argv"])
        elif request["mode"] == "speed":
            response = {"ok": True, "value": _measure_speed(workspace, request)}
        else:
            response = {"ok": False, "error": f"unknown request {request['mode']!r}"}
    except SystemExit as exc:
        response = {
            "ok": False,
            "error": f"your code called sys.exit({exc.code!r})",
            "traceback": _learner_traceback(exc, workspace),
        }
    except BaseException as exc:  # anything the learner's code raises is reported
        response = {
            "ok": False,
            "error": _error_line(exc, workspace),
            "traceback": _learner_traceback(exc, workspace),
        }
    sys.stdout.flush()
    try:
        data = pickle.dumps(response)
    except Exception as exc:  # a value pickle cannot take
        data = pickle.dumps({"ok": False, "error": f"the result could not be sent back: {exc}"})
    with open(response_path, "wb") as handle:
        handle.write(data)
    # os._exit: the learner's non-daemon threads or atexit handlers must not keep the child alive.
    sys.stderr.flush()
    os._exit(0)


def _watch_parent() -> None:
    """Exit when the checker dies without stopping us (SIGKILL): no orphan keeps computing."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="studyapp-parent-watch").start()


def _resolve(workspace: str, module_file: str) -> Path:
    path = Path(module_file)
    return path if path.is_absolute() else Path(workspace) / path


def _load_function(workspace: str, module_file: str, name: str) -> Any:
    import importlib.util

    path = _resolve(workspace, module_file)
    if not path.is_file():
        raise _LearnerProblem(f"{module_file} is missing from your workspace")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise _LearnerProblem(f"cannot import {module_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # so pickle, dataclasses and `import` by name find it
    spec.loader.exec_module(module)
    function = getattr(module, name, None)
    if not callable(function):
        raise _LearnerProblem(f"{module_file} has no function {name}()")
    return function


class _LearnerProblem(Exception):
    """Something about the learner's files (missing file or function): reported without traceback."""


def _run_script(workspace: str, script: str, argv: list[str]) -> dict[str, Any]:
    import runpy

    path = _resolve(workspace, script)
    if not path.is_file():
        raise _LearnerProblem(f"{script} is missing from your workspace")
    sys.argv = [str(path), *argv]
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code in (0, None):
            return {"ok": True, "exit_code": 0}
        return {
            "ok": False,
            "exit_code": code if isinstance(code, int) else 1,
            "error": f"{script} exited with {code!r}",
        }
    return {"ok": True, "exit_code": 0}


def _returned(value: Any) -> dict[str, Any]:
    try:
        return {"ok": True, "value": _plain(value)}
    except TypeError as exc:
        return {"ok": False, "error": str(exc)}


_SCALARS = (type(None), bool, int, float, complex, str, bytes)


def _plain(value: Any, depth: int = 0) -> Any:
    """The value as plain data the checker can unpickle without importing the learner's code."""
    if depth > 50:
        raise TypeError("your function returned data nested too deeply")
    if type(value) in _SCALARS:
        return value
    if isinstance(value, _SCALARS):  # subclasses such as numpy.float64, IntEnum
        if callable(getattr(value, "item", None)):
            return value.item()
        base = next(kind for kind in (bool, int, float, complex, str, bytes) if isinstance(value, kind))
        return base(value)
    if isinstance(value, dict):
        return {_plain(k, depth + 1): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v, depth + 1) for v in value]
        if isinstance(value, list):
            return items
        if isinstance(value, tuple):
            return tuple(items)  # a namedtuple becomes a plain tuple
        return frozenset(items) if isinstance(value, frozenset) else set(items)
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy arrays and scalars, torch tensors
        return _plain(tolist(), depth + 1)
    raise TypeError(
        f"your function returned a {type(value).__name__}; return plain data "
        "(numbers, strings, lists, tuples, dicts)"
    )


def _in_workspace(filename: str, workspace: str) -> bool:
    if filename.startswith("<"):
        return False
    root = os.path.realpath(workspace)
    return os.path.realpath(filename).startswith(root + os.sep)


def _relative(filename: str, workspace: str) -> str:
    root = os.path.realpath(workspace)
    real = os.path.realpath(filename)
    return os.path.relpath(real, root) if real.startswith(root + os.sep) else filename


def _learner_traceback(exc: BaseException, workspace: str) -> str | None:
    """The traceback with only the frames in the learner's files, paths relative to the workspace."""
    if isinstance(exc, _LearnerProblem):
        return None
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _in_workspace(f.filename, workspace)]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    for frame in frames[-TRACEBACK_FRAMES:]:
        lines.append(
            f'  File "{_relative(frame.filename, workspace)}", line {frame.lineno}, in {frame.name}\n'
        )
        if frame.line:
            lines.append(f"    {frame.line.strip()}\n")
    root = os.path.realpath(workspace) + os.sep
    for line in traceback.format_exception_only(type(exc), exc):
        lines.append(line.replace(root, "").replace(workspace + os.sep, ""))
    text = "".join(lines).rstrip()
    return text or None


def _error_line(exc: BaseException, workspace: str) -> str:
    """One line for the requirement: the error and the last place in the learner's files."""
    if isinstance(exc, _LearnerProblem):
        return str(exc)
    where = ""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _in_workspace(f.filename, workspace)]
    if frames:
        where = f" ({_relative(frames[-1].filename, workspace)}:{frames[-1].lineno})"
    elif isinstance(exc, SyntaxError) and exc.filename:
        where = f" ({_relative(exc.filename, workspace)}:{exc.lineno})"
    detail = str(exc)
    name = type(exc).__name__
    return one_line(f"your code raised {name}{': ' + detail if detail else ''}{where}")


# -- comparing the learner's answers -----------------------------------------------------------------


def learner_function(learner_file: str, function_name: str) -> Any:
    """For a driver in the learner's child process: `function_name` of the learner's `learner_file`
    (imported by name: the workspace is first on sys.path); AttributeError when it has none."""
    import importlib

    learner = importlib.import_module(Path(learner_file).stem)
    function = getattr(learner, function_name, None)
    if not callable(function):
        raise AttributeError(f"{learner_file} has no function {function_name}()")
    return function


def call_on_cases(
    learner_file: str, function_name: str, cases: Sequence[dict[str, Any]], fields: Sequence[str]
) -> list[Any]:
    """For a driver in the learner's child process: `function_name` of the learner's `learner_file`
    called on every planted case, with copies of `case[field]` for each of `fields` as its
    arguments (copies, so a function that edits its input cannot spoil the next case). An exception
    is re-raised with " — on the case: NAME" (the case's "name") added to its message, so the
    learner's traceback and one-line error say which case broke their code.

        def probe(function_name: str, cases: list[dict[str, Any]]) -> list[Any]:  # in check.py
            return call_on_cases("confusion.py", function_name, cases, ("y_true", "y_pred", "labels"))
    """
    function = learner_function(learner_file, function_name)
    results = []
    for case in cases:
        try:
            results.append(function(*(_copied(case[field]) for field in fields)))
        except Exception as exc:
            if len(exc.args) == 1 and isinstance(exc.args[0], str):
                exc.args = (f"{exc.args[0]} — on the case: {case['name']}",)
            elif not exc.args:
                exc.args = (f"on the case: {case['name']}",)
            raise
    return results


def _copied(value: Any) -> Any:
    return list(value) if isinstance(value, (list, tuple)) else value


def is_close(value: Any, expected: float, tolerance: float = 1e-9) -> bool:
    """Is the learner's `value` a number (bool is not) within `tolerance` of `expected`, relative or
    absolute? Anything else — None, a string, a list — is simply not close."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isclose(float(value), float(expected), rel_tol=tolerance, abs_tol=tolerance)


def short_repr(value: Any, limit: int = 120) -> str:
    """repr(value), cut to `limit` characters with "…": a learner's answer quoted in a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- speed -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionSpec:
    """A function to time: `function(*args, **kwargs)` from `path` (absolute, or relative to the
    workspace). With `prepare=True` that call is setup (not timed) and returns the zero-argument
    callable that is timed."""

    path: str
    function: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    prepare: bool = False


@dataclass(frozen=True)
class SpeedVerdict:
    """The outcome of `compare_speed`. `ratio` = candidate time / reference time (median of the
    rounds); the ratio lies within [low, high] with ~95% confidence; `spread` is the larger half."""

    ratio: float | None
    spread: float | None
    low: float | None
    high: float | None
    rounds: int
    decision: str  # passed | failed | undecided
    message: str
    threshold: float
    candidate_s: float | None = None  # median seconds per call
    reference_s: float | None = None
    traceback: str | None = None


def median_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The median and a distribution-free ~95% confidence interval for it (order statistics).

    For n values the interval is [x_(k), x_(n-k+1)] with k = floor((n - z·√n) / 2), at least 1:
    it holds whatever the noise's shape (timings are skewed: a busy machine only adds time).
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    k = max(1, math.floor((n - z * math.sqrt(n)) / 2))
    return statistics.median(ordered), ordered[k - 1], ordered[n - k]


TIE_MARGIN = 0.03  # ratios within 3 % of the threshold are a tie: never decided either way


def decide_ratio(
    ratios: Sequence[float], threshold: float, *, min_rounds: int = 5
) -> tuple[str, float, float, float, float]:
    """passed when the whole interval of the median ratio is at or below `threshold`, failed when it
    is wholly above, else undecided (also with fewer than `min_rounds` rounds).

    Returns (decision, median, low, high, spread)."""
    median, low, high = median_interval(ratios)
    spread = max(median - low, high - median)
    if len(ratios) < min_rounds:
        return UNDECIDED, median, low, high, spread
    # The rule is looked at after every round, and with few rounds the interval is just [min, max]
    # (all of 5 rounds land on one side of the true median 1 time in 16). A small indifference zone
    # around the threshold keeps a true tie from being decided by that luck.
    if high * (1 + TIE_MARGIN) <= threshold:
        return PASSED, median, low, high, spread
    if low > threshold * (1 + TIE_MARGIN):
        return FAILED, median, low, high, spread
    return UNDECIDED, median, low, high, spread


GROSS_MARGIN = 2.5


def decide_few(ratios: Sequence[float], threshold: float) -> str:
    """The last word when the budget ran out before `min_rounds`: with at least two rounds, decide
    only if *every* ratio is beyond the threshold by GROSS_MARGIN× (a 2.5× difference seen twice,
    in alternating order, is not what a busy machine does); else undecided."""
    if len(ratios) < 2:
        return UNDECIDED
    if max(ratios) * GROSS_MARGIN <= threshold:
        return PASSED
    if min(ratios) > threshold * GROSS_MARGIN:
        return FAILED
    return UNDECIDED


RELATIVE_FLOOR = 0.75


def decide_with_control(
    learner: Sequence[float],
    control: Sequence[float],
    need: float,
    min_rounds: int = 3,
    *,
    measured: str = "speedup",
    of: str | None = None,
    relative_floor: float = RELATIVE_FLOOR,
) -> tuple[str, str]:
    """A speed decision with a control: the learner's value and the reference solution's (the
    control), measured in the same rounds, where higher is better (a speedup, a throughput as a
    share of theory). `need` is the learner's target. Returns (decision, message):

    passed     the learner's median is at least `need` with ~95% confidence (the interval of
               `median_interval` lies at or above it);
    failed     the learner's interval lies below `need` while the control's lies at or above it
               (this machine can do it, the learner's code does not); or the learner's value divided
               by the control's, round by round, lies wholly below `relative_floor` (clearly slower
               than the reference however busy the machine is);
    undecided  otherwise — a busy machine holds both back alike, so it is too busy to tell — and
               always with fewer than `min_rounds` rounds: measure another round and ask again.

    The message shows both medians, e.g. "speedup 1.02× (interval 0.98–1.05, 3 rounds); the
    reference's 1.81× in the same rounds: yours stays below 1.50× where the reference does not".
    `measured` names the value and `of` what the × is relative to ("throughput 0.33× of
    1 / slowest stage"). A control of 0 counts as a relative value of 0.
    """
    if len(learner) != len(control):
        raise ValueError(
            f"{len(learner)} learner values but {len(control)} control values: one each per round"
        )
    if not learner:
        raise ValueError("no rounds measured")
    if not (need > 0 and math.isfinite(need)):
        raise ValueError(f"need must be a positive number, not {need!r}")
    rounds = len(learner)
    median, low, high = median_interval(learner)
    control_median, control_low, _ = median_interval(control)
    relative = [mine / theirs if theirs > 0 else 0.0 for mine, theirs in zip(learner, control, strict=True)]
    relative_median, _, relative_high = median_interval(relative)
    scale = f" of {of}" if of else ""
    shown = (
        f"{measured} {median:.2f}×{scale} (interval {low:.2f}–{high:.2f}, {rounds} rounds); "
        f"the reference's {control_median:.2f}× in the same rounds"
    )
    if rounds < min_rounds:
        return UNDECIDED, f"{shown}: {min_rounds} rounds are needed to decide"
    if low >= need:
        return PASSED, f"{shown}: at least {need:.2f}× as required"
    if high < need and control_low >= need:
        return FAILED, f"{shown}: yours stays below {need:.2f}× where the reference does not"
    if relative_high < relative_floor:
        return FAILED, f"{shown}: yours is {relative_median:.2f}× the reference's {measured}"
    return UNDECIDED, (
        f"{shown}: needs {need:.2f}×, and the machine is too busy to tell (the reference falls short "
        "too); close other programs and check again"
    )


def compare_speed(
    candidate: FunctionSpec,
    reference: FunctionSpec,
    threshold_ratio: float,
    max_rounds: int = 21,
    quick: bool = False,
    *,
    workspace: str | os.PathLike[str] | None = None,
    min_rounds: int = 5,
    sample_s: float | None = None,
    budget_s: float | None = None,
    timeout_s: float | None = None,
    env: dict[str, str] | None = None,
) -> SpeedVerdict:
    """Is `candidate` at most `threshold_ratio` × `reference`'s time per call? Measured in one child
    process, in interleaved rounds (ABBA order, so a drift of the machine hits both alike).

    Each round times each function over enough calls to last ~`sample_s` and takes the ratio. After
    `min_rounds`, the check stops as soon as the median ratio's confidence interval is clear of the
    threshold; `undecided` when `max_rounds` or `budget_s` seconds run out first. `--quick`
    shortens samples and the budget (CI), not the rule.
    """
    if not (threshold_ratio > 0 and math.isfinite(threshold_ratio)):
        raise ValueError(f"threshold_ratio must be a positive number, not {threshold_ratio!r}")
    sample = sample_s if sample_s is not None else (0.02 if quick else 0.05)
    budget = budget_s if budget_s is not None else (8.0 if quick else 30.0)
    rounds_cap = max(1, min(max_rounds, 11) if quick else max_rounds)
    folder = Path(workspace) if workspace is not None else Path.cwd()
    request = {
        "mode": "speed",
        "candidate": candidate,
        "reference": reference,
        "threshold": threshold_ratio,
        "max_rounds": rounds_cap,
        "min_rounds": min_rounds,
        "sample_s": sample,
        "budget_s": budget,
    }
    limit = timeout_s if timeout_s is not None else budget * 2 + 30
    result = _run_child(folder, request, limit, env)
    if not result.ok:
        return SpeedVerdict(
            None,
            None,
            None,
            None,
            0,
            FAILED,
            result.error or "the timed code did not run",
            threshold_ratio,
            traceback=result.traceback,
        )
    data = result.value
    return SpeedVerdict(**data)


def _measure_speed(workspace: str, request: dict[str, Any]) -> dict[str, Any]:
    """In the child: calibrate both callables, run the rounds, decide."""
    threshold = float(request["threshold"])
    callables = []
    for spec in (request["candidate"], request["reference"]):
        function = _load_function(workspace, spec.path, spec.function)
        timed = function(*spec.args, **spec.kwargs) if spec.prepare else _bind(function, spec)
        if not callable(timed):
            raise _LearnerProblem(f"{spec.function}() should return the function to time")
        timed()  # warm up: imports, caches, first-call effects are not what is compared
        callables.append(timed)
    sample = float(request["sample_s"])
    loops = [_calibrate(timed, sample) for timed in callables]
    deadline = time.monotonic() + float(request["budget_s"])
    ratios: list[float] = []
    candidate_times: list[float] = []
    reference_times: list[float] = []
    decision = UNDECIDED
    median = low = high = spread = None
    ran_out = "rounds"
    for round_index in range(int(request["max_rounds"])):
        order = (0, 1) if round_index % 2 == 0 else (1, 0)
        per_call = [0.0, 0.0]
        for which in order:
            per_call[which] = _time_loops(callables[which], loops[which]) / loops[which]
        candidate_times.append(per_call[0])
        reference_times.append(per_call[1])
        ratios.append(per_call[0] / max(per_call[1], 1e-12))
        decision, median, low, high, spread = decide_ratio(
            ratios, threshold, min_rounds=int(request["min_rounds"])
        )
        if decision != UNDECIDED:
            break
        if time.monotonic() > deadline:
            ran_out = "time"
            break
    rounds = len(ratios)
    few = rounds < int(request["min_rounds"])
    if decision == UNDECIDED and few:
        decision = decide_few(ratios, threshold)
    assert median is not None and low is not None and high is not None and spread is not None
    shown = f"{median:.2f}× the reference's time (±{spread:.2f}, {rounds} rounds)"
    if decision != UNDECIDED and few:
        shown = f"{median:.2f}× the reference's time (every one of {rounds} rounds beyond it by {GROSS_MARGIN:g}×)"
    if decision == PASSED:
        message = f"{shown}: at most {threshold:g}× as required"
    elif decision == FAILED:
        message = f"{shown}: needs at most {threshold:g}×"
    elif few:
        message = (
            f"{shown}: only {rounds} rounds fit in the budget, {request['min_rounds']} are needed "
            "to tell your code from the noise: the machine is busy or your code is slow; check again"
        )
    else:
        why = "the time budget" if ran_out == "time" else f"{rounds} rounds"
        message = (
            f"{shown}: too close to {threshold:g}× to call after {why}; "
            "the machine is busy or your code is near the limit: check again"
        )
    return {
        "ratio": median,
        "spread": spread,
        "low": low,
        "high": high,
        "rounds": rounds,
        "decision": decision,
        "message": message,
        "threshold": threshold,
        "candidate_s": statistics.median(candidate_times),
        "reference_s": statistics.median(reference_times),
    }


def _bind(function: Any, spec: FunctionSpec) -> Any:
    args, kwargs = spec.args, spec.kwargs
    return lambda: function(*args, **kwargs)


def _calibrate(timed: Any, sample_s: float) -> int:
    """How many calls make one sample last about `sample_s` (at least one call)."""
    loops = 1
    while True:
        elapsed = _time_loops(timed, loops)
        if elapsed >= sample_s * 0.2 or loops >= 1_000_000:
            break
        loops *= 10
    per_call = max(elapsed / loops, 1e-9)
    return max(1, min(1_000_000, round(sample_s / per_call)))


def _time_loops(timed: Any, loops: int) -> float:
    clock = time.perf_counter
    started = clock()
    for _ in range(loops):
        timed()
    return clock() - started
