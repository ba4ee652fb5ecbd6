"""A new TUI section is one file: a toy section module — its `Section`, its own words and its
screen, nothing else — dropped among studyapp/tui/sections/ gets a mode, an F-key, a palette
entry and a help heading with its keys, without a change to the app, the help screen or the
catalogue (docs/ARCHITECTURE.md).

The app's modes and bindings are made when studyapp.tui.app is first imported, so the toy is
added in a fresh Python process: its folder joins the package's search path before that import,
which is what a file saved into the package is to the discovery.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from studyapp.tui.sections import section_ids
from tests.conftest import REPO

TOY_SECTION = '''\
"""Toy: a section that brings its own words (a test plants it; not shipped)."""

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from studyapp.tui.sections.base import Section

SECTION = Section(
    "toy",
    f"{__name__}:ToyScreen",
    "f9",
    strings={
        "ko": {"key.toy": "장난감", "cmd.toy": "장난감 화면", "cmd.toy.help": "시험용 구역",
               "help.toy": "장난감", "toy.wave": "손 흔들기"},
        "en": {"key.toy": "Toy", "cmd.toy": "Toy section", "cmd.toy.help": "A section for the test",
               "help.toy": "Toy", "toy.wave": "Wave"},
    },
)


class ToyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("w", "wave", "toy.wave")]

    def compose(self) -> ComposeResult:
        yield Static("toy section body")
'''

DRIVER = """\
import asyncio, json, sys
from pathlib import Path

import studyapp.tui.sections as package

package.__path__.append(sys.argv[1])  # as if toy.py had been saved into studyapp/tui/sections/

from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.tui.app import make_app
from tests.helpers_content import FIXTURE_CONTENT
from tests.tui.helpers import screen_text


async def main() -> dict:
    store = ProgressStore.in_dir(Path(sys.argv[2]))
    app = make_app(content=load_content(FIXTURE_CONTENT), store=store, lang="en")
    seen = {"sections": [section.id for section in package.sections()]}
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f9")
        await pilot.pause()
        seen["after_f9"] = [type(app.screen).__name__, screen_text(app)]
        await pilot.press("f2")
        await pilot.pause()
        seen["after_f2"] = type(app.screen).__name__
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"toy section")
        await pilot.pause(0.5)
        seen["palette"] = screen_text(app)
        await pilot.press("escape", "f1")
        await pilot.pause()
        seen["help"] = "\\n".join(
            str(getattr(widget, "content", "")) for widget in app.screen.query("*")
        ) + screen_text(app)
    store.close()
    return seen


print(json.dumps(asyncio.run(main())))
"""


def test_a_section_module_dropped_into_the_package_is_a_whole_section(tmp_path: Path) -> None:
    toy_folder = tmp_path / "more_sections"
    toy_folder.mkdir()
    (toy_folder / "toy.py").write_text(TOY_SECTION, encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, str(toy_folder), str(data)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "STUDYAPP_HOME": str(data), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])

    assert seen["sections"] == [*section_ids(), "toy"]  # found, and ordered by its F-key
    screen, text = seen["after_f9"]
    assert screen == "ToyScreen" and "toy section body" in text  # F9 opens its mode
    assert seen["after_f2"] == "HomeScreen"  # and the others are where they were
    assert "Toy section" in seen["palette"] and "A section for the test" in seen["palette"]
    assert "Toy" in seen["help"] and "Wave" in seen["help"]  # its heading and its keys, in its words


def test_the_shipped_sections_are_found_in_f_key_order() -> None:
    assert section_ids() == ("home", "cards", "labs", "checklist", "stats", "exercises", "settings")
