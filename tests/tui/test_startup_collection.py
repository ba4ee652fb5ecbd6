"""The cyclic collector is held while studyapp starts (studyapp/startup.py) and never left off."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from studyapp import startup
from studyapp.cli import main
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def collector_back_on() -> Iterator[None]:
    yield
    startup.resume_collection()
    gc.enable()  # whatever a failing test left, the next one starts with the collector on


async def test_the_first_frame_resumes_a_held_collector(make: Any) -> None:
    startup.pause_collection()  # as run_tui does before importing Textual
    assert not gc.isenabled()
    app = make(start="quiz")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert gc.isenabled()


def test_importing_the_command_line_leaves_the_collector_on() -> None:
    # ... with what the import made frozen out of its way instead of walked once more
    code = "import gc, studyapp.cli; print(gc.isenabled(), gc.get_freeze_count() > 10000)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "True True"


def test_the_first_frame_of_a_started_tui_freezes_what_exists() -> None:
    code = """
import asyncio, gc
from studyapp import startup
startup.pause_collection()
before = gc.get_freeze_count()
from textual.app import App
class One(App):
    def on_mount(self):
        self.call_after_refresh(startup.first_frame_shown)
        self.set_timer(0.05, self.exit)
async def main():
    async with One().run_test() as pilot:
        await pilot.pause(0.1)
asyncio.run(main())
print(gc.isenabled(), gc.get_freeze_count() > before + 10000)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "True True"


def test_a_command_leaves_the_collector_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topics"]) == 0
    assert gc.isenabled()
    assert main(["no-such-command"]) != 0
    assert gc.isenabled()
    capsys.readouterr()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    startup.pause_collection()
    startup.resume_collection()
    assert not gc.isenabled()  # not ours to switch on
