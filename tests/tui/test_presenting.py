"""The width-aware formatting behind the TUI: Hangul is two cells and is never cut in half."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from rich.cells import cell_len

from studyapp.i18n import Translator
from studyapp.quiz.presenting import answer_text, bar, column_chart, due_phrase, elapsed_text, fit, pad
from studyapp.quiz.questions import Question

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
KST = timezone(timedelta(hours=9))


@pytest.fixture
def t() -> Translator:
    return Translator("ko")


@pytest.mark.parametrize("width", range(0, 14))
def test_fit_never_cuts_a_wide_character(width: int) -> None:
    text = "PyTorch 프로파일링 결과"
    fitted = fit(text, width)
    assert cell_len(fitted) <= width
    assert text.startswith(fitted.rstrip("…"))
    if cell_len(text) > width > 0:
        assert fitted.endswith("…")


def test_pad_is_exact() -> None:
    for width in (3, 8, 20):
        assert cell_len(pad("성능 분석", width)) == width


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.33, 0.5, 0.99, 1.0, 1.5, -1])
def test_bar_is_always_its_width(fraction: float) -> None:
    assert cell_len(bar(fraction, 10)) == 10


def test_bar_ends() -> None:
    assert bar(0, 4) == "░░░░" and bar(1, 4) == "████"


def test_due_phrase(t: Translator) -> None:
    assert due_phrase(NOW - timedelta(minutes=1), NOW, t) == "지금"
    assert due_phrase(NOW + timedelta(minutes=10), NOW, t) == "10분 후"
    assert due_phrase(NOW + timedelta(hours=5), NOW, t) == "5시간 후"
    assert due_phrase(NOW + timedelta(days=3), NOW, t, KST) == "3일 후 (03-05)"
    assert due_phrase(None, NOW, t) == "없음"


def test_elapsed_text(t: Translator) -> None:
    assert elapsed_text(42.4, t) == "42초"
    assert elapsed_text(125, t) == "2분 5초"


def test_answer_text_for_drills() -> None:
    # Shown to the decimals the drill asked for: its tolerance is one unit of the last decimal.
    drill = Question(
        id="d",
        kind="drill",
        topic="t",
        prompt="?",
        answer="5.925925",
        explanation="",
        unit="배",
        tolerance=0.01,
    )
    assert answer_text(drill) == "5.93배"
    assert answer_text(Question(**{**drill.__dict__, "tolerance": 0.001})) == "5.926배"


def test_column_chart_shape() -> None:
    rows = column_chart([0, 1, 4, 8], 2)
    assert len(rows) == 2 and all(len(r) == 4 for r in rows)
    assert rows[-1][0] == " " and rows[-1][1] != " "  # a small non-zero value stays visible
    assert rows[0][3] == "█"
