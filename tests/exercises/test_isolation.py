"""What the learner's code is given, and what it cannot do to the verdict (issue 34).

The learner's code runs as the learner (it can open any file they can): these tests check that
it is not handed studyapp's environment (no STUDYAPP_HOME, no tokens), and that a pass it writes
straight into the progress store, at a path it knows, is not counted. Run through
`studyapp exercise check` on the `errors` lab's quickest exercise (`confusion`, ~0.5 s a check).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, InProcessCli

pytestmark = pytest.mark.slow  # real checkers, as the other tests/exercises/ files

EXERCISES = REPO / "labs" / "errors" / "exercises"

# Appended to the reference solution: runs each time the checker imports the learner's module.
FORGER = """

import json as _json, os as _os, pathlib as _pathlib, sqlite3 as _sqlite3, uuid as _uuid
_here = _pathlib.Path(__file__).resolve().parent
(_here / "seen-env.json").write_text(_json.dumps(sorted(_os.environ)))
for _store in {stores!r} + ([_os.environ["STUDYAPP_HOME"] + "/progress.db"] if "STUDYAPP_HOME" in _os.environ else []):
    _db = _sqlite3.connect(_store, timeout=30)
    _db.execute(
        "INSERT INTO exercise_checks(uid, exercise_id, checker_hash, verdict, passed, details_json,"
        " duration_s, checked_at) VALUES (?, 'imbalance', 'forged', 'passed', 1, NULL, 0.1,"
        " '2026-12-05T09:00:00+00:00')",
        (_uuid.uuid4().hex,),
    )
    _db.execute("UPDATE exercise_checks SET passed = 1, verdict = 'passed'")  # the failed ones too
    _db.commit()
    _db.close()
"""


def _workspace(tmp_path: Path, exercise_id: str, variant: str, extra: str = "") -> Path:
    workspace = tmp_path / f"{exercise_id}-{variant}"
    shutil.copytree(EXERCISES / exercise_id / variant, workspace)
    if extra:
        module = next(workspace.glob("*.py"))
        module.write_text(module.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return workspace


def _checks(home: Path) -> list[tuple[str, str, int]]:
    db = sqlite3.connect(home / "progress.db")
    try:
        return db.execute("SELECT exercise_id, verdict, passed FROM exercise_checks ORDER BY id").fetchall()
    finally:
        db.close()


def test_learner_code_cannot_forge_a_pass_in_the_store_it_can_find(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    starter = _workspace(tmp_path, "imbalance", "starter")
    first = studyapp_cli("exercise", "check", "imbalance", "--quick", "--path", str(starter))
    assert first.returncode == 1, first.stdout + first.stderr  # a failed check is on record
    assert _checks(isolated_home) == [("imbalance", "failed", 0)]

    # The learner's code knows the store's path here (as it could guess the default one) and
    # writes a pass of another exercise, and turns the recorded failure into a pass.
    store = str(isolated_home / "progress.db")
    hostile = _workspace(tmp_path, "confusion", "solution", FORGER.format(stores=[store]))
    result = studyapp_cli(
        "exercise", "check", "confusion", "--quick", "--path", str(hostile), env={"GITHUB_TOKEN": "planted"}
    )

    assert result.returncode == 0, result.stdout + result.stderr  # its own check: the checker's verdict
    assert "appeared in the progress store while your code ran; they were not counted" in result.stdout
    recorded = _checks(isolated_home)
    assert [row for row in recorded if row[0] == "imbalance" and row[2]] == []  # no pass of imbalance counts
    assert ("confusion", "passed", 1) in recorded
    seen = json.loads((hostile / "seen-env.json").read_text(encoding="utf-8"))
    assert "STUDYAPP_HOME" not in seen and "GITHUB_TOKEN" not in seen
    assert "PATH" in seen  # what a program needs is still there


def test_an_honest_check_counts_and_says_nothing_about_forgery(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    workspace = _workspace(tmp_path, "confusion", "solution")
    result = studyapp_cli("exercise", "check", "confusion", "--quick", "--path", str(workspace))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not counted" not in result.stdout
    assert _checks(isolated_home) == [("confusion", "passed", 1)]


def test_the_learners_files_do_not_replace_the_standard_library_in_the_runner(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """The runner that imports the learner's module starts in safe-path mode: a `pickle.py` in the
    workspace (the runner's own import) is not what it loads; the learner's own module still is."""
    workspace = _workspace(tmp_path, "confusion", "solution")
    for name in ("pickle", "tempfile"):
        (workspace / f"{name}.py").write_text(
            f'raise SystemExit("the workspace {name}.py ran")\n', encoding="utf-8"
        )
    result = studyapp_cli("exercise", "check", "confusion", "--quick", "--path", str(workspace))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".py ran" not in result.stdout


# -- review 2026-12-second L1: learner code that attacks the child guard -------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the guard through /proc")

# Appended to the reference solution. Once per check (the first import): a daemon that leaves the
# session with a double fork and appends to a heartbeat file every 0.1 s (for 60 s at most, so a
# failing test leaves nothing for long), then `{attack}`.
DAEMON_THEN = """

import os as _os, signal as _signal, sys as _sys, time as _time
_BEAT = {beat!r}
if not _os.path.exists(_BEAT):
    open(_BEAT, "w").close()
    if _os.fork() == 0:
        _os.setsid()
        if _os.fork() == 0:
            _end, _last = _time.monotonic() + 60, 0.0
            while _time.monotonic() < _end:
{body}
            _os._exit(0)
        _os._exit(0)
{attack}
"""

BEATING = """\
                with open(_BEAT, "a") as _out:
                    _out.write("x")
                _time.sleep(0.1)"""

# the guard, found as the review found it: the first ancestor whose command line names childguard
AT_THE_GUARD = """\
    _pid = _os.getppid()
    while b"childguard" not in open(f"/proc/{{_pid}}/cmdline", "rb").read():
        _pid = int(open(f"/proc/{{_pid}}/stat").read().rsplit(")", 1)[1].split()[1])
    _os.kill(_pid, _signal.{signal})"""


def _still_beating(beat: Path) -> bool:
    """True while something keeps appending to `beat` (a process the check did not stop). A beat
    is due every 0.1 s: 2 s without one is an end (a starved survivor only makes this pass)."""
    before = beat.stat().st_size
    time.sleep(2.0)
    return beat.stat().st_size != before


def _hostile_check(
    tmp_path: Path, studyapp_cli: InProcessCli, body: str, attack: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    beat = tmp_path / "heartbeat"
    code = DAEMON_THEN.format(beat=str(beat), body=body, attack=attack)
    workspace = _workspace(tmp_path, "confusion", "solution", code)
    result = studyapp_cli("exercise", "check", "confusion", "--quick", "--path", str(workspace))
    assert beat.exists(), result.stdout + result.stderr  # the learner's code did run
    return result, beat


@needs_proc
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGSTOP"], ids=["ISO.kill-guard", "ISO.stop-guard"])
def test_a_daemon_is_stopped_even_when_the_learners_code_attacks_the_guard(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli, signal_name: str
) -> None:
    """ISO.kill-guard: the guard SIGKILLed — its adopted daemon went to init and ran on.
    ISO.stop-guard: the guard SIGSTOPped — the check was held to its time limit (a `timeout`
    verdict after 44 s) and the daemon ran on. The check now ends with an honest verdict, not
    held to its limit, and nothing keeps running."""
    result, beat = _hostile_check(tmp_path, studyapp_cli, BEATING, AT_THE_GUARD.format(signal=signal_name))
    assert not _still_beating(beat), result.stdout + result.stderr
    (row,) = _checks(isolated_home)
    assert row[0] == "confusion" and row[1] != "timeout", (row, result.stdout, result.stderr)
    if signal_name == "SIGKILL":  # the checker died with the guard: no verdict, and it says why
        assert row[1:] == ("error", 0) and result.returncode == 1
        assert "stopped by SIGKILL before its verdict, and not by studyapp" in result.stdout + result.stderr


def _hopping(pause: str) -> str:
    """A daemon body that re-forks (the parent exits) then pauses `pause`: its pid changes all the
    time, and each generation is reparented to the guard only as its parent dies."""
    return f"""\
                if _os.fork() != 0:
                    _os._exit(0)
                if _time.monotonic() - _last > 0.1:
                    with open(_BEAT, "a") as _out:
                        _out.write("x")
                    _last = _time.monotonic()
                {pause}"""


@needs_proc
@pytest.mark.parametrize("pause", ["_time.sleep(0.001)", "pass"], ids=["ISO.hop-1ms", "ISO.hop-tight"])
def test_a_process_that_keeps_re_forking_is_stopped_with_the_check(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli, pause: str
) -> None:
    """ISO.hop-1ms, ISO.hop-tight: a process left behind that re-forks every millisecond, or as
    fast as it can, outran the guard's SIGKILL rounds (each read all of /proc); its heartbeat went
    on after studyapp exited."""
    result, beat = _hostile_check(tmp_path, studyapp_cli, _hopping(pause), "    pass")
    assert not _still_beating(beat), result.stdout + result.stderr
    assert "left running after the check" in result.stdout + result.stderr
