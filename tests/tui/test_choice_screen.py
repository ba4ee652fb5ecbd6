"""A 4-choice question on the quiz screen, driven like a learner: keys 1-4, 0, feedback, undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studyapp.content.model import Content, Item, Location
from studyapp.progress.store import ProgressStore
from studyapp.quiz.choice import KIND_CORRECT, STEMS, ChoiceQuestion, as_question
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.questions import KIND_CHOICE, Question
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text

TOPIC = "bottleneck-analysis"


def item(item_id: str, answer: str, statement: str, misconception: str | None = None) -> Item:
    return Item(
        id=item_id,
        topic=TOPIC,
        statement=statement,
        answer=answer,
        explanation=f"{item_id} 해설이다.",
        section="exam-traps",
        misconception=misconception,
        location=Location(Path("items.yaml"), 1),
    )


def choice_question(content: Content) -> Question:
    """A fixed "옳은 것은?" question (the bank changes; this one does not). The key is option 3."""
    tag = next(iter(content.misconceptions))
    options = (
        item("c-x1", "X", "파이프라인의 처리량은 가장 빠른 단계가 정한다.", tag),
        item("c-x2", "X", "프로파일링은 모델의 정확도를 높이는 기법이다.", tag),
        item("c-o1", "O", "병목을 고친 뒤에는 다시 측정해 새 병목을 찾는다."),
        item("c-x3", "X", "GIL이 있어도 CPU 위주 순수 Python 스레드는 코어 수만큼 빨라진다.", tag),
    )
    return as_question(
        ChoiceQuestion(
            stem=STEMS[KIND_CORRECT], kind=KIND_CORRECT, options=options, answer_index=2, topic=TOPIC
        )
    )


async def start(app: Any, pilot: Any, questions: list[Question]) -> QuizScreen:
    await pilot.pause()
    app.start_quiz(SessionOptions(mode="due"), questions=list(questions))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, QuizScreen)
    return screen


async def test_choice_question_shows_stem_and_numbered_options(make: Any, content: Content) -> None:
    question = choice_question(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [question])
        text = flat(screen_text(app))
        assert flat("다음 중 옳은 것은?") in text
        for number, option in enumerate(question.choice.options, start=1):  # type: ignore[union-attr]
            assert flat(f"{number}) {option.statement}") in text
        assert flat("1-4 고르기") in text and flat("O 맞다") not in text  # the key bar speaks 4-choice
        await pilot.press("o")  # not an option: nothing happens
        assert screen.state == ASKING
        assert_fits(app)


async def test_right_pick_explains_every_option_and_credits_all_four(
    make: Any, store: ProgressStore, content: Content
) -> None:
    question = choice_question(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [question])
        await pilot.press("3")
        assert screen.state == FEEDBACK
        text = flat(screen_text(app))
        assert flat("✓ 맞음") in text and flat("정답은 3번") in text
        assert text.count(flat("파이프라인의 처리량은")) == 1  # options shown once, in the feedback
        body = screen.query_one("#feedback").render()  # the whole box, not only what fits on screen
        rendered = str(body)
        for option in question.choice.options:  # type: ignore[union-attr]
            assert option.statement in rendered and f"{option.id} 해설이다." in rendered
        # ✓ means "the answer" everywhere (issue 23, N7): the verdict and option 3; no ✗ for a right
        # pick; each option's truth is its [O]/[X] tag.
        assert rendered.count("✗ ") == 0 and rendered.count("✓ ") == 2 and "✓ 3) [O]" in rendered
        assert rendered.count("[X]") == 3
        ratings = {r.item_id: r.rating for r in store.reviews()}
        assert ratings == {"c-o1": 3, "c-x1": 2, "c-x2": 2, "c-x3": 2}
        assert {r.kind for r in store.reviews()} == {"choice"}


async def test_wrong_pick_dont_know_and_undo(make: Any, store: ProgressStore, content: Content) -> None:
    question = choice_question(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [question, choice_question(content)])
        await pilot.press("2")  # wrong: option 2 is false
        assert screen.state == FEEDBACK
        rendered = str(screen.query_one("#feedback").render())
        assert "✗ 틀림" in rendered and "내 선택: 2번" in rendered and "← 내 선택" in rendered
        assert "✗ 2) [X]" in rendered and "✓ 3) [O]" in rendered  # ✗ the wrong pick, ✓ the answer
        label = content.misconceptions[question.choice.options[1].misconception or ""]  # type: ignore[union-attr]
        assert label in rendered  # the picked false statement's misconception
        assert {r.item_id: r.rating for r in store.reviews()} == {"c-o1": 1, "c-x2": 1}
        await pilot.press("u")  # undo takes both reviews back
        assert screen.state == ASKING and store.review_count() == 0
        await pilot.press("0")  # don't know
        rendered = str(screen.query_one("#feedback").render())
        head = rendered.splitlines()[0]
        # "don't know" said once: the pick is the unsure mark, no "(모름 표시로 기록)" after it (N30, c17)
        assert head.count("모르겠음") == 1 and "모름 표시" not in head
        reviews = store.reviews()
        assert [(r.item_id, r.rating, r.unsure) for r in reviews] == [("c-o1", 1, True)]
        await pilot.press("enter")
        assert screen.state == ASKING and screen.question is not None
        assert screen.question.kind == KIND_CHOICE


async def test_quiz_kind_choice_from_the_bank(make: Any, store: ProgressStore) -> None:
    app = make(start="quiz", options=SessionOptions(mode="new", kind="choice", count=2, seed=4))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        question = screen.question
        assert question is not None and question.choice is not None
        await pilot.press(str(question.choice.answer_index + 1))
        assert screen.state == FEEDBACK
        assert store.review_count() == 4
        assert_fits(app)


async def test_summary_names_the_key_statement_of_a_missed_choice(make: Any, content: Content) -> None:
    from studyapp.tui.screens.summary import SummaryScreen

    question = choice_question(content)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, [question, choice_question(content)])
        await pilot.press("1")  # wrong
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        text = flat(screen_text(app))
        assert flat("병목을 고친 뒤에는 다시 측정해") in text and flat("정답은 3") in text


async def test_retrying_a_missed_choice_asks_it_afresh(make: Any, content: Content) -> None:
    """`w` on the summary retries the misses; a 4-choice miss comes back with its options in
    another order (redrawn, where the bank has other distractors), never as it was."""
    from studyapp.tui.screens.summary import SummaryScreen

    question = choice_question(content)
    assert question.choice is not None
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, [question])
        await pilot.press("1")  # wrong: the key is option 3
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        retried = screen.session.current
        assert retried is not None and retried.choice is not None
        assert retried.choice.key.id == question.choice.key.id
        assert retried.choice.options != question.choice.options
        assert retried.choice.answer_index != question.choice.answer_index  # the key moved
