"""The command-line side of the new-user review (issue 23): `progress` follows --lang and opens
with a plan (N11, N14), words instead of raw states (N12), one program name in errors (N12),
`--plain` times (N18), hints that wrap at 80 columns (N33), tables at 80 columns (N27) and
`explain --list` (N20)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

from studyapp.cli.exercise import unwrap_paragraphs
from studyapp.cli.lab import last_result
from tests.conftest import InProcessCli, run_cli


def test_progress_follows_lang_and_opens_with_a_plan(isolated_home: Path) -> None:
    exam = (date.today() + timedelta(days=60)).isoformat()
    assert run_cli("quiz", "--exam-date", exam, "--plain", input_text="").returncode == 0
    english = run_cli("progress", "--lang", "en", env={"COLUMNS": "200"})
    assert english.returncode == 0, english.stderr
    out = english.stdout
    assert "review: studyapp quiz --checklist" in out and "복습:" not in out  # N11
    assert f"Exam on {exam} (D-" in out and "new a day sees them all" in out  # N14
    assert "First: " in out  # the plan's own first steps (issue 32 m7: tests/test_progress_plan.py)
    assert ":not-started" not in out and "not started" in out  # words, not raw states (N12)
    korean = run_cli("progress", "--lang", "ko", env={"COLUMNS": "200"}).stdout
    assert "복습: studyapp quiz --checklist" in korean and "먼저 할 일:" in korean
    data = json.loads(run_cli("progress", "--json").stdout)
    first = data["checklist"][0]
    assert first["action"]["kind"] == "quiz" and first["next_step"].startswith("복습:")  # JSON as before


def test_one_program_name_in_errors() -> None:
    result = run_cli("quiz", "--exam-date", "nope")
    assert result.returncode == 2
    assert (
        result.stderr.startswith("studyapp: quiz: argument --exam-date")
        and "studyapp: studyapp" not in result.stderr
    )
    bogus = run_cli("--bogus")
    assert bogus.returncode == 2 and bogus.stderr.strip() == "studyapp: unrecognized arguments: --bogus"


def test_plain_summary_says_seconds_not_zero_minutes() -> None:
    result = run_cli(
        "quiz", "--plain", "--kind", "ox", "--count", "1", "--seed", "1", "--lang", "en", input_text="o\n"
    )
    assert result.returncode == 0, result.stderr
    assert "right, " in result.stdout and " min" not in result.stdout.split("Summary:")[1].splitlines()[0]


def test_hint_paragraphs_are_joined_for_the_terminal_to_wrap() -> None:
    text = "첫 문단의 첫 줄이고\n이어지는 줄이다.\n\n- 목록 하나\n  이어짐\n- 목록 둘\n\n```python\nx = 1\ny = 2\n```\n| a | b |\n| - | - |"
    assert unwrap_paragraphs(text) == (
        "첫 문단의 첫 줄이고 이어지는 줄이다.\n\n- 목록 하나 이어짐\n- 목록 둘\n\n```python\nx = 1\ny = 2\n```\n| a | b |\n| - | - |"
    )


def test_lab_list_says_a_result_once() -> None:
    assert last_result("amdahl", "cancelled", "amdahl: cancelled (app closed)") == "cancelled (app closed)"
    assert last_result("amdahl", "ok", "amdahl: S(8) = 5.2") == "ok: S(8) = 5.2"
    assert last_result("amdahl", "failed", None) == "failed"


def test_exercise_and_lab_lists_keep_one_line_per_row_at_80_columns() -> None:
    for command in (("exercise", "list"), ("lab", "list")):
        result = run_cli(*command, "--lang", "ko", env={"COLUMNS": "80"})
        assert result.returncode == 0, result.stderr
        rows = [line for line in result.stdout.splitlines()[1:] if line.strip()]
        ids = [line.split()[0] for line in rows if line[:1] == " " and line[1:2] != " "]
        assert len(rows) == len(ids)  # no wrapped continuation lines


def test_explain_list_says_not_answered_yet() -> None:
    out = run_cli("explain", "--list", "--lang", "ko").stdout
    assert "아직 답하지 않음" in out and "최근 아직 없음" not in out


# N12: command-line option errors in the learner's language, one line, exit 2 as before.
OPTION_ERRORS = [
    (
        ("quiz", "--count", "0"),
        "studyapp: --count는 1 이상이어야 합니다",
        "studyapp: --count must be at least 1",
    ),
    (
        ("quiz", "--exam-date", "x"),
        "studyapp: quiz: --exam-date: 날짜(YYYY-MM-DD)가 아닙니다: 'x'",
        "studyapp: quiz: argument --exam-date: not a date (YYYY-MM-DD): 'x'",
    ),
    (
        ("quiz", "--mode", "exam", "--pass-mark", "0"),
        "studyapp: quiz: --pass-mark: 합격선은 1–100 (%)입니다: '0'",
        "studyapp: quiz: argument --pass-mark: a pass mark is from 1 to 100 (percent), not '0'",
    ),
    (
        ("progress", "--pass-mark", "200"),
        "studyapp: progress: --pass-mark: 0 %보다 크고 100 % 이하여야 합니다: '200'",
        "studyapp: progress: argument --pass-mark: must be more than 0 % and at most 100 %: '200'",
    ),
    (
        ("quiz", "--mode", "exam", "--time-limit", "0"),
        "studyapp: --time-limit은 1초–6시간이어야 합니다",
        "studyapp: --time-limit must be between 1 s and 6 h",
    ),
    (
        ("quiz", "--count", "x"),
        "studyapp: quiz: --count: 정수 값이 아닙니다: 'x'",
        "studyapp: quiz: argument --count: invalid int value: 'x'",
    ),
    (("--bogus",), "studyapp: 알 수 없는 인자: --bogus", "studyapp: unrecognized arguments: --bogus"),
]


def test_option_errors_follow_the_language(studyapp_cli: InProcessCli) -> None:
    for args, korean, english in OPTION_ERRORS:
        for argv, env in (
            (("--lang", "ko", *args), None),
            ((*args, "--lang=ko"), None),
            (args, {"STUDYAPP_LANG": "ko"}),
        ):
            done = studyapp_cli(*argv, env=env)
            assert (done.returncode, done.stderr.strip()) == (2, korean), argv
        for argv, env in ((args, None), (("--lang", "en", *args), {"STUDYAPP_LANG": "ko"})):
            done = studyapp_cli(*argv, env=env)
            assert (done.returncode, done.stderr.strip()) == (2, english), argv
