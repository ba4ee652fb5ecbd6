"""A small, valid content directory written line by line, so tests know every line number; and
the fixture bank the TUI tests run on."""

from __future__ import annotations

from pathlib import Path

# A frozen cut of the shipped bank (tests/fixtures/README.md): the TUI tests and snapshots run on
# it, so adding a topic or items to content/ re-rolls no snapshot and breaks no screen test.
FIXTURE_CONTENT = Path(__file__).resolve().parent / "fixtures" / "content"

TOPIC = """\
id: demo
title: 데모 주제
order: 1
labs: []
sections:
  - id: definition
    kind: definition
    title: 정의
    bullets:
      - 데모 정의 문장이다.
  - id: features
    kind: features
    title: 특징
    bullets:
      - 데모 특징 문장이다.
  - id: when-to-use
    kind: when_to_use
    title: 적합한 경우
    bullets:
      - 데모 적합 문장이다.
  - id: exam-traps
    kind: exam_traps
    title: 시험 함정
    bullets:
      - 데모 함정 문장이다.
  - id: patterns
    kind: patterns
    title: 시험 대비 “패턴 보기” 예시
    examples:
      - {answer: O, text: 데모 O 예시이다.}
      - {answer: X, text: 데모 X 예시이다.}
"""

CHECKLIST = """\
title: 시험 대비 체크리스트
items:
  - id: demo-check
    number: 1
    text: 데모를 설명할 수 있는가
    topics: [demo]
"""


def item_block(number: int, answer: str, source: str | None = None, pattern_text: str | None = None) -> str:
    lines = [
        f"  - id: demo-{number:03d}",
        f"    statement: {pattern_text or f'데모 문장 {number}번이다.'}",
        f"    answer: {answer}",
        "    explanation: 설명이다.",
        "    section: definition" if pattern_text is None else "    section: patterns",
    ]
    if source:
        lines.append(f"    sources: ['{source}']")
    if pattern_text:
        lines.append("    pattern: true")
    if answer == "X":
        lines.append("    misconception: demo-wrong")
    lines.append("    checklist: [demo-check]")
    return "\n".join(lines) + "\n"


def items_text(count: int = 20) -> str:
    """`count` items, half O; the first six cover every seed line of TOPIC."""
    text = "topic: demo\nmisconceptions:\n  demo-wrong: 데모 오개념\nitems:\n"
    specials = [
        ("O", "definition#1", None),
        ("X", "features#1", None),
        ("O", "when-to-use#1", None),
        ("X", "exam-traps#1", None),
        ("O", "patterns#1", "데모 O 예시이다."),
        ("X", "patterns#2", "데모 X 예시이다."),
    ]
    for number in range(1, count + 1):
        if number <= len(specials):
            answer, source, pattern = specials[number - 1]
            text += item_block(number, answer, source, pattern)
        else:
            text += item_block(number, "O" if number % 2 else "X")
    return text


def write_content(root: Path, items: str | None = None) -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "items").mkdir()
    (root / "topics" / "demo.yaml").write_text(TOPIC, encoding="utf-8")
    (root / "items" / "demo.yaml").write_text(items if items is not None else items_text(), encoding="utf-8")
    (root / "checklist.yaml").write_text(CHECKLIST, encoding="utf-8")
    return root


def line_of(text: str, needle: str) -> int:
    """1-based line number of the first line containing `needle`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


def write_topics(root: Path, count: int) -> Path:
    """Content with `count` valid topics (`demo`, `demo-2`, …), 20 items each, one checklist."""
    write_content(root)
    ids = ["demo"] + [f"demo-{number}" for number in range(2, count + 1)]
    for number, topic_id in enumerate(ids[1:], start=2):
        topic = TOPIC.replace("id: demo\n", f"id: {topic_id}\n").replace("데모 주제", f"데모 주제 {number}")
        topic = topic.replace("order: 1\n", f"order: {number}\n")
        items = items_text().replace("topic: demo\n", f"topic: {topic_id}\n")
        items = items.replace("  - id: demo-", f"  - id: {topic_id}-").replace(
            "demo-wrong", f"{topic_id}-wrong"
        )
        (root / "topics" / f"{topic_id}.yaml").write_text(topic, encoding="utf-8")
        (root / "items" / f"{topic_id}.yaml").write_text(items, encoding="utf-8")
    checklist = CHECKLIST.replace("topics: [demo]", f"topics: [{', '.join(ids)}]")
    (root / "checklist.yaml").write_text(checklist, encoding="utf-8")
    return root
