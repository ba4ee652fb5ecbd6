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

    # the mock exam: its archive row back into a question, a retried miss, the --schedule reviews
    def exam_from_row(self, row: dict[str, Any], content: Content) -> Any:
        item = content.items.get(row["item_ids"][0])
        return toy_exam_question(item) if item is not None else None

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: Any, shared: dict[str, Any]
    ) -> list[Any]:
        made = self.exam_from_row(row, content)
        return [made] if made is not None else []

    def exam_credits(self, question: Any, response: str, content: Content) -> tuple[Credit, ...]:
        item_id = question.item_ids[0]
        stored = "X" if response == "O" else "O"
        return (Credit(item_id, stored, response == question.answer, False, None),)

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


def toy_exam_question(item: Any) -> Any:
    from studyapp.quiz.exam import ExamQuestion

    return ExamQuestion(
        kind="toy-false",
        topic=item.topic,
        stem=f"False? {item.statement}",
        answer="O" if item.answer == "X" else "X",
        explanation=item.explanation,
        item_ids=(item.id,),
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
