"""The review's Low and minor cases (2026-12, issue 25): each is one clear line, no internal error,
nothing lost, nothing raw on the terminal.

L1 `exercise start` on odd workspaces · L2 NaN timeouts · L3 closed stdin/stdout in line modes ·
L4 `check` from a deleted folder · L5 `explain` with a 5000-digit id · L6 an explain answer kept
when its save fails · L8 exercise metadata read without bounds · L9 traces too big for memory and
huge names · and the minor list (escapes from ids and learner errors, misleading verdicts,
`--export-data` below a file, spreadsheet formulas in artifacts, pass marks, `--retry last`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from studyapp.errors import StudyappError
from studyapp.exercises import checker, workspace
from studyapp.exercises.registry import scan
from tests.conftest import REPO, InProcessCli, run_cli

FIXTURE_LABS = REPO / "tests" / "exercise_fixture" / "labs"
ESC = "\x1b]0;PWN\x07\x1b[2J"


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert "\x1b" not in stderr, stderr
    return lines[0]


@pytest.fixture
def toy_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "labs"
    shutil.copytree(FIXTURE_LABS, target)
    monkeypatch.setenv("STUDYAPP_LABS", str(target))
    return target


# -- L1: exercise start on odd workspaces -----------------------------------------------------------


def test_start_into_a_symlink_loop_or_the_root_is_one_line(isolated_home: Path) -> None:
    loop = isolated_home / "exercises" / "amdahl"
    loop.parent.mkdir(parents=True)
    loop.symlink_to(loop)
    result = run_cli("exercise", "start", "amdahl")
    assert result.returncode == 2 and "symbolic link loop" in one_line(result.stderr)
    for target in ("/", "/proc"):
        for force in ([], ["--force"]):
            result = run_cli("exercise", "start", "amdahl", "--dir", target, *force)
            assert result.returncode == 2, (target, result.stdout)
            assert "is not a workspace" in one_line(result.stderr)


def test_start_force_that_cannot_move_the_work_aside_changes_nothing(
    toy_labs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = scan(toy_labs).exercises["toy-sum"]
    folder = tmp_path / "ws"
    workspace.start(info, folder)
    (folder / "adder.py").write_text("# my work\n", encoding="utf-8")

    def read_only(source: object, target: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(workspace.os, "replace", read_only)
    with pytest.raises(
        StudyappError, match=r"cannot move your work .* Read-only file system; nothing was changed"
    ):
        workspace.start(info, folder, force=True)
    assert (folder / "adder.py").read_text(encoding="utf-8") == "# my work\n"


def test_a_start_cut_short_by_a_full_disk_leaves_nothing_that_looks_like_work(
    toy_labs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EX.W5k: the empty file a failed copy left was later taken for the learner's edits."""
    info = scan(toy_labs).exercises["toy-sum"]
    folder = tmp_path / "ws"

    def full_disk(source: object, target: Path) -> None:
        Path(target).write_text("", encoding="utf-8")  # created, then the write fails
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched, pytest.raises(StudyappError, match="No space left"):
        patched.setattr(workspace.shutil, "copy2", full_disk)
        workspace.start(info, folder)
    assert not folder.exists()
    assert workspace.start(info, folder).fresh


# -- L2: NaN timeouts ------------------------------------------------------------------------------


def test_nan_timeouts_are_refused(toy_labs: Path) -> None:
    result = run_cli("exercise", "check", "toy-sum", "--timeout", "nan")
    assert result.returncode == 2 and "--timeout" in one_line(result.stderr)
    meta = toy_labs / "toy" / "exercises" / "toy-sum" / "exercise.yaml"
    meta.write_text(
        meta.read_text(encoding="utf-8").replace("timeout_s: 60", "timeout_s: .nan"), encoding="utf-8"
    )
    found = scan(toy_labs)
    assert "toy-sum" not in found.exercises
    assert any("timeout_s" in p.message and "nan" in p.message for p in found.problems)


# -- L3: closed stdin or stdout --------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["quiz", "--plain"], ["quiz", "--mode", "exam", "--plain", "--count", "2"], ["explain", "1", "--plain"]],
    ids=["quiz", "exam", "explain"],
)
def test_line_modes_with_a_closed_stdin_or_stdout(command: list[str], isolated_home: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    base = [sys.executable, "-m", "studyapp", *command]
    closed_in = subprocess.run(base, env=env, cwd=REPO, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, close_fds=True, preexec_fn=lambda: os.close(0))  # fmt: skip
    assert closed_in.returncode == 0, closed_in.stderr
    assert "internal error" not in closed_in.stderr
    closed_out = subprocess.run(base, env=env, cwd=REPO, stderr=subprocess.PIPE, text=True, timeout=120, input="q\n", preexec_fn=lambda: os.close(1))  # fmt: skip
    assert closed_out.returncode == 2
    assert "standard output is closed" in one_line(closed_out.stderr)


# -- L4, L5 -----------------------------------------------------------------------------------------


def test_check_from_a_deleted_folder(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    code = f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); from studyapp.cli import main; sys.exit(main(['check']))"
    result = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=120
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "content ok" in result.stdout


def test_explain_with_a_huge_or_escaped_id() -> None:
    for wanted in ("9" * 5000, ESC):
        result = run_cli("explain", wanted, "--plain", input_text="")
        assert result.returncode == 2
        assert "unknown explain-it prompt" in one_line(result.stderr)


# -- L6: an explain answer is kept when its save fails ----------------------------------------------


def test_an_explain_answer_that_cannot_be_saved_is_kept_for_import(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from studyapp.cli.explain import run_plain_explain
    from studyapp.content.explain import load_explain
    from studyapp.content.loader import load_content
    from studyapp.i18n import Translator
    from studyapp.locations import content_dir
    from studyapp.progress.db import StoreError
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz import explain

    content = load_content(content_dir(None))
    prompt = load_explain(content)[0]
    store = ProgressStore.in_dir(isolated_home)

    def disk_full(*args: object, **kwargs: object) -> None:
        raise StoreError("the disk holding progress.db is full; free some space and try again")

    answers = "My careful answer about peaks.\n\n" + "y\n" * len(prompt.key_points)
    with monkeypatch.context() as patched, pytest.raises(StudyappError) as raised:
        patched.setattr(explain, "record_result", disk_full)  # only here: STUDYAPP_HOME stays set
        run_plain_explain(content, store, prompt, Translator("en"), io.StringIO(answers), io.StringIO())
    message = str(raised.value)
    assert "could not be saved" in message and "--import-data" in message
    (kept,) = isolated_home.glob("unsaved-explain-*.json")
    assert kept.stat().st_mode & 0o077 == 0  # the learner's text, readable by them only
    imported = run_cli("progress", "--import-data", str(kept))
    assert imported.returncode == 0, imported.stderr
    db = sqlite3.connect(isolated_home / "progress.db")
    assert db.execute("SELECT answer_text FROM explain_answers").fetchall() == [
        ("My careful answer about peaks.",)
    ]
    db.close()


def test_a_long_explain_answer_is_cut_with_a_word(isolated_home: Path) -> None:
    text = "x" * 25_000 + "\n\n" + "n\n" * 20
    result = run_cli("explain", "1", "--plain", input_text=text)
    assert result.returncode == 0, result.stderr
    assert "only the first 20000 are kept" in result.stdout


# -- L8: exercise metadata read without bounds -------------------------------------------------------


def test_broken_exercise_metadata_cannot_hang_or_exhaust_exercise_list(toy_labs: Path) -> None:
    folder = toy_labs / "toy" / "exercises" / "toy-sum"
    (folder / "hints.md").unlink()
    os.mkfifo(folder / "hints.md")
    (folder / "README.md").unlink()
    os.mkfifo(folder / "README.md")
    listing = run_cli("exercise", "list")
    assert listing.returncode == 0, listing.stderr
    assert run_cli("exercise", "hint", "toy-sum").returncode == 0
    meta = folder / "exercise.yaml"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8)
    )  # fmt: skip
    meta.write_text(meta.read_text(encoding="utf-8") + bomb + "order: *i\n", encoding="utf-8")
    for command in (("exercise", "list"), ("check",)):
        result = run_cli(*command)
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr) < 10_000
    meta.unlink()
    os.mkfifo(meta)
    assert run_cli("exercise", "list").returncode == 0  # the FIFO is a problem, not a hang
    meta.unlink()
    meta.symlink_to("/dev/zero")
    assert run_cli("exercise", "list").returncode == 0


# -- L9: traces too big for memory, huge names ------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="an address-space cap (RLIMIT_AS)")
def test_a_trace_too_big_for_the_memory_is_one_line(tmp_path: Path) -> None:
    trace = tmp_path / "sparse.json"
    with trace.open("wb") as handle:
        handle.truncate(400 * 1024 * 1024)  # all NUL: read, decoded, then refused

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (900 * 1024 * 1024, resource.RLIM_INFINITY))

    code = "from labs._protocol import run_lab; from labs.profiler.lab import main; run_lab('profiler', main)"
    result = subprocess.run(
        [sys.executable, "-c", code, "--trace", str(trace)],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True, timeout=300, preexec_fn=cap,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    assert "does not fit in the memory" in result.stderr and "MemoryError" not in result.stderr


def test_a_huge_operator_name_is_cut(tmp_path: Path) -> None:
    name = "aten::" + "x" * 2_000_000
    trace = tmp_path / "bigname.json"
    trace.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 1, "dur": 5},
    ]}), encoding="utf-8")  # fmt: skip
    result = run_cli("lab", "profiler", "--trace", str(trace), "--json")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < 200_000
    top = json.loads(result.stdout)["top_ops"][0]["name"]
    assert top.startswith("aten::xxx") and top.endswith("…") and len(top) == 1000


# -- minor: what reaches the terminal, and what the verdict says ------------------------------------


def test_exercise_ids_are_echoed_without_escapes(studyapp_cli: InProcessCli) -> None:
    for action in ("start", "check", "watch", "hint", "solution"):
        result = studyapp_cli("exercise", action, ESC)
        assert result.returncode == 2
        assert "unknown exercise" in one_line(result.stderr)


def make_exercise(root: Path, check_source: str) -> object:
    folder = root / "labs" / "lab1" / "exercises" / "demo"
    (folder / "starter").mkdir(parents=True)
    (folder / "solution").mkdir()
    (folder / "starter" / "answer.py").write_text("x = 0\n", encoding="utf-8")
    (folder / "solution" / "answer.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "check.py").write_text(textwrap.dedent(check_source), encoding="utf-8")
    (folder / "exercise.yaml").write_text(
        "id: demo\ntitle: 데모\nlab: lab1\nchecklist: [amdahl]\n", encoding="utf-8"
    )
    return scan(root / "labs").exercises["demo"]


EMIT = "import json, os, signal, sys\ndef emit(**m):\n    print(json.dumps(m), flush=True)\n"


def test_a_learner_error_with_escapes_is_shown_inert(tmp_path: Path) -> None:
    """EX.L23 (and the TUI's EX.tui-escmsg, which shows the same outcome)."""
    message = "ValueError: " + ESC
    traceback = "Traceback (most recent call last):\nValueError: " + ESC
    body = (
        f"emit(type='requirement', name='adds', passed=False, message={message!r})\n"
        f"emit(type='result', verdict='failed', learner_traceback={traceback!r})\n"
        "sys.exit(1)\n"
    )
    info = make_exercise(tmp_path, EMIT + body)
    ws = tmp_path / "ws"
    ws.mkdir()
    outcome = checker.run_check(info, ws)  # type: ignore[arg-type]
    shown = json.dumps(outcome.to_dict(), ensure_ascii=False) + outcome.message
    assert outcome.verdict == "failed" and "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b" in outcome.requirements[0].message


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("os.kill(os.getpid(), signal.SIGKILL)", "stopped by SIGKILL"),
        ("os.killpg(os.getpgid(0), signal.SIGKILL)", "stopped by SIGKILL"),
        ("sys.exit(130)", "SIGINT or SIGTERM"),
    ],
    ids=["EX.L13-kill-parent", "EX.L14-kill-group", "EX.L15-sigterm"],
)
def test_a_checker_stopped_by_the_learners_code_does_not_blame_the_exercise(
    tmp_path: Path, how: str, says: str
) -> None:
    info = make_exercise(tmp_path, EMIT + f'emit(type="progress", message="calling your code")\n{how}\n')
    ws = tmp_path / "ws"
    ws.mkdir()
    outcome = checker.run_check(info, ws)  # type: ignore[arg-type]
    assert outcome.verdict == "error" and says in outcome.message
    assert "fault of the exercise" not in outcome.message


@pytest.mark.parametrize("kind", ["folder", "fifo", "device"])
def test_a_learner_file_that_is_not_a_file_is_named_so(tmp_path: Path, kind: str) -> None:
    """EX.L35/37/38: 'laws.py is missing' when it was a folder, a FIFO or a link to /dev/zero."""
    from labs._exercise.learner import run_learner

    target = tmp_path / "laws.py"
    if kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    result = run_learner(tmp_path, "laws.py", "f", timeout_s=30)
    assert not result.ok and "missing" not in (result.error or "")
    assert ("folder" if kind == "folder" else "not a regular file") in (result.error or "")


def test_export_below_a_file_names_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x", encoding="utf-8")
    result = run_cli("progress", "--export-data", str(blocker / "x.json"))
    assert result.returncode == 2
    assert f"{blocker} is a file, not a folder" in one_line(result.stderr)


def test_spreadsheet_formulas_in_labels_stay_inert(tmp_path: Path) -> None:
    from labs.errors.lab import _inert_cell

    assert [_inert_cell(v) for v in ("=1+1", "@SUM(A1)", "+cmd", "-2+3", "-1", "2.5", "cat", 7)] == [
        "'=1+1", "'@SUM(A1)", "'+cmd", "'-2+3", "-1", "2.5", "cat", 7,
    ]  # fmt: skip


@pytest.mark.parametrize(("given", "shown"), [("1", "1%"), ("0.0001", None), ("0.6", "60%"), ("60", "60%")])
def test_pass_marks_read_as_written(given: str, shown: str | None) -> None:
    """EXAM.pm-one (`1` meant 100 %) and EXAM.pm-tiny (0.0001 shown as 0 %)."""
    result = run_cli(
        "quiz", "--mode", "exam", "--plain", "--count", "1", "--pass-mark", given, input_text="s\n"
    )
    if shown is None:
        assert result.returncode == 2 and "pass mark" in one_line(result.stderr)
    else:
        assert result.returncode == 0, result.stderr
        assert shown in result.stdout


def test_retry_last_skips_an_attempt_dated_in_the_future(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """EXAM.future-last: an attempt stored under a clock set to 2031 stayed 'last' for ever."""
    for _ in range(2):
        assert (
            studyapp_cli(
                "quiz", "--mode", "exam", "--plain", "--count", "2", "--kind", "ox", input_text="s\n"
            ).returncode
            == 0
        )
    db = sqlite3.connect(isolated_home / "progress.db")
    with db:
        first = db.execute("SELECT uid FROM exam_attempts ORDER BY id LIMIT 1").fetchone()[0]
        db.execute(
            "UPDATE exam_attempts SET started_at = '2031-01-01T00:00:00+00:00' WHERE uid = ?", (first,)
        )
        newest = db.execute("SELECT uid FROM exam_attempts ORDER BY id DESC LIMIT 1").fetchone()[0]
    db.close()
    result = studyapp_cli("quiz", "--mode", "exam", "--plain", "--retry", "last", input_text="s\n")
    assert result.returncode == 0, result.stderr
    db = sqlite3.connect(isolated_home / "progress.db")
    retried = db.execute("SELECT settings_json FROM exam_attempts ORDER BY id DESC LIMIT 1").fetchone()[0]
    db.close()
    assert json.loads(retried)["retry_of"] == newest


def test_sigterm_to_a_check_is_recorded_and_leaves_nothing(
    toy_labs: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """EX.X9: SIGTERM ended studyapp at once; the checker and the learner's children ran on."""
    assert run_cli("exercise", "start", "toy-sum").returncode == 0
    marker = tmp_path / "learner-alive"
    adder = isolated_home / "exercises" / "toy-sum" / "adder.py"
    adder.write_text(
        f"import pathlib, time\nwhile True:\n    pathlib.Path({str(marker)!r}).touch(); time.sleep(0.1)\n",
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "exercise", "check", "toy-sum"],
        env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    import time

    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    time.sleep(1.0)
    before = marker.stat().st_mtime_ns
    time.sleep(1.0)
    assert marker.stat().st_mtime_ns == before, "the learner's code ran on after studyapp ended"
    assert process.returncode == 128 + signal.SIGTERM
    db = sqlite3.connect(isolated_home / "progress.db")
    assert [r[0] for r in db.execute("SELECT verdict FROM exercise_checks")] == ["interrupted"]
    db.close()


def test_watch_does_not_recheck_what_the_check_itself_wrote(toy_labs: Path, isolated_home: Path) -> None:
    """EX.X3: learner code that writes a .py into its workspace made watch re-check for ever."""
    pytest.importorskip("watchfiles")
    import time

    assert run_cli("exercise", "start", "toy-sum").returncode == 0
    folder = isolated_home / "exercises" / "toy-sum"
    code = (
        "import pathlib, time\n"
        f"pathlib.Path({str(folder / 'generated.py')!r}).write_text(f'# {{time.time()}}\\n')\n"
        "def add(a, b):\n    return a + b\n"
    )
    (folder / "adder.py").write_text(code, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "studyapp", "exercise", "watch", "toy-sum", "--quick"],
        env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (isolated_home / "progress.db").exists() or not _checks(isolated_home):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        time.sleep(2)
        (folder / "adder.py").write_text(code + "# saved again\n", encoding="utf-8")  # the learner saves
        while len(_checks(isolated_home)) < 2:
            assert time.monotonic() < deadline + 60
            time.sleep(0.2)
        time.sleep(8)  # several check lengths: a loop would have recorded more by now
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert len(_checks(isolated_home)) == 2


def _checks(home: Path) -> list[str]:
    db = sqlite3.connect(home / "progress.db")
    try:
        return [row[0] for row in db.execute("SELECT verdict FROM exercise_checks")]
    except sqlite3.Error:
        return []
    finally:
        db.close()


def test_a_checker_that_prints_without_end_is_bounded_and_blamed(tmp_path: Path) -> None:
    """EX.pack-chatty: 1.9 GB of studyapp memory in 40 s, a traceback, and a verdict blaming the learner."""
    import resource

    info = make_exercise(tmp_path, EMIT + "while True:\n    sys.stdout.write('x' * 65536)\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = checker.run_check(info, ws, timeout=8)  # type: ignore[arg-type]
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert outcome.verdict == "timeout" and "fault of the exercise" in outcome.message
    assert grown_mb < 200, f"studyapp grew by {grown_mb:.0f} MB reading the checker"


def test_a_crash_on_a_full_disk_names_the_full_disk_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R6.168: 'lab crashed: FileNotFoundError … No such file' came before '— no space left'."""
    from studyapp.child import ChildRun
    from studyapp.labrunner import registry, runner

    monkeypatch.setattr(
        runner, "_full_disk_note", lambda out: f" — no space left on the disk of {out} (0 bytes free)"
    )
    report = runner._LabReport(None)
    report.read({"type": "error", "kind": "crash", "message": "FileNotFoundError: [Errno 2] No such file"})
    info = registry.discover()["profiler"]
    outcome = runner._lab_outcome(info, ChildRun("", 1, 0), report, tmp_path, 60)
    assert outcome.message.startswith("profiler lab crashed — no space left on the disk of")
    assert outcome.message.index("no space left") < outcome.message.index("FileNotFoundError")
