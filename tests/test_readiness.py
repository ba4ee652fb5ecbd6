"""Checklist readiness from evidence: quiz recall, lab runs and check questions, self-checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.progress.readiness import WEIGHTS, checklist_readiness, overall
from studyapp.progress.store import ProgressStore
from tests.conftest import FakeClock
from tests.helpers_content import CHECKLIST, write_content


@pytest.fixture
def content(tmp_path: Path):
    root = write_content(tmp_path / "content")
    (root / "checklist.yaml").write_text(CHECKLIST + "    labs: [demo-lab]\n", encoding="utf-8")
    return load_content(root)


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> ProgressStore:
    return ProgressStore(tmp_path / "p.db", clock)


def readiness_of(content, store, questioned: set[str] | None = None):
    (entry,) = checklist_readiness(content, store, store.clock(), questioned or set())
    return entry


def test_nothing_done_means_zero_and_a_quiz_step(content, store) -> None:
    entry = readiness_of(content, store)
    assert entry.readiness == 0.0
    assert "studyapp quiz --checklist demo-check" in entry.next_step
    assert entry.evidence["quiz"]["items"] == 20


def test_quiz_component_is_expected_recall(content, store, clock) -> None:
    items = sorted(content.items)
    for item_id in items[:10]:
        store.record_answer(item_id, answer="O", correct=True)
    for item_id in items[10:15]:
        store.record_answer(item_id, answer="O", correct=False)
    entry = readiness_of(content, store)
    # Right now, the 10 right answers are recalled with probability 1; wrong and unseen count 0.
    assert entry.quiz == pytest.approx(10 / 20)
    assert entry.readiness == pytest.approx(WEIGHTS["quiz"] * 0.5)
    clock.advance(days=20)
    later = readiness_of(content, store)
    assert 0 < later.quiz < entry.quiz  # recall decays with time


def test_lab_run_and_check_question(content, store) -> None:
    run = store.start_lab_run("demo-lab", None)
    store.finish_lab_run(run, "ok", "fine", {"summary": "fine"})
    assert readiness_of(content, store).labs == 1.0
    # When the lab asks a check question, half of its credit is the answer.
    assert readiness_of(content, store, {"demo-lab"}).labs == 0.5
    store.record_lab_answer("demo-lab", "O", correct=True)
    assert readiness_of(content, store, {"demo-lab"}).labs == 1.0
    failed = readiness_of(content, store).evidence["labs"]["demo-lab"]
    assert failed["ok_runs"] == 1


def test_self_check_decays_when_linked_items_are_failed(content, store, clock) -> None:
    store.set_self_check("demo-check", True)
    assert readiness_of(content, store).self_check == 1.0
    clock.advance(hours=1)
    store.record_answer(sorted(content.items)[0], answer="X", correct=False)
    entry = readiness_of(content, store)
    assert entry.self_check == 0.0
    assert entry.evidence["self_check"]["valid"] is False
    store.set_self_check("demo-check", False)
    assert readiness_of(content, store).evidence["self_check"]["checked_at"] is None


def test_full_marks_and_overall(content, store) -> None:
    for item_id in content.items:
        store.record_answer(item_id, answer="O", correct=True)
    run = store.start_lab_run("demo-lab", None)
    store.finish_lab_run(run, "ok", "fine", None)
    store.set_self_check("demo-check", True)
    results = checklist_readiness(content, store, store.clock(), set())
    assert results[0].readiness == pytest.approx(1.0)
    assert results[0].next_step == "준비됨"
    assert overall(results) == pytest.approx(1.0)
