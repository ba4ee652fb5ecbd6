"""The question screen driven like a learner: answer, feedback, unsure, undo, card, lab, summary."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, Static

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.questions import KIND_DRILL, Question, all_questions
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.labs import LabsScreen
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen
from studyapp.tui.screens.summary import SummaryScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_lines, screen_text

TOPIC = "bottleneck-analysis"


def ox(content: Content, qid: str, answer: str, prompt: str, misconception: str | None = None) -> Question:
    return Question(
        id=qid,
        kind="ox",
        topic=TOPIC,
        prompt=prompt,
        answer=answer,
        explanation=f"{qid} 해설: 병목은 가장 느린 단계가 정한다.",
        section="exam-traps",
        misconception=misconception,
    )


@pytest.fixture
def questions(content: Content) -> list[Question]:
    tag = next(iter(content.misconceptions))
    return [
        ox(content, "t-o1", "O", "파이프라인의 처리량은 가장 느린 단계가 정한다."),
        ox(content, "t-x1", "X", "프로파일링은 정확도를 높이는 기법이다.", misconception=tag),
        ox(content, "t-o2", "O", "측정 → 변경 → 재측정을 반복한다."),
    ]


async def start(app: Any, pilot: Any, questions: list[Question], mode: str = "due") -> QuizScreen:
    await pilot.pause()
    app.start_quiz(SessionOptions(mode=mode), questions=list(questions))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, QuizScreen)
    return screen


async def test_quiz_command_opens_on_the_first_question(make: Any) -> None:
    app = make(start="quiz", options=SessionOptions(seed=3, include_drills=False))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)  # straight to the question: no start-up dialog
        assert screen.state == ASKING
        first = screen.session.queue[0]
        assert flat(first.prompt) in flat(screen_text(app))
        assert f"1/{screen.session.total}" in screen_text(app)
        assert_fits(app)


async def test_answer_is_committed_before_feedback_is_shown(
    make: Any,
    store: ProgressStore,
    questions: list[Question],
    content: Content,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen_at_feedback: list[int] = []
    original = QuizScreen.show_feedback

    def spy(self: QuizScreen, feedback: Any) -> None:
        seen_at_feedback.append(store.review_count())
        original(self, feedback)

    monkeypatch.setattr(QuizScreen, "show_feedback", spy)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions[1:2])
        await pilot.press("o")  # wrong: the answer is X
        assert seen_at_feedback == [1]
        assert screen.state == FEEDBACK
        text = screen_text(app)
        assert "✗ 틀림" in text and "정답은 X" in text and "내 답: O" in text
        assert "t-x1 해설" in text
        label = content.misconceptions[questions[1].misconception or ""]
        assert flat(label) in flat(text)  # the misconception label of an X item
        assert "다음 복습" in text
        review = store.reviews()[-1]
        assert (review.item_id, review.answer, review.correct) == ("t-x1", "O", False)
        assert_fits(app)


@pytest.mark.parametrize(
    ("key", "expected"), [("o", "O"), ("1", "O"), ("left", "O"), ("x", "X"), ("2", "X"), ("right", "X")]
)
async def test_answer_keys(
    make: Any, store: ProgressStore, questions: list[Question], key: str, expected: str
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, questions[:1])
        await pilot.press(key)
        assert store.reviews()[-1].answer == expected


async def test_enter_and_space_move_on_then_summary(
    make: Any, store: ProgressStore, questions: list[Question]
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions)
        await pilot.press("o", "enter")
        assert screen.state == ASKING and screen.question is not None and screen.question.id == "t-x1"
        await pilot.press("x", "space")
        assert screen.question is not None and screen.question.id == "t-o2"
        await pilot.press("x", "enter")  # last one, wrong: Enter ends the session
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        text = screen_text(app)
        assert "2/3 정답" in text
        assert "측정 → 변경 → 재측정을 반복한다." in flat(text) or flat(
            "측정 → 변경 → 재측정을 반복한다."
        ) in flat(text)
        assert store.review_count() == 3


async def test_unsure_toggle_shows_a_flag_and_is_recorded(
    make: Any, store: ProgressStore, questions: list[Question]
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions[:1])
        flag = screen.query_one("#unsure-flag", Static)
        assert not flag.display
        await pilot.press("question_mark")
        assert flag.display and "모름 표시" in screen_text(app)
        await pilot.press("question_mark")
        assert not flag.display
        await pilot.press("question_mark", "o")
        review = store.reviews()[-1]
        assert review.correct and review.unsure and review.rating == 2  # right but unsure → Hard
        assert "모름 표시로 기록" in screen_text(app)


async def test_undo_takes_back_the_answer_and_asks_again(
    make: Any, store: ProgressStore, questions: list[Question]
) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions)
        await pilot.press("u")  # nothing to undo yet
        assert store.review_count() == 0
        await pilot.press("o")
        assert store.review_count() == 1 and screen.state == FEEDBACK
        await pilot.press("u")  # from the feedback
        assert store.review_count() == 0
        assert screen.state == ASKING and screen.question is not None and screen.question.id == "t-o1"
        await pilot.press("o", "enter", "u")  # from the next question: the previous answer
        assert store.review_count() == 0
        assert screen.question is not None and screen.question.id == "t-o1"
        await pilot.press("x", "enter")
        assert [r.answer for r in store.reviews()] == ["X"]


async def test_card_key_opens_the_section_the_item_comes_from(make: Any, questions: list[Question]) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions[:1])
        await pilot.press("c")
        await pilot.pause()
        cards = app.screen
        assert isinstance(cards, CardsScreen)
        assert (cards.topic_id, cards.section_id) == (TOPIC, "exam-traps")
        assert "시험 함정" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.state == ASKING  # same question, still unanswered


async def test_lab_key_opens_the_linked_lab(make: Any, content: Content) -> None:
    item = next(i for i in content.items.values() if content.labs_for_item(i))
    question = all_questions(content, include_drills=False)[item.id]
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [question])
        await pilot.press("l")
        await pilot.pause()
        labs = app.screen
        assert isinstance(labs, LabsScreen)
        assert labs.selected == content.labs_for_item(item)[0]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_q_ends_with_a_summary_and_returns_home(
    make: Any, questions: list[Question], content: Content
) -> None:
    app = make(start="quiz", options=SessionOptions(seed=5, include_drills=False, count=5))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        first = screen.session.queue[0]
        wrong = "X" if first.answer == "O" else "O"
        await pilot.press(wrong.lower(), "enter", "q")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        text = screen_text(app)
        assert "세션 요약" in text and "0/1 정답" in text
        assert "틀린 문항" in text and flat(first.prompt)[:20] in flat(text)
        assert content.topics[first.topic].title in text
        assert "지금 복습할 문항" in text and "다음 복습" in text
        assert_fits(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_q_without_answers_leaves_without_summary(make: Any, questions: list[Question]) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, questions)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_drill_reads_a_number_and_hints_on_garbage(
    make: Any, store: ProgressStore, content: Content
) -> None:
    drill = next(q for q in all_questions(content).values() if q.kind == KIND_DRILL)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [drill])
        field = screen.query_one("#drill-input", Input)
        assert field.has_focus
        await pilot.press("?")  # unsure works while typing
        assert screen.unsure
        await pilot.press(*"zz", "enter")
        assert store.review_count() == 0  # unreadable: nothing recorded
        assert "숫자로 답하세요" in screen_text(app)
        field.value = ""
        await pilot.press(*f"{float(drill.answer):.6g}", "enter")
        await pilot.pause()
        assert store.review_count() == 1 and store.reviews()[0].correct
        assert screen.state == FEEDBACK and "✓ 맞음" in screen_text(app)


async def test_statement_is_never_parsed_as_markup(make: Any) -> None:
    question = Question(
        id="t-markup",
        kind="ox",
        topic=TOPIC,
        prompt="x[i]는 [/] 와 [bold]처럼 보여도 글자 그대로다.",
        answer="O",
        explanation="[red]도 글자다[/red]",
    )
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, [question])
        assert "x[i]는 [/] 와 [bold]처럼" in screen_text(app)
        await pilot.press("o")
        assert "[red]도 글자다[/red]" in screen_text(app)


async def test_english_interface_keeps_korean_content(make: Any, questions: list[Question]) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await start(app, pilot, questions[:1])
        await pilot.press("x")
        text = screen_text(app)
        assert "✗ Wrong" in text and "Answer: O" in text
        assert "파이프라인의 처리량은" in text


async def test_nothing_due_offers_new_items_or_cram(make: Any, store: ProgressStore) -> None:
    app = make(start="quiz", options=SessionOptions(mode="wrong"))  # nothing answered wrong yet
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.question is None
        assert "지금 풀 문항이 없습니다" in screen_text(app)
        await pilot.press("o")  # not an answer here
        assert store.review_count() == 0
        await pilot.press("n")
        assert screen.session.mode == "new" and screen.state == ASKING
        assert "1/" in screen_text(app)


async def test_keys_in_the_bottom_bar_can_be_clicked(
    make: Any, store: ProgressStore, questions: list[Question]
) -> None:
    from studyapp.tui.widgets.keybar import KeyBar

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, questions[:1])
        bar_text = screen_lines(app)[-1]
        assert bar_text.lstrip().startswith("o O 맞다")
        await pilot.click(KeyBar, offset=(2, 0))
        await pilot.pause()
        assert store.reviews()[-1].answer == "O" and screen.state == FEEDBACK


async def test_drill_box_keeps_letters_and_reads_fractions(
    make: Any, store: ProgressStore, content: Content
) -> None:
    """M2: `c`, `l`, `q` typed into the number box stay there; `1/9` is an answer; Tab leaves the box."""
    karp = all_questions(content)["drill-karp-flatt-300-4"]  # e = 1/9
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, [karp, karp])
        field = screen.query_one("#drill-input", Input)
        await pilot.press(*"abclqu")
        await pilot.pause()
        assert app.screen is screen and field.value == "abclqu"
        await pilot.press("enter")
        assert store.review_count() == 0
        hint = str(screen.query_one("#quiz-hint", Static).render())
        assert "e.g. 5.9, 1/9, 12.5%" in hint
        field.value = ""
        await pilot.press(*"1/9", "enter")
        await pilot.pause()
        assert store.review_count() == 1 and store.reviews()[0].correct
        assert screen.state == FEEDBACK
        await pilot.press("enter")
        await pilot.pause()
        assert field.has_focus
        await pilot.press("tab")  # out of the box: letters are keys again
        assert not field.has_focus
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and field.has_focus
        await pilot.press("ctrl+z")  # undo from inside the box
        await pilot.pause()
        assert store.review_count() == 0
