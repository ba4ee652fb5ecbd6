"""The mock exam: the sitting (answers in any order, flags, jumps, the clock), grading only at the
end, the archive, retrying misses, `--no-schedule` by default — through the domain and through
`studyapp quiz --mode exam --plain` (in-process, and once in a real process for the real clock)."""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.errors import StudyappError
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.progress.transfer import export_data, import_data
from studyapp.quiz.exam import ExamSession, ExamSettings, retry_questions
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.questions import KIND_CHOICE, KIND_GLOSSARY, KIND_OX, Question
from studyapp.timetext import format_clock, parse_pass_mark, parse_time_limit
from tests.conftest import REPO, FakeClock, InProcessCli


@pytest.fixture(scope="module")
def content():
    return load_content(locations.content_dir())


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock):
    progress = ProgressStore(tmp_path / "p.db", clock)
    yield progress
    progress.close()


def ox_exam(content, store, clock=None, **settings) -> ExamSession:
    options = {"count": 5, "kind": KIND_OX, "seed": 3, **settings}
    return ExamSession(content, store, ExamSettings(**options), clock=clock)


def wrong(question) -> str:
    return "X" if question.answer == "O" else "O"


def test_answers_in_any_order_are_graded_only_on_submit(content, store, clock) -> None:
    exam = ox_exam(content, store, clock)
    exam.start()
    exam.go(3)
    assert exam.answer(exam.current.answer)  # question 3 right
    exam.go(1)
    assert exam.answer(wrong(exam.current))  # question 1 wrong
    assert not exam.answer("maybe")  # unreadable: nothing changes
    assert exam.result is None and store.review_count() == 0
    clock.advance(seconds=95)
    result = exam.submit()
    assert (result.score, result.total, result.unanswered) == (1, 5, 3)
    assert not result.passed  # 20 % < 60 %
    assert result.time_used_s == pytest.approx(95)
    assert [m.number for m in result.misses] == [1, 2, 4, 5]
    assert sum(total for _, total in result.per_topic.values()) == 5
    assert store.review_count() == 0  # --no-schedule is the default: FSRS untouched


def test_pass_mark_is_inclusive_and_configurable(content, store, clock) -> None:
    exam = ox_exam(content, store, clock, pass_mark=0.6)
    for number in range(1, 4):  # 3 of 5 right = exactly 60 %
        exam.go(number)
        exam.answer(exam.current.answer)
    assert exam.submit().passed
    strict = ox_exam(content, store, clock, pass_mark=0.8)
    for number in range(1, 4):
        strict.go(number)
        strict.answer(strict.current.answer)
    assert not strict.submit().passed


def test_flags_and_moves(content, store, clock) -> None:
    exam = ox_exam(content, store, clock)
    assert exam.toggle_flag() is True and exam.flags == {0}
    exam.next()
    exam.toggle_flag()
    exam.previous()
    assert exam.toggle_flag() is False and exam.flags == {1}
    exam.previous()  # wraps around
    assert exam.position == 4
    with pytest.raises(StudyappError, match="no question 9"):
        exam.go(9)
    result = exam.submit()
    assert [q.flagged for q in result.questions] == [False, True, False, False, False]


def test_the_clock_runs_out(content, store, clock) -> None:
    exam = ox_exam(content, store, clock, time_limit_s=60)
    exam.start()
    clock.advance(seconds=59)
    assert not exam.time_up() and format_clock(exam.remaining_s()) == "00:01"
    clock.advance(seconds=5)
    assert exam.time_up() and exam.remaining_s() == 0
    result = exam.submit(auto=True)
    assert result.auto_submitted and result.time_used_s == pytest.approx(60)  # capped at the limit
    with pytest.raises(StudyappError, match="already submitted"):
        exam.answer("O")


def test_a_clock_set_back_neither_freezes_the_countdown_nor_makes_time_negative(
    content, store, clock
) -> None:
    exam = ox_exam(content, store, clock, time_limit_s=120)
    exam.start()
    clock.advance(seconds=30)
    assert exam.remaining_s() == pytest.approx(90)
    clock.advance(hours=-1)  # the system clock is set back an hour mid-exam
    assert exam.remaining_s() == pytest.approx(90)  # what was used stays used
    clock.advance(seconds=100)
    assert exam.time_up() and exam.remaining_s() == 0
    result = exam.submit(auto=True)
    assert result.time_used_s == pytest.approx(120) and result.finished_at >= result.started_at


def test_default_time_limit_is_a_minute_a_question(content, store) -> None:
    assert ox_exam(content, store).time_limit_s == 5 * 60


def test_schedule_opt_in_records_answers(content, store, clock) -> None:
    exam = ox_exam(content, store, clock, schedule=True)
    exam.answer(exam.current.answer)
    exam.go(2)
    exam.answer(wrong(exam.current))
    exam.submit()
    reviews = store.reviews()
    assert len(reviews) == 2  # unanswered questions are no evidence either way
    assert {r.mode for r in reviews} == {"exam"} and [r.correct for r in reviews] == [True, False]


def test_every_attempt_is_archived_and_answers_survive_an_interruption(content, store, clock) -> None:
    exam = ox_exam(content, store, clock)
    exam.answer("O")
    (attempt,) = exams.attempts(store)
    assert not attempt.finished and attempt.answered == 1  # saved after the answer, before submit
    exam.submit()
    (attempt,) = exams.attempts(store)
    assert attempt.finished and attempt.total == 5 and attempt.score is not None
    assert attempt.settings["pass_mark"] == 0.6 and attempt.settings["kind"] == KIND_OX
    assert exams.find_attempt(store, attempt.short_id).uid == attempt.uid
    assert exams.find_attempt(store, "last").uid == attempt.uid
    with pytest.raises(StudyappError, match="no mock exam attempt"):
        exams.find_attempt(store, "ffff0000")


def test_retry_asks_exactly_the_misses(content, store, clock) -> None:
    exam = ox_exam(content, store, clock)
    exam.answer(exam.current.answer)
    exam.go(2)
    exam.answer(wrong(exam.current))
    result = exam.submit()
    missed_ids = [m.question.item_ids for m in result.misses]
    questions = retry_questions(content, exams.find_attempt(store, result.attempt_id))
    assert [q.item_ids for q in questions] == missed_ids  # wrong and unanswered, in order
    retry = ExamSession(
        content, store, ExamSettings(kind=KIND_OX, retry_of=result.attempt_id), questions=questions
    )
    assert retry.total == 4


def test_a_choice_exam_explains_every_option(content, store, clock) -> None:
    pytest.importorskip("studyapp.quiz.choice")
    exam = ExamSession(content, store, ExamSettings(count=4, seed=5), clock=clock)
    if exam.kind != "choice":
        pytest.skip(f"4-choice generation unavailable: {exam.notice}")
    question = exam.current
    assert len(question.options) == 4 and question.answer in ("1", "2", "3", "4")
    assert not exam.answer("O") and exam.answer("1")
    result = exam.submit()
    assert all(option.explanation for m in result.misses for option in m.question.options)


def test_parsing_options() -> None:
    assert parse_time_limit("30") == 1800 and parse_time_limit("90s") == 90 and parse_time_limit("1h") == 3600
    assert parse_pass_mark("60") == 0.6 and parse_pass_mark("0.7") == 0.7 and parse_pass_mark("1%") == 0.01
    with pytest.raises(ValueError):
        parse_time_limit("soon")
    with pytest.raises(StudyappError, match="pass-mark"):
        ExamSettings(pass_mark=1.5).validated()


# -- the command line --------------------------------------------------------------------------


# Inputs use digits: `1`/`2` answer O/X in an O/X exam and pick options 1/2 in a 4-choice one,
# so these tests hold whichever kind the exam builds.
def exam_cli(cli: InProcessCli, *extra: str, input_text: str) -> subprocess.CompletedProcess[str]:
    return cli(
        "quiz", "--mode", "exam", "--plain", "--seed", "2", "--count", "3", *extra, input_text=input_text
    )


def test_plain_exam_flags_jumps_and_reviews_every_miss_only_at_the_end(studyapp_cli: InProcessCli) -> None:
    # Answer 1, flag 2, jump back to 1 and change it, submit with 2 and 3 unanswered.
    done = exam_cli(studyapp_cli, input_text="1\nf\ng 1\n2\ns\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    intro, _, rest = out.partition("[1/3]")
    assert (
        "3 questions" in intro
        and "pass mark 60%" in intro
        and "does not change your review schedule" in intro
    )
    before_submit, _, results = rest.partition("Submitted.")
    assert "Result:" not in before_submit and "Answer:" not in before_submit  # no feedback before the end
    assert "Question 2 flagged for review." in before_submit and "flagged: 2" in before_submit
    assert "time left" in before_submit
    assert "Result:" in results and "FAIL (pass mark 60%)" in results
    assert "Unanswered: 2" in results and "Score per topic:" in results
    score = int(results.split("Result: ")[1].split("/")[0])
    review = results.split("Review of every miss:")[1]
    assert review.count("Your answer:") == 3 - score  # every miss, with its explanation below
    assert review.count("Your answer: no answer") == 2
    assert "retry its misses: studyapp quiz --mode exam --retry" in results


def test_plain_exam_is_archived_listed_and_retried(studyapp_cli: InProcessCli) -> None:
    first = exam_cli(studyapp_cli, input_text="s\n")  # submit blank: three misses
    assert first.returncode == 0, first.stderr
    attempt = first.stdout.rsplit("--retry ", 1)[1].split()[0]
    listed = studyapp_cli("progress")
    assert listed.returncode == 0, listed.stderr
    assert attempt in listed.stdout and "0/3 (0%)" in listed.stdout and "fail" in listed.stdout
    data = json.loads(studyapp_cli("progress", "--json").stdout)
    assert data["exams"][0]["id"] == attempt and data["exams"][0]["misses"] == 3
    retry = studyapp_cli("quiz", "--mode", "exam", "--plain", "--retry", attempt, input_text="s\n")
    assert retry.returncode == 0, retry.stderr
    assert "3 questions" in retry.stdout and "Result: 0/3" in retry.stdout
    again = json.loads(studyapp_cli("progress", "--json").stdout)["exams"]
    assert len(again) == 2 and again[1]["retry_of"].startswith(attempt)


def test_the_exam_does_not_touch_fsrs_unless_asked(studyapp_cli: InProcessCli) -> None:
    answers = "1\n1\n1\ns\n"
    assert exam_cli(studyapp_cli, input_text=answers).returncode == 0
    assert json.loads(studyapp_cli("progress", "--json").stdout)["reviews_total"] == 0
    assert exam_cli(studyapp_cli, "--schedule", input_text=answers).returncode == 0
    assert json.loads(studyapp_cli("progress", "--json").stdout)["reviews_total"] > 0


def test_bad_exam_options_are_one_line_usage_errors(studyapp_cli: InProcessCli) -> None:
    for args, message in (
        (["--time-limit", "soon"], "not a time limit"),
        (["--pass-mark", "150"], "pass-mark"),
        (["--retry", "nope"], "no mock exam attempt 'nope'"),
        (["--count", "0"], "--count"),
    ):
        done = exam_cli(studyapp_cli, *args, input_text="")
        assert done.returncode == 2, (args, done.stdout)
        assert message in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    other_mode = studyapp_cli("quiz", "--mode", "due", "--plain", "--pass-mark", "70", input_text="")
    assert other_mode.returncode == 2 and "--mode exam" in other_mode.stderr


def test_plain_exam_submits_itself_when_the_time_is_up(
    isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), STUDYAPP_HOME=str(isolated_home))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "studyapp",
            "quiz",
            "--mode",
            "exam",
            "--plain",
            "--count",
            "3",
            "--time-limit",
            "1s",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert process.stdin is not None and process.stdout is not None
    # The clock starts with the first question: wait for it, or a slow start-up on a busy machine
    # eats the 2.5 s below and both answers arrive "in time".
    shown = b""
    deadline = time.monotonic() + 60
    while b"[1/3]" not in shown and time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.1)[0]:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            shown += chunk
    process.stdin.write("1\n")  # in time
    process.stdin.flush()
    time.sleep(2.5)  # the limit passes while the learner thinks
    rest, err = process.communicate("1\n", timeout=60)  # too late: checked at this input
    out = shown.decode("utf-8", errors="replace") + rest
    assert process.returncode == 0, err
    assert "the last input was not counted" in out and "Time is up: the exam was submitted." in out
    assert "(submitted at the time limit)" in out and "Time used: 00:01 / 00:01" in out
    data = json.loads(studyapp_cli("progress", "--json").stdout)["exams"][0]
    assert data["auto_submitted"] is True and data["answered"] == 1


def test_a_scheduled_choice_exam_credits_every_option_and_retries_as_asked(content, store, clock) -> None:
    exam = ExamSession(content, store, ExamSettings(count=3, seed=8, schedule=True), clock=clock)
    assert exam.kind == "choice"
    key = int(exam.current.answer)
    exam.answer(str(key % 4 + 1))  # a wrong pick: a lapse for the picked item and the missed key
    exam.go(2)
    exam.answer(exam.current.answer)  # right: the key Good, the three others Hard
    result = exam.submit()
    reviews = store.reviews()
    assert len(reviews) == 2 + 4 and {r.kind for r in reviews} == {"choice"}
    assert sum(not r.correct for r in reviews) == 2
    questions = retry_questions(content, exams.find_attempt(store, result.attempt_id), random.Random(3))
    # The same misses, each around its key, but asked afresh (issue 20): not the same options in
    # the same order, so the retry does not test where the answer sat.
    assert [key_of(q) for q in questions] == [key_of(m.question) for m in result.misses]
    assert all(q.item_ids != m.question.item_ids for q, m in zip(questions, result.misses, strict=True))
    assert questions[0].stem == result.misses[0].question.stem and questions[0].source is not None


def key_of(question: Question) -> str:
    return question.item_ids[int(question.answer) - 1]


def test_a_choice_retry_redraws_the_options_and_moves_the_key(content, store, clock) -> None:
    exam = ExamSession(content, store, ExamSettings(count=8, seed=21), clock=clock)
    assert exam.kind == "choice"
    for number, question in enumerate(exam.questions, start=1):
        exam.go(number)
        exam.answer(str(int(question.answer) % 4 + 1))  # every answer wrong
    result = exam.submit()
    attempt = exams.find_attempt(store, result.attempt_id)
    retried = retry_questions(content, attempt, random.Random(1))
    missed = [m.question for m in result.misses]
    assert [key_of(q) for q in retried] == [key_of(q) for q in missed]
    # The default exam mixes in a share of glossary questions (issue 21, GLOSSARY_SHARE): they
    # come back as glossary questions on the same term with the key moved; the rest is 4-choice.
    choices = [(new, old) for new, old in zip(retried, missed, strict=True) if old.kind != KIND_GLOSSARY]
    assert len(missed) - len(choices) == int(8 * kind_of(KIND_GLOSSARY).exam_share)  # every answer was wrong
    for new, old in zip(retried, missed, strict=True):
        assert new.kind == old.kind and len(new.options) == 4
        assert new.item_ids != old.item_ids  # redrawn or at least reordered
        if old.kind == KIND_GLOSSARY:
            assert new.answer != old.answer  # a term's key always moves
    for new, _old in choices:
        assert new.kind == KIND_CHOICE
        key = content.items[key_of(new)]
        assert sum(content.items[i].answer == key.answer for i in new.item_ids) == 1  # one key
    redrawn = sum(set(new.item_ids) != set(old.item_ids) for new, old in choices)
    assert redrawn >= len(choices) // 2  # the shipped bank has other distractors for most keys
    moved = sum(new.answer != old.answer for new, old in choices)
    assert moved >= len(choices) // 2  # the key's position is drawn again
    again = retry_questions(content, attempt, random.Random(2))
    assert [q.item_ids for q in again] != [q.item_ids for q in retried]  # a second retry differs too


def test_attempts_and_explain_answers_move_between_machines(content, store, clock, tmp_path: Path) -> None:
    from studyapp.content.explain import load_explain
    from studyapp.quiz import explain

    exam = ox_exam(content, store, clock)
    exam.answer("O")
    exam.submit()
    prompt = load_explain(content)[0]
    explain.record_result(store, prompt, "내 설명", (0, 1), clock.now)
    data = export_data(store)
    if "exam_attempts" not in data:  # branch `exam` alone: main's store (issue 9) exports these
        pytest.skip("the store on this branch predates issue 9's export of exam and explain rows")
    other = ProgressStore(tmp_path / "other.db", clock)
    added = import_data(other, json.loads(json.dumps(data)))
    assert added["exam_attempts"] == 1 and added["explain_answers"] == 1
    assert [a.uid for a in exams.attempts(other)] == [exam.attempt_id]
    assert explain.history(other)[0].covered == (0, 1)
    assert import_data(other, data)["exam_attempts"] == 0  # already there: skipped


def test_a_failing_archive_write_keeps_the_sitting_going(content, store, clock, monkeypatch) -> None:
    from studyapp.progress.db import StoreError

    exam = ox_exam(content, store, clock)
    original = exams.save_progress
    calls = {"n": 0}

    def flaky(progress, attempt) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise StoreError("database or disk is full")
        original(progress, attempt)

    monkeypatch.setattr(exams, "save_progress", flaky)
    assert exam.answer("O")  # the write fails: the answer is kept, the learner is told
    assert exam.answers == {0: "O"} and exam.save_problem == "database or disk is full"
    exam.next()
    assert exam.answer("X")  # the next write carries both answers
    assert exam.save_problem is None
    (attempt,) = exams.attempts(store)
    assert attempt.answered == 2
