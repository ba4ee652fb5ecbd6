"""End to end: the mock exam in a real terminal (tmux) on the real clock — the intro, a countdown
that moves, an answer, and the exam submitting itself at the time limit; then the archived attempt."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from tests.tui.test_e2e_tmux import REPO, Tmux, pytestmark, tmux  # noqa: F401  (the fixture)

__all__ = ["pytestmark"]


@pytest.mark.parametrize("size", [(80, 24)], ids=["80x24"])
def test_exam_counts_down_and_submits_itself(tmux: Tmux, tmp_path: Path, size: tuple[int, int]) -> None:  # noqa: F811
    home = tmp_path / "home"
    env = {
        "LANG": "C.UTF-8",
        "STUDYAPP_LANG": "",
        "STUDYAPP_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "TERM": "xterm-256color",
    }
    command = f"cd {REPO} && {sys.executable} -m studyapp --lang ko quiz --mode exam --count 3 --time-limit 6s --seed 1"
    tmux.start(command, env, size)
    intro = tmux.wait(lambda text: "모의고사 안내" in text and "합격선 60%" in text, "the intro")
    assert "3문항" in intro and "제한 시간 00:06" in intro
    tmux.send("Enter")
    first = tmux.wait(lambda text: "⏱ 00:0" in text and "1/3" in text, "the first question")
    shown = re.search(r"⏱ (\d\d:\d\d)", first)
    assert shown is not None
    tmux.send("1")
    later = tmux.wait(
        lambda text: (m := re.search(r"⏱ (\d\d:\d\d)", text)) is not None and m.group(1) < shown.group(1),
        "the countdown to move",
    )
    assert "2/3" in later and "정답" not in later  # moved on, and nothing said about question 1
    result = tmux.wait(lambda text: "시간 종료로 자동 제출" in text, "the automatic submit", timeout=30)
    assert "모의고사 결과" in result and "틀린 문항 다시 보기" in result
    assert all(len(line) <= size[0] for line in result.splitlines())
    tmux.send("Enter")
    tmux.wait(lambda text: "바로 가기" in text, "home")
    tmux.send("q")
    deadline = time.monotonic() + 20
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not tmux.alive(), "studyapp did not exit"
    store = ProgressStore.in_dir(home)
    try:
        (attempt,) = exams.attempts(store)
        assert attempt.finished and attempt.settings["auto_submitted"] is True and attempt.answered == 1
        assert store.review_count() == 0  # the exam did not touch FSRS
    finally:
        store.close()
