"""Item fields for the exam: `exam_note` reaches the learner in line mode; `siblings` must resolve."""

from __future__ import annotations

from pathlib import Path

from studyapp.content.loader import check_content
from tests.conftest import InProcessCli
from tests.helpers_content import items_text, line_of, write_content

NOTE = "시드 기반 시험은 이 문장을 O로 채점한다."


def test_plain_quiz_shows_the_exam_note_with_the_explanation(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    text = items_text().replace(
        "    explanation: 설명이다.\n", f"    explanation: 설명이다.\n    exam_note: {NOTE}\n"
    )
    root = write_content(tmp_path / "content", text)
    result = studyapp_cli("--content", str(root), "quiz", "--plain", "--count", "1", input_text="o\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    explanation = next(i for i, line in enumerate(lines) if "설명이다." in line)
    assert any(NOTE in line for line in lines[explanation + 1 : explanation + 3]), result.stdout


def test_plain_quiz_without_an_exam_note_shows_none(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    root = write_content(tmp_path / "content")
    result = studyapp_cli("--content", str(root), "quiz", "--plain", "--count", "1", input_text="o\n")
    assert result.returncode == 0, result.stderr
    assert "시험 기준" not in result.stdout and "Exam key" not in result.stdout


def test_a_sibling_must_be_another_existing_item(tmp_path: Path) -> None:
    text = items_text()
    text = text.replace("  - id: demo-003\n", "  - id: demo-003\n    siblings: [demo-004, demo-999]\n", 1)
    text = text.replace("  - id: demo-005\n", "  - id: demo-005\n    siblings: [demo-005]\n", 1)
    root = write_content(tmp_path / "content", text)
    _, problems = check_content(root)
    found = [p.format(root) for p in problems]
    third, fifth = line_of(text, "id: demo-003"), line_of(text, "id: demo-005")
    assert f"items/demo.yaml:{third}: item 'demo-003': sibling 'demo-999' is not another item" in found
    assert f"items/demo.yaml:{fifth}: item 'demo-005': sibling 'demo-005' is not another item" in found
    assert not any("'demo-004' is not another item" in p for p in found)
