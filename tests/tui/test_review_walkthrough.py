"""More of the new-user review (issue 23): mock-exam misses in the wrong-answer notebook, search in
the concept cards, and the smaller items around them (N16, N23, N29, N32)."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.exam import ExamSession, ExamSettings
from studyapp.quiz.questions import KIND_CHOICE
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.exam import ExamIntroScreen
from studyapp.tui.screens.notebook import NotebookScreen
from tests.tui.helpers import SIZE, assert_fits, flat, screen_text


def sit_an_exam(content: Content, store: ProgressStore) -> ExamSession:
    """A 4-choice exam: the first right, the second wrong, the rest left open; submitted."""
    session = ExamSession(content, store, ExamSettings(count=4, kind=KIND_CHOICE, seed=5))
    session.start()
    first, second = session.questions[:2]
    session.answer(first.answer)
    session.next()
    session.answer(str(int(second.answer) % 4 + 1))
    session.submit()
    return session


async def open_notebook(app: Any, pilot: Any) -> NotebookScreen:
    await pilot.pause()
    await pilot.press("w")
    await pilot.pause()
    assert isinstance(app.screen, NotebookScreen)
    return app.screen


async def test_the_notebook_lists_the_last_mock_exams_misses(
    make: Any, content: Content, store: ProgressStore
) -> None:
    session = sit_an_exam(content, store)
    missed = session.questions[1]
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_notebook(app, pilot)
        text = flat(screen_text(app))
        assert flat(f"모의고사 {session.attempt_id[:8]}") in text and flat("틀린 문항 — 3개") in text
        assert flat(missed.stem)[:12] in text and "✓" in screen_text(app)
        assert "w: 전부 다시" not in screen_text(app)  # no FSRS misses: `w` has nothing to do (N29)
        assert_fits(app, 100)
        await pilot.press("c")  # the card of the focused miss
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("e")  # sit them again, as a new mock exam
        await pilot.pause()
        intro = app.screen
        assert isinstance(intro, ExamIntroScreen) and intro.session.settings.retry_of == session.attempt_id
        text = flat(screen_text(app))
        assert flat("틀린 문항 다시 풀기") in text and flat("n 문항 수") not in text  # N32


async def test_an_empty_notebook_lists_no_keys(make: Any) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await open_notebook(app, pilot)
        text = screen_text(app)
        assert "No missed items" in text and "retry" not in text.lower()


def a_searchable_word(content: Content) -> tuple[str, str, str]:
    """A word from a bullet deep in some card: (word, topic id, section id)."""
    from studyapp.content.search import section_texts

    for topic in content.ordered_topics():
        for section in topic.sections[3:]:
            for text in section_texts(section):
                for word in text.split():
                    if len(word) >= 6 and word.isascii() and word.isalpha():
                        return word, topic.id, section.id
    raise AssertionError("no card has an ASCII word to search for")


async def test_search_in_the_cards_opens_the_section_of_a_hit(make: Any, content: Content) -> None:
    from textual.widgets import OptionList

    from studyapp.content.search import search_cards

    word, topic_id, section_id = a_searchable_word(content)
    hits = search_cards(content, word)
    assert any((h.topic_id, h.section_id) == (topic_id, section_id) for h in hits)
    assert search_cards(content, f"{word} zzzznotthere") == []  # every word must be in the line
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        await pilot.press("slash", *word, "enter")
        await pilot.pause()
        assert isinstance(screen.focused, OptionList)
        assert flat(f"{len(hits)}곳") in flat(screen_text(app))
        first = hits[0]
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert (screen.topic_id, screen.section_id) == (first.topic_id, first.section_id)
        text = screen_text(app)
        assert word.casefold() in text.casefold()  # the matching line is on screen
        await pilot.press("slash", "z", "z", "q", "q", "enter")  # no hit: one calm line
        await pilot.pause()
        assert flat("들어 있는 카드가 없습니다") in flat(screen_text(app))
        await pilot.press("escape")  # closes the search, not the screen
        await pilot.pause()
        assert app.screen is screen and not screen.query("#card-hits")
        assert_fits(app)


async def test_a_card_opened_from_a_question_says_why_s_does_nothing(make: Any, content: Content) -> None:
    from studyapp.quiz.engine import SessionOptions

    app = make(start="quiz", options=SessionOptions(seed=1, include_drills=False, kind="ox"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        text = screen_text(app)
        assert "s: 이 주제 복습" not in text and "s 주제 퀴즈" not in text  # N16
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        assert any("Esc로 세션을 끝내세요" in str(n.message) for n in app._notifications)


async def test_english_card_outline_names_the_standard_sections(make: Any) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        text = screen_text(app)
        assert "Definition" in text and "Exam traps" in text and "정의" not in text  # N22


def test_a_retried_choice_question_moves_its_key(content: Content, store: ProgressStore) -> None:
    import random

    from studyapp.quiz.choice import reshuffled
    from studyapp.quiz.engine import QuizSession, SessionOptions

    session = QuizSession(content, store, SessionOptions(mode="new", kind="choice", count=3, seed=2))
    question = session.current
    assert question is not None and question.choice is not None
    rng = random.Random(7)
    for _ in range(20):
        again = reshuffled(question, rng)
        assert again.choice is not None
        assert again.choice.answer_index != question.choice.answer_index  # N15: not the remembered spot
        assert again.choice.key == question.choice.key
        assert set(again.choice.options) == set(question.choice.options)
        assert again.answer == str(again.choice.answer_index + 1)


async def test_labs_give_the_list_the_focus_back(make: Any, fake_labs: Any, store: ProgressStore) -> None:
    from textual.widgets import DataTable

    from tests.tui.test_labs_screen import open_labs, seed_wide_run

    seed_wide_run(store)
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        screen.query_one(".lab-table", DataTable).focus()  # as Tab would
        await pilot.pause()
        await pilot.press("escape")  # Home
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert app.screen is screen and screen.focused is screen.query_one("#labs-table")  # N17
        await pilot.press("v")
        await pilot.pause()
        assert screen.focused is screen.query_one("#labs-table")  # ↓ still picks a lab


def test_help_rows_merge_keys_that_do_the_same() -> None:
    from studyapp.tui.screens.help import merge_rows

    rows = [
        ("2 3 4", "답"),
        ("1", "답"),
        ("Enter", "빠른 실행"),
        ("r", "빠른 실행"),
        ("Esc", "뒤로"),
        ("q", "뒤로"),
    ]
    assert merge_rows(rows) == [("1 2 3 4", "답"), ("Enter r", "빠른 실행"), ("Esc q", "뒤로")]  # N19


async def test_counts_agree_a_choice_answer_is_one_answer(
    make: Any, content: Content, store: ProgressStore
) -> None:
    from studyapp.quiz.engine import QuizSession, SessionOptions
    from studyapp.quiz.questions import all_questions

    session = QuizSession(content, store, SessionOptions(mode="new", kind="choice", count=1, seed=3))
    question = session.current
    assert question is not None
    session.answer(question.answer)
    assert store.review_count() == 4  # four statements graded …
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert "1 answer ·" in screen_text(app)  # … one answer (N24)
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        total = sum(1 for q in all_questions(content).values() if q.topic == screen.topic_id)
        assert f"{total} items" in screen_text(app)  # the number Home shows, drills included


async def test_the_palette_says_no_matches_in_korean(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"zzqqxx")
        await pilot.pause(1.2)
        text = screen_text(app)
        assert "찾는 명령이 없습니다" in text and "No matches found" not in text  # N12


async def test_what_a_key_opens_is_on_screen_at_80x24(
    make: Any, content: Content, store: ProgressStore
) -> None:
    """N3 and N6: the checklist's next step and the exam's jump box, with no scrolling."""
    from studyapp.tui.screens.checklist import ChecklistScreen
    from studyapp.tui.screens.exam import ExamScreen

    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChecklistScreen)
        for _ in range(len(content.checklist) - 1):  # every item, the longest evidence included
            await pilot.press("down")
            await pilot.pause()
            assert flat("다음 단계:") in flat(screen_text(app)), screen.selected
    session = ExamSession(content, store, ExamSettings(count=6, kind=KIND_CHOICE, seed=11))
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen)
        longest = max(
            range(session.total), key=lambda i: sum(len(o.text) for o in session.questions[i].options)
        )
        session.go(longest + 1)
        app.screen.show_question()
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert flat("이동할 문항 번호") in flat(screen_text(app))  # the box and its placeholder
        await pilot.press("1")
        await pilot.pause()
        assert app.screen.query_one("#exam-jump").region.bottom <= SIZE[1] - 1  # above the key bar


async def test_the_mock_exam_asks_before_ctrl_q_and_its_dialogs_show_their_own_keys(
    make: Any, content: Content, store: ProgressStore, clock: Any
) -> None:
    """N9, N25, N32: ctrl+q asks first; the submit dialog's key bar is its own; the last minute is red."""
    from studyapp.tui.screens.base import TitleBar
    from studyapp.tui.screens.confirm import ConfirmScreen
    from studyapp.tui.screens.exam import ConfirmSubmit, ExamScreen

    session = ExamSession(content, store, ExamSettings(count=3, kind=KIND_CHOICE, seed=2, time_limit_s=120))
    app = make(start="exam", options=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        exam = app.screen
        assert isinstance(exam, ExamScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        assert flat("모의고사를 그만두고 끝낼까요?") in flat(screen_text(app))
        await pilot.press("escape")  # keep going
        await pilot.pause()
        assert app.screen is exam
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmSubmit)
        bar = screen_text(app).splitlines()[-1]
        assert "esc 계속 풀기" in bar and "g 번호로 이동" not in bar
        await pilot.press("escape")
        await pilot.pause()
        title = exam.query_one("#exam-title", TitleBar)
        assert not title.urgent
        clock.advance(seconds=70)  # 50 s left
        await pilot.pause(0.4)
        assert title.urgent
        await pilot.press("ctrl+q", "enter")  # quit after all: the attempt stays unsubmitted
        await pilot.pause()
    assert not app.is_running
