"""Resuming a mock exam from the shell (`studyapp quiz --mode exam --resume`): what is refused in
one line (an empty id, an attempt older than a day, damaged settings) and what comes back intact
(every kind of question, its answer kept)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.progress import exams
from studyapp.progress.store import DB_NAME, ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from tests.conftest import InProcessCli

STARTED = "2026-12-05T10:00"


@pytest.fixture(scope="module")
def content():
    return load_content(locations.content_dir())


def interrupted_exam(content, home: Path, clock_env: str = STARTED, **settings) -> ExamSession:
    """A sitting with two answers that ended without a submit (a closed terminal)."""
    from studyapp.clock import parse_now

    store = ProgressStore.in_dir(home, lambda: parse_now(clock_env))
    session = ExamSession(content, store, ExamSettings(**{"count": 4, "seed": 11, **settings}))
    session.start()
    session.answer("1")
    session.go(3)
    session.answer("2")
    session.release()  # the terminal closed: its hold on the attempt is gone
    store.close()
    return session


def env_at(home: Path, now: str) -> dict[str, str]:
    return {"STUDYAPP_HOME": str(home), "STUDYAPP_NOW": now, "STUDYAPP_LANG": "en"}


def test_resume_with_an_empty_id_is_refused_in_one_line(
    tmp_path: Path, content, studyapp_cli: InProcessCli
) -> None:
    interrupted_exam(content, tmp_path)
    done = studyapp_cli(
        "--lang",
        "en",
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--resume",
        "",
        input_text="s\n",
        env=env_at(tmp_path, "2026-12-05T10:10"),
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "studyapp: --resume needs an attempt id or last"
    assert done.stdout == ""  # no fresh exam started behind the learner's back


@pytest.mark.parametrize("later", ["2026-12-06T11:00", "2026-12-12T10:00"])
def test_resume_last_keeps_the_one_day_window(
    tmp_path: Path, content, studyapp_cli: InProcessCli, later: str
) -> None:
    session = interrupted_exam(content, tmp_path)
    done = studyapp_cli(
        "--lang",
        "en",
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--resume",
        "last",
        input_text="s\n",
        env=env_at(tmp_path, later),
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"studyapp: attempt {session.attempt_id[:8]} started more than a day ago:"
        " it stays in the archive, not submitted"
    )
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert not attempt.finished and attempt.answered == 2  # the archive keeps it as it was


def test_resume_within_the_day_still_works(tmp_path: Path, content, studyapp_cli: InProcessCli) -> None:
    interrupted_exam(content, tmp_path)
    done = studyapp_cli(
        "--lang",
        "en",
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--resume",
        "last",
        input_text="s\n",
        env=env_at(tmp_path, "2026-12-06T09:00"),
    )
    assert done.returncode == 0, done.stderr
    # the intro says it is a resume, with what is left (m4)
    assert done.stdout.startswith("Resuming mock exam ") and "(2/4 answered," in done.stdout.splitlines()[0]
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert attempt.finished and attempt.answered == 2


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [("time_limit_s", "x", "time_limit_s 'x'"), ("elapsed_s", 1e308, "elapsed_s 1e+308")],
)
def test_damaged_settings_refuse_the_resume_in_one_line(
    tmp_path: Path, content, studyapp_cli: InProcessCli, key: str, value: object, named: str
) -> None:
    session = interrupted_exam(content, tmp_path)
    with sqlite3.connect(tmp_path / DB_NAME) as db:  # a hand-damaged store
        (text,) = db.execute("SELECT settings_json FROM exam_attempts").fetchone()
        settings = {**json.loads(text), key: value}
        db.execute("UPDATE exam_attempts SET settings_json = ?", (json.dumps(settings),))
    done = studyapp_cli(
        "--lang",
        "en",
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--resume",
        "last",
        input_text="s\n",
        env=env_at(tmp_path, "2026-12-05T10:10"),
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"studyapp: attempt {session.attempt_id[:8]} cannot be resumed:")
    assert named in line and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        pytest.param(
            """UPDATE exam_attempts SET settings_json = '{"time_limit_s": "x", "elapsed_s": -5}'""",
            "time_limit_s 'x'",
            id="RS.damaged-settings",
        ),
        pytest.param(
            "UPDATE exam_attempts SET settings_json = json_set(settings_json, '$.elapsed_s', 1e308)",
            "elapsed_s 1e+308",
            id="RS.elapsed-over",
        ),
    ],
)
def test_the_reviews_damaged_rows_refuse_the_resume_and_progress_still_works(
    tmp_path: Path, content, studyapp_cli: InProcessCli, damage: str, named: str
) -> None:
    """Review 2026-12-second L3, as its cases damaged the row (sqlite3 on the store): `--resume
    last` ended in `internal error: TypeError`/`OverflowError`. Now one line, exit 2, the
    attempt left as it was, and `progress` (text and JSON) still works on that store."""
    session = interrupted_exam(content, tmp_path)
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        db.execute(damage)
        (before,) = db.execute("SELECT settings_json FROM exam_attempts").fetchone()
    env = env_at(tmp_path, "2026-12-05T10:10")
    done = studyapp_cli(
        "--lang", "en", "quiz", "--mode", "exam", "--plain", "--resume", "last", input_text="s\ny\n", env=env
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"studyapp: attempt {session.attempt_id[:8]} cannot be resumed:") and named in line
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        assert db.execute("SELECT settings_json FROM exam_attempts").fetchone() == (before,)
    for command in (("progress",), ("progress", "--json")):
        after = studyapp_cli(*command, env=env)
        assert after.returncode == 0, after.stderr
        assert "internal error" not in after.stderr
    assert json.loads(after.stdout)["reviews_total"] == 0


def test_a_resumed_exam_keeps_its_glossary_questions(
    tmp_path: Path, content, studyapp_cli: InProcessCli
) -> None:
    """M1: the terms come back in the order asked, the answers given are kept and scored right."""
    from studyapp.clock import parse_now
    from studyapp.quiz.exam_resume import resume_session
    from studyapp.quiz.questions import KIND_GLOSSARY

    store = ProgressStore.in_dir(tmp_path, lambda: parse_now(STARTED))
    session = ExamSession(content, store, ExamSettings(count=10, seed=4))  # the default mix
    glossary = [n for n, q in enumerate(session.questions) if q.kind == KIND_GLOSSARY]
    assert len(glossary) == 2  # GLOSSARY_SHARE of 10
    asked = [(q.stem, [o.text for o in q.options], q.answer) for q in session.questions]
    session.start()
    right = glossary[0]
    session.go(right + 1)
    session.answer(session.current.answer)
    session.go(1 if right != 0 else 2)
    session.answer(session.current.answer)  # one more right answer, whatever its kind
    session.release()  # the terminal closed
    (attempt,) = exams.attempts(store)
    resumed = resume_session(content, store, attempt)
    assert [(q.stem, [o.text for o in q.options], q.answer) for q in resumed.questions] == asked
    assert resumed.answers == session.answers
    from studyapp.quiz.kinds import kind_of

    picks = [kind_of(resumed.questions[n]).exam_response(resumed.questions[n], "3") for n in glossary]
    assert picks == ["3"] * len(glossary)  # 1–4 picks, not O/X
    resumed.release()
    store.close()

    unanswered = glossary[1]  # shown after the resume, with its four terms
    keys = f"g {unanswered + 1}\ns\n"
    done = studyapp_cli(
        "--lang",
        "en",
        "quiz",
        "--mode",
        "exam",
        "--plain",
        "--resume",
        "last",
        input_text=keys,
        env=env_at(tmp_path, "2026-12-05T10:05"),
    )
    assert done.returncode == 0, done.stderr
    for number, text in enumerate(asked[unanswered][1], start=1):
        assert f"  {number}) {text}" in done.stdout  # the terms are shown, not O/X
    (finished,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert finished.finished and finished.score == 2 and finished.answered == 2
    assert finished.questions[right]["correct"] is True


def test_one_writer_per_attempt_a_second_window_is_refused(tmp_path: Path, content) -> None:
    """M6: while one terminal has the attempt open, a second `--resume last` (a real second
    process) is refused in one line and writes nothing; the first submits its own answers."""
    from studyapp.clock import parse_now
    from studyapp.quiz.exam_resume import find_unfinished, resume_session
    from tests.conftest import run_cli

    session = interrupted_exam(content, tmp_path)
    store = ProgressStore.in_dir(tmp_path, lambda: parse_now("2026-12-05T10:05"))
    first = resume_session(content, store, find_unfinished(store, "last"))  # window A
    second = run_cli(
        "--lang", "en", "quiz", "--mode", "exam", "--plain", "--resume", "last", input_text="1\n1\ns\n",
        env=env_at(tmp_path, "2026-12-05T10:06"),
    )  # fmt: skip
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr.strip() == (
        f"studyapp: attempt {session.attempt_id[:8]} is open in another window: go on there, or close that one first"
    )
    first.go(2)
    first.answer("1")
    result = first.submit()
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert attempt.finished and attempt.answered == 3 and attempt.score == result.score
    store.close()


@pytest.mark.timeout(240)
def test_two_terminals_resuming_one_exam_keep_the_first_submit(tmp_path: Path, content) -> None:
    """RS.twice (review 2026-12-second M6), both windows real `studyapp` processes: A resumes,
    B resumes the same attempt while A has it open (refused in one line, nothing written), A
    answers and submits; a later `--resume last` finds nothing to resume and A's result stays.
    On the reviewed checkout both ran and B's submit silently replaced A's."""
    import subprocess
    import sys

    from tests.conftest import REPO, run_cli

    session = interrupted_exam(content, tmp_path)
    env = {**os.environ, **env_at(tmp_path, "2026-12-05T10:05"), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "studyapp", "--lang", "en", "quiz", "--mode", "exam", "--plain"]
    window_a = subprocess.Popen(
        [*command, "--resume", "last"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert window_a.stdout is not None
        shown = ""
        while "/4]" not in shown and "/4)" not in shown:  # A shows a question: it holds the attempt
            line = window_a.stdout.readline()
            assert line, f"window A ended early: {shown!r}"
            shown += line
        window_b = run_cli(
            "--lang", "en", "quiz", "--mode", "exam", "--plain", "--resume", "last",
            input_text="3\n3\ns\ny\n", env=env_at(tmp_path, "2026-12-05T10:06"),
        )  # fmt: skip
        assert window_b.returncode == 2 and window_b.stdout == "", window_b.stderr
        assert window_b.stderr.strip() == (
            f"studyapp: attempt {session.attempt_id[:8]} is open in another window:"
            " go on there, or close that one first"
        )
        (untouched,) = exams.attempts(ProgressStore.in_dir(tmp_path))
        assert not untouched.finished and untouched.answered == 2  # B wrote nothing
        rest, errors = window_a.communicate("1\ns\ny\n", timeout=120)
    finally:
        if window_a.poll() is None:
            window_a.kill()
            window_a.communicate()
    assert window_a.returncode == 0, errors
    assert "Score per topic:" in rest
    (submitted,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert submitted.finished and submitted.answered == 3
    later = run_cli(
        "--lang", "en", "quiz", "--mode", "exam", "--plain", "--resume", "last", input_text="3\ns\ny\n",
        env=env_at(tmp_path, "2026-12-05T10:07"),
    )  # fmt: skip
    assert later.returncode == 2 and later.stderr.strip() == "studyapp: no unfinished mock exam to resume"
    (kept,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert (kept.finished_at, kept.score, kept.questions) == (
        submitted.finished_at,
        submitted.score,
        submitted.questions,
    )


def test_a_killed_window_does_not_block_its_own_resume(tmp_path: Path, content) -> None:
    """The hold is the process's: kill -9 of a sitting leaves the attempt resumable at once."""
    import signal
    import subprocess
    import sys

    from tests.conftest import REPO

    env = {**env_at(tmp_path, "2026-12-05T10:00"), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "studyapp", "--lang", "en", "quiz", "--mode", "exam", "--plain"]
    child = subprocess.Popen(
        [*command, "--kind", "ox", "--count", "3", "--seed", "2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("o\n")
    child.stdin.flush()
    for line in child.stdout:  # the answer is archived before the next question is shown
        if line.startswith("[2/3]") or "2/3" in line:
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()
    child.stdin.close()
    assert child.stderr is not None
    child.stderr.close()
    resumed = subprocess.run(
        [*command, "--resume", "last"], input="s\n", capture_output=True, text=True,
        env={**env, "STUDYAPP_NOW": "2026-12-05T10:02"}, timeout=120,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert attempt.finished and attempt.answered == 1


def test_an_attempt_archived_before_rows_had_a_format_still_resumes(
    tmp_path: Path, content, studyapp_cli: InProcessCli
) -> None:
    """Rows written before "v" (format 1) hold the same fields: read the same way."""
    session = interrupted_exam(content, tmp_path)
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        (text,) = db.execute("SELECT questions_json FROM exam_attempts").fetchone()
        rows = json.loads(text)
        assert all(row.pop("v") == 2 for row in rows)
        db.execute("UPDATE exam_attempts SET questions_json = ?", (json.dumps(rows),))
    done = studyapp_cli(
        "--lang", "en", "quiz", "--mode", "exam", "--plain", "--resume", "last", input_text="s\n",
        env=env_at(tmp_path, "2026-12-05T10:10"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for question in session.questions:
        assert question.stem.splitlines()[0] in done.stdout  # every question, as asked
    (attempt,) = exams.attempts(ProgressStore.in_dir(tmp_path))
    assert attempt.finished and attempt.answered == 2
