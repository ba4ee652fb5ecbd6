"""Running the learner's code: a child process per call, with a timeout, bringing back plain data.

The parent side (`run_learner`, `run_learner_script`; `_run_child` for speed.py) writes a pickled request,
starts `python -c "...; _child_main(request, response)"` in the workspace and its own process group,
drains its output, and reads the pickled response. The child side (`_child_main` and below) runs
what the request asks and trims the learner's traceback to the frames in their own files.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pickle
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labs._exercise.checker import one_line
from labs._exercise.messages import say

OUTPUT_LIMIT = 64_000  # bytes of the learner's stdout/stderr kept
# An asyncio callback (one step of a coroutine) running longer than this blocked the event loop:
# a blocking call (time.sleep, requests, heavy CPU) where an `await` belonged. None: not watched.
LOOP_BLOCK_S = 0.5
# How long threads and processes the learner's code stopped may take to end after it returned.
HYGIENE_GRACE_S = 1.0
TRACEBACK_FRAMES = 20

# The folder that holds the `labs` package: the learner's child process imports this module from it.
_LABS_PARENT = str(Path(__file__).resolve().parents[2])


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
    # What the learner's code left behind when it returned (one line each): threads still running,
    # executors or pools not shut down, child processes, an event loop blocked too long.
    hygiene: list[str] = field(default_factory=list)


def run_learner(
    workspace: str | os.PathLike[str],
    module_file: str | os.PathLike[str],
    function_name: str,
    *args: Any,
    timeout_s: float = 60.0,
    kwargs: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    loop_block_s: float | None = LOOP_BLOCK_S,
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
        "loop_block_s": loop_block_s,
    }
    return _run_child(Path(workspace), request, timeout_s, env)


def run_learner_script(
    workspace: str | os.PathLike[str],
    script: str | os.PathLike[str],
    *argv: str,
    timeout_s: float = 60.0,
    env: dict[str, str] | None = None,
    loop_block_s: float | None = LOOP_BLOCK_S,
) -> LearnerResult:
    """Run `script` (relative to the workspace, or absolute) as `__main__` with `argv`, in a child
    process as `run_learner` does. `ok` when it ends normally or with `sys.exit(0)`."""
    request = {
        "mode": "script",
        "module_file": str(script),
        "argv": [str(a) for a in argv],
        "loop_block_s": loop_block_s,
    }
    return _run_child(Path(workspace), request, timeout_s, env)


# What the learner's code keeps of the checker's environment: what programs need to run and find
# things, nothing else: no tokens or keys studyapp happened to be started with, no STUDYAPP_HOME (it
# is not told where the progress store is). Windows needs its system variables to start Python.
# Names are compared in upper case (Windows ignores case).
ENV_ALLOWED = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "USERNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE",
        "TMPDIR", "TMP", "TEMP", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONIOENCODING", "PYTHONUTF8",
        "PYTHONHASHSEED", "LD_LIBRARY_PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
        "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "TORCH_CPP_LOG_LEVEL",
        "STUDYAPP_LANG",  # the language of the messages the child side writes (messages.say)
        "STUDYAPP_CHILD_RUN",  # studyapp finds by it what escaped a killed guard (studyapp/child.py)
        "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA",
        "LOCALAPPDATA", "HOMEDRIVE", "HOMEPATH", "PROGRAMDATA", "PROGRAMFILES",
        "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
    }
)  # fmt: skip
ENV_ALLOWED_PREFIXES = ("LC_",)


def learner_env(environ: dict[str, str], extra: dict[str, str] | None) -> dict[str, str]:
    """The environment the learner's code runs with: the allow-listed part of `environ`, plus what
    the checker passes on purpose (`extra`)."""
    env = {
        name: value
        for name, value in environ.items()
        if name.upper() in ENV_ALLOWED or name.upper().startswith(ENV_ALLOWED_PREFIXES)
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the learner's folder stays free of __pycache__
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    env.update(extra or {})
    return env


# `-c` would put the working directory (the workspace) first on sys.path before this module's own
# imports: `-P` (3.11+) or the first statement keeps it off; `_child_main` adds the workspace back
# in front once the harness is loaded, for the learner's own imports.
_SAFE_PATH_FLAGS = ("-P",) if sys.version_info >= (3, 11) else ()


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
            "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
            f"sys.path.insert(0, {_LABS_PARENT!r}); "
            "from labs._exercise.learner import _child_main; "
            f"_child_main({str(request_path)!r}, {str(response_path)!r})"
        )
        process = subprocess.Popen(
            [sys.executable, *_SAFE_PATH_FLAGS, "-c", code],
            cwd=workspace,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=learner_env(dict(os.environ), env),
            # its own group: a timeout stops its workers too (Windows has no groups: the Job Object
            # studyapp holds the check in ends them with the check)
            start_new_session=hasattr(os, "setsid"),
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
            # One grace period for both pipes, not one each: a process that escaped the group
            # holds both open, and the learner should not wait twice for it.
            deadline = time.monotonic() + _OutputReader.GRACE_S
            for reader in readers:
                reader.join(max(0.0, deadline - time.monotonic()))
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
        result.error = say(
            f"your code did not finish within {timeout_s:g} s (an endless loop, or waiting on something?)",
            f"여러분의 코드가 {timeout_s:g}초 안에 끝나지 않았습니다 (끝없는 루프이거나 무언가를 기다리는 중?)",
        )
        return result
    if not response:
        last = stderr.strip().splitlines()[-1:] if stderr.strip() else []
        why = f": {one_line(last[0], 160)}" if last else ""
        result.error = say(
            f"your code ended the process (exit code {process.returncode}){why}",
            f"여러분의 코드가 프로세스를 끝냈습니다 (exit code {process.returncode}){why}",
        )
        return result
    result.ok = bool(response.get("ok"))
    result.value = response.get("value")
    result.traceback = response.get("traceback")
    result.error = response.get("error")
    result.extra = response.get("extra", {})
    result.hygiene = list(response.get("hygiene", []))
    if "exit_code" in response:
        result.exit_code = response["exit_code"]
    return result


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if hasattr(os, "killpg") and hasattr(os, "setsid"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    with contextlib.suppress(Exception):
        process.wait(timeout=5)


class _OutputReader:
    """Reads a child's pipe to its end in a thread, keeping the first OUTPUT_LIMIT bytes."""

    GRACE_S = 2.0  # how long the output of a finished child may take to arrive

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

    def join(self, timeout: float) -> None:
        # A process that escaped the group may hold the pipe open: do not wait for it for long.
        self._thread.join(timeout=timeout)
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
    watch = _Hygiene(request.get("loop_block_s")) if request["mode"] in ("function", "script") else None
    try:
        if request["mode"] == "function":
            function = _load_function(workspace, request["module_file"], request["function"])
            value = function(*request["args"], **request["kwargs"])
            response = _returned(value)
        elif request["mode"] == "script":
            response = _run_script(workspace, request["module_file"], request["argv"])
        elif request["mode"] == "call":
            # A library function (speed.py's measurement) sent by pickle as a reference, so this
            # module need not import the modules that use it.
            response = {"ok": True, "value": request["call"](workspace, request)}
        else:
            response = {"ok": False, "error": f"unknown request {request['mode']!r}"}
    except SystemExit as exc:
        response = {
            "ok": False,
            "error": say(
                f"your code called sys.exit({exc.code!r})",
                f"여러분의 코드가 sys.exit({exc.code!r})를 불렀습니다",
            ),
            "traceback": _learner_traceback(exc, workspace),
        }
    except BaseException as exc:  # anything the learner's code raises is reported
        response = {
            "ok": False,
            "error": _error_line(exc, workspace),
            "traceback": _learner_traceback(exc, workspace),
        }
    if watch is not None:
        response["hygiene"] = watch.leftovers()
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


class _Hygiene:
    """What the learner's call leaves behind, seen in its own process after it returns: threads
    still alive, executors and pools never shut down, child processes, and (when `loop_block_s`)
    asyncio callbacks that held the event loop longer than that bound."""

    def __init__(self, loop_block_s: float | None) -> None:
        self._threads_before = {id(thread) for thread in threading.enumerate()}
        self._children_before = set(_os_children())
        self._loop_block_s = loop_block_s
        self._longest_block = (0.0, "")
        if loop_block_s is not None:
            self._time_event_loop_callbacks()

    def _time_event_loop_callbacks(self) -> None:
        # Every coroutine step and callback runs in Handle._run: time it, keep the longest.
        import asyncio.events

        original = asyncio.events.Handle._run
        hygiene = self

        def timed_run(handle: Any) -> None:
            started = time.perf_counter()
            try:
                original(handle)
            finally:
                took = time.perf_counter() - started
                if took > hygiene._longest_block[0]:
                    hygiene._longest_block = (took, _callback_name(handle))

        asyncio.events.Handle._run = timed_run  # type: ignore[method-assign]

    def leftovers(self) -> list[str]:
        deadline = time.monotonic() + HYGIENE_GRACE_S
        problems: list[str] = []
        threads = self._new_threads()
        while threads and time.monotonic() < deadline:  # a thread told to stop may need a moment
            threads[0].join(max(0.0, deadline - time.monotonic()))
            threads = self._new_threads()
        if threads:
            problems.append(_threads_left(threads))
        processes = self._new_processes()
        while processes and time.monotonic() < deadline:
            time.sleep(0.05)
            processes = self._new_processes()
        if processes:
            problems.append(
                say(
                    f"{len(processes)} child process(es) still running after your code returned "
                    f"({', '.join(processes[:3])}): close and join every pool and process you start",
                    f"여러분의 코드가 끝난 뒤에도 자식 프로세스 {len(processes)}개가 돌고 있습니다 "
                    f"({', '.join(processes[:3])}): 시작한 pool과 process는 모두 close/join 하세요",
                )
            )
        took, where = self._longest_block
        if self._loop_block_s is not None and took > self._loop_block_s:
            problems.append(
                say(
                    f"the event loop was blocked for {took:.2f} s in {where} (the bound is "
                    f"{self._loop_block_s:g} s): a blocking call inside a coroutine; await it or use "
                    "asyncio.to_thread / run_in_executor",
                    f"이벤트 루프가 {where}에서 {took:.2f}초 동안 막혔습니다 (한도 {self._loop_block_s:g}초): "
                    "coroutine 안의 blocking 호출; await 하거나 asyncio.to_thread / run_in_executor를 쓰세요",
                )
            )
        return problems

    def _new_threads(self) -> list[threading.Thread]:
        return [
            thread
            for thread in threading.enumerate()
            if id(thread) not in self._threads_before
            and thread.is_alive()
            and not thread.name.startswith("studyapp-")
        ]

    def _new_processes(self) -> list[str]:
        import multiprocessing

        named = {child.pid: child.name for child in multiprocessing.active_children()}  # joins the ended
        helpers = _multiprocessing_helpers()
        pids = [pid for pid in _os_children() if pid not in self._children_before and pid not in helpers]
        pids += [pid for pid in named if pid not in pids and pid not in self._children_before]
        return [f"{named.get(pid, 'pid')} {pid}" if pid in named else f"pid {pid}" for pid in pids]


def _threads_left(threads: list[threading.Thread]) -> str:
    """One line naming the leftover threads by what most likely started them."""
    kinds = []
    for thread in threads:
        name, kind = thread.name, type(thread).__name__
        if name.startswith("ThreadPoolExecutor") or kind == "_ExecutorManagerThread":
            what = "an executor not shut down (use `with ...Executor() as pool:` or pool.shutdown())"
        elif "_handle_workers" in name or "_handle_tasks" in name or "_handle_results" in name:
            what = "a multiprocessing Pool not closed (use `with Pool() as pool:` or close() and join())"
        else:
            what = f"thread {name!r}"
        if what not in kinds:
            kinds.append(what)
    shown = "; ".join(kinds[:3])
    return say(
        f"{len(threads)} thread(s) still running after your code returned: {shown}",
        f"여러분의 코드가 끝난 뒤에도 스레드 {len(threads)}개가 돌고 있습니다: {shown}",
    )


def _callback_name(handle: Any) -> str:
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)  # a Task's step: name the coroutine
    coroutine = getattr(owner, "get_coro", lambda: None)()
    if coroutine is not None:
        return f"{getattr(coroutine, '__qualname__', 'a coroutine')}()"
    return f"{getattr(callback, '__qualname__', 'a callback')}()"


def _os_children() -> list[int]:
    """The process ids of this process's children (Linux: /proc; elsewhere none are seen this way)."""
    pids: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                pids += [int(pid) for pid in (task / "children").read_text().split()]
    return pids


def _multiprocessing_helpers() -> set[int]:
    """multiprocessing's own long-lived helpers (resource tracker, forkserver): not the learner's."""
    helpers: set[int] = set()
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        pid = resource_tracker._resource_tracker._pid
        if pid:
            helpers.add(pid)
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver

        pid = forkserver._forkserver._forkserver_pid
        if pid:
            helpers.add(pid)
    return helpers


def _watch_parent() -> None:
    """Exit when the checker dies without stopping us (SIGKILL): no orphan keeps computing."""
    from labs._parent import parent_alive_probe

    parent_alive = parent_alive_probe(os.getppid())  # getppid alone never changes on Windows

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if not parent_alive():
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="studyapp-parent-watch").start()


def _resolve(workspace: str, module_file: str) -> Path:
    path = Path(module_file)
    return path if path.is_absolute() else Path(workspace) / path


def _not_a_file(path: Path, shown: str) -> str:
    """Why `path` cannot be run as the learner's Python file: missing, or something else."""
    if path.is_symlink() and not path.exists():
        return say(f"{shown} is a broken symbolic link", f"{shown}은(는) 깨진 심볼릭 링크입니다")
    if not os.path.lexists(path):
        return say(f"{shown} is missing from your workspace", f"작업 폴더에 {shown}이(가) 없습니다")
    if path.is_dir():
        return say(
            f"{shown} is a folder, not a Python file", f"{shown}은(는) Python 파일이 아니라 폴더입니다"
        )
    return say(
        f"{shown} is not a regular file (a FIFO, a device, or a link to one): save your code as a plain file",
        f"{shown}은(는) 일반 파일이 아닙니다 (FIFO, 장치, 또는 그것을 가리키는 링크): 코드를 보통 파일로 "
        "저장하세요",
    )


def _load_function(workspace: str, module_file: str, name: str) -> Any:
    path = _resolve(workspace, module_file)
    if not path.is_file():
        raise _LearnerProblem(_not_a_file(path, module_file))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise _LearnerProblem(
            say(f"cannot import {module_file}", f"{module_file}을(를) import할 수 없습니다")
        )
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # so pickle, dataclasses and `import` by name find it
    spec.loader.exec_module(module)
    function = getattr(module, name, None)
    if not callable(function):
        raise _LearnerProblem(
            say(f"{module_file} has no function {name}()", f"{module_file}에 함수 {name}()이(가) 없습니다")
        )
    return function


class _LearnerProblem(Exception):
    """Something about the learner's files (missing file or function): reported without traceback."""


def _run_script(workspace: str, script: str, argv: list[str]) -> dict[str, Any]:
    path = _resolve(workspace, script)
    if not path.is_file():
        raise _LearnerProblem(_not_a_file(path, script))
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
            "error": say(f"{script} exited with {code!r}", f"{script}이(가) {code!r}(으)로 끝났습니다"),
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
        say(
            f"your function returned a {type(value).__name__}; return plain data "
            "(numbers, strings, lists, tuples, dicts)",
            f"여러분의 함수가 {type(value).__name__}을(를) 돌려주었습니다; 평범한 데이터(숫자, 문자열, list, "
            "tuple, dict)를 돌려주세요",
        )
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
    raised = f"{name}{': ' + detail if detail else ''}{where}"
    return one_line(say(f"your code raised {raised}", f"여러분의 코드가 예외를 냈습니다: {raised}"))
