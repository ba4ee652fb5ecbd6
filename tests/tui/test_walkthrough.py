"""The minor items of the new-learner walkthrough (../shared/reviews/tui-new-user.md), driven as a
learner would: the notebook, summaries, Home's first-run path, keys, palette, language, pipes."""

from __future__ import annotations

from typing import Any

from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.quiz.questions import Question, all_questions
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.notebook import NotebookScreen
from studyapp.tui.screens.quiz import ASKING, QuizScreen
from studyapp.tui.screens.summary import SummaryScreen
from tests.conftest import InProcessCli
from tests.tui.helpers import SIZE, assert_fits, flat, screen_lines, screen_text


def tagged_items(content: Content) -> list[Any]:
    return sorted((i for i in content.items.values() if i.misconception), key=lambda i: i.id)


def miss(store: ProgressStore, content: Content, item: Any, session: str = "old") -> None:
    question = all_questions(content, include_drills=False)[item.id]
    store.record_answer(
        item.id,
        answer="X" if item.answer == "O" else "O",
        correct=False,
        session_id=session,
        text_hash=question.text_hash,
    )


def wrong_key(question: Question) -> str:
    return "x" if question.answer == "O" else "o"


async def test_notebook_groups_misses_under_misconception_headings(
    make: Any, store: ProgressStore, content: Content
) -> None:
    items = tagged_items(content)
    first = items[0]
    same = [i for i in items if i.misconception == first.misconception][:2]
    other = next(i for i in items if i.misconception != first.misconception)
    for item in [*same, other]:
        miss(store, content, item)
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, NotebookScreen)
        text = flat(screen_text(app))
        label = content.misconceptions[first.misconception]
        assert flat(f"Misconception: {label}")[:30] in text
        assert flat(f"— {len(same)} items") in text
        assert flat(same[0].explanation)[:20] in text  # explanations are in the notebook
        assert "Card:" in text
        assert_fits(app)
        await pilot.press("c")  # the card section of the focused item
        await pilot.pause()
        assert isinstance(app.screen, CardsScreen)
        assert (app.screen.topic_id, app.screen.section_id) == (same[0].topic, same[0].section)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("s")  # retry this group only
        await pilot.pause()
        quiz = app.screen
        assert isinstance(quiz, QuizScreen)
        assert [q.id for q in quiz.session.queue] == [i.id for i in same]
        assert flat(label)[:10] in flat(screen_text(app))  # the group is named while retrying


async def test_summary_explains_misses_retries_this_session_and_undoes(
    make: Any, store: ProgressStore, content: Content
) -> None:
    items = tagged_items(content)
    miss(store, content, items[-1])  # an old miss: not part of "retry this session's misses"
    questions = all_questions(content, include_drills=False)
    session = [questions[items[0].id], questions[items[1].id]]
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.start_quiz(SessionOptions(), questions=session)
        await pilot.pause()
        await pilot.press(wrong_key(session[0]), "enter", session[1].answer.lower(), "enter")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        assert flat(session[0].explanation)[:20] in flat(screen_text(app))  # m15: explained
        await pilot.press("u")  # m15: undo from the summary
        await pilot.pause()
        quiz = app.screen
        assert isinstance(quiz, QuizScreen) and quiz.state == ASKING
        assert quiz.question == session[1] and store.review_count() == 2  # 1 old + the first
        await pilot.press(session[1].answer.lower(), "enter")
        await pilot.pause()
        await pilot.press("w")  # m7: this session's misses only
        await pilot.pause()
        retry = app.screen
        assert isinstance(retry, QuizScreen)
        assert [q.id for q in retry.session.queue] == [session[0].id]


async def test_home_first_run_path_seen_counts_and_session_size(
    make: Any, store: ProgressStore, content: Content
) -> None:
    app = make(lang="en")
    first_topic = content.ordered_topics()[0]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        assert flat("Start here: s starts with 10 new items") in text
        terms = sum(term.topic == first_topic.id for term in content.glossary.values())  # counted too
        assert "Seen0/" in text and f"0/{len(content.items_for_topic(first_topic.id)) + terms}" in text
        await pilot.press("z")  # 20 → 40
        await pilot.pause()
        assert flat("Session size: 40 items") in flat(screen_text(app))
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.session.options.count == 40
        assert_fits(app)


async def test_learning_steps_are_explained_after_a_first_session(
    make: Any, store: ProgressStore, content: Content, clock: Any
) -> None:
    miss(store, content, tagged_items(content)[0])
    clock.advance(minutes=11)  # the wrong answer is due again: a learning step
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        assert "Seen1/" in text and "Duetoday1" in text
        assert flat("FSRS learning steps") in text


async def test_function_keys_in_a_quiz_say_why(make: Any, content: Content) -> None:
    app = make(lang="en", start="quiz", options=SessionOptions(seed=1, include_drills=False))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, QuizScreen)
        assert any(
            "End the session with Esc first" in n.message for n in app._notifications
        )  # q is typed in a drill box (N8)


async def test_escape_stays_on_the_key_bar_at_80_columns(make: Any) -> None:
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert "esc Back" in screen_lines(app)[-1]


async def test_korean_ctrl_c_notice_and_palette_without_duplicates(make: Any) -> None:
    app = make(lang="ko")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert any("Ctrl+Q" in n.message and "끝내려면" in n.message for n in app._notifications)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert titles == ["테마", "화면 저장"]  # no second "Quit", in Korean


def test_piping_into_the_tui_does_not_hang(studyapp_cli: InProcessCli) -> None:
    done = studyapp_cli("quiz", input_text="o\nx\n")
    assert done.returncode == 2
    assert "--plain" in done.stderr and "Traceback" not in done.stderr


def test_plain_mode_speaks_its_own_prompt(studyapp_cli: InProcessCli) -> None:
    """m8 / c4 / c14: Korean-layout keys, the prompt's own syntax, echoed unsure, no 0/0 summary."""
    done = studyapp_cli(
        "quiz", "--plain", "--lang", "ko", "--no-drills", "--count", "2", "--seed", "1", input_text="ㅌ\nx?\n"
    )
    assert done.returncode == 0, done.stderr
    assert "o?/x?" in done.stdout
    assert "요약: " in done.stdout and "/2 정답" in done.stdout  # ㅌ was read as X, and x? as X
    assert "(모름 표시)" in done.stdout
    assert "정답 — 정답" not in done.stdout and (
        "맞음 — 정답은" in done.stdout or "틀림 — 정답은" in done.stdout
    )
    nothing = studyapp_cli("quiz", "--plain", "--count", "1", input_text="q\n")
    assert "Summary" not in nothing.stdout


async def test_exam_note_is_shown_with_the_explanation(make: Any, content: Content, monkeypatch: Any) -> None:
    import dataclasses

    item = tagged_items(content)[0]
    noted = dataclasses.replace(item, exam_note="시드 기반 시험은 O를 정답으로 본다.")
    monkeypatch.setitem(content.items, item.id, noted)
    question = all_questions(content, include_drills=False)[item.id]
    app = make(lang="en")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.start_quiz(SessionOptions(), questions=[question])
        await pilot.pause()
        await pilot.press(question.answer.lower())
        await pilot.pause()
        assert flat("Exam key: 시드 기반 시험은 O를 정답으로 본다.") in flat(screen_text(app))


async def test_checklist_session_title_names_its_filter_and_units_are_spaced(
    make: Any, content: Content
) -> None:
    """c13 and c5: `Review · … · checklist amdahl`, and `83.3 items/s` with a space, `6.40배` without."""
    from studyapp.quiz.presenting import answer_text

    app = make(lang="en", start="quiz", options=SessionOptions(checklist="amdahl", seed=1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "checklist amdahl" in screen_lines(app)[0]
    drills = all_questions(content)
    assert answer_text(drills["drill-pipeline-throughput-6-25-10"]) == "40.0 items/s"
    assert answer_text(drills["drill-amdahl-speedup-90-8"]).endswith("배")
    assert " 배" not in answer_text(drills["drill-amdahl-speedup-90-8"])
