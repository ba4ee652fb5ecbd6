"""An item's key never flips under the same id (content review 2026-12, pa-022 and four more).

Progress is keyed by item id: FSRS stability, lapses and the notebook of the old fact would carry
over to a new fact with the opposite answer, and `engine.is_due` shows an edited item again only
once (its text hash changed). So a new fact gets a new id (docs/CONTENT.md, content/CHANGELOG.md).

tests/data/item_keys.json holds the key learners have answered under each id: the content's keys,
with the five retired ids kept at their old keys so that no one reuses them the other way round.
A new item needs no entry; add it to the file once it has shipped."""

from __future__ import annotations

import json
from pathlib import Path

from studyapp.content.loader import load_content
from studyapp.content.model import Content
from tests.conftest import REPO

SHIPPED_KEYS = Path(__file__).parent / "data" / "item_keys.json"
RETIRED = {"pa-022": "O", "pa-037": "X", "pp-013": "O", "pp-016": "O", "pp-024": "O"}


def flipped_keys(content: Content, shipped: dict[str, str]) -> list[str]:
    return [
        f"{item.location}: item '{item.id}' was keyed {shipped[item.id]}, now {item.answer}: give the new fact a new id"
        for item in content.items.values()
        if item.id in shipped and shipped[item.id] != item.answer
    ]


def test_no_shipped_item_changed_its_key() -> None:
    shipped = json.loads(SHIPPED_KEYS.read_text(encoding="utf-8"))
    content = load_content(REPO / "content")
    assert flipped_keys(content, shipped) == []
    assert {item_id: shipped[item_id] for item_id in RETIRED} == RETIRED
    assert not RETIRED.keys() & content.items.keys()  # retired, and their new facts under -v2 ids
    assert {f"{item_id}-v2" for item_id in RETIRED} <= content.items.keys()
    assert len(shipped.keys() & content.items.keys()) >= 400  # the file covers the bank


def test_a_planted_flip_is_caught() -> None:
    content = load_content(REPO / "content")
    item = content.items["pa-001"]
    shipped = {"pa-001": "X" if item.answer == "O" else "O"}
    (problem,) = flipped_keys(content, shipped)
    assert f"item 'pa-001' was keyed {shipped['pa-001']}, now {item.answer}" in problem
