"""Helpers for the TUI tests: read the screen as text, check widths, a fake lab's source."""

from __future__ import annotations

from datetime import timedelta, timezone

from rich.cells import cell_len
from textual.widgets import Static

from studyapp.tui.app import StudyApp

KST = timezone(timedelta(hours=9))
SIZE = (80, 24)


def screen_lines(app: StudyApp) -> list[str]:
    """What the active screen shows, one string per terminal row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def screen_text(app: StudyApp) -> str:
    return "\n".join(line.rstrip() for line in screen_lines(app))


def flat(text: str) -> str:
    """Screen text with wrapping and borders taken out, to look for a sentence that wrapped."""
    return "".join(ch for ch in text if ch not in " \n│╭╮╰╯─▕▏")


def assert_fits(app: StudyApp, width: int = SIZE[0]) -> None:
    """No row is wider than the terminal, and no wide character was cut in half."""
    for line in screen_lines(app):
        assert cell_len(line) <= width, line
        assert "\ufffd" not in line


def assert_home_fits(app: StudyApp, size: tuple[int, int] = SIZE) -> None:
    """Every row of Home's key list (the session size among them) is on screen, above the key bar."""
    shortcuts = app.screen.query_one("#home-shortcuts", Static)
    assert shortcuts.region.bottom <= size[1] - 1, shortcuts.region  # the key bar is the last row
    shown = screen_text(app)
    for row in str(shortcuts.content).splitlines():
        assert row.strip() in shown, row
    assert_fits(app, size[0])


# -- a fake lab for the labs screen ----------------------------------------------------------------

FAKE_LAB_MAIN = """
import json, os, sys, time

def emit(message):
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\\n")
    sys.stdout.flush()

steps = int(os.environ.get("FAKE_LAB_STEPS", "3"))
pause = float(os.environ.get("FAKE_LAB_PAUSE", "0.01"))
for step in range(steps):
    emit({"type": "progress", "phase": "측정", "fraction": step / steps, "message": f"단계 {step + 1}/{steps}"})
    time.sleep(pause)
emit({"type": "result", "result": {
    "summary": "가짜 실습 완료 [b]굵게 아님[/b]",
    "tables": [{"title": "측정 결과", "columns": ["작업자", "시간(ms)"], "rows": [[1, 10.5], [2, 5.25]]}],
    "findings": ["작업자를 두 배로 늘리면 시간이 절반이 된다."],
    "plots": [{"title": "speedup", "x": [1, 2], "series": {"measured": [1.0, 2.0]}}],
    "artifacts": {},
}})
"""

FAKE_LAB_YAML = """\
title: 가짜 실습
title_en: Fake lab
topics: [bottleneck-analysis]
checklist: [amdahl]
timeout_s: 60
quick_timeout_s: 60
summary: 테스트용 실습이다.
check_question:
  statement: 작업자를 두 배로 늘리면 이 가짜 작업의 시간은 절반이 된다.
  answer: O
  explanation: 가짜 작업은 완전히 병렬이다.
"""
