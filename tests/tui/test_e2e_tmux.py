"""End to end: the real `python -m studyapp quiz` in a real terminal (tmux), with Korean text.

Answers three items with keys, ends the session, leaves from home, and checks the progress store
has three reviews. It polls the pane for expected text instead of sleeping.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from studyapp.progress.store import ProgressStore

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


class Tmux:
    """One tmux server on its own socket, so the test never touches anyone else's sessions."""

    def __init__(self) -> None:
        self.socket = f"studyapp-test-{uuid.uuid4().hex[:8]}"
        self.session = "quiz"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)

    def start(self, command: str, env: dict[str, str], size: tuple[int, int] = (100, 30)) -> None:
        flags = [item for key, value in env.items() for item in ("-e", f"{key}={value}")]
        width, height = str(size[0]), str(size[1])
        result = self.run("new-session", "-d", "-x", width, "-y", height, *flags, "-s", self.session, command)
        assert result.returncode == 0, result.stderr

    def send(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def pane(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session).stdout

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.session).returncode == 0

    def wait(self, condition: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.pane()
            if condition(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the pane shows:\n{text}")

    def close(self) -> None:
        self.run("kill-server")


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    server = Tmux()
    yield server
    server.close()


@pytest.mark.parametrize(
    ("size", "lang"),
    [((100, 30), "C.UTF-8"), ((80, 24), "ko_KR.UTF-8")],
    ids=["100x30-lang-flag", "80x24-korean-locale"],
)
def test_quiz_in_a_real_terminal(tmux: Tmux, tmp_path: Path, size: tuple[int, int], lang: str) -> None:
    """The 80×24 pass takes Korean from $LANG alone and also opens the wrong-answer notebook."""
    home = tmp_path / "home"
    korean_locale = lang.startswith("ko")
    env = {
        "LANG": lang,
        "STUDYAPP_LANG": "",  # the root conftest pins English; here $LANG decides
        "STUDYAPP_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "TERM": "xterm-256color",
    }
    lang_flag = "" if korean_locale else "--lang ko "
    command = (
        f"cd {REPO} && {sys.executable} -m studyapp quiz {lang_flag}--kind ox --no-drills --count 5 --seed 1"
    )
    tmux.start(command, env, size)

    for number in (1, 2, 3):
        tmux.wait(lambda text, n=number: f"{n}/5" in text and "o O 맞다" in text, f"question {number}")
        tmux.send("o" if number != 2 else "x")
        # The feedback's verdict and its key bar; a long explanation (an exam note) can push the
        # "다음 복습" line below the panel's fold, so it is not waited for.
        tmux.wait(lambda text: "정답은" in text and "⏎ 다음" in text, f"feedback {number}")
        tmux.send("Enter")
    tmux.wait(lambda text: "4/5" in text, "question 4")
    tmux.send("q")
    summary = tmux.wait(lambda text: "세션 요약" in text, "the summary")
    assert "/3 정답" in summary
    tmux.send("Enter")
    home_text = tmux.wait(lambda text: "바로 가기" in text and "오늘 복습" in text, "home")
    assert "본 문항 3/" in home_text  # progress is visible on day one
    if korean_locale:
        tmux.send("w")
        notebook = tmux.wait(
            lambda text: "바로 가기" not in text and "틀린 문항 노트" in text, "the notebook"
        )
        assert "문항 · 오개념" in notebook and "esc 뒤로" in notebook  # the misses, and a way back
        assert all(len(line) <= size[0] for line in notebook.splitlines())
        tmux.send("Escape")
        tmux.wait(lambda text: "바로 가기" in text, "home again")
    tmux.send("q")
    deadline = time.monotonic() + 20
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not tmux.alive(), "studyapp did not exit"

    store = ProgressStore.in_dir(home)
    try:
        assert store.review_count() == 3
        assert [r.answer for r in store.reviews()] == ["O", "X", "O"]
    finally:
        store.close()
