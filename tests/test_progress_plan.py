"""`studyapp progress`'s plan around the exam date (issue 32, m6 and m7): a pace nobody can keep
becomes a triage (weakest topics first), no negative days after the date, and one "first"
recommendation that is the plan's own first steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import InProcessCli


def progress(studyapp_cli: InProcessCli, env: dict[str, str], *args: str) -> str:
    result = studyapp_cli("progress", *args, env={**env, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def home(tmp_path: Path, studyapp_cli: InProcessCli) -> dict[str, str]:
    env = {"STUDYAPP_HOME": str(tmp_path / "h"), "STUDYAPP_NOW": "2026-12-05T09:00"}
    progress(studyapp_cli, env, "--exam-date", "2026-12-26")
    return env


def plan_at(studyapp_cli: InProcessCli, env: dict[str, str], day: str) -> dict:
    return json.loads(progress(studyapp_cli, {**env, "STUDYAPP_NOW": f"{day}T09:00"}, "--json"))


def test_three_weeks_out_the_pace_sees_every_item(studyapp_cli: InProcessCli, home: dict[str, str]) -> None:
    data = plan_at(studyapp_cli, home, "2026-12-05")
    new = next(e for e in data["today_plan"] if e["kind"] == "new")
    assert new["days_left"] == 21 and "triage" not in new
    assert new["per_day"] * 21 >= new["unseen"]


@pytest.mark.parametrize(("day", "days_left"), [("2026-12-24", 2), ("2026-12-26", 0)])
def test_two_days_out_the_plan_triages_weakest_topics_first(
    studyapp_cli: InProcessCli, home: dict[str, str], day: str, days_left: int
) -> None:
    data = plan_at(studyapp_cli, home, day)
    new = next(e for e in data["today_plan"] if e["kind"] == "new")
    assert new["days_left"] == days_left
    from studyapp.report.plan import MAX_NEW_PER_DAY

    assert new["per_day"] <= MAX_NEW_PER_DAY < new["needed"]
    assert new["triage"] and f"--topic {new['triage'][0]}" in new["command"]
    text = progress(studyapp_cli, {**home, "STUDYAPP_NOW": f"{day}T09:00"}, "--lang", "ko")
    assert "약한 주제부터" in text and new["triage_titles"][0] in text
    assert f"하루 {new['needed']}개씩이면" not in text  # m6: not "327 a day" as if it were a plan


def test_after_the_exam_date_no_negative_days(studyapp_cli: InProcessCli, home: dict[str, str]) -> None:
    data = plan_at(studyapp_cli, home, "2026-12-27")
    new = next(e for e in data["today_plan"] if e["kind"] == "new")
    assert new["days_left"] is None and new["exam_passed"] == "2026-12-26"
    text = progress(studyapp_cli, {**home, "STUDYAPP_NOW": "2026-12-27T09:00"}, "--lang", "ko")
    assert "-1일" not in text and "2026-12-26이 지났습니다" in text
    assert "quiz --exam-date" not in text  # the date is set in F8 or with progress --exam-date


def test_one_first_recommendation(studyapp_cli: InProcessCli, home: dict[str, str]) -> None:
    """m7: `오늘의 계획` and `먼저 할 일` named different first steps."""
    env = {**home, "STUDYAPP_NOW": "2026-12-05T09:00"}
    answers = "o\nx\no\nx\no\nq\n"
    quiz = studyapp_cli("quiz", "--plain", "--kind", "ox", "--count", "5", input_text=answers, env=env)
    assert quiz.returncode == 0, quiz.stderr
    data = plan_at(studyapp_cli, home, "2026-12-05")
    first_two = data["today_plan"][:2]
    text = progress(studyapp_cli, env, "--lang", "ko")
    first = next(line for line in text.splitlines() if line.startswith("먼저 할 일:"))
    words = {
        "reviews": "복습",
        "new": "새 문항",
        "exercise": "과제",
        "explain": "설명하기",
        "mock_exam": "모의고사",
    }
    steps = first.removeprefix("먼저 할 일: ").split(" → ")
    assert [step.split(" ")[0] for step in steps] == [words[e["kind"]].split(" ")[0] for e in first_two]
    assert "체크리스트" not in first  # not a second, different recommendation


@pytest.mark.parametrize("columns", ["80", "200"])
def test_progress_never_breaks_a_command_across_lines(
    studyapp_cli: InProcessCli, home: dict[str, str], columns: str
) -> None:
    """c18: at 80 columns `— studyapp quiz` / `--mode new --count 32` and `studyapp exercise
    start` were split across lines."""
    result = studyapp_cli("progress", "--lang", "ko", env={**home, "COLUMNS": columns})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(columns)
    for line in lines:
        assert not line.lstrip().startswith("--"), line
        assert not line.rstrip().endswith(("studyapp quiz", "studyapp exercise start", "studyapp")), line
    data = plan_at(studyapp_cli, home, "2026-12-05")
    for entry in data["today_plan"]:
        assert any(entry["command"] in line for line in lines), entry  # each whole, on one line


def test_topics_counts_what_home_counts(studyapp_cli: InProcessCli) -> None:
    """c11: Home said `성능 분석 0/112` (every question), `studyapp topics` said 83 (O/X only)."""
    from studyapp.cli.common import load_content
    from studyapp.quiz.questions import all_questions

    result = studyapp_cli("topics", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    content = load_content(None)
    questions = all_questions(content).values()
    for row in rows:
        home = sum(1 for q in questions if q.topic == row["id"])  # Home's `본/전체` total
        assert row["questions"] == home == row["items"] + row["glossary"] + row["drills"]
    text = studyapp_cli("topics", "--lang", "ko", env={"COLUMNS": "80"}).stdout
    assert "전체" in text and "용어" in text


@pytest.mark.parametrize("command", [("exercise", "list"), ("lab", "list"), ("topics",)])
def test_ids_a_learner_types_are_never_cut_at_80_columns(
    studyapp_cli: InProcessCli, command: tuple[str, ...]
) -> None:
    """c13: `comm-share-from-tra…`, `distribu…` in the 80-column tables."""
    result = studyapp_cli(*command, "--json")
    ids = [row["id"] for row in json.loads(result.stdout)]
    text = studyapp_cli(*command, env={"COLUMNS": "80"}).stdout
    first_cells = [line.split()[0] for line in text.splitlines()[1:] if line.strip()]
    for typed in ids:
        assert typed in first_cells, typed


def test_exercise_hints_print_bold_not_asterisks(studyapp_cli: InProcessCli, tmp_path: Path) -> None:
    """c14: `exercise hint amdahl` printed `**n개일 때의 시간을 1로**` as raw markdown."""
    from studyapp.cli.exercise import bold_spans

    shown = bold_spans("Gustafson은 거꾸로 **n개일 때의 시간을 1로** 둡니다")
    assert shown.plain == "Gustafson은 거꾸로 n개일 때의 시간을 1로 둡니다"
    assert any(span.style == "bold" for span in shown.spans)
    env = {"STUDYAPP_HOME": str(tmp_path / "h")}
    for _ in range(4):  # every hint of the exercise, one at a time
        result = studyapp_cli("exercise", "hint", "amdahl", env=env)
        assert result.returncode == 0, result.stderr
        assert "**" not in result.stdout
