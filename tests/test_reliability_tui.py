"""The TUI quiz when an answer cannot be written (review M4, cases 2.52–2.53): a toast, the
answer kept and written with the next one, never Textual's traceback. Driven with Pilot on a
real SQLite store that another connection holds locked."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.app import make_app
from studyapp.tui.screens.quiz import FEEDBACK, QuizScreen
from tests.helpers_content import FIXTURE_CONTENT


def test_a_failed_write_in_the_tui_is_a_toast_and_is_retried(tmp_path: Path) -> None:
    store = ProgressStore(tmp_path / "progress.db")
    store.lock_wait_s = 0.3  # commands.run_tui shortens the wait the same way (3 s there)
    content = load_content(FIXTURE_CONTENT)
    app = make_app(
        content=content,
        store=store,
        lang="en",
        start="quiz",
        options=SessionOptions(mode="cram", include_drills=False, seed=1),
    )
    other = sqlite3.connect(tmp_path / "progress.db", isolation_level=None)

    async def scenario() -> None:
        async with app.run_test(size=(110, 36)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, QuizScreen)
            other.execute("BEGIN EXCLUSIVE")  # another program holds the write lock
            await pilot.press("o")
            await pilot.pause()
            assert screen.state == FEEDBACK  # the learner still gets the feedback
            messages = [str(n.message) for n in app._notifications]
            assert any("locked by another program" in m for m in messages), messages
            assert len(store.unsaved) == 1
            other.execute("ROLLBACK")  # the other program is done
            await pilot.press("enter", "x")
            await pilot.pause()
            assert store.unsaved == []
            assert store.review_count() == 2
            await pilot.pause()
            # M3: once the feedback is painted the answers are in progress.db itself, not only
            # in the -wal (immutable=1 reads the main file alone).
            main_file = sqlite3.connect(f"{(tmp_path / 'progress.db').as_uri()}?immutable=1", uri=True)
            assert main_file.execute("SELECT count(*) FROM reviews").fetchone()[0] == 2
            main_file.close()

    asyncio.run(scenario())
    other.close()
    assert app.return_code in (None, 0)
