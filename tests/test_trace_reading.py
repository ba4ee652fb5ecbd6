"""Trace-reading questions: facts computed from real and planted traces, keys that follow the
events, and `studyapp check` refusing a trace it cannot compute from."""

from __future__ import annotations

import gzip
import json
import random
import shutil
from pathlib import Path

import pytest

from studyapp.content.traces import TraceProblem, all_facts, read_manifest, short_kernel_name, trace_facts
from studyapp.quiz.trace_reading import (
    WIDTH,
    check_traces,
    display_width,
    problems,
    questions_from,
    top_kernel,
    top_self_op,
    trace_questions,
)
from tests.conftest import REPO

CONTENT = REPO / "content"


def _write_trace(folder: Path, events: list[dict], name: str = "t.json.gz", manifest_extra: str = "") -> Path:
    traces = folder / "traces"
    traces.mkdir(parents=True, exist_ok=True)
    with gzip.open(traces / name, "wt") as stream:
        json.dump({"traceEvents": events}, stream)
    (traces / "traces.yaml").write_text(
        "traces:\n"
        f"  - id: planted\n    file: {name}\n    title: 심은 트레이스\n    topic: pytorch-profiling\n"
        f"    recorded: a test\n    source: tests\n{manifest_extra}",
        encoding="utf-8",
    )
    return folder


def _x(name: str, cat: str, ts: float, dur: float, tid: int = 1, **args: int) -> dict:
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": args}


def _planted(kernel_durations: dict[str, tuple[int, float]]) -> list[dict]:
    """A CPU thread of nested ops and a GPU stream of kernels with the given (calls, µs each)."""
    events = [
        _x("PyTorch Profiler (0)", "Trace", 0, 10_000),
        _x("aten::wrapper", "cpu_op", 0, 1000),  # total 1000, self 100
        _x("aten::heavy", "cpu_op", 100, 600),  # child: self 600
        _x("aten::light", "cpu_op", 700, 300),  # child: self 300
        _x("aten::alone", "cpu_op", 2000, 450),
        _x("aten::tiny", "cpu_op", 3000, 10),
        _x("cudaLaunchKernel", "cuda_runtime", 4000, 5),
    ]
    start = 5000.0
    for name, (calls, each) in kernel_durations.items():
        for _ in range(calls):
            events.append(_x(name, "kernel", start, each, tid=7))
            start += each + 10
    return events


def test_the_shipped_traces_give_questions_of_every_template_that_fit_80x24() -> None:
    questions = trace_questions(CONTENT)
    templates = {q.template for q in questions}
    assert {"top-kernel", "gpu-idle", "comm-share", "profiler-event", "cpu-vs-gpu"} <= templates
    assert {"compiled-vanished", "compile-speedup"} <= templates  # the eager/compiled pair
    for question in questions:
        assert problems(question) == [], question.id
        assert all(display_width(line) <= WIDTH for line in question.excerpt)
        if question.key is not None:
            assert len(question.options) == 4 and 0 <= question.key < 4
    assert len({q.id for q in questions}) == len(questions)


def test_facts_add_up_on_every_shipped_trace() -> None:
    for facts in all_facts(CONTENT):
        assert facts.kernel_us == pytest.approx(sum(row.total_us for row in facts.kernels))
        assert 0 <= facts.gpu_busy_us <= facts.gpu_window_us + 1e-6
        assert facts.communication_us <= facts.kernel_us + 1e-6
        for row in facts.cpu_ops:
            assert 0 <= row.self_us <= row.total_us + 1e-6
        for op in facts.ops_on_both_sides:
            assert op.kernels and op.gpu_us == pytest.approx(sum(us for _, _, us in op.kernels))


def test_the_top_kernel_key_is_calls_times_mean_and_follows_the_trace(tmp_path: Path) -> None:
    kernels = {
        "void at::native::k_many<float>(int)": (20, 10.0),
        "k_long": (1, 150.0),
        "k_mid": (3, 40.0),
        "k_x": (2, 30.0),
    }
    root = _write_trace(tmp_path / "a", _planted(kernels))
    (facts,) = all_facts(root)
    (question,) = top_kernel(facts, random.Random(1))
    assert question.options[question.key] == "k_many"  # 200 µs in all, not the 150 µs single call
    # the same trace with the long kernel called twice: the key moves with the events
    kernels["k_long"] = (2, 150.0)
    root = _write_trace(tmp_path / "b", _planted(kernels))
    (changed,) = top_kernel(all_facts(root)[0], random.Random(1))
    assert changed.options[changed.key] == "k_long"
    assert changed.explanation != question.explanation


def test_a_near_tie_makes_no_question(tmp_path: Path) -> None:
    root = _write_trace(tmp_path, _planted({"a": (1, 100.0), "b": (1, 99.0), "c": (1, 50.0), "d": (1, 10.0)}))
    assert list(top_kernel(all_facts(root)[0], random.Random(0))) == []


def test_self_time_subtracts_direct_children(tmp_path: Path) -> None:
    root = _write_trace(tmp_path, _planted({"a": (1, 1.0)}))
    facts = all_facts(root)[0]
    selfs = {row.name: row.self_us for row in facts.cpu_ops}
    assert selfs["aten::wrapper"] == pytest.approx(100)
    assert selfs["aten::heavy"] == pytest.approx(600)
    (question,) = top_self_op(facts, random.Random(0))
    assert question.options[question.key] == "aten::heavy"
    assert "aten::wrapper" in question.options  # the total-time trap is offered


def test_a_changed_trace_file_changes_its_questions(tmp_path: Path) -> None:
    shutil.copytree(CONTENT / "traces", tmp_path / "traces")
    before = {q.id: q for q in trace_questions(tmp_path)}
    path = tmp_path / "traces" / "nccl_rank0.json.gz"
    document = json.loads(gzip.decompress(path.read_bytes()))
    for event in document["traceEvents"]:
        if event.get("cat") == "kernel" and event["name"].startswith("ncclKernel"):
            event["dur"] = event["dur"] / 4  # a quarter of the communication time
    path.write_bytes(gzip.compress(json.dumps(document).encode()))
    after = {q.id: q for q in trace_questions(tmp_path)}
    share_before = before["trace-nccl-rank0-comm-share"].number
    share_after = after["trace-nccl-rank0-comm-share"].number
    assert share_before is not None and share_after is not None and share_after < share_before
    assert before["trace-nccl-rank0-comm-share"].digest != after["trace-nccl-rank0-comm-share"].digest


def test_kernel_names_are_cut_to_what_a_reader_compares() -> None:
    assert (
        short_kernel_name("void at::native::(anonymous namespace)::foo_kernel<float, 4>(int, float*)")
        == "foo_kernel"
    )
    assert short_kernel_name("ampere_sgemm_32x32_sliced1x4_tn") == "ampere_sgemm_32x32_sliced1x4_tn"


def test_a_manifest_naming_a_missing_file_is_a_problem_with_its_line(tmp_path: Path) -> None:
    root = _write_trace(tmp_path, _planted({"a": (1, 1.0)}))
    (root / "traces" / "t.json.gz").unlink()
    with pytest.raises(TraceProblem) as raised:
        read_manifest(root)
    assert raised.value.line == 2
    _, found = check_traces(root)
    assert found and found[0].line == 2 and "t.json.gz" in found[0].message


def test_a_trace_that_is_not_json_is_one_problem(tmp_path: Path) -> None:
    root = _write_trace(tmp_path, _planted({"a": (1, 1.0)}))
    (root / "traces" / "t.json.gz").write_bytes(gzip.compress(b"{not json"))
    with pytest.raises(TraceProblem):
        trace_facts(read_manifest(root)[0])
    _, found = check_traces(root)
    assert len(found) >= 1 and "not JSON" in found[0].message


def test_check_reports_a_broken_trace(studyapp_cli, tmp_path: Path) -> None:
    """(That `check` counts the questions on the shipped traces: tests/test_cli.py.)"""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "traces" / "alexnet.json.gz").write_bytes(b"\x1f\x8b broken")
    result = studyapp_cli("--content", str(content), "check")
    assert result.returncode == 2 and "traces.yaml" in result.stderr and "alexnet-a100" in result.stderr


def test_questions_are_the_same_for_the_same_seed() -> None:
    facts = all_facts(CONTENT)
    assert questions_from(facts, seed=3) == questions_from(facts, seed=3)


def test_facts_are_read_again_when_the_trace_file_changes(tmp_path: Path) -> None:
    """Read once per file state (check, quiz and exam share them), never stale after an edit."""
    root = _write_trace(tmp_path, _planted({"a": (1, 1.0)}))
    trace = read_manifest(root)[0]
    first = trace_facts(trace)
    assert trace_facts(trace) is first  # the same file: not parsed again
    _write_trace(tmp_path, _planted({"a": (1, 1.0), "b": (3, 7.0)}))
    changed = trace_facts(trace)
    assert changed.digest != first.digest
    assert {row.name for row in changed.kernels} == {"a", "b"}
