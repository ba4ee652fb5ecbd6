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


# A small glossary on the demo topic (content/glossary.yaml): seven terms, each asked with three
# distractors drawn from its `confused_with` and then the rest of the topic.
GLOSSARY = """\
terms:
  - id: test-stub
    term: 테스트 스텁
    term_en: test stub
    topic: demo
    definition: 하향식 통합 테스트에서 아직 작성되지 않은 하위 모듈을 대신해 미리 정한 값을 돌려주는 임시 모듈.
    confused_with: [test-driver, mock-object]
  - id: test-driver
    term: 테스트 드라이버
    term_en: test driver
    topic: demo
    definition: 상향식 통합 테스트에서 아직 없는 상위 모듈을 대신해 하위 모듈을 호출하고 결과를 넘겨받는 임시 프로그램.
    confused_with: [test-stub, test-harness]
  - id: test-harness
    term: 테스트 하네스
    term_en: test harness
    topic: demo
    definition: 테스트 대상을 실행하고 결과를 모으는 데 필요한 드라이버, 스텁, 실행 스크립트를 한데 묶은 환경.
    confused_with: [test-driver, test-oracle]
  - id: test-oracle
    term: 테스트 오라클
    term_en: test oracle
    topic: demo
    definition: 실행 결과가 맞는지 판정할 수 있도록 기대 결과를 제공하는 기준.
    confused_with: [test-harness]
  - id: mock-object
    term: 목 객체
    term_en: mock object
    topic: demo
    definition: 호출 여부와 인자 같은 상호작용을 기록해 기대한 대로 불렸는지 검증하게 해 주는 대역 객체.
    confused_with: [test-stub]
  - id: equivalence-partitioning
    term: 동치 분할
    term_en: equivalence partitioning
    topic: demo
    definition: 같은 결과를 낼 것으로 기대되는 입력끼리 묶고 묶음마다 대표값 하나를 골라 검사하는 블랙박스 기법.
    confused_with: [boundary-value-analysis]
  - id: boundary-value-analysis
    term: 경계값 분석
    term_en: boundary value analysis
    topic: demo
    definition: 오류가 몰리기 쉬운 입력 구간의 양 끝과 그 바로 안팎의 값을 골라 검사하는 블랙박스 기법.
    confused_with: [equivalence-partitioning]
"""


def write_glossary(root: Path, text: str = GLOSSARY) -> Path:
    """`root/glossary.yaml` (by default the demo glossary); returns `root`."""
    (root / "glossary.yaml").write_text(text, encoding="utf-8")
    return root


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
