"""The trace-reading kinds as a learner meets them: `--plain`, `--dump --json`, the mock exam (and
its resume), and the learner's own profiler lab traces as a source (issue 33).

Keys are never written here: each test reads the question the app shows and checks it against
the key computed from the trace (studyapp.quiz.trace_reading), or changes a trace and sees the key
follow it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.exam_resume import resume_session
from studyapp.quiz.kinds.trace import learner_traces, trace_questions
from studyapp.quiz.trace_reading import TraceQuestion

REPO = Path(__file__).resolve().parent.parent
LAB_RUN = ("runs", "profiler", "20261205T101010123456Z")


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content(REPO / "content")


def by_id(content: Content, data_dir: Path) -> dict[str, TraceQuestion]:
    return {q.id: q for q in trace_questions(content, data_dir)}


def cpu_trace(longest_alone_us: float) -> dict[str, Any]:
    """A small CPU trace like the profiler lab writes: a profiler step around aten ops, where
    aten::linear's total holds aten::addmm, and aten::relu runs alone for `longest_alone_us`."""

    def op(name: str, ts: float, dur: float, cat: str = "cpu_op") -> dict[str, Any]:
        return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": 1}

    return {
        "traceEvents": [
            op("ProfilerStep#1", 0, 5000, "user_annotation"),
            op("aten::linear", 10, 900),
            op("aten::addmm", 20, 800),
            op("aten::relu", 1000, longest_alone_us),
            op("aten::sum", 3000, 60),
            op("aten::copy_", 3100, 30),
        ]
    }


def write_lab_trace(home: Path, longest_alone_us: float) -> Path:
    run = home.joinpath(*LAB_RUN)
    run.mkdir(parents=True, exist_ok=True)
    path = run / "workers0_cycle1.pt.trace.json"
    path.write_text(json.dumps(cpu_trace(longest_alone_us)), encoding="utf-8")
    return path


def test_no_lab_run_gives_no_learner_trace_and_no_error(isolated_home: Path, content: Content) -> None:
    assert learner_traces(isolated_home) == []
    assert not [q for q in trace_questions(content, isolated_home) if q.trace_id.startswith("my-")]


def test_learner_lab_trace_becomes_questions_and_a_changed_trace_changes_the_key(
    isolated_home: Path, content: Content, studyapp_cli: Any
) -> None:
    """The trace the profiler lab recorded in STUDYAPP_HOME is asked from; edit it, and the
    question's key and excerpt follow the events."""
    path = write_lab_trace(isolated_home, longest_alone_us=200)
    asked = by_id(content, isolated_home)["trace-my-run-top-self-op"]
    # aten::linear is first by total (900 µs) but holds aten::addmm (800): the key is addmm
    assert asked.options[asked.key] == "aten::addmm"

    dumped = studyapp_cli("quiz", "--kind", "trace", "--dump", "50", "--json")
    assert dumped.returncode == 0, dumped.stderr
    rows = {row["id"]: row for row in json.loads(dumped.stdout)}
    row = rows["trace-my-run-top-self-op"]
    assert row["options"][row["answer"]]["text"] == "aten::addmm"

    path.write_text(json.dumps(cpu_trace(longest_alone_us=880)), encoding="utf-8")
    changed = by_id(content, isolated_home)["trace-my-run-top-self-op"]
    assert changed.options[changed.key] == "aten::relu"  # relu's own 880 µs now beats addmm's 800
    assert changed.digest != asked.digest and changed.excerpt != asked.excerpt
    again = {
        r["id"]: r
        for r in json.loads(studyapp_cli("quiz", "--kind", "trace", "--dump", "50", "--json").stdout)
    }
    assert again["trace-my-run-top-self-op"]["options"][again["trace-my-run-top-self-op"]["answer"]][
        "text"
    ] == ("aten::relu")


def test_a_broken_learner_trace_asks_nothing_and_breaks_nothing(
    isolated_home: Path, content: Content, studyapp_cli: Any
) -> None:
    path = write_lab_trace(isolated_home, 200)
    path.write_text("{ not json", encoding="utf-8")
    assert not [q for q in trace_questions(content, isolated_home) if q.trace_id.startswith("my-")]
    result = studyapp_cli("quiz", "--kind", "trace", "--dump", "3")
    assert result.returncode == 0 and "Traceback" not in result.stderr


def test_dump_json_holds_trace_questions_with_computed_keys(studyapp_cli: Any, content: Content) -> None:
    picks = json.loads(
        studyapp_cli("quiz", "--kind", "trace", "--dump", "50", "--json", "--seed", "2").stdout
    )
    numbers = json.loads(
        studyapp_cli("quiz", "--kind", "trace-drill", "--dump", "50", "--json", "--seed", "2").stdout
    )
    computed = {q.id: q for q in trace_questions(content)}
    assert picks and numbers
    for row in picks:
        asked = computed[row["id"]]
        assert row["kind"] == "trace" and len(row["options"]) == 4
        assert row["options"][row["answer"]]["text"] == asked.options[asked.key]
        assert row["stem"].startswith("[트레이스: ")
    kinds_of_numbers = {row["id"].rsplit("-", 2)[-2] + "-" + row["id"].rsplit("-", 1)[-1] for row in numbers}
    assert {"comm-share", "gpu-idle", "compile-speedup"} <= kinds_of_numbers  # share, gap, speedup
    for row in numbers:
        assert row["kind"] == "trace-drill" and row["answer"] == computed[row["id"]].number


def _shown_question(stdout: str) -> tuple[str, list[str]]:
    """The prompt's first line and the numbered options of the first question `--plain` printed."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[트레이스: "))
    options = [
        line.strip()[3:]
        for line in lines[start:]
        if line.startswith("  ") and line.strip()[:2] in ("1)", "2)", "3)", "4)")
    ]
    return lines[start], options[:4]


def test_plain_asks_a_trace_question_and_grades_the_computed_key(studyapp_cli: Any, content: Content) -> None:
    computed = list(trace_questions(content))
    first = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "4",
        input_text="q\n",
    )
    prompt, options = _shown_question(first.stdout)
    asked = next(q for q in computed if prompt.startswith(q.prompt) and q.options == tuple(options))
    for line in asked.excerpt:
        assert line in first.stdout  # the excerpt as computed, under the question
    key = str(asked.key + 1)
    wrong = "1" if key != "1" else "2"
    right = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "4",
        input_text=f"{key}\n",
    )
    assert "Right" in right.stdout and right.returncode == 0
    missed = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "4",
        input_text=f"{wrong}\n",
    )
    assert f"Answer: {key}" in missed.stdout
    assert asked.explanation[:40] in missed.stdout


def test_plain_trace_drill_reads_a_typed_number_with_its_unit(studyapp_cli: Any, content: Content) -> None:
    computed = [q for q in trace_questions(content) if q.number is not None]
    shown = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace-drill",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "1",
        input_text="q\n",
    )
    prompt = next(line for line in shown.stdout.splitlines() if line.startswith("[트레이스: "))
    asked = next(q for q in computed if q.prompt == prompt)
    typed = f"{asked.number:g} {asked.unit}"  # "65.3 %", "1226 µs", "1.62 배"
    result = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace-drill",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "1",
        input_text=f"{typed}\n",
    )
    assert "Right" in result.stdout, result.stdout
    off = studyapp_cli(
        "quiz",
        "--plain",
        "--kind",
        "trace-drill",
        "--mode",
        "cram",
        "--count",
        "1",
        "--seed",
        "1",
        input_text=f"{asked.number + 10 * asked.tolerance + 1:g}\n",
    )
    assert "Wrong" in off.stdout


def test_mock_exam_mixes_in_trace_questions_and_a_resumed_attempt_keeps_them(
    content: Content, isolated_home: Path
) -> None:
    store = ProgressStore.in_dir(isolated_home)
    try:
        session = ExamSession(content, store, ExamSettings(seed=7, count=30))
        traced = [index for index, q in enumerate(session.questions) if q.kind == "trace"]
        assert len(traced) == 3  # 10 % of 30, in place of 4-choice questions
        computed = {q.id: q for q in trace_questions(content)}
        session.start()
        first = session.questions[traced[0]]
        asked = computed[first.item_ids[0]]
        assert first.stem.startswith(asked.prompt) and [o.text for o in first.options] == list(asked.options)
        session.go(traced[0] + 1)
        assert session.answer(str(asked.key + 1))
        session.release()  # the sitting's process ended

        attempt = exams.attempts(store)[-1]
        resumed = resume_session(content, store, attempt)
        assert [q.kind for q in resumed.questions] == [q.kind for q in session.questions]
        again = resumed.questions[traced[0]]
        assert again.options == first.options and again.answer == first.answer
        assert again.options[int(again.answer) - 1].explanation == asked.explanation  # today's, not archived
        result = resumed.submit()
        assert result.questions[traced[0]].correct
    finally:
        store.close()


def test_exam_without_traces_in_scope_is_as_before(content: Content, isolated_home: Path) -> None:
    store = ProgressStore.in_dir(isolated_home)
    try:
        session = ExamSession(content, store, ExamSettings(seed=7, count=30, topic="python-testing"))
        assert not [q for q in session.questions if q.kind == "trace"]
    finally:
        store.close()


def test_exam_trace_questions_take_their_share_the_same_for_one_seed(content: Content) -> None:
    """A 4-choice exam gives trace reading its share (a tenth, rounded down) beside the glossary's
    fifth, and one seed gives one exam: the shares come out of the same draw as the rest."""
    from studyapp.quiz import exam
    from studyapp.quiz.kinds import kind_of

    first, _ = exam.build_questions(content, ExamSettings(seed=11, count=30))
    again, _ = exam.build_questions(content, ExamSettings(seed=11, count=30))
    assert [q.stem for q in first] == [q.stem for q in again]
    by_kind = {kind: sum(q.kind == kind for q in first) for kind in {q.kind for q in first}}
    assert len(first) == 30
    assert by_kind["trace"] == int(30 * kind_of("trace").exam_share)
    assert by_kind["glossary"] == int(30 * kind_of("glossary").exam_share)
    assert by_kind["choice"] == 30 - by_kind["trace"] - by_kind["glossary"]


def test_a_missed_trace_question_comes_back_in_a_mixed_wrong_session(
    studyapp_cli: Any, content: Content
) -> None:
    """The notebook's session (`--mode wrong`, every kind) retries a trace miss like any other."""
    args = ("quiz", "--plain", "--kind", "trace", "--mode", "cram", "--count", "1", "--seed", "4")
    shown = studyapp_cli(*args, input_text="q\n")
    prompt, options = _shown_question(shown.stdout)
    asked = next(
        q for q in trace_questions(content) if prompt.startswith(q.prompt) and q.options == tuple(options)
    )
    assert asked.key is not None
    wrong = "1" if asked.key != 0 else "2"
    assert "Wrong" in studyapp_cli(*args, input_text=f"{wrong}\n").stdout
    retry = studyapp_cli(
        "quiz", "--plain", "--mode", "wrong", "--kind", "mixed", input_text=f"{asked.key + 1}\n"
    )
    assert retry.returncode == 0, retry.stderr
    assert asked.prompt in retry.stdout and "Right" in retry.stdout


def test_an_exam_with_schedule_records_a_trace_answer_under_its_question(
    content: Content, isolated_home: Path
) -> None:
    store = ProgressStore.in_dir(isolated_home)
    try:
        session = ExamSession(content, store, ExamSettings(seed=3, count=20, schedule=True))
        index, question = next((i, q) for i, q in enumerate(session.questions) if q.kind == "trace")
        session.start()
        session.go(index + 1)
        assert session.answer(question.answer)
        session.submit()
        assert session.save_problem is None
        schedule = store.schedules()[question.item_ids[0]]
        assert schedule.last_correct
    finally:
        store.close()
