"""The profiler lab's exercises, checked the way a learner checks them.

For every exercise: the untouched starter fails (exit 1) with messages a learner can act on, the
reference solution passes (exit 0), and each plausible wrong solution kept in
tests/exercises/wrong/ID/NAME/ fails (exit 1) — all through
`studyapp exercise check ID --path DIR --json --quick` in a subprocess.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

EXERCISES = REPO / "labs" / "profiler" / "exercises"
WRONG = Path(__file__).resolve().parent / "wrong"
IDS = ["trace-handler", "schedule", "find-the-bottleneck", "tensorboard-logdir"]

pytestmark = pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="the profiler exercises need torch"
)


def check(exercise_id: str, source: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """Copy `source` into a fresh workspace and check it; (exit code, the --json outcome)."""
    workspace = tmp_path / f"ws-{source.name}"
    shutil.copytree(source, workspace)
    done = run_cli("exercise", "check", exercise_id, "--path", str(workspace), "--json", "--quick")
    assert "Traceback (most recent call last)" not in done.stderr, done.stderr
    try:
        outcome = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"not JSON (exit {done.returncode}): {done.stdout!r} {done.stderr!r}")
    return done.returncode, outcome


def failing(outcome: dict[str, Any]) -> dict[str, str]:
    return {r["name"]: r["message"] for r in outcome["requirements"] if not r["passed"]}


def wrong_solutions(exercise_id: str) -> list[Path]:
    return sorted(p for p in (WRONG / exercise_id).iterdir() if p.is_dir())


def test_every_profiler_exercise_has_a_kept_wrong_solution() -> None:
    listed = json.loads(run_cli("exercise", "list", "--json").stdout)
    profiler = {row["id"] for row in listed if row["lab"] == "profiler"}
    assert profiler == set(IDS)
    for exercise_id in IDS:
        assert wrong_solutions(exercise_id), exercise_id


# -- trace-handler -----------------------------------------------------------------------------------


def test_trace_handler_starter_fails_naming_the_expected_files(tmp_path: Path) -> None:
    code, outcome = check("trace-handler", EXERCISES / "trace-handler" / "starter", tmp_path)
    assert code == 1 and outcome["verdict"] == "failed"
    messages = " | ".join(failing(outcome).values())
    assert "expected steps_2-3.pt.trace.json, steps_6-7.pt.trace.json; out_dir holds trace.json" in messages
    assert "missing steps_3-5.key_averages.txt" in messages


def test_trace_handler_solution_passes(tmp_path: Path) -> None:
    code, outcome = check("trace-handler", EXERCISES / "trace-handler" / "solution", tmp_path)
    assert code == 0, failing(outcome)
    assert outcome["verdict"] == "passed" and len(outcome["requirements"]) == 9


@pytest.mark.parametrize("wrong", wrong_solutions("trace-handler"), ids=lambda p: p.name)
def test_trace_handler_wrong_solutions_fail(wrong: Path, tmp_path: Path) -> None:
    code, outcome = check("trace-handler", wrong, tmp_path)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failing(outcome)
    if wrong.name == "sorted-by-total":
        assert all("sorted by self CPU time" in name for name in problems), problems
        assert "sort_by='self_cpu_time_total'" in " ".join(problems.values())
    if wrong.name == "guessed-range":  # right for active=2, wrong for active=3
        assert all("active=3" in name for name in problems), problems
        assert "holds steps_4-5" in " ".join(problems.values())


# -- schedule ----------------------------------------------------------------------------------------


def test_schedule_starter_fails_showing_what_it_recorded(tmp_path: Path) -> None:
    code, outcome = check("schedule", EXERCISES / "schedule" / "starter", tmp_path)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failing(outcome)
    assert (
        "the traces hold ProfilerStep 2–3, 6–7, 10–11, 14–15"
        in problems["exactly steps 3–5 and 9–11 are recorded"]
    )
    assert "set repeat" in problems["nothing is profiled after step 11"]


def test_schedule_solution_passes(tmp_path: Path) -> None:
    code, outcome = check("schedule", EXERCISES / "schedule" / "solution", tmp_path)
    assert code == 0, failing(outcome)
    assert len(outcome["requirements"]) == 4


@pytest.mark.parametrize("wrong", wrong_solutions("schedule"), ids=lambda p: p.name)
def test_schedule_wrong_solutions_fail(wrong: Path, tmp_path: Path) -> None:
    code, outcome = check("schedule", wrong, tmp_path)
    assert code == 1 and outcome["verdict"] == "failed"
    problems = failing(outcome)
    if wrong.name == "repeat-forever":
        assert "15–17" in problems["exactly steps 3–5 and 9–11 are recorded"]
    if wrong.name == "no-warmup":  # the right steps, recorded cold
        assert list(problems) == ["a warmup step before each recording"]
        assert "step 2 is NONE" in problems["a warmup step before each recording"]
