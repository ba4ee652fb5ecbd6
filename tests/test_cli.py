"""The command line: output and exit codes, in-process through `studyapp.cli.main` (the
`studyapp_cli` fixture), with smoke tests through a real `python -m studyapp` process."""

from __future__ import annotations

import json
from pathlib import Path

from studyapp import locations
from studyapp.quiz.trace_reading import trace_questions
from tests.conftest import InProcessCli, run_cli
from tests.helpers_content import write_content

# -- smoke: a real process, as a learner starts it ----------------------------------------------


def test_version_and_help() -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("studyapp ")


def test_broken_content_is_one_line_and_exit_2_from_a_real_process(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    (root / "topics" / "demo.yaml").write_text("id: [broken", encoding="utf-8")
    result = run_cli("--content", str(root), "topics")
    assert result.returncode == 2, result.stderr
    assert "topics/demo.yaml:1: YAML syntax error" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


# -- in-process ---------------------------------------------------------------------------------


def test_check_passes_on_shipped_content(studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("check")
    assert result.returncode == 0, result.stderr
    assert "content ok" in result.stdout
    # the trace-reading questions it made from the shipped traces are counted
    assert str(len(trace_questions(locations.content_dir()))) in result.stdout.splitlines()[-1]


def test_topics_json_lists_counts(studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("topics", "--json")
    assert result.returncode == 0
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows["torch-profiler"]["parent"] == "pytorch-profiling"
    assert all(row["items"] >= 20 for row in rows.values())


def test_cards_render_and_json(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    text = studyapp_cli("cards", "error-decomposition", env={"COLUMNS": "100"})
    assert text.returncode == 0
    assert "에러 분해" in text.stdout and "정의" in text.stdout
    as_json = studyapp_cli("cards", "--json")
    cards = json.loads(as_json.stdout)
    assert {c["id"] for c in cards} >= {"performance-analysis", "bottleneck-analysis"}


def test_cards_from_another_directory(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("cards", "python-testing", cwd=tmp_path)
    assert result.returncode == 0 and "Python 테스트 도구" in result.stdout


def test_unknown_topic_and_bad_usage_exit_2(studyapp_cli: InProcessCli) -> None:
    unknown = studyapp_cli("cards", "nope")
    assert unknown.returncode == 2 and "unknown topic 'nope'" in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    bad = studyapp_cli("quiz", "--mode", "sometimes")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    extra = studyapp_cli("topics", "--frobnicate")
    assert extra.returncode == 2 and "unrecognized arguments" in extra.stderr


def test_broken_content_fails_every_command_the_same_way(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    root = write_content(tmp_path / "content")
    (root / "topics" / "demo.yaml").write_text("id: [broken", encoding="utf-8")
    for command in (["topics"], ["cards"], ["quiz", "--plain"], ["progress"]):
        result = studyapp_cli("--content", str(root), *command)
        assert result.returncode == 2, (command, result.stderr)
        assert "topics/demo.yaml:1: YAML syntax error" in result.stderr
        assert "Traceback" not in result.stderr


def test_plain_quiz_records_answers(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    root = write_content(tmp_path / "content")
    result = studyapp_cli(
        "--content",
        str(root),
        "quiz",
        "--plain",
        "--kind",
        "ox",
        "--count",
        "3",
        input_text="o\nx?\nmaybe\no\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("(1/3)") == 1 and "(3/3)" in result.stdout
    progress = studyapp_cli("--content", str(root), "progress", "--json")
    data = json.loads(progress.stdout)
    assert data["reviews_total"] == 3
    assert data["topics"]["demo"]["seen"] == 3
    assert {"reviews_total", "topics", "due_today", "checklist", "readiness", "labs"} <= set(data)


def test_corrupt_progress_file_is_announced_once(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    isolated_home.mkdir(parents=True)
    (isolated_home / "progress.db").write_bytes(b"garbage" * 50)
    result = studyapp_cli("progress", "--json")
    assert result.returncode == 0
    assert result.stderr.count("moved to") == 1
    assert any(p.name.startswith("progress.db.bad-") for p in isolated_home.iterdir())


def test_export_and_import_data(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    root = write_content(tmp_path / "content")
    studyapp_cli("--content", str(root), "quiz", "--plain", "--count", "2", input_text="o\no\n")
    export = tmp_path / "out.json"
    assert studyapp_cli("--content", str(root), "progress", "--export-data", str(export)).returncode == 0
    other = tmp_path / "other-home"
    result = studyapp_cli(
        "--content", str(root), "--data-dir", str(other), "progress", "--import-data", str(export)
    )
    assert result.returncode == 0 and "2" in result.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    refused = studyapp_cli(
        "--content", str(root), "--data-dir", str(other), "progress", "--import-data", str(bad)
    )
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1


def test_progress_checklist_self_check_and_markdown(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    root = write_content(tmp_path / "content")
    assert studyapp_cli("--content", str(root), "progress", "--self-check", "nope").returncode == 2
    assert studyapp_cli("--content", str(root), "progress", "--self-check", "demo-check").returncode == 0
    data = json.loads(studyapp_cli("--content", str(root), "progress", "--json").stdout)
    (entry,) = data["checklist"]
    assert entry["id"] == "demo-check" and entry["evidence"]["self_check"]["checked_at"]
    assert 0 < entry["readiness"] <= 1 and entry["next_step"]
    assert data["readiness"] == entry["readiness"]
    report = tmp_path / "ready.md"
    assert studyapp_cli("--content", str(root), "progress", "--export", str(report)).returncode == 0
    text = report.read_text(encoding="utf-8")
    assert "데모를 설명할 수 있는가" in text and text.startswith("# ")


def test_exam_date_in_the_past_or_years_away_is_refused(
    tmp_path: Path, isolated_home: Path, studyapp_cli: InProcessCli
) -> None:
    from datetime import date, timedelta

    from studyapp.progress.store import ProgressStore

    root = write_content(tmp_path / "content")
    today = date.today()
    for bad in (today - timedelta(days=1), today.replace(year=today.year + 5)):
        result = studyapp_cli(
            "--content", str(root), "quiz", "--plain", "--exam-date", bad.isoformat(), input_text="q\n"
        )
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert bad.isoformat() in result.stderr
    exam = today + timedelta(days=30)
    result = studyapp_cli(
        "--content", str(root), "quiz", "--plain", "--exam-date", exam.isoformat(), input_text="q\n"
    )
    assert result.returncode == 0, result.stderr
    assert ProgressStore.in_dir(isolated_home).exam_date() == exam
