"""The profiler lab's eager-vs-compiled step (`studyapp lab profiler --compile`), run for real, and
its one-line skip where no compiler works. Nothing asserts a timing: the step's numbers are checked
against each other and against the two traces it wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labs.profiler import lab as profiler_lab
from tests.conftest import run_cli

pytestmark = pytest.mark.slow


def _names(path: str) -> set[str]:
    events = json.loads(Path(path).read_text())["traceEvents"]
    return {event.get("name", "") for event in events if event.get("ph") == "X"}


def test_compile_step_writes_two_traces_that_show_the_fusion(tmp_path: Path) -> None:
    result = run_cli(
        "lab", "profiler", "--quick", "--compile", "--workers", "0", "--json", "--out", str(tmp_path)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    compiled = report["result"]["compile"] if "result" in report else report["compile"]
    if not compiled["available"]:
        pytest.skip(f"no compiler on this machine: {compiled['reason']}")
    eager_trace, compiled_trace = compiled["traces"]
    eager, fused = _names(eager_trace), _names(compiled_trace)
    assert {"aten::gelu", "aten::mul", "aten::add"} <= eager
    assert not {"aten::gelu", "aten::mul", "aten::add"} & fused  # fused into the generated code
    assert any(name.startswith("## Call CompiledFxGraph") for name in fused)
    assert "TorchDynamo Cache Lookup" in fused and "aten::mm" in fused and "aten::mm" in eager
    assert (
        compiled["first_compiled_call_s"] > 0
        and compiled["eager_step_ms"] > 0
        and compiled["compiled_step_ms"] > 0
    )


def test_no_compiler_is_one_finding_and_the_run_goes_on() -> None:
    result: dict = {"findings": ["first"], "tables": []}
    profiler_lab.add_compile_step(
        result, {"available": False, "reason": "torch.compile is not available here: X"}
    )
    assert result["tables"] == [] and len(result["findings"]) == 2
    assert "torch.compile is not available here: X" in result["findings"][-1]


def test_a_compile_table_adds_up() -> None:
    result: dict = {"findings": [], "tables": []}
    measured = {
        "available": True,
        "first_compiled_call_s": 3.0,
        "eager_step_ms": 4.0,
        "compiled_step_ms": 2.0,
        "traces": ["a", "b"],
    }
    profiler_lab.add_compile_step(result, measured)
    rows = {row["mode"]: row for row in result["tables"][0]["rows"]}
    assert rows["eager"]["step_ms"] / rows["compiled"]["step_ms"] == pytest.approx(2.0)
    assert "2.00배" in result["findings"][0]  # the ratio the numbers give, not a canned one
