"""`studyapp.child.run_child`, the one runner under labs and exercise checks, on tiny `python -c`
children: messages, unreadable and oversized lines, timeout, cancel, a grandchild left holding
stdout, and the stderr tail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from studyapp.child import STDERR_LINES, ChildRun, ChildStartError, Serving, run_child
from tests.conftest import REPO


def run_python(
    code: str, *, limit: float = 30, understood: tuple[str, ...] = ("note",), **kwargs: Any
) -> tuple[ChildRun, list[dict[str, Any]]]:
    """Run `python -c code`; messages whose type is in `understood` are kept, others refused."""
    seen: list[dict[str, Any]] = []

    def on_message(message: dict[str, Any]) -> bool:
        if message["type"] not in understood:
            return False
        seen.append(message)
        return True

    run = run_child(
        [sys.executable, "-c", code], env=dict(os.environ), limit=limit, on_message=on_message, **kwargs
    )
    return run, seen


def note(text: str) -> str:
    """Python source that prints one protocol message."""
    return f"print({json.dumps(json.dumps({'type': 'note', 'text': text}))}, flush=True)\n"


def touching(marker: Path) -> str:
    """Python source for a process that touches `marker` every 0.1 s, for ever."""
    return f"import pathlib, time\nwhile True:\n    pathlib.Path({str(marker)!r}).touch(); time.sleep(0.1)\n"


def still_touched(marker: Path) -> bool:
    """True while some process keeps touching `marker` (a process that was not stopped)."""
    time.sleep(0.5)
    before = marker.stat().st_mtime_ns
    time.sleep(0.5)
    return marker.stat().st_mtime_ns != before


def test_messages_arrive_in_order_and_the_exit_code_is_kept() -> None:
    run, seen = run_python(note("one") + "print()\n" + note("two") + "raise SystemExit(3)\n")
    assert [m["text"] for m in seen] == ["one", "two"]
    assert run.stopped_for == "" and run.exit_code == 3
    assert run.unreadable_lines == 0  # the blank line says nothing, and is not counted


def test_lines_that_are_not_messages_are_counted_and_skipped() -> None:
    code = (
        "print('not json')\n"
        "print('[1, 2, 3]')\n"  # JSON, not an object
        'print(\'{"no": "type"}\')\n'
        "print('{\"type\": 7}')\n"
        "print('[' * 100000 + ']' * 100000)\n"  # nested past any real message
        'print(\'{"type": "other"}\')\n' + note("still read")  # a message the caller does not understand
    )
    run, seen = run_python(code)
    assert [m["text"] for m in seen] == ["still read"]
    assert run.unreadable_lines == 6 and run.stopped_for == ""


def test_an_oversized_line_is_refused_whole_and_reading_goes_on() -> None:
    limit = 1000
    fits = json.dumps({"type": "note", "text": "x" * (limit - 30)})
    assert len(fits) <= limit
    code = (
        f"print({json.dumps(fits)}, flush=True)\n"
        f'print(\'{{"type": "note", "text": "\' + \'y\' * {limit * 50} + \'"}}\', flush=True)\n'
        "import sys; sys.stdout.write('z' * 5000); sys.stdout.flush()\n"  # over the limit, no newline
        "print(flush=True)\n" + note("after")
    )
    run, seen = run_python(code, max_line_bytes=limit)
    assert [m["text"][:1] for m in seen] == ["x", "a"]
    assert run.unreadable_lines == 2


def test_a_child_past_its_limit_is_stopped() -> None:
    started = time.monotonic()
    run, seen = run_python(note("started") + "import time; time.sleep(600)\n", limit=1.0)
    assert run.stopped_for == "timeout" and [m["text"] for m in seen] == ["started"]
    assert time.monotonic() - started < 10
    assert run.exit_code is not None and run.exit_code < 0  # killed by a signal


def test_cancel_stops_the_child_and_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-alive"
    cancel = threading.Event()

    def cancel_once_started() -> None:
        while not marker.exists():
            time.sleep(0.05)
        cancel.set()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {touching(marker)!r}])\n"
        "time.sleep(600)\n"
    )
    started = time.monotonic()
    run, _ = run_python(code, cancel=cancel)
    assert run.stopped_for == "cancelled" and time.monotonic() - started < 10
    assert marker.exists() and not still_touched(marker)


def test_a_grandchild_holding_stdout_does_not_hold_the_run(tmp_path: Path) -> None:
    """The child's exit ends the run; what it left in its group is stopped."""
    marker = tmp_path / "grandchild-alive"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {touching(marker)!r}])\n"  # inherits stdout
        f"while not __import__('os').path.exists({str(marker)!r}): time.sleep(0.05)\n" + note("done")
    )
    run, seen = run_python(code, limit=60)
    assert run.stopped_for == "" and run.exit_code == 0 and [m["text"] for m in seen] == ["done"]
    assert run.elapsed_s < 10
    assert not still_touched(marker)


def test_stderr_keeps_a_tail_and_the_whole_log(tmp_path: Path) -> None:
    code = "import sys\nfor n in range(100):\n    print(f'noise {n}', file=sys.stderr)\n" + note("ok")
    log_path = tmp_path / "stderr.log"
    with log_path.open("wb") as log:
        run, seen = run_python(code, stderr_log=log)
    assert [m["text"] for m in seen] == ["ok"]
    assert run.stderr_tail == [f"noise {n}" for n in range(100 - STDERR_LINES, 100)]
    assert log_path.read_text().splitlines() == [f"noise {n}" for n in range(100)]


def test_a_child_that_cannot_start_raises_one_error(tmp_path: Path) -> None:
    with pytest.raises(ChildStartError, match="No such file"):
        run_child(
            [str(tmp_path / "no-such-program")], env=dict(os.environ), limit=5, on_message=lambda m: True
        )


# -- issue 25: what leaves the group, serving, and a parent that dies ------------------------------


def test_processes_that_left_the_group_and_session_are_stopped_and_reported(tmp_path: Path) -> None:
    """review N4: a new session (start_new_session) and a double fork with setsid both escaped."""
    session, daemon = tmp_path / "new-session", tmp_path / "daemon"
    code = (
        "import os, subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', {touching(session)!r}], start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv(sys.executable, [sys.executable, '-c', {touching(daemon)!r}])\n"
        "    os._exit(0)\n"
        f"while not (os.path.exists({str(session)!r}) and os.path.exists({str(daemon)!r})): pass\n"
        + note("done")
    )
    run, seen = run_python(code, limit=60)
    assert run.stopped_for == "" and run.exit_code == 0 and [m["text"] for m in seen] == ["done"]
    assert not still_touched(session) and not still_touched(daemon)
    if Path("/proc").is_dir():  # Linux: the guard lists what it stopped
        assert run.leftover_count == 2 and len(run.leftovers) == 2
        assert all(name.startswith("python") for name in run.leftovers), run.leftovers


def test_a_process_that_ends_just_after_its_parent_is_not_reported_as_left_running() -> None:
    """CI: a lab's helper (the multiprocessing resource tracker, a pool worker) still ending as the
    lab exited was killed and reported as "left running". What ends within the guard's short grace
    is not stopped; what runs on is, as before."""
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(0.15)'])\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "time.sleep(0.05)\n" + note("done")
    )
    run, seen = run_python(code, limit=60)
    assert run.stopped_for == "" and run.exit_code == 0 and [m["text"] for m in seen] == ["done"]
    if Path("/proc").is_dir():  # Linux: the guard lists what it stopped: the sleeper of 30 s only
        assert run.leftover_count == 1, run.leftovers


def test_a_serving_child_is_not_timed_and_a_cancel_asks_it_to_finish() -> None:
    """review N2: the limit stops at `serving`; cancel sends SIGINT, and the child still reports."""
    code = (
        "import json, time\n"
        "print(json.dumps({'type': 'serving'}), flush=True)\n"
        "try:\n"
        "    while True: time.sleep(0.1)\n"
        "except KeyboardInterrupt:\n" + "    " + note("finished serving")
    )
    cancel = threading.Event()
    threading.Timer(2.5, cancel.set).start()
    seen: list[dict[str, Any]] = []
    run = run_child(
        [sys.executable, "-c", code],
        env=dict(os.environ),
        limit=1.0,
        on_message=lambda m: seen.append(m) is None,
        cancel=cancel,
        serving=lambda: Serving() if seen else None,
    )
    assert run.stopped_for == "" and run.served and run.exit_code == 0
    assert [m.get("text") for m in seen] == [None, "finished serving"]
    assert run.elapsed_s > 2.0


def test_the_child_stops_when_its_parent_dies(tmp_path: Path) -> None:
    """review N3: kill -9 of the process that ran run_child (studyapp) stops the child and its group."""
    marker = tmp_path / "alive"
    child_code = (
        f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {touching(marker)!r}])\n"
        + (touching(marker))
    )
    parent_code = (
        "import os, sys\n"
        "from studyapp.child import run_child\n"
        f"run_child([sys.executable, '-c', {child_code!r}], env=dict(os.environ), limit=600,"
        " on_message=lambda m: True)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        parent.kill()
        parent.wait()
        time.sleep(1)
        assert not still_touched(marker), "the child outlived its parent"
    finally:
        parent.kill()


def _attacking_the_guard(daemon: Path, signal_name: str) -> str:
    """Python source that starts a setsid daemon, then sends `signal_name` to the child guard (found
    as reliability review L1 did: the first ancestor whose command line names childguard)."""
    return (
        "import os, signal, sys\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv(sys.executable, [sys.executable, '-c', {touching(daemon)!r}])\n"
        "    os._exit(0)\n"
        f"while not os.path.exists({str(daemon)!r}): pass\n"
        "pid = os.getppid()\n"
        "while b'childguard' not in open(f'/proc/{pid}/cmdline', 'rb').read():\n"
        "    pid = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1])\n"
        f"os.kill(pid, signal.{signal_name})\n" + note("done")
    )


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the guard through /proc")
def test_a_guard_stopped_by_the_childs_code_is_continued_and_sweeps(tmp_path: Path) -> None:
    """review L1: SIGSTOP to the guard held the run to its time limit and the daemon ran on."""
    daemon = tmp_path / "daemon"
    run, seen = run_python(_attacking_the_guard(daemon, "SIGSTOP"), limit=20)
    assert run.stopped_for == "" and [m["text"] for m in seen] == ["done"]  # not held to the limit
    assert not still_touched(daemon)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the guard through /proc")
def test_what_a_killed_guard_left_is_still_stopped(tmp_path: Path) -> None:
    """review L1: SIGKILL to the guard: its adopted daemon went to init and ran on."""
    daemon = tmp_path / "daemon"
    run, _ = run_python(_attacking_the_guard(daemon, "SIGKILL"), limit=60)
    assert run.exit_code == -9  # the guard's own end, as studyapp saw it
    assert not still_touched(daemon)


class _FakeKernel32:
    """The two Windows calls `labs._parent` makes, faked at their boundary."""

    WAIT_TIMEOUT, WAIT_OBJECT_0 = 0x102, 0

    def __init__(self, handle: int) -> None:
        self.handle, self.alive = handle, True
        self.opened: list[tuple[int, bool, int]] = []

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> int:  # the Windows names
        self.opened.append((access, inherit, pid))
        return self.handle

    def WaitForSingleObject(self, handle: int, milliseconds: int) -> int:
        assert handle == self.handle and milliseconds == 0  # asked, never waited on
        return self.WAIT_TIMEOUT if self.alive else self.WAIT_OBJECT_0


def test_the_windows_parent_watch_asks_a_handle_not_getppid() -> None:
    """On Windows getppid never changes when the parent dies (issue 30): the learner's runner and the
    distributed lab's ranks watch a handle to the parent instead."""
    from labs._parent import _windows_probe

    kernel32 = _FakeKernel32(handle=77)
    alive = _windows_probe(4242, kernel32)
    assert kernel32.opened == [(0x00100000, False, 4242)]  # SYNCHRONIZE, not inherited
    assert alive() is True
    kernel32.alive = False
    assert alive() is False
    assert _windows_probe(4242, _FakeKernel32(handle=0))() is False  # the parent was gone already


class _FakeJobKernel32:
    """The Job Object calls of studyapp/winjob.py, faked at their boundary: it keeps what was asked."""

    def __init__(self, running: list[int]) -> None:
        self.calls: list[str] = []
        self.flags = 0
        self.running = running

    def CreateJobObjectW(self, attributes: object, name: object) -> int:  # the Windows names
        self.calls.append("create")
        return 5

    def SetInformationJobObject(self, job: int, kind: int, info: Any, size: int) -> int:
        self.calls.append(f"set {kind}")
        self.flags = info._obj.BasicLimitInformation.LimitFlags
        return 1

    def AssignProcessToJobObject(self, job: int, process: int) -> int:
        self.calls.append(f"assign {process}")
        return 1

    def QueryInformationJobObject(self, job: int, kind: int, info: Any, size: int, returned: object) -> int:
        listing = info._obj
        listing.NumberOfAssignedProcesses = listing.NumberOfProcessIdsInList = len(self.running)
        for index, pid in enumerate(self.running):
            listing.ProcessIdList[index] = pid
        return 1

    def TerminateJobObject(self, job: int, code: int) -> int:
        self.calls.append("terminate")
        self.running = []
        return 1

    def CloseHandle(self, handle: int) -> int:
        self.calls.append("close")
        return 1


def test_the_windows_branch_holds_the_guard_in_a_kill_on_close_job_and_reports_what_it_left() -> None:
    """issue 30: on Windows every guard is put in a Job Object (kill on job close); after the guard
    exits, what still runs in the job was left by the learner's code: it is listed and ended."""
    from studyapp import child
    from studyapp.winjob import JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE

    kernel32 = _FakeJobKernel32(running=[7001, 7002])

    class _Guard:
        pid, _handle = 4321, 99

    job = child._hold_in_job(_Guard(), kernel32)  # type: ignore[arg-type]
    assert job is not None and child._JOBS[4321] is job
    assert kernel32.calls == ["create", "set 9", "assign 99"]
    assert kernel32.flags & JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    run = ChildRun("", 0, 0)
    child._end_job(job, run)
    assert run.leftover_count == 2 and run.leftovers == ["process (pid 7001)", "process (pid 7002)"]
    assert kernel32.calls[-1] == "terminate"
    job.close()
    child._JOBS.pop(4321)
    assert kernel32.calls[-1] == "close"


def test_a_job_that_cannot_be_made_leaves_the_run_to_the_guard() -> None:
    """A machine where the job cannot be made: no job, the run goes on (the machine's limit)."""
    from studyapp import child

    class _Refusing(_FakeJobKernel32):
        def CreateJobObjectW(self, attributes: object, name: object) -> int:
            return 0

    class _Guard:
        pid, _handle = 4322, 98

    assert child._hold_in_job(_Guard(), _Refusing([])) is None  # type: ignore[arg-type]
    assert 4322 not in child._JOBS
