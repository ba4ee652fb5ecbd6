"""Checklist readiness from evidence: exercises, quiz recall, explain-it and self-checks, lab runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.report.readiness import WEIGHTS, checklist_readiness, overall
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


def readiness_of(content, store, questioned: set[str] | None = None, exercises=None):
    (entry,) = checklist_readiness(content, store, store.clock(), questioned or set(), exercises or {})
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
    # No exercise is linked to this item, so its weight is spread over the other components.
    assert "exercises" not in entry.weights
    assert entry.weights["quiz"] == pytest.approx(WEIGHTS["quiz"] / (1 - WEIGHTS["exercises"]))
    assert entry.readiness == pytest.approx(entry.weights["quiz"] * 0.5)
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
    results = checklist_readiness(content, store, store.clock(), set(), {})
    assert results[0].readiness == pytest.approx(1.0)
    assert results[0].next_step == "준비됨"
    assert overall(results) == pytest.approx(1.0)


# -- exercises, explain-it and labs (issue 11) --------------------------------------------------

FIXTURE_LABS = Path(__file__).resolve().parent / "exercise_fixture" / "labs"


@pytest.fixture
def exercise(tmp_path: Path):
    """The toy fixture exercise, copied (so a test may change its checker), linked to demo-check."""
    import dataclasses
    import shutil

    from studyapp.exercises.registry import scan

    labs = tmp_path / "labs"
    shutil.copytree(FIXTURE_LABS, labs)
    info = scan(labs).exercises["toy-sum"]
    return dataclasses.replace(info, checklist=("demo-check",))


def _check(store, info, verdict: str) -> None:
    from studyapp.progress import exercise_store

    exercise_store.record_check(store, info.id, info.checker_hash(), verdict, {}, 0.1)


def _all_but_exercises(content, store) -> None:
    for item_id in content.items:
        store.record_answer(item_id, answer="O", correct=True)
    run = store.start_lab_run("demo-lab", None)
    store.finish_lab_run(run, "ok", "fine", None)
    store.set_self_check("demo-check", True)


def test_weights_put_exercises_first_and_labs_last() -> None:
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert WEIGHTS["exercises"] > WEIGHTS["quiz"] > WEIGHTS["explain"] > WEIGHTS["labs"]
    # A bare self-check is weaker than an explain-it answer where prompts exist.
    from studyapp.report.readiness import SELF_CHECK_SHARE

    assert SELF_CHECK_SHARE * WEIGHTS["explain"] < WEIGHTS["explain"] < WEIGHTS["quiz"]


def test_a_lab_run_alone_is_at_most_a_few_percent(content, store, exercise) -> None:
    run = store.start_lab_run("demo-lab", None)
    store.finish_lab_run(run, "ok", "fine", None)
    entry = readiness_of(content, store, exercises={exercise.id: exercise})
    assert entry.labs == 1.0
    assert entry.readiness == pytest.approx(WEIGHTS["labs"])
    assert entry.readiness <= 0.05


def test_exercise_pass_is_the_strongest_evidence(content, store, exercise) -> None:
    exercises = {exercise.id: exercise}
    _all_but_exercises(content, store)
    before = readiness_of(content, store, exercises=exercises)
    assert before.exercises == 0.0
    assert before.readiness == pytest.approx(1 - WEIGHTS["exercises"])
    assert before.next_step == "과제: studyapp exercise start toy-sum"
    assert before.raise_with == ["toy-sum"]
    assert before.to_dict()["raise_with"] == ["toy-sum"]
    _check(store, exercise, "failed")
    assert (
        readiness_of(content, store, exercises=exercises).next_step == "과제: studyapp exercise check toy-sum"
    )
    _check(store, exercise, "passed")
    after = readiness_of(content, store, exercises=exercises)
    assert after.exercises == 1.0
    assert after.readiness == pytest.approx(1.0)
    assert after.next_step == "준비됨"
    assert after.raise_with == []
    # the pass is worth more than all the quiz recall
    assert after.readiness - before.readiness > WEIGHTS["quiz"]


def test_breaking_a_passed_exercise_lowers_it(content, store, clock, exercise) -> None:
    exercises = {exercise.id: exercise}
    _check(store, exercise, "passed")
    passed = readiness_of(content, store, exercises=exercises)
    clock.advance(hours=1)
    _check(store, exercise, "failed")
    broken = readiness_of(content, store, exercises=exercises)
    assert 0 < broken.exercises < passed.exercises
    assert broken.evidence["exercises"]["toy-sum"]["broken"] is True
    # an undecided check (busy machine) or a checker fault says nothing about the code
    clock.advance(hours=1)
    _check(store, exercise, "passed")
    _check(store, exercise, "undecided")
    _check(store, exercise, "error")
    assert readiness_of(content, store, exercises=exercises).exercises == 1.0


def test_a_changed_checker_makes_a_pass_stale(content, store, exercise) -> None:
    exercises = {exercise.id: exercise}
    _all_but_exercises(content, store)
    _check(store, exercise, "passed")
    assert readiness_of(content, store, exercises=exercises).exercises == 1.0
    with exercise.check_script.open("a", encoding="utf-8") as handle:
        handle.write("\n# a stricter checker\n")
    stale = readiness_of(content, store, exercises=exercises)
    assert 0 < stale.exercises < 1.0
    assert stale.evidence["exercises"]["toy-sum"]["stale"] is True
    assert stale.next_step == "과제: studyapp exercise check toy-sum (검사기가 바뀜)"
    _check(store, exercise, "passed")  # checked again against the new checker
    assert readiness_of(content, store, exercises=exercises).exercises == 1.0


def test_a_pass_after_seeing_the_solution_counts_half(content, store, clock, exercise) -> None:
    from studyapp.progress import exercise_store

    exercise_store.mark_solution_seen(store, exercise.id)
    clock.advance(minutes=5)
    _check(store, exercise, "passed")
    entry = readiness_of(content, store, exercises={exercise.id: exercise})
    assert entry.exercises == 0.5
    assert entry.evidence["exercises"]["toy-sum"]["solution_first"] is True


def _explain(store, covered: list[int], total: int) -> None:
    import json
    import uuid

    from studyapp.progress.store import to_iso

    with store.transaction() as db:
        db.execute(
            "INSERT INTO explain_answers(uid, prompt_id, checklist_id, answer_text, covered_json,"
            " total_points, answered_at) VALUES (?,?,?,?,?,?,?)",
            (
                uuid.uuid4().hex,
                "demo-prompt",
                "demo-check",
                "my answer",
                json.dumps(covered),
                total,
                to_iso(store.clock()),
            ),
        )


def test_explain_it_is_stronger_than_a_bare_self_check(content, store, clock) -> None:
    (content.root / "explain.yaml").write_text(
        "prompts:\n  - id: demo-prompt\n    checklist: demo-check\n", encoding="utf-8"
    )
    store.set_self_check("demo-check", True)
    bare = readiness_of(content, store)
    assert bare.explain == pytest.approx(0.5)  # prompts exist: a self-check is half the slot
    assert bare.next_step.startswith("복습")
    _explain(store, [0, 1], 4)
    assert readiness_of(content, store).explain == pytest.approx(0.5)
    clock.advance(minutes=1)
    _explain(store, [0, 1, 2, 3, 7], 4)  # an out-of-range index is ignored
    full = readiness_of(content, store)
    assert full.explain == pytest.approx(1.0)
    assert full.readiness > bare.readiness
    assert full.evidence["explain"]["latest"]["covered"] == 4
    # still weaker than recall: the whole explain slot weighs less than the quiz
    assert full.weights["explain"] < full.weights["quiz"]


def test_without_prompts_a_self_check_fills_the_explain_slot(content, store) -> None:
    store.set_self_check("demo-check", True)
    assert readiness_of(content, store).explain == 1.0


def test_next_action_is_one_decision_for_the_cli_and_the_tui() -> None:
    """An unstarted exercise comes before an unrun lab, in `studyapp progress` and on the
    checklist screen alike (both render `Readiness.action`)."""
    from studyapp.report.readiness import NextStep, next_action

    labs = {"amdahl": {"ok_runs": 0, "check_question": None}}
    exercises = {"amdahl": {"status": "not started", "score": 0.0, "stale": False}}
    assert next_action(1.0, labs, exercises, 0.0, 0.0, {}) == NextStep("exercise_start", "amdahl")
    assert next_action(1.0, labs, {}, 1.0, 1.0, {}) == NextStep("lab", "amdahl")
    assert next_action(0.5, labs, exercises, 0.0, 0.0, {}).kind == "quiz"
