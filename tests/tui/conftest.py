"""Fixtures for the TUI tests: the fixture bank (tests/fixtures/content, loaded once), a store on a
fixed clock in tmp_path, an app factory, a pinned cursor blink, and helpers to read the screen as
text. The shipped bank is not used here: tests/test_content.py checks that it fits Home.

Everything here builds the app through `make_app`, exactly as `studyapp` does.
"""

from __future__ import annotations

import asyncio
import inspect
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.content.model import Content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.app import StudyApp, make_app
from tests.helpers_content import FIXTURE_CONTENT
from tests.tui.helpers import FAKE_LAB_MAIN, FAKE_LAB_YAML, KST


def pytest_configure(config: pytest.Config) -> None:
    """Keep pytest-textual-snapshot's failure report out of the working tree."""
    if getattr(config.option, "snapshot_report", None) == "snapshot_report.html":
        config.option.snapshot_report = str(Path(tempfile.gettempdir()) / "studyapp_snapshot_report.html")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` Pilot tests in a fresh event loop (no pytest-asyncio needed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**arguments))
    return True


@pytest.fixture(scope="session")
def content() -> Content:
    return load_content(FIXTURE_CONTENT)


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor makes screenshots differ from run to run (harlequin does the same)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    """The learner's data directory: $STUDYAPP_HOME, set per test by the root conftest."""
    return locations.data_dir()


@pytest.fixture
def store(data_dir: Path, clock: Any) -> Iterator[ProgressStore]:
    progress = ProgressStore.in_dir(data_dir, clock=clock)
    yield progress
    progress.close()


AppFactory = Callable[..., StudyApp]


@pytest.fixture
def make(content: Content, store: ProgressStore) -> AppFactory:
    """`make(start="quiz", options=SessionOptions(seed=1), lang="ko")` → a StudyApp on the test store."""

    def build(
        start: str = "home",
        options: SessionOptions | None = None,
        lang: str = "ko",
        progress: ProgressStore | None = None,
    ) -> StudyApp:
        return make_app(
            content=content, store=progress or store, lang=lang, start=start, options=options, tz=KST
        )

    return build


@pytest.fixture
def fake_labs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A labs directory with one lab, `fake`, that speaks the JSON-lines protocol."""
    labs = tmp_path / "fakelabs" / "labs"
    (labs / "fake").mkdir(parents=True)
    (labs / "__init__.py").write_text("", encoding="utf-8")
    (labs / "fake" / "__init__.py").write_text("", encoding="utf-8")
    (labs / "fake" / "__main__.py").write_text(textwrap.dedent(FAKE_LAB_MAIN), encoding="utf-8")
    (labs / "fake" / "lab.yaml").write_text(FAKE_LAB_YAML, encoding="utf-8")
    monkeypatch.setenv("STUDYAPP_LABS", str(labs))
    return labs
