"""`studyapp quiz` in the TUI never imports torch, numpy or pytest, and presenting stays Textual-free."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, json, sys, tempfile
from pathlib import Path
from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.app import make_app

content = load_content(locations.content_dir())
store = ProgressStore.in_dir(Path(tempfile.mkdtemp()))
app = make_app(content=content, store=store, lang="ko", start="quiz", options=SessionOptions(seed=1))

async def main():
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        question = app.screen.question
        await pilot.press("o" if question.kind == "ox" else "q")
        await pilot.press("q")
        await pilot.pause()

asyncio.run(main())
names = ("torch", "numpy", "pytest", "textual", "studyapp.tui.screens.quiz")
print(json.dumps({name: name in sys.modules for name in names}))
"""


def _run(code: str) -> dict[str, bool]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tui_quiz_never_imports_torch_numpy_or_pytest() -> None:
    loaded = _run(SCRIPT)
    assert loaded["textual"] and loaded["studyapp.tui.screens.quiz"]  # it did run the TUI
    assert not loaded["torch"] and not loaded["numpy"] and not loaded["pytest"]


def test_presenting_and_the_tui_package_do_not_import_textual() -> None:
    code = (
        "import sys, json, studyapp.tui, studyapp.quiz.presenting\n"
        "print(json.dumps({'textual': 'textual' in sys.modules}))"
    )
    assert _run(code) == {"textual": False}


def test_bad_quiz_options_fail_in_one_line_before_the_tui(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), STUDYAPP_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "studyapp", "quiz", "--topic", "nope"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("studyapp: unknown topic 'nope'") and out.stderr.count("\n") == 1
