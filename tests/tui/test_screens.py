"""Home, persistence across restarts, cards, checklist, statistics, help, palette and the notice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.report.readiness import checklist_readiness, overall
from studyapp.tui.app import make_app
from studyapp.tui.screens.cards import CardsScreen
from studyapp.tui.screens.checklist import ChecklistScreen
from studyapp.tui.screens.help import HelpScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.labs import LabsScreen
from studyapp.tui.screens.quiz import QuizScreen
from studyapp.tui.screens.stats import StatsScreen
from studyapp.tui.screens.summary import SummaryScreen
from tests.helpers_content import write_topics
from tests.tui.helpers import KST, SIZE, assert_fits, assert_home_fits, flat, screen_text


async def test_home_shows_topics_mastery_due_and_readiness(make: Any, content: Content) -> None:
    app = make()
    # Tall enough for every topic row: at 80×24 the topic list scrolls (test_home_with_more_topics_still_fits_80x24).
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        text = screen_text(app)
        for topic in content.ordered_topics():
            assert topic.title in text
        assert "└ Torch.profiler" in text  # the sub-topic sits under its parent
        assert "오늘 복습 0" in text and "체크리스트 준비도 0%" in text
        assert "바로 가기" in text and "s 복습" in text  # shortcuts and the footer
        assert_fits(app)


async def test_home_enter_starts_a_quiz_on_the_selected_topic(make: Any, content: Content) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        second = content.ordered_topics()[1].id
        assert screen.options.topic == second
        family = {second} | {t.id for t in content.topics.values() if t.parent == second}
        assert {q.topic for q in screen.session.queue} <= family


async def test_reviews_survive_a_restart(make: Any, content: Content, data_dir: Path, clock: Any) -> None:
    first = make(start="quiz", options=SessionOptions(seed=11, include_drills=False, count=3))
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = first.screen
        assert isinstance(screen, QuizScreen)
        answers = ["x" if q.answer == "O" else "o" for q in screen.session.queue]  # all wrong: due soon
        for key in answers:
            await pilot.press(key, "enter")
        await pilot.pause()
        assert isinstance(first.screen, SummaryScreen)
    first.store.close()

    clock.advance(minutes=30)
    reopened = ProgressStore.in_dir(data_dir, clock=clock)  # a new process on the same STUDYAPP_HOME
    second = make(progress=reopened)
    async with second.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert reopened.review_count() == 3
        assert "오늘 복습 3" in screen_text(second)
        table = second.screen.query_one("#home-topics", DataTable)
        due_total = sum(int(str(table.get_cell(row_key, "due"))) for row_key in table.rows)
        assert due_total == 3
    reopened.close()


async def test_home_keys_open_sections_and_escape_returns(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key, screen_type in (
            ("c", CardsScreen),
            ("l", LabsScreen),
            ("k", ChecklistScreen),
            ("t", StatsScreen),
        ):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen_type), key
            assert_fits(app)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)


async def test_function_keys_switch_sections(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, ChecklistScreen)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_card_reader_nests_torch_profiler_and_reads_every_section(make: Any, content: Content) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        node = screen._tree_nodes[("torch-profiler", None)]
        assert node.parent is screen._tree_nodes[("pytorch-profiling", None)]
        topic = content.topics["torch-profiler"]
        for section in topic.sections:
            screen.show(topic.id, section.id)
            await pilot.pause()
            text = flat(screen_text(app))
            assert flat(section.title)[:8] in text
            first_line = (section.bullets or section.examples or (None,))[0]
            if first_line is not None:
                assert flat(first_line.text)[:12] in text
            assert_fits(app)
        await pilot.press("right_square_bracket")  # next section, across topics
        await pilot.pause()
        assert (screen.topic_id, screen.section_id) != (topic.id, topic.sections[-1].id)


async def test_card_jumps_to_a_quiz_on_its_topic(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CardsScreen)
        screen.show("error-decomposition", "definition")
        await pilot.press("r")
        await pilot.pause()
        quiz = app.screen
        assert isinstance(quiz, QuizScreen)
        assert quiz.options.mode == "cram" and quiz.options.topic == "error-decomposition"
        # Esc, not q: the topic has calculation drills, and in a drill's number box q is typed.
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen  # back on the card


async def test_checklist_self_check_toggle(make: Any, store: ProgressStore, content: Content) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChecklistScreen)
        text = screen_text(app)
        assert "전체 준비도 0%" in text
        first = content.checklist[0]
        assert flat(first.text)[:10] in flat(text)
        await pilot.press("space")
        await pilot.pause()
        assert first.id in store.self_checks()
        ready = overall(checklist_readiness(content, store, store.clock()))
        assert ready > 0
        assert "✓" in screen_text(app)
        await pilot.press("space")
        await pilot.pause()
        assert first.id not in store.self_checks()
        assert_fits(app)


async def test_checklist_jumps_to_linked_items_and_labs(make: Any, content: Content) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        entry = content.checklist[0]
        await pilot.press("enter")  # next step: quiz score is 0, so review the linked items
        await pilot.pause()
        quiz = app.screen
        assert isinstance(quiz, QuizScreen)
        assert quiz.options.checklist == entry.id
        assert quiz.session.queue and all(
            entry.id in q.checklist or q.id in entry.items for q in quiz.session.queue
        )
        await pilot.press("escape")  # a linked drill's number box would take a q as typing
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LabsScreen)
        assert app.screen.selected in entry.labs


async def test_statistics_draws_charts(make: Any, store: ProgressStore, clock: Any) -> None:
    for _day in range(3):
        store.record_answer("ba-001", answer="O", correct=True)
        store.record_answer("ba-002", answer="X", correct=False)
        clock.advance(days=1)
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        text = screen_text(app)
        assert "전체 복습 6회" in text and "정답률 50%" in text
        assert "주제별 숙달도" in text and "하루 복습 수" in text
        assert "█" in text
        await pilot.press("pagedown")
        await pilot.pause()
        assert_fits(app)
        # the reliability diagram below it (issue 22) makes a page scroll past the forecast
        app.screen.query_one("#stats-forecast").scroll_visible(animate=False)
        await pilot.pause()
        assert "복습 예정" in screen_text(app) or "오늘" in screen_text(app)
        assert_fits(app)


async def test_help_lists_keys_of_every_screen(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "도움말" in text and "어디서나" in text and "F2" in text
        help_screen = app.screen
        sections = dict(help_screen._sections())
        quiz_keys = " ".join(keys for keys, _ in sections["퀴즈"])
        for key in ("o", "x", "?", "u", "c", "l", "q", "Enter", "←", "→", "1", "2"):
            assert key in quiz_keys.split(), key
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_command_palette_has_an_entry_per_action(make: Any) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"체크리스트")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ChecklistScreen)

    from studyapp.tui.app import StudyCommands

    titles: list[str] = []

    class Probe(StudyCommands):
        def __init__(self) -> None:  # only `_entries`, which needs nothing but the app
            pass

        @property
        def app(self) -> Any:  # type: ignore[override]
            return app

    titles = [title for title, _, _ in Probe()._entries()]
    assert (
        len(titles) == len(set(titles)) == 22
    )  # + notebook, exercises, explain-it (issue 10), settings (22), four kinds (32), two trace kinds (33)
    assert {"복습 시작", "모의고사", "개념 카드", "실습", "체크리스트", "통계", "도움말", "종료"} <= set(
        titles
    )


async def test_themes_are_selectable_and_remembered(make: Any, store: ProgressStore) -> None:
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "nord" in app.available_themes
        app.theme = "nord"
        await pilot.pause()
    assert store.get_meta("ui.theme") == "nord"
    again = make()
    assert again.theme == "nord"


async def test_store_notice_is_shown_once(make: Any, tmp_path: Path, clock: Any) -> None:
    other = tmp_path / "other-home"
    other.mkdir()
    (other / "progress.db").write_bytes(b"this is not sqlite at all" * 100)
    moved = ProgressStore.in_dir(other, clock=clock)
    assert moved.notice
    app = make(progress=moved)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        notes = list(app._notifications)
        assert len(notes) == 1 and notes[0].message == moved.notice
        assert notes[0].severity == "warning"
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert len(list(app._notifications)) == 1
    moved.close()


async def test_labs_table_uses_a_wide_terminal(make: Any) -> None:
    """At 160 columns every lab title and topic list is shown in full (walkthrough c2)."""
    app = make()
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("l")
        await pilot.pause()
        text = screen_text(app)
        for info in app.screen.labs.values():
            assert info.title in text
        assert "…" not in text.split("\n\n")[0]


async def test_a_failing_write_is_a_toast_and_the_app_goes_on(
    make: Any, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Disk full while toggling a self-check or the session size: one toast, no traceback, the app
    keeps running and nothing claims to be saved (issue 9)."""
    from studyapp.progress.db import StoreWriteError

    def full_disk(*_args: object, **_kwargs: object) -> None:
        raise StoreWriteError(f"the disk holding {store.path} is full")

    monkeypatch.setattr(store, "set_self_check", full_disk)
    monkeypatch.setattr(store, "set_meta", full_disk)
    app = make()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("z")  # session size
        await pilot.press("k", "space")  # self-check on the checklist
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, ChecklistScreen)
        messages = [n.message for n in app._notifications]
        assert sum("is full" in m for m in messages) == 2, messages
        assert not store.self_checks()


async def test_home_shows_every_shortcut_at_80x24(make: Any) -> None:
    """Nothing of Home is below the fold at 80×24, first-run guide included (Korean is widest)."""
    app = make(lang="ko")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shortcuts = app.screen.query_one("#home-shortcuts")
        assert shortcuts.region.bottom <= SIZE[1] - 1, shortcuts.region  # the footer is the last row
        text = screen_text(app)
        for label in ("설명하기", "세션 크기", "체크리스트", "과제"):
            assert label in text
        assert_home_fits(app)


@pytest.mark.parametrize("topics", [7, 8])
async def test_home_with_more_topics_still_fits_80x24(
    topics: int, tmp_path: Path, store: ProgressStore
) -> None:
    """Home is not built for a number of topics: the topic list scrolls, the keys stay on screen."""
    content = load_content(write_topics(tmp_path / "content", topics))
    app = make_app(content=content, store=store, lang="ko", start="home", tz=KST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_home_fits(app)
        table = app.screen.query_one("#home-topics", DataTable)
        assert table.row_count == topics
        await pilot.press(*["down"] * (topics - 1))  # the last topic scrolls into view
        await pilot.pause()
        assert f"데모 주제 {topics}" in screen_text(app)
        assert_home_fits(app)
