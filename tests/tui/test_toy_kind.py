"""A new question kind is one module: a toy kind, defined here, runs through the engine, the line
mode and the TUI quiz screen without a change to any of them (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from studyapp.cli.plain import format_feedback
from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.progress.store import ProgressStore
from studyapp.quiz import kinds
from studyapp.quiz.engine import QuizSession, SessionOptions
from studyapp.quiz.kinds.base import INPUT_OX, Credit, FeedbackBlock, FeedbackView, Graded, QuestionKind
from studyapp.quiz.questions import Question
from tests.tui.helpers import screen_text


class FalseStatementKind(QuestionKind):
    """ "Is this statement false?" — the O/X item turned around."""

    name: ClassVar[str] = "toy-false"
    input: ClassVar[str] = INPUT_OX
    hint_key: ClassVar[str] = "toy.hint"
    strings: ClassVar[dict[str, dict[str, str]]] = {
        "ko": {"toy.hint": "틀린 문장이면 o", "toy.answer": "정답: {answer} (틀린 문장인가?)"},
        "en": {"toy.hint": "o if the statement is false", "toy.answer": "Answer: {answer} (is it false?)"},
    }

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        answer = response.strip().upper()
        if answer not in ("O", "X"):
            return None
        correct = answer == question.answer
        stored = "X" if answer == "O" else "O"  # the item's own O/X judgement the answer implies
        return Graded(correct, answer, (Credit(question.id, stored, correct, unsure, question.text_hash),))

    def answer_text(self, question: Question) -> str:
        return question.answer

    # the mock exam: its archive row back into a question (retry and --schedule use the defaults:
    # the question as asked, and the reviews `read` gives)
    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        item = content.items.get(row["item_ids"][0])
        return toy_exam_question(item) if item is not None else None

    def feedback(self, feedback: Any, content: Content, t: Translator) -> FeedbackView:
        question = feedback.question
        return FeedbackView(
            answer=t("toy.answer", answer=question.answer),
            response=None,
            blocks=(FeedbackBlock(question.explanation),),
        )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> FalseStatementKind:
    kind = FalseStatementKind()
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))  # registered for this test only
    kinds.register(kind)
    return kind


def toy_exam_question(item: Any) -> Question:
    return Question(
        id=item.id,
        kind="toy-false",
        topic=item.topic,
        prompt=f"False? {item.statement}",
        answer="O" if item.answer == "X" else "X",
        explanation=item.explanation,
    )


def toy_question(content: Content) -> Question:
    item = next(item for item in content.items.values() if item.answer == "X")
    return Question(
        id=item.id,
        kind="toy-false",
        topic=item.topic,
        prompt=item.statement,
        answer="O",  # the statement is false, so "is it false?" is O
        explanation=item.explanation,
    )


def test_the_engine_and_the_line_mode_take_a_new_kind(
    toy: FalseStatementKind, content: Content, store: ProgressStore
) -> None:
    question = toy_question(content)
    session = QuizSession(content, store, SessionOptions(), questions=[question])
    feedback = session.answer("o")
    assert feedback is not None and feedback.correct
    (review,) = store.reviews(question.id)
    assert review.kind == "toy-false" and review.answer == "X" and review.correct
    lines = format_feedback(feedback, content, Translator("en"))
    assert "Answer: O (is it false?)" in lines[0] and question.explanation in lines


async def test_the_quiz_screen_takes_a_new_kind(toy: FalseStatementKind, make: Any, content: Content) -> None:
    app = make(lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_quiz(SessionOptions(), questions=[toy_question(content)])
        await pilot.pause()
        assert "o if the statement is false" in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert "Answer: O (is it false?)" in screen_text(app)


def test_the_mock_exam_resumes_retries_and_schedules_a_new_kind_through_it(
    toy: FalseStatementKind, content: Content, store: ProgressStore
) -> None:
    """The exam archive, resume, retry and --schedule ask the kind named in each row."""
    from studyapp.progress import exams
    from studyapp.quiz.exam import ExamSession, ExamSettings, retry_questions
    from studyapp.quiz.exam_resume import resume_session

    items = [i for i in content.items.values()][:2]
    asked = [toy_exam_question(item) for item in items]
    session = ExamSession(content, store, ExamSettings(count=2, schedule=True), questions=asked)
    session.start()
    session.answer(asked[0].answer)  # right
    session.release()  # the terminal closed
    (attempt,) = exams.attempts(store)
    assert attempt.questions[0]["kind"] == "toy-false" and attempt.questions[0]["v"] == 2
    resumed = resume_session(content, store, attempt)
    assert resumed.questions == asked  # rebuilt by the toy kind, explanation included
    assert resumed.answers == {0: asked[0].answer}
    resumed.go(2)
    resumed.answer("X" if asked[1].answer == "O" else "O")  # wrong
    result = resumed.submit()
    assert result.score == 1
    # --schedule: the toy's credits, under its own kind
    assert [(r.item_id, r.kind, r.correct) for r in store.reviews()] == [
        (items[0].id, "toy-false", True),
        (items[1].id, "toy-false", False),
    ]
    (finished,) = exams.attempts(store)
    assert retry_questions(content, finished) == [asked[1]]  # the miss, asked by the toy kind


def test_kind_choices_come_from_the_registry(toy: FalseStatementKind, studyapp_cli: Any) -> None:
    """`--kind` takes any registered kind: a new kind module needs no change to the CLI."""
    done = studyapp_cli("--lang", "en", "quiz", "--plain", "--kind", "toy-false", input_text="")
    assert "invalid choice" not in done.stderr and done.returncode == 0, done.stderr
    refused = studyapp_cli("--lang", "en", "quiz", "--plain", "--kind", "toy-true", input_text="")
    assert refused.returncode == 2 and "invalid choice: 'toy-true'" in refused.stderr


class SourcedToy(FalseStatementKind):
    """The toy kind with its own questions in the bank (`source`): "is this statement false?"
    for every false O/X statement, under its own ids."""

    name: ClassVar[str] = "toy-sourced"

    def source(self, content: Content) -> Any:
        for item in content.items.values():
            if item.answer == "X":
                yield Question(f"toy-{item.id}", self.name, item.topic, item.statement, "O", item.explanation)


def test_a_kind_with_a_source_is_practised_from_the_shell(
    monkeypatch: pytest.MonkeyPatch, studyapp_cli: Any, tmp_path: Any
) -> None:
    """`studyapp quiz --kind toy-sourced` asks the kind's own questions: the bank is what the
    registered kinds draw from the content (`all_questions`), nothing else changed."""
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))
    kinds.register(SourcedToy())
    home = tmp_path / "h"
    done = studyapp_cli(
        "--lang", "en", "quiz", "--plain", "--kind", "toy-sourced", "--mode", "new", "--count", "1",
        input_text="o\n", env={"STUDYAPP_HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Answer: O (is it false?)" in done.stdout
    store = ProgressStore.in_dir(home)
    (review,) = store.reviews()
    assert review.kind == "toy-sourced" and review.item_id.startswith("toy-") and review.correct
    store.close()


# ---------------------------------------------------------------------------------------------
# The whole life of a new kind, from its one file: practice, a generated mock exam, kill -9 and
# resume, the notebook, the prediction and `--dump --json`. Nothing else in the app changes.
# ---------------------------------------------------------------------------------------------

TOY_KIND_FILE = '''
"""Is this statement false? Every O/X item turned around, under its own ids."""

from typing import Any, ClassVar

from studyapp.quiz.kinds.base import INPUT_OX, Credit, FeedbackBlock, FeedbackView, Graded, QuestionKind, row_ids
from studyapp.quiz.question import Question

PREFIX = "toy-"


def toy_question(item: Any) -> Question:
    answer = "O" if item.answer == "X" else "X"
    return Question(PREFIX + item.id, "toy-false", item.topic, f"False? {item.statement}", answer, item.explanation)


class FalseStatementKind(QuestionKind):
    name: ClassVar[str] = "toy-false"
    input: ClassVar[str] = INPUT_OX
    guess_rate: ClassVar[float] = 0.5
    hint_key: ClassVar[str] = "toy.hint"
    strings: ClassVar[dict[str, dict[str, str]]] = {
        "ko": {"toy.hint": "틀린 문장이면 o", "toy.answer": "정답: {answer} (틀린 문장인가?)"},
        "en": {"toy.hint": "o if the statement is false", "toy.answer": "Answer: {answer} (is it false?)"},
    }

    def source(self, content: Any) -> Any:
        return (toy_question(item) for item in content.items.values())

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        answer = response.strip().upper()
        if answer not in ("O", "X"):
            return None
        correct = answer == question.answer
        return Graded(correct, answer, (Credit(question.id, answer, correct, unsure, question.text_hash),))

    def plain_response(self, text: str) -> str:
        return text.upper()

    def feedback(self, feedback: Any, content: Any, t: Any) -> FeedbackView:
        question = feedback.question
        return FeedbackView(t("toy.answer", answer=question.answer), None, (FeedbackBlock(question.explanation),))

    def exam_from_row(self, row: dict[str, Any], content: Any) -> Question | None:
        ids = row_ids(row)
        item = content.items.get(ids[0].removeprefix(PREFIX)) if ids else None
        return toy_question(item) if item is not None else None


KIND = FalseStatementKind()
'''

LAUNCH = """\
import sys

import studyapp.quiz.kinds as package

package.__path__.append(sys.argv.pop(1))  # as if toy_false.py had been saved into studyapp/quiz/kinds/
package._discover()  # the package found its modules at import; look again, with the new folder
from studyapp.cli.main import main

raise SystemExit(main(sys.argv[1:]))
"""


@pytest.fixture
def toy_file(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The toy kind's one file in a folder of its own, put on the kinds package path (here and
    in every `studyapp` process the test starts)."""
    folder = tmp_path / "more_kinds"
    folder.mkdir()
    (folder / "toy_false.py").write_text(TOY_KIND_FILE, encoding="utf-8")
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))
    monkeypatch.setattr(kinds, "__path__", [*kinds.__path__, str(folder)])
    kinds._discover()
    return folder


def test_a_kind_in_one_file_lives_through_practice_exam_kill_resume_notebook_prediction_and_dump(
    toy_file: Any, tmp_path: Any
) -> None:
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from studyapp.content.loader import load_content
    from studyapp.progress import exams
    from studyapp.report.prediction import exam_answers, learner_state
    from tests.conftest import REPO
    from tests.helpers_content import FIXTURE_CONTENT

    home = tmp_path / "home"
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "STUDYAPP_HOME": str(home),
        "STUDYAPP_CONTENT": str(FIXTURE_CONTENT),
        "HOME": str(tmp_path),
    }

    def studyapp(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", LAUNCH, str(toy_file), "--lang", "en", *args],
            cwd=REPO, env=env, input=stdin, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    content = load_content(FIXTURE_CONTENT)
    toy = kinds.kind_of("toy-false")

    # practice: the kind's own questions from the bank, graded and stored under its name
    practised = studyapp(
        "quiz", "--plain", "--kind", "toy-false", "--mode", "new", "--count", "1", stdin="o\n"
    )
    assert practised.returncode == 0, practised.stderr[-2000:]
    assert "(is it false?)" in practised.stdout

    # a generated mock exam of the kind: one answer saved, then the process is killed (kill -9)
    exam = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, str(toy_file), "--lang", "en", "quiz", "--mode", "exam", "--plain",
         "--kind", "toy-false", "--count", "3", "--seed", "4"],
        cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert exam.stdin is not None
    exam.stdin.write("o\n")  # question 1: O (right or wrong, the archive keeps it)
    exam.stdin.flush()
    store = ProgressStore.in_dir(home)
    deadline = time.monotonic() + 60
    try:
        while not any(row.get("response") for a in exams.attempts(store) for row in a.questions):
            assert exam.poll() is None and time.monotonic() < deadline, "the exam never saved its answer"
            time.sleep(0.1)
    finally:
        os.kill(exam.pid, signal.SIGKILL)
        exam.wait(timeout=30)
    (attempt,) = exams.attempts(store)
    assert not attempt.finished and [row["kind"] for row in attempt.questions] == ["toy-false"] * 3
    assert [row["response"] for row in attempt.questions] == ["O", None, None]
    prediction = attempt.settings["prediction"]  # priced by the kind before it started
    assert len(prediction["per_question"]) == 3 and all(0.5 <= p < 1 for p in prediction["per_question"])
    store.close()

    # resume: the kind rebuilds every row; answer the rest wrongly and submit
    asked = [toy.exam_from_row(row, content) for row in attempt.questions]
    wrong = ["O" if q is not None and q.answer == "X" else "X" for q in asked[1:]]
    resumed = studyapp(
        "quiz", "--mode", "exam", "--plain", "--resume", "last", stdin="\n".join([*wrong, "s", ""])
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    store = ProgressStore.in_dir(home)
    (finished,) = exams.attempts(store)
    assert finished.finished and finished.uid == attempt.uid
    assert [row["response"] for row in finished.questions] == ["O", *wrong]
    first_right = asked[0] is not None and asked[0].answer == "O"
    assert finished.score == int(first_right)
    for question in asked[1:]:  # asked after the resume, then reviewed as misses
        assert question is not None and resumed.stdout.count(question.stem) >= 2

    # the prediction takes the exam's answers as evidence, each its kind's
    evidence = exam_answers([finished])
    assert [(r.item_id, r.kind) for r in evidence] == [(q.id, "toy-false") for q in asked if q is not None]
    assert learner_state(content, store).fitted.answers >= 4  # the practice answer and the exam's three
    store.close()

    # --dump --json: the kind's generated questions for scripts
    dumped = studyapp("quiz", "--kind", "toy-false", "--dump", "2", "--json", "--seed", "1")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    rows = json.loads(dumped.stdout)
    assert len(rows) == 2 and all(r["kind"] == "toy-false" and r["id"].startswith("toy-") for r in rows)


async def test_the_notebook_shows_a_new_kinds_exam_misses(
    toy_file: Any, make: Any, content: Content, store: ProgressStore
) -> None:
    """The notebook's last-exam group: the kind rebuilds each missed row, with its stem and key."""
    from studyapp.quiz.exam import ExamSession, ExamSettings
    from studyapp.tui.screens.notebook import NotebookScreen
    from tests.tui.helpers import flat

    session = ExamSession(content, store, ExamSettings(count=2, kind="toy-false", seed=2))
    missed = session.questions[0]
    session.answer("X" if missed.answer == "O" else "O")  # a miss
    session.submit()
    app = make(lang="en")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, NotebookScreen) and app.screen.exam is not None
        text = flat("\n".join(str(getattr(w, "content", "")) for w in app.screen.query("*")))
    assert flat(missed.stem)[:30] in text and flat(missed.explanation)[:30] in text
