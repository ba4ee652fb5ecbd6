"""Explain-it prompts: the shipped file, its checks (FILE:LINE), the write → compare → tick flow,
the stored result, readiness evidence, and `studyapp explain --plain` (in-process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.content.explain import check_explain, checklist_texts, load_explain
from studyapp.content.loader import load_content
from studyapp.errors import StudyappError
from studyapp.progress.store import ProgressStore
from studyapp.quiz import explain
from studyapp.report.readiness import checklist_readiness
from tests.conftest import FakeClock, InProcessCli


@pytest.fixture(scope="module")
def content():
    return load_content(locations.content_dir())


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock):
    progress = ProgressStore(tmp_path / "p.db", clock)
    yield progress
    progress.close()


def test_every_checklist_item_that_asks_to_explain_has_prompts(content) -> None:
    prompts = load_explain(content)
    covered = {p.checklist for p in prompts}
    by_number = {e.number: e.id for e in content.checklist}
    assert {by_number[n] for n in (1, 6, 8, 10, 11)} <= covered
    for prompt in prompts:
        assert 3 <= len(prompt.key_points) <= 6
        assert prompt.model_answer and prompt.prompt
    _, problems = check_explain(content.root, checklist_texts(content))
    assert problems == []  # not even a warning on the shipped file


def test_broken_prompts_are_reported_with_file_and_line(
    tmp_path: Path, content, studyapp_cli: InProcessCli
) -> None:
    root = tmp_path / "content"
    shutil.copytree(content.root, root)
    path = root / "explain.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    first_checklist = next(i for i, line in enumerate(lines) if line.strip().startswith("checklist:"))
    lines[first_checklist] = "    checklist: no-such-item"
    lines.append("  - id: explain-too-short")
    lines.append("    checklist: amdahl")
    lines.append("    prompt: 설명하라.")
    lines.append("    model_answer: 짧다.")
    lines.append("    key_points: [하나, 둘]")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = studyapp_cli("--content", str(root), "check")
    assert done.returncode == 2
    assert (
        f"explain.yaml:{first_checklist + 1}: explain prompt 'explain-measure-resources': unknown checklist item 'no-such-item'"
        in done.stderr
    )
    assert (
        f"explain.yaml:{len(lines)}: explain prompt 'explain-too-short': has 2 key points, needs 3–6"
        in done.stderr
    )
    assert "asks to explain but has no explain prompt" in done.stdout  # item 1 lost its prompt: a warning
    with pytest.raises(StudyappError):
        load_explain(load_content(root))


def test_the_flow_hides_the_model_answer_until_an_answer_is_written(content, store, clock) -> None:
    prompt = load_explain(content)[0]
    session = explain.ExplainSession(prompt)
    with pytest.raises(StudyappError, match="empty"):
        session.submit_answer("   \n ")
    with pytest.raises(StudyappError):
        session.set_point(0, True)  # no ticking before writing
    session.submit_answer("메모리는 peak와 추이를 본다.\nI/O 대기는 wall − CPU 시간.")
    session.set_point(0, True)
    session.set_point(2, True)
    session.set_point(2, False)  # ticked, then unticked
    session.set_point(3, True)
    result = session.finish(store)
    assert result.covered == (0, 3) and result.coverage == pytest.approx(2 / len(prompt.key_points))
    (stored,) = explain.history(store)
    assert stored.answer_text.startswith("메모리는") and stored.answered_at == clock.now
    assert stored.checklist_id == prompt.checklist


def test_next_prompt_is_unanswered_then_oldest(content, store, clock) -> None:
    prompts = load_explain(content)[:2]
    first = explain.next_prompt(prompts, store)
    assert first is prompts[0]
    explain.record_result(store, prompts[0], "답", (0,), clock.now)
    assert explain.next_prompt(prompts, store) is prompts[1]
    clock.advance(minutes=1)
    explain.record_result(store, prompts[1], "답", (0,), clock.now)
    assert explain.next_prompt(prompts, store) is prompts[0]


def readiness(content, store, checklist_id: str):
    rows = checklist_readiness(content, store, store.clock(), set(), {})
    return next(r for r in rows if r.entry.id == checklist_id)


def test_explain_it_is_evidence_between_a_self_check_and_recall(content, store, clock) -> None:
    prompts = [p for p in load_explain(content) if p.checklist == "bias-variance"]
    assert len(prompts) == 2  # definition + diagnosis: both count
    store.set_self_check("bias-variance", True)
    bare = readiness(content, store, "bias-variance")
    assert bare.explain == pytest.approx(0.5)  # a bare claim is half the explain slot
    full = tuple(range(len(prompts[0].key_points)))
    explain.record_result(store, prompts[0], "답", full, clock.now)
    one = readiness(content, store, "bias-variance")
    assert one.explain == pytest.approx(0.5)  # one of two prompts fully covered: half
    assert one.evidence["explain"]["latest"]["prompts_answered"] == 1
    clock.advance(minutes=1)
    explain.record_result(store, prompts[1], "답", tuple(range(len(prompts[1].key_points))), clock.now)
    both = readiness(content, store, "bias-variance")
    assert both.explain == pytest.approx(1.0) and both.readiness > bare.readiness
    assert both.weights["explain"] < both.weights["quiz"]  # still weaker than quiz recall


def test_next_step_names_the_explain_command(content, tmp_path: Path, clock) -> None:
    fresh = ProgressStore(tmp_path / "fresh.db", clock)
    row = readiness(content, fresh, "concurrency-models")
    # Quiz recall comes first; once it is there, the explain-it prompt is the step.
    assert row.next_step.startswith("복습")
    from studyapp.report.readiness import next_action, step_line

    step = step_line(row.entry, next_action(1.0, {}, {}, 0.0, 0.0, {"prompts": True}), row.evidence)
    assert step == "설명하기: studyapp explain concurrency-models"


# -- the command line --------------------------------------------------------------------------


def test_plain_explain_reads_a_multiline_answer_and_yes_no_points(studyapp_cli: InProcessCli) -> None:
    prompts = load_explain(load_content(locations.content_dir()))
    points = len(next(p for p in prompts if p.id == "explain-concurrency-models").key_points)
    replies = "\n".join(["y", "n", "perhaps"] + ["y"] * (points - 2))
    done = studyapp_cli(
        "explain",
        "11",
        "--plain",
        input_text="asyncio는 이벤트 루프 하나.\n스레드는 GIL.\n.\n" + replies + "\n",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    question, _, after = out.partition("Model answer:")
    assert "Async I/O" in question and "GIL 때문에" not in question  # the model answer comes after
    assert "Answer y or n." in after
    assert f"Saved: key points {points - 1}/{points}" in after
    listed = json.loads(studyapp_cli("explain", "--list", "--json").stdout)
    row = next(r for r in listed if r["id"] == "explain-concurrency-models")
    assert row["latest"]["covered"] == points - 1 and row["number"] == 11
    progress = json.loads(studyapp_cli("progress", "--json").stdout)
    entry = next(e for e in progress["checklist"] if e["id"] == "concurrency-models")
    assert entry["components"]["explain"] == pytest.approx((points - 1) / points, abs=1e-3)


def test_plain_explain_records_nothing_without_an_answer(studyapp_cli: InProcessCli) -> None:
    done = studyapp_cli("explain", "explain-pipeline-case", "--plain", input_text="\n\n")
    assert done.returncode == 0 and "nothing was recorded" in done.stdout
    stopped = studyapp_cli("explain", "explain-pipeline-case", "--plain", input_text="답\n\ny\n")
    assert "Stopped before the end" in stopped.stdout
    listed = json.loads(studyapp_cli("explain", "--list", "--json").stdout)
    assert all(row["latest"] is None for row in listed)


def test_unknown_prompt_is_a_one_line_error(studyapp_cli: InProcessCli) -> None:
    done = studyapp_cli("explain", "nope", "--plain", input_text="")
    assert done.returncode == 2 and "unknown explain-it prompt 'nope'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
