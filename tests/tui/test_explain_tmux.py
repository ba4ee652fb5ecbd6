"""End to end (issue 23, N1/N2): `studyapp explain ID` in a real 80×24 terminal, Korean from $LANG.

Korean typed with `send-keys -l`, Esc and a restart keep it as a draft; Ctrl+S shows the learner's
answer beside the model answer; End reaches the key points without Tab; the "saved" line is on
screen after the second Ctrl+S. Polls the pane for expected text instead of sleeping.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.content.explain import load_explain
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.explain import history, load_draft
from tests.tui.test_e2e_tmux import REPO, Tmux, tmux

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
__all__ = ["tmux"]  # the fixture, shared with test_e2e_tmux

SIZE = (80, 24)
FIRST = "asyncio는 한 스레드에서 이벤트 루프로 기다린다"
SECOND = "프로세스는 GIL을 따로 가진다"


def flat(text: str) -> str:
    return "".join(ch for ch in text if ch not in " \n│▕")


def exit_and_wait(server: Tmux) -> None:
    deadline = time.monotonic() + 20
    while server.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.alive(), "studyapp did not exit"


def test_explain_in_a_korean_80x24_terminal(tmux: Tmux, tmp_path: Path) -> None:
    content = load_content(locations.content_dir())
    prompt = max(load_explain(content), key=lambda p: len(p.model_answer) + 40 * len(p.key_points))
    home = tmp_path / "home"
    env = {
        "LANG": "ko_KR.UTF-8",
        "STUDYAPP_LANG": "",  # the root conftest pins English; here $LANG decides
        "STUDYAPP_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "TERM": "xterm-256color",
    }
    command = f"cd {REPO} && {sys.executable} -m studyapp explain {prompt.id}"

    tmux.start(command, env, SIZE)
    # start-up under a loaded CI machine can take a while: a longer first wait
    screen = tmux.wait(
        lambda text: "설명하기 · 체크리스트" in text and "╭" in text, "the styled prompt", timeout=90
    )
    assert "^s 답 제출" in screen
    tmux.send("-l", FIRST)
    tmux.send("Enter")
    tmux.send("-l", SECOND)
    tmux.wait(lambda text: flat(SECOND) in flat(text), "the second Korean line")
    tmux.send("Escape")  # the draft is kept: no question, straight to Home
    tmux.wait(lambda text: "바로 가기" in text, "home")
    tmux.send("q")
    exit_and_wait(tmux)
    store = ProgressStore.in_dir(home)
    try:
        assert load_draft(store, prompt.id) == f"{FIRST}\n{SECOND}"
    finally:
        store.close()

    tmux.start(command, env, SIZE)  # a new process: the draft is back in the box
    tmux.wait(
        lambda text: flat(FIRST) in flat(text) and "초안" in text, "the draft after a restart", timeout=90
    )
    tmux.send("C-s")
    review = tmux.wait(lambda text: "모범 답안" in text and "^s 저장" in text, "the review")
    assert "내 답" in review and flat(FIRST)[:10] in flat(review)
    mine = next(line for line in review.splitlines() if "내 답" in line)
    assert mine.index("내 답") < mine.index("모범 답안")  # side by side, on one row
    tmux.send("End")  # no Tab first: the body has the focus
    tmux.wait(lambda text: "핵심 포인트" in text, "the key points")
    tmux.send("1")
    tmux.send("3")
    tmux.send("C-s")
    saved = tmux.wait(lambda text: "저장함: 핵심 포인트 2/" in text, "the saved line")
    assert "n 다른 문제" in saved
    assert all(len(line) <= SIZE[0] for line in saved.splitlines())
    tmux.send("Escape")
    tmux.wait(lambda text: "바로 가기" in text, "home again")
    tmux.send("q")
    exit_and_wait(tmux)

    store = ProgressStore.in_dir(home)
    try:
        (answer,) = history(store, prompt.id)
        assert answer.covered == (0, 2) and answer.answer_text == f"{FIRST}\n{SECOND}"
        assert load_draft(store, prompt.id) == ""
    finally:
        store.close()
