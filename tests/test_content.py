"""The content model, the loader and `studyapp check` on valid and broken content."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from pathlib import Path

import pytest
from textual.widgets import DataTable

from studyapp import locations
from studyapp.content.loader import check_content, load_content
from tests.conftest import REPO, InProcessCli
from tests.helpers_content import CHECKLIST, TOPIC, items_text, line_of, write_content

SEEDS = REPO.parent / "shared" / "seeds"


@pytest.fixture(scope="module")
def shipped():
    return load_content(locations.content_dir())


def problems_of(root: Path) -> list[str]:
    _, problems = check_content(root)
    return [p.format(root) for p in problems if not p.warning]


# --- the shipped content ---------------------------------------------------------------------


def test_shipped_content_is_valid(shipped) -> None:
    topic_files = {path.stem for path in (locations.content_dir() / "topics").glob("*.yaml")}
    assert set(shipped.topics) == topic_files and len(topic_files) >= 6  # every file is a topic
    assert shipped.topics["torch-profiler"].parent == "pytorch-profiling"
    assert [e.number for e in shipped.checklist] == list(range(1, 12))


def test_item_bank_counts_and_balance(shipped) -> None:
    assert len(shipped.items) >= 180
    for topic_id in shipped.topics:
        items = shipped.items_for_topic(topic_id)
        assert len(items) >= 20, topic_id
        share = sum(i.answer == "O" for i in items) / len(items)
        assert 0.40 <= share <= 0.60, (topic_id, share)
    for item in shipped.items.values():
        assert item.explanation.strip()
        assert (item.misconception is not None) == (item.answer == "X"), item.id


def test_every_checklist_item_has_evidence(shipped) -> None:
    for entry in shipped.checklist:
        assert len(shipped.items_for_checklist(entry.id)) >= 3, entry.id
        assert entry.labs, entry.id


def _normalize_seed_line(line: str) -> str | None:
    text = line.strip()
    if not text or set(text) <= {"="}:
        return None
    text = re.sub(r"^(ㅁ|ㅇ)\s*", "", text)
    text = re.sub(r"^–\s*", "", text)
    text = re.sub(r"^(\d+(\.\d+)*)\.?\s+", "", text)
    text = re.sub(r"^[OX]:\s*", "", text)
    text = text.strip("“”")
    text = text.rstrip(":").strip()
    return text or None


def _corpus(content) -> str:
    parts = [content.checklist_title]
    for topic in content.topics.values():
        parts.append(topic.title)
        for section in topic.sections:
            parts += [section.title, section.group or "", section.intro or ""]
            parts += [b.text for b in section.bullets + section.alt_bullets]
            parts += [e.text for e in section.examples + section.alt_examples]
    parts += [entry.text for entry in content.checklist]
    return "\n".join(parts)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="seed notes not beside the checkout")
def test_every_seed_line_is_in_the_cards(shipped) -> None:
    corpus = _corpus(shipped)
    missing = []
    for seed in sorted(SEEDS.glob("*.txt")):
        for line in seed.read_text(encoding="utf-8").splitlines():
            text = _normalize_seed_line(line)
            if text and text not in corpus:
                missing.append(f"{seed.name}: {text}")
    assert not missing, "\n".join(missing)


def test_pattern_examples_are_verbatim_items(shipped) -> None:
    statements = {(i.statement, i.answer) for i in shipped.items.values() if i.pattern}
    for topic in shipped.topics.values():
        patterns = topic.section("patterns")
        assert patterns is not None
        for example in patterns.examples + patterns.alt_examples:
            assert (example.text, example.answer) in statements


def test_item_ids_are_unique_and_prefixed(shipped) -> None:
    """Every shipped topic declares its `id_prefix` (the loader holds its items to it), and no two
    topics share one."""
    prefixes = {topic.id: topic.id_prefix for topic in shipped.topics.values()}
    assert None not in prefixes.values(), prefixes
    assert len(set(prefixes.values())) == len(prefixes)
    for item in shipped.items.values():
        assert item.id.startswith(prefixes[item.topic]), item.id  # type: ignore[arg-type]
    assert len({i.statement for i in shipped.items.values()}) == len(shipped.items)


def test_the_shipped_bank_fits_home_at_80x24(shipped, clock) -> None:
    """The TUI tests run on tests/fixtures/content; this one runs Home on the bank learners get."""
    from studyapp.progress.store import ProgressStore
    from studyapp.tui.app import make_app
    from tests.tui.helpers import KST, SIZE, assert_home_fits

    store = ProgressStore.in_dir(locations.data_dir(), clock=clock)
    app = make_app(content=shipped, store=store, lang="ko", start="home", tz=KST)

    async def scenario() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert_home_fits(app)
            assert app.screen.query_one("#home-topics", DataTable).row_count == len(shipped.topics)

    try:
        asyncio.run(scenario())
    finally:
        store.close()


# --- check on broken content --------------------------------------------------------------------


def test_small_valid_content_passes(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    assert problems_of(root) == []


def test_an_item_outside_its_topics_id_prefix_is_reported_at_its_line(tmp_path: Path) -> None:
    text = items_text().replace("  - id: demo-002\n", "  - id: other-002\n")
    root = write_content(tmp_path / "content", text)
    (root / "topics" / "demo.yaml").write_text(TOPIC.replace("order: 1\n", "order: 1\nid_prefix: demo-\n"))
    assert problems_of(root) == [
        f"items/demo.yaml:{line_of(text, 'id: other-002')}: item 'other-002': ids in topic 'demo' start "
        "with 'demo-' (its id_prefix)"
    ]
    (root / "topics" / "demo.yaml").write_text(TOPIC.replace("order: 1\n", "order: 1\nid_prefix: Demo\n"))
    assert problems_of(root) == [
        "topics/demo.yaml:4: topic 'demo': id_prefix must be a slug and a dash like 'pa-', got 'Demo'"
    ]


def test_yaml_syntax_error_reports_file_and_line(tmp_path: Path) -> None:
    text = items_text().replace("    answer: O\n", "    answer: [O\n", 1)
    root = write_content(tmp_path / "content", text)
    found = problems_of(root)
    # The parser notices at the next line and names where the list was opened.
    opened = line_of(text, "answer: [O")
    assert found == [
        f"items/demo.yaml:{opened + 1}: YAML syntax error: did not find expected ',' or ']'"
        f" (while parsing a flow sequence at line {opened})"
    ], found


def test_wrong_type_and_missing_field(tmp_path: Path) -> None:
    text = items_text()
    text = text.replace("    answer: O\n", "    answer: 1\n", 1)
    text = text.replace("    explanation: 설명이다.\n", "", 1)
    root = write_content(tmp_path / "content", text)
    found = problems_of(root)
    answer_line = line_of(text, "answer: 1")
    assert f"items/demo.yaml:{answer_line}: item 'demo-001': answer must be O or X, got 1" in found
    assert any(
        p.startswith("items/demo.yaml:5: item: missing required field 'explanation'") for p in found
    ), found


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    extra = "topic: demo\nitems:\n  - id: demo-003\n    statement: 다른 문장이다.\n    answer: O\n    explanation: 설명.\n    section: definition\n"
    (root / "items" / "zz-extra.yaml").write_text(extra, encoding="utf-8")
    found = problems_of(root)
    assert any(
        p.startswith("items/zz-extra.yaml:3: duplicate item id 'demo-003' (first defined at") for p in found
    ), found


def test_dangling_references(tmp_path: Path) -> None:
    text = items_text()
    text = text.replace("    section: definition\n", "    section: nowhere\n", 1)
    text = text.replace("    misconception: demo-wrong\n", "    misconception: not-a-tag\n", 1)
    text = text.replace("    checklist: [demo-check]\n", "    checklist: [no-such-check]\n", 1)
    root = write_content(tmp_path / "content", text)
    (root / "checklist.yaml").write_text(CHECKLIST + "    items: [demo-999]\n", encoding="utf-8")
    found = problems_of(root)
    assert "items/demo.yaml:5: item 'demo-001': unknown section 'nowhere' in topic 'demo'" in found
    assert "items/demo.yaml:5: item 'demo-001': unknown checklist item 'no-such-check'" in found
    second = line_of(text, "id: demo-002")
    assert f"items/demo.yaml:{second}: item 'demo-002': unknown misconception 'not-a-tag'" in found
    assert "checklist.yaml:3: checklist item 'demo-check': unknown quiz item 'demo-999'" in found


def test_unbalanced_and_too_small_topics(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content", items_text(count=12))
    assert "topics/demo.yaml:1: topic 'demo' has 12 items; at least 20 needed" in problems_of(root)
    text = items_text()
    for number in range(7, 21):
        block_start = f"  - id: demo-{number:03d}\n"
        head, _, tail = text.partition(block_start)
        tail = tail.replace("    answer: X\n", "    answer: O\n", 1).replace(
            "    misconception: demo-wrong\n", "", 1
        )
        text = head + block_start + tail
    root2 = write_content(tmp_path / "content2", text)
    assert any("topic 'demo' is unbalanced: 85% O answers" in p for p in problems_of(root2))


def test_seed_line_without_item_and_missing_pattern(tmp_path: Path) -> None:
    text = items_text().replace("    sources: ['features#1']\n", "", 1)
    text = text.replace("    pattern: true\n", "", 1)
    root = write_content(tmp_path / "content", text)
    found = problems_of(root)
    assert (
        f"topics/demo.yaml:{line_of(TOPIC, '데모 특징')}: seed line features#1 of topic 'demo' is not the source of any item"
        in found
    )
    pattern_line = line_of(TOPIC, "데모 O 예시")
    assert (
        f"topics/demo.yaml:{pattern_line}: pattern example is not an item with pattern: true: 데모 O 예시이다."
        in found
    )


def test_cp949_file_is_explained(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    (root / "topics" / "demo.yaml").write_bytes(TOPIC.encode("cp949", errors="replace"))
    found = problems_of(root)
    assert any(p.startswith("topics/demo.yaml:2: not UTF-8") and "CP949" in p for p in found), found


def test_empty_file(tmp_path: Path) -> None:
    root = write_content(tmp_path / "content")
    (root / "checklist.yaml").write_text("", encoding="utf-8")
    assert "checklist.yaml:1: empty file" in problems_of(root)


def test_unknown_field_and_duplicate_key(tmp_path: Path) -> None:
    topic = TOPIC.replace("order: 1\n", "order: 1\norder: 2\nbulets: []\n")
    root = write_content(tmp_path / "content")
    (root / "topics" / "demo.yaml").write_text(topic, encoding="utf-8")
    found = problems_of(root)
    assert "topics/demo.yaml:4: duplicate key 'order' in topic file" in found
    assert "topics/demo.yaml:5: topic: unknown field 'bulets'" in found


def test_check_reports_all_problems_via_cli(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    text = items_text().replace("    answer: O\n", "    answer: maybe\n", 2)
    root = write_content(tmp_path / "content", text)
    (root / "checklist.yaml").write_text("", encoding="utf-8")
    result = studyapp_cli("check", "--content", str(root))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if re.match(r"^\S+\.yaml:\d+: ", line)]
    assert len(lines) >= 3
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "garbage",
    [
        b"\x00\x01\x02",
        b"- just\n- a list\n",
        b"key: [unclosed",
        b"!!python/object:os.system ls\n",
        b"\xff\xfe\x00",
    ],
)
def test_no_traceback_for_any_input(tmp_path: Path, garbage: bytes) -> None:
    root = write_content(tmp_path / "content")
    (root / "topics" / "demo.yaml").write_bytes(garbage)
    content, problems = check_content(root)
    assert content is None
    assert problems and all(p.path.name for p in problems)


def test_load_content_counts(tmp_path: Path) -> None:
    content = load_content(write_content(tmp_path / "content"))
    assert Counter(i.answer for i in content.items.values()) == Counter({"O": 10, "X": 10})
    assert [i.id for i in content.items_for_checklist("demo-check")][:2] == ["demo-001", "demo-002"]
