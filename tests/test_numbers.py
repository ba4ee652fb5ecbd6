"""Drill answers as people type them (studyapp/quiz/numbers.py), graded through `Question.grade`."""

from __future__ import annotations

import pytest

from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.numbers import EXAMPLES, parse_number
from studyapp.quiz.questions import KIND_DRILL, all_questions


@pytest.mark.parametrize(
    ("typed", "unit", "value"),
    [
        ("0.111", "", 0.111),
        ("1/9", "", 1 / 9),
        ("1 / 0.15625", "배", 6.4),
        ("1/(0.1+0.9/16)", "배", 1 / (0.1 + 0.9 / 16)),
        ("12.5%", "", 0.125),
        ("6.5 %", "", 0.065),
        ("1,000", "", 1000.0),
        ("12,345.5", "", 12345.5),
        ("0,25", "", 0.25),
        ("50,0 items/s", "items/s", 50.0),
        ("6.40배", "배", 6.4),
        ("약 5.93", "배", 5.93),
        ("1e-1", "", 0.1),
        ("２５％", "", 0.25),
        ("−0.5", "", -0.5),
        ("2×3", "", 6.0),
        ("2x3", "", 6.0),
        ("5.9x", "배", 5.9),
    ],
)
def test_reads_what_people_type(typed: str, unit: str, value: float) -> None:
    assert parse_number(typed, unit) == pytest.approx(value)


@pytest.mark.parametrize(
    "typed", ["", "abc", "모름", "1/0", "(1+2", "1,2,3", "2 3", "__import__('os')", "1" * 80, "1e999"]
)
def test_rejects_what_is_not_a_number(typed: str) -> None:
    assert parse_number(typed) is None


def test_every_example_in_the_error_message_is_accepted() -> None:
    for example in EXAMPLES:
        assert parse_number(example) is not None, example


def test_a_drill_is_graded_from_a_fraction() -> None:
    content = load_content(locations.content_dir())
    drills = [q for q in all_questions(content).values() if q.kind == KIND_DRILL]
    karp = next(q for q in drills if q.id == "drill-karp-flatt-300-4")  # e = (1/3 - 1/4) / (3/4) = 1/9
    drill = kind_of(karp)
    assert drill.grade(karp, "1/9") is True
    assert drill.grade(karp, "(1/3-1/4)/(3/4)") is True
    assert drill.grade(karp, "1/4") is False
    assert drill.grade(karp, "ab") is None
