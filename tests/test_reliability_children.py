"""Nothing studyapp starts outlives it (review 2026-12, N2–N4 and L10).

- a lab that serves something (TensorBoard) is not stopped by the lab's time limit while it
  serves, and Ctrl+C ends serving and keeps the report (N2);
- a lab and the server it started stop when studyapp dies: kill -9, SIGTERM, a closed terminal
  (N3, L10), and SIGTERM/SIGHUP still record the run as cancelled;
- learner code that leaves the process group and session (a `setsid` daemon, a double fork) is
  stopped after the check, and the learner is told what was stopped (N4).

The fake labs here write marker files: a process that keeps touching its marker is still alive.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studyapp.progress.store import ProgressStore
from tests.conftest import REPO, run_cli

TOUCH = "import pathlib, sys, time\nwhile True:\n    pathlib.Path(sys.argv[1]).touch(); time.sleep(0.1)\n"

SERVING_LAB = f"""
import os, pathlib, subprocess, sys, time
from labs._protocol import progress, run_lab, serving

def main(argv):
    mark = pathlib.Path(os.environ["SERVING_MARK"])
    seconds = float(os.environ["SERVING_SECONDS"]) if os.environ.get("SERVING_SECONDS") else None
    progress("measuring", 0.5, "")
    server = subprocess.Popen([sys.executable, "-c", {TOUCH!r}, str(mark) + ".server"])
    try:
        serving("http://127.0.0.1:1", seconds)
        mark.write_text(f"{{os.getpid()}} {{server.pid}}")
        if seconds is None:
            while True:
                pathlib.Path(str(mark) + ".lab").touch()
                time.sleep(0.1)
        time.sleep(seconds)
    except KeyboardInterrupt:
        pass  # Ctrl+C ends serving; the report still comes
    finally:
        server.terminate()
        server.wait()
    return {{"summary": "served and reported"}}

run_lab("serving", main)
"""

SILENT_LAB = f"""
import os, pathlib, subprocess, sys
from labs._protocol import progress
progress("computing", 0.1, "")
mark = os.environ["SERVING_MARK"]
subprocess.Popen([sys.executable, "-c", {TOUCH!r}, mark + ".server"])
exec({TOUCH!r}.replace("sys.argv[1]", repr(mark + ".lab")))
"""


@pytest.fixture
def fake_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    labs = tmp_path / "fake" / "labs"
    labs.mkdir(parents=True)
    (labs / "__init__.py").write_text("", encoding="utf-8")
    for module in ("_wire.py", "_protocol.py"):
        shutil.copy(REPO / "labs" / module, labs / module)
    for name, code in {"serving": SERVING_LAB, "silent": SILENT_LAB}.items():
        folder = labs / name
        folder.mkdir()
        (folder / "__init__.py").write_text("", encoding="utf-8")
        (folder / "__main__.py").write_text(code, encoding="utf-8")
        (folder / "lab.yaml").write_text(
            f"title: {name} lab\ntopics: [demo]\nchecklist: []\ntimeout_s: 60\nquick_timeout_s: 60\n",
            encoding="utf-8",
        )
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    monkeypatch.setenv("SERVING_MARK", str(tmp_path / "serving"))
    return labs


def start_studyapp(*args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "studyapp", *args],
        env=dict(os.environ, PYTHONPATH=str(REPO), **env),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own: the test signals studyapp alone
    )


def wait_for(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def touched_recently(marker: Path, within: float = 0.6) -> bool:
    with contextlib.suppress(FileNotFoundError):
        return time.time() - marker.stat().st_mtime < within
    return False


def stops_touching(marker: Path, seconds: float = 15) -> bool:
    """True once nothing has touched `marker` for a while (the process that did is gone)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not touched_recently(marker, within=1.0):
            return True
        time.sleep(0.2)
    return False


def kill_leftovers(tmp_path: Path) -> None:
    """Clean up after a failing test: every process whose command line names this test's folder."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(tmp_path).encode() in (proc / "cmdline").read_bytes():
                os.kill(int(proc.name), signal.SIGKILL)
        except OSError:
            continue


def lab_statuses(home: Path) -> list[tuple[str, str]]:
    return [(r.status, r.summary or "") for r in ProgressStore.in_dir(home).lab_runs()]


# -- N2: serving is not timed, Ctrl+C ends serving and keeps the report ---------------------------


def test_serving_outlasts_the_lab_timeout_and_ctrl_c_keeps_the_report(
    fake_labs: Path, tmp_path: Path, isolated_home: Path
) -> None:
    mark = tmp_path / "serving"
    process = start_studyapp("lab", "serving", "--timeout", "2")
    try:
        wait_for(mark)
        wait_for(tmp_path / "serving.server")
        time.sleep(3.5)  # past the 2 s limit: the serving phase is not timed
        assert process.poll() is None, process.communicate()
        assert touched_recently(tmp_path / "serving.server")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        kill_leftovers(tmp_path)
    assert process.returncode == 0, err
    assert "served and reported" in out
    assert lab_statuses(isolated_home) == [("ok", "served and reported")]
    assert stops_touching(tmp_path / "serving.server")


def test_serving_for_a_set_time_ends_by_itself_after_the_limit(
    fake_labs: Path, tmp_path: Path, isolated_home: Path
) -> None:
    result = run_cli("lab", "serving", "--timeout", "1", env={"SERVING_SECONDS": "3"})
    assert result.returncode == 0, result.stderr
    assert lab_statuses(isolated_home) == [("ok", "served and reported")]


# -- N3, L10: the lab and its server stop when studyapp dies --------------------------------------


@pytest.mark.parametrize(
    ("signum", "recorded"),
    [(signal.SIGKILL, None), (signal.SIGTERM, "ok"), (signal.SIGHUP, "ok")],
    ids=["kill-9", "sigterm", "closed-terminal"],
)
def test_a_serving_lab_and_its_server_stop_when_studyapp_dies(
    fake_labs: Path, tmp_path: Path, isolated_home: Path, signum: int, recorded: str | None
) -> None:
    mark = tmp_path / "serving"
    process = start_studyapp("lab", "serving")
    try:
        wait_for(mark)
        wait_for(tmp_path / "serving.server")
        assert touched_recently(tmp_path / "serving.lab") and touched_recently(tmp_path / "serving.server")
        process.send_signal(signum)
        process.communicate(timeout=60)
        assert stops_touching(tmp_path / "serving.lab"), "the lab kept serving after studyapp died"
        assert stops_touching(tmp_path / "serving.server"), "its server kept running after studyapp died"
    finally:
        kill_leftovers(tmp_path)
    if recorded is not None:  # SIGTERM and SIGHUP are handled as Ctrl+C: serving ends, the report is kept
        assert process.returncode == 128 + signum
        assert [status for status, _ in lab_statuses(isolated_home)] == [recorded]


def test_sigterm_stops_a_lab_in_a_silent_phase(fake_labs: Path, tmp_path: Path, isolated_home: Path) -> None:
    """L10: a lab that prints nothing (a long trace analysis) never learned that studyapp was gone."""
    process = start_studyapp("lab", "silent")
    try:
        wait_for(tmp_path / "serving.lab")
        wait_for(tmp_path / "serving.server")
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
        assert stops_touching(tmp_path / "serving.lab") and stops_touching(tmp_path / "serving.server")
    finally:
        kill_leftovers(tmp_path)
    assert process.returncode == 128 + signal.SIGTERM
    assert [status for status, _ in lab_statuses(isolated_home)] == ["cancelled"]


# -- N4: learner processes that leave the group and session are stopped ----------------------------

HOSTILE_PREFIX = """\
import os, subprocess, sys
subprocess.Popen(["setsid", "sleep", "{seconds}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.Popen(["sleep", "{seconds}"], start_new_session=True)
if os.fork() == 0:  # a double fork with setsid: a daemon
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{seconds}"])
    os._exit(0)
"""


def sleepers(seconds: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes().split(b"\0")[:2] == [
                b"sleep",
                seconds.encode(),
            ]:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(shutil.which("setsid") is None or not Path("/proc").is_dir(), reason="Linux tools")
def test_a_check_stops_what_the_learner_left_outside_its_group(isolated_home: Path) -> None:
    seconds = f"1000.{os.getpid()}"  # this test's sleepers only
    assert run_cli("exercise", "start", "amdahl").returncode == 0
    workspace = isolated_home / "exercises" / "amdahl"
    solution = (REPO / "labs" / "amdahl" / "exercises" / "amdahl" / "solution" / "laws.py").read_text()
    body = "\n".join(line for line in solution.splitlines() if "__future__" not in line)
    (workspace / "laws.py").write_text(HOSTILE_PREFIX.format(seconds=seconds) + body, encoding="utf-8")
    try:
        result = run_cli("exercise", "check", "amdahl", "--quick")
        time.sleep(1)
        left = sleepers(seconds)
    finally:
        for pid in sleepers(seconds):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    # Code that leaves processes running is a slip of its own (labs/_exercise/learner.py's hygiene
    # watch): the laws are still judged right, that one requirement is not met, and nothing survives.
    assert result.returncode == 1, result.stdout + result.stderr
    assert "✗ your code leaves nothing running when it returns" in result.stdout
    assert re.search(r"\b1 of \d+ requirements not met yet", result.stdout), result.stdout
    assert left == [], f"{len(left)} sleep processes survived the check"
    assert "process(es) your code left running" in result.stdout and "sleep ×" in result.stdout
