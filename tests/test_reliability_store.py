"""The progress store under environmental faults, driven the way a learner meets them (issue 9).

Each test runs `studyapp …` on a real SQLite file and checks the three promises: one clear line
on stderr, the right exit code, and no answer lost or file moved. Commands run in-process
(`studyapp_cli`) unless the fault needs a process of its own: a session fed one answer at a time
(`PlainDriver`), fault injection through PYTHONPATH, kill -9, another program holding the lock. A full
disk is a real small tmpfs where this machine lets us mount one (root with CAP_SYS_ADMIN), and a
simulated SQLITE_FULL (tests/store_faults/sitecustomize.py) everywhere, so CI without mounts still
covers the class. Cases are named after the review (../shared/reviews/reliability-bad-input.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, InProcessCli, run_cli

FAULTS = Path(__file__).parent / "store_faults"
QUIZ = ("quiz", "--plain", "--mode", "cram", "--no-drills", "--kind", "ox")


# -- helpers ----------------------------------------------------------------------------------
def review_count(home: Path) -> int:
    """Rows in `reviews`, read the way a second program would (a fresh read-only connection)."""
    db = sqlite3.connect(f"{(home / 'progress.db').as_uri()}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM reviews").fetchone()[0])
    finally:
        db.close()


def seed(cli: InProcessCli, home: Path, answers: int) -> None:
    result = cli(*QUIZ, input_text="o\n" * answers + "q\n")
    assert result.returncode == 0, result.stderr
    assert review_count(home) == answers


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return lines[0]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bad_files(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir() if ".bad-" in p.name)


class PlainDriver:
    """`studyapp quiz --plain` fed one answer at a time; an answer counts as acknowledged when
    its feedback ('Next review:') has been printed, as the review's driver.py did."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        # stderr goes to a file so a test can read it while the quiz runs (closed with the test)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env["PYTHONPATH"] = os.pathsep.join(p for p in ((env or {}).get("PYTHONPATH"), str(REPO)) if p)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "studyapp", *QUIZ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=full_env,
            cwd=REPO,
        )
        self.acknowledged = 0
        self.output = ""
        self.read_until_prompt()

    def read_until_prompt(self, timeout: float = 60) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        chunk = b""
        while not chunk.endswith(b"> ") and time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if ready:
                data = os.read(self.process.stdout.fileno(), 65536)
                if not data:
                    break
                chunk += data
        text = chunk.decode("utf-8", errors="replace")
        self.output += text
        return text

    def answer(self, key: str = "o") -> str:
        assert self.process.stdin is not None
        self.process.stdin.write(key.encode() + b"\n")
        self.process.stdin.flush()
        text = self.read_until_prompt()
        self.acknowledged += "Next review:" in text
        return text

    def process_stderr_so_far(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", errors="replace")

    def quit(self) -> tuple[int, str]:
        rest, _ = self.process.communicate(b"q\n", timeout=120)
        self.output += rest.decode("utf-8", errors="replace")
        return self.process.returncode, self.process_stderr_so_far()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.communicate(timeout=30)


def _can_mount() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def small_disk(isolated_home: Path) -> Iterator[Path]:
    """The data directory on a real 1 MB tmpfs (skipped where mounting is not allowed)."""
    if not _can_mount():
        pytest.skip("mounting a small tmpfs needs root; the simulated SQLITE_FULL tests cover this")
    isolated_home.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(isolated_home)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield isolated_home
    finally:
        subprocess.run(["umount", "-l", str(isolated_home)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte, as `cat /dev/zero > fill` does."""
    filler = disk / "fill"
    with filler.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


# -- 2. a full disk -----------------------------------------------------------------------------
def test_full_disk_at_start_is_one_line_and_moves_nothing(
    small_disk: Path, studyapp_cli: InProcessCli
) -> None:
    """H1 / case 39 disk-full-before-start: the healthy store used to be renamed .bad-… and the
    history seemed gone once space came back."""
    seed(studyapp_cli, small_disk, 3)
    before = sha(small_disk / "progress.db")
    filler = fill(small_disk)
    quiz = studyapp_cli(*QUIZ, input_text="o\nq\n")
    assert quiz.returncode == 2, quiz.stderr
    line = one_line(quiz.stderr)
    assert "full" in line and str(small_disk) in line
    report = studyapp_cli("progress", "--json")  # reading still works where SQLite can read
    assert report.returncode in (0, 2), report.stderr
    if report.returncode == 0:
        assert json.loads(report.stdout)["reviews_total"] == 3
    else:
        assert "full" in one_line(report.stderr)
    assert bad_files(small_disk) == []
    assert sha(small_disk / "progress.db") == before
    filler.unlink()
    report = studyapp_cli("progress", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["reviews_total"] == 3


def test_disk_filling_mid_session_keeps_the_answer_and_retries_it(
    small_disk: Path, studyapp_cli: InProcessCli
) -> None:
    """Case 40 disk-fills-mid-session: was `internal error`, no summary. Now the learner is told,
    the answer is kept and written with the next one once there is space."""
    seed(studyapp_cli, small_disk, 2)
    quiz = PlainDriver()
    quiz.answer("o")
    filler = fill(small_disk)
    # SQLite reuses the pages it has, so the first answers may still fit; answer until one doesn't.
    for _ in range(40):
        quiz.answer("x")
        if "not saved yet" in quiz.process_stderr_so_far():
            break
    else:
        pytest.fail("40 answers fitted on a full disk")
    filler.unlink()
    quiz.answer("o")  # space again: the kept answer goes first, then this one
    code, stderr = quiz.quit()
    assert code == 0, stderr
    assert "not saved yet" in stderr and "full" in stderr
    assert "Saved the 1 answer(s) that were waiting" in stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert review_count(small_disk) == 2 + quiz.acknowledged
    assert bad_files(small_disk) == []


def test_simulated_full_disk_keeps_answers_then_rescues_them_at_exit(
    isolated_home: Path, tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    """The same class without a mount: SQLite's SQLITE_FULL raised at every write while a flag
    file exists. A write failing until the end leaves the answers in an export file that
    `--import-data` merges once the disk is fine; the session says so in one line, exit 2."""
    seed(studyapp_cli, isolated_home, 2)
    flag = tmp_path / "disk-is-full"
    env = {"PYTHONPATH": str(FAULTS), "STUDYAPP_FAULT_FULL": str(flag)}
    quiz = PlainDriver(env)
    quiz.answer("o")
    flag.touch()
    quiz.answer("x")
    quiz.answer("o")
    code, stderr = quiz.quit()
    assert code == 2, stderr
    assert quiz.acknowledged == 3
    assert "Traceback" not in stderr and "internal error" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert "2 answer(s) could not be saved" in last and "--import-data" in last
    rescue = Path(last.rsplit("--import-data ", 1)[1])
    assert rescue.parent == isolated_home and rescue.is_file()
    assert review_count(isolated_home) == 3
    flag.unlink()
    merged = studyapp_cli("progress", "--import-data", str(rescue))
    assert merged.returncode == 0, merged.stderr
    assert merged.stdout.startswith("imported: 2 answers")
    assert review_count(isolated_home) == 5
    assert bad_files(isolated_home) == []


# -- 2. a read-only data directory ------------------------------------------------------------
@pytest.fixture
def read_only_home(isolated_home: Path, studyapp_cli: InProcessCli) -> Iterator[Path]:
    """The data directory made read-only: a read-only bind mount as root (chmod means nothing to
    root), plain permissions otherwise."""
    seed(studyapp_cli, isolated_home, 3)
    if _can_mount():
        home = str(isolated_home)
        bound = subprocess.run(["mount", "--bind", home, home], capture_output=True)
        if bound.returncode != 0:
            pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
        subprocess.run(["mount", "-o", "remount,ro,bind", home], check=True, capture_output=True)
        try:
            yield isolated_home
        finally:
            subprocess.run(["umount", "-l", home], capture_output=True)
    else:
        isolated_home.chmod(0o555)
        (isolated_home / "progress.db").chmod(0o444)
        try:
            yield isolated_home
        finally:
            isolated_home.chmod(0o755)


def test_read_only_data_dir_reports_work_and_writes_refuse_in_one_line(
    read_only_home: Path, studyapp_cli: InProcessCli
) -> None:
    """Cases 31–32 read-only-bind-mount: the healthy file went to the move-aside branch and died
    with OSError. Now `progress` reads it (mode=ro) and `quiz` says why it cannot start."""
    before = sha(read_only_home / "progress.db")
    report = studyapp_cli("progress", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["reviews_total"] == 3
    assert "read-only" in one_line(report.stderr)
    for listing in (("lab", "list"), ("exercise", "list"), ("cards", "performance-analysis"), ("topics",)):
        listed = studyapp_cli(*listing)
        assert listed.returncode == 0, (listing, listed.stderr)
    for command in (QUIZ, ("progress", "--self-check", "anything")):
        result = studyapp_cli(*command, input_text="o\nq\n")
        assert result.returncode == 2, result.stderr
        line = one_line(result.stderr)
        assert "cannot be written" in line and str(read_only_home) in line
    assert bad_files(read_only_home) == []
    assert sha(read_only_home / "progress.db") == before


# -- 3. another program holds the lock --------------------------------------------------------
def hold_lock(home: Path, seconds: float) -> threading.Thread:
    """Another program's exclusive transaction on the store, for `seconds`."""
    started = threading.Event()

    def holder() -> None:
        db = sqlite3.connect(home / "progress.db", isolation_level=None)
        db.execute("BEGIN EXCLUSIVE")
        started.set()
        time.sleep(seconds)
        db.execute("ROLLBACK")
        db.close()

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    assert started.wait(10)
    return thread


def test_a_held_lock_is_waited_for_with_a_notice(isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    """Cases 49 / 3.6: a lock longer than 10 s used to end the quiz with `internal error`. Now the
    quiz says it is waiting and records the answer once the other program is done."""
    seed(studyapp_cli, isolated_home, 1)
    holder = hold_lock(isolated_home, 11.0)  # past the old 10 s busy timeout
    result = run_cli(*QUIZ, input_text="o\nq\n")
    holder.join()
    assert result.returncode == 0, result.stderr
    assert "waiting for another program that is using" in one_line(result.stderr)
    assert review_count(isolated_home) == 2


def test_a_lock_held_past_the_limit_keeps_the_answer(isolated_home: Path, studyapp_cli: InProcessCli) -> None:
    """Case 50: a lock held past the wait limit (1 s here, via STUDYAPP_LOCK_WAIT_S) while
    answering. The answer is kept, the session goes on, and it is written with the next one."""
    seed(studyapp_cli, isolated_home, 1)
    quiz = PlainDriver({"STUDYAPP_LOCK_WAIT_S": "1"})
    holder = hold_lock(isolated_home, 3.0)
    quiz.answer("o")
    holder.join()
    quiz.answer("x")
    code, stderr = quiz.quit()
    assert code == 0, stderr
    assert "locked by another program" in stderr and "not saved yet" in stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert quiz.acknowledged == 2
    assert review_count(isolated_home) == 3


# -- M3: the WAL is checkpointed during the session -------------------------------------------
def test_deleted_wal_then_kill_9_loses_no_acknowledged_answer(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """Cases 43–44: everything lived in progress.db-wal until the session closed; a deleted -wal
    plus kill -9 lost all 10 answers and the tables. Each commit is checkpointed now."""
    quiz = PlainDriver()
    for _ in range(5):
        quiz.answer("o")
    (isolated_home / "progress.db-wal").unlink()
    for _ in range(5):
        quiz.answer("x")
    second_reader = review_count(isolated_home)  # another program opening the store meanwhile
    quiz.kill()
    assert quiz.acknowledged == 10
    assert second_reader >= 9
    assert review_count(isolated_home) >= 9  # at most the answer being written when the -wal went
    report = studyapp_cli("progress", "--json")
    assert report.returncode == 0 and report.stderr == "", report.stderr


# -- L5: a file of ours whose schema or rows were edited -------------------------------------
@pytest.mark.parametrize(
    "damage, command",
    [
        ("DROP TABLE card_state", QUIZ),
        ("DROP TABLE card_state", ("progress", "--json")),
        ("ALTER TABLE reviews RENAME COLUMN reviewed_at TO when_at", QUIZ),
        ("ALTER TABLE reviews RENAME COLUMN reviewed_at TO when_at", ("progress", "--json")),
        ("UPDATE reviews SET reviewed_at = 'not-a-date'", ("progress", "--json")),
        ("INSERT OR REPLACE INTO meta VALUES ('exam_date', 'next spring')", ("quiz", "--plain")),
    ],
)
def test_damaged_schema_or_row_is_one_line_and_left_untouched(
    isolated_home: Path, damage: str, command: tuple[str, ...], studyapp_cli: InProcessCli
) -> None:
    seed(studyapp_cli, isolated_home, 2)
    db = sqlite3.connect(isolated_home / "progress.db")
    db.execute(damage)
    db.commit()
    db.close()
    before = sha(isolated_home / "progress.db")
    result = studyapp_cli(*command, input_text="o\nq\n")
    assert result.returncode == 2, result.stderr
    line = one_line(result.stderr)
    assert "left untouched" in line or "exam date" in line
    assert bad_files(isolated_home) == []
    assert sha(isolated_home / "progress.db") == before


# -- L6 / 7.8–7.10: data directories that cannot be one -------------------------------------
def test_unusable_data_directories_are_one_line(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory\n")
    cases = {
        "a file": a_file,
        "below a file": a_file / "sub",
        "/dev/null": Path("/dev/null"),
        "too long": tmp_path.joinpath(*["d" * 200] * 25),
        "component over 255 bytes": tmp_path / ("x" * 300),
    }
    for name, home in cases.items():
        for command in (QUIZ, ("progress",)):
            result = studyapp_cli(*command, env={"STUDYAPP_HOME": str(home)}, input_text="o\nq\n")
            assert result.returncode == 2, (name, result.stderr)
            assert "data directory" in one_line(result.stderr), name
    assert a_file.read_text() == "not a directory\n"


def test_a_hand_edited_explain_answer_does_not_break_the_report(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    """An explain-it row with an unparsable date (written by hand, not by an import, which refuses
    it) is skipped by readiness: `progress` still works and counts the good answers."""
    seed(studyapp_cli, isolated_home, 2)
    db = sqlite3.connect(isolated_home / "progress.db")
    db.execute(
        "INSERT INTO explain_answers (uid, prompt_id, checklist_id, answer_text, covered_json,"
        " total_points, answered_at) VALUES ('u1', 'x', 'measure-resources', 'a', '[0]', 4, 'yesterday')"
    )
    db.commit()
    db.close()
    report = studyapp_cli("progress", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["reviews_total"] == 2
