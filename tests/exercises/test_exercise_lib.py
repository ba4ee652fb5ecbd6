"""labs/_exercise/, the checker library: protocol, exit codes, learner processes, speed verdicts.

Checkers are run the way studyapp runs them (a subprocess with STUDYAPP_EXERCISE_PROTOCOL=jsonl
and the repository on PYTHONPATH); the learner-process helpers are called directly, since they
already start a child process of their own.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from labs._exercise import (
    FAILED,
    OUTPUT_LIMIT,
    PASSED,
    UNDECIDED,
    FunctionSpec,
    compare_speed,
    control_still_open,
    decide_few,
    decide_ratio,
    decide_with_control,
    is_close,
    median_interval,
    run_learner,
    run_learner_script,
    short_repr,
)
from tests.conftest import REPO


def run_checker(
    tmp_path: Path, body: str, *args: str, jsonl: bool = True, workspace: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Write a checker whose main block is `body` and run it as studyapp would."""
    script = tmp_path / "check.py"
    script.write_text(
        "from labs._exercise import *\n\nargs = parse_args()\n" + textwrap.dedent(body), encoding="utf-8"
    )
    folder = workspace or tmp_path / "ws"
    folder.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("STUDYAPP_EXERCISE_PROTOCOL", None)
    if jsonl:
        env["STUDYAPP_EXERCISE_PROTOCOL"] = "jsonl"
    return subprocess.run(
        [sys.executable, str(script), "--workspace", str(folder), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=60,
    )


def protocol(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    """Every stdout line must be a protocol object."""
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def learner(tmp_path: Path, source: str, name: str = "solution.py") -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    (workspace / name).write_text(textwrap.dedent(source), encoding="utf-8")
    return workspace


def gone(pid: int) -> bool:
    """The process has ended (a killed orphan may linger as a zombie until init reaps it)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z":
            return True
        time.sleep(0.05)
    return False


# -- protocol and exit codes -------------------------------------------------------------------------


def test_passing_check_streams_progress_requirements_and_a_result(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.progress("looking")
            check.requirement("first", True, "fine")
            check.require("second", 1 + 1 == 2, "2 as expected", "not 2")
        """,
    )
    assert done.returncode == 0, done.stderr
    lines = protocol(done)
    assert [line["type"] for line in lines] == ["progress", "requirement", "requirement", "result"]
    assert lines[0]["message"] == "looking"
    assert lines[2] == {"type": "requirement", "name": "second", "passed": True, "message": "2 as expected"}
    assert lines[-1]["verdict"] == "passed" and len(lines[-1]["requirements"]) == 2
    assert lines[-1]["learner_traceback"] is None


def test_one_failed_requirement_fails_with_exit_1_and_its_fail_message(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.require("ok", True, "fine", "broken")
            check.require("counts", 3 == 4, "4", "counted 3, expected 4")
        """,
    )
    assert done.returncode == 1
    lines = protocol(done)
    assert lines[-1]["verdict"] == "failed"
    assert lines[1]["passed"] is False and lines[1]["message"] == "counted 3, expected 4"


def test_undecided_alone_exits_3_but_a_real_failure_wins(tmp_path: Path) -> None:
    undecided = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.requirement("correct", True, "fine")
            check.undecided("fast enough", "too noisy to tell")
        """,
    )
    assert undecided.returncode == 3
    lines = protocol(undecided)
    assert lines[-1]["verdict"] == "undecided"
    assert lines[1]["undecided"] is True and lines[1]["passed"] is False
    both = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.requirement("correct", False, "wrong answer")
            check.undecided("fast enough", "too noisy to tell")
        """,
    )
    assert both.returncode == 1 and protocol(both)[-1]["verdict"] == "failed"


def test_a_decision_is_reported_as_passed_failed_or_undecided(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.decision("fast", PASSED, "2.0× of 1.5×")
            check.decision("noisy", UNDECIDED, "too busy to tell")
            check.decision("slow", FAILED, "1.0× of 1.5×")
            check.decision("typo", "pass", "not a decision")
        """,
    )
    assert done.returncode == 1
    lines = [line for line in protocol(done) if line.get("type") == "requirement"]
    shown = [(line["name"], line["passed"], line.get("undecided", False)) for line in lines]
    assert shown[:3] == [("fast", True, False), ("noisy", False, True), ("slow", False, False)]
    assert "ValueError" in lines[3]["message"] and "'pass'" in lines[3]["message"]  # a checker bug, said


def test_an_exception_of_the_checker_becomes_one_failed_requirement_not_a_traceback(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.requirement("first", True, "fine")
            {}["missing key"]
        """,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    lines = protocol(done)
    broken = lines[-2]
    assert broken["passed"] is False and "KeyError" in broken["message"] and "check.py:" in broken["message"]
    assert lines[-1]["verdict"] == "failed"


def test_stop_ends_the_check_early_with_what_was_reported(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            if not check.requirement("file exists", False, "trace.json is missing"):
                check.stop()
            check.requirement("never reached", True, "")
        """,
    )
    assert done.returncode == 1
    assert [line.get("name") for line in protocol(done)[:-1]] == ["file exists"]


def test_stray_output_on_stdout_cannot_break_the_protocol(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        import os
        with Checker(args) as check:
            print("a library printing")
            os.write(1, b"C code writing to fd 1\\n")
            check.requirement("first", True, "fine")
        """,
    )
    assert done.returncode == 0
    assert [line["type"] for line in protocol(done)] == ["requirement", "result"]  # parses, all of it
    assert "a library printing" in done.stderr and "C code writing to fd 1" in done.stderr


def test_without_the_environment_variable_the_report_is_readable(tmp_path: Path) -> None:
    done = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            check.progress("looking")
            check.requirement("first", True, "fine")
            check.requirement("second", False, "broken")
        """,
        jsonl=False,
    )
    assert done.returncode == 1
    assert "✓ first: fine" in done.stdout and "✗ second: broken" in done.stdout
    assert "1 of 2 requirements fail" in done.stdout and "{" not in done.stdout


def test_a_checker_that_checks_nothing_does_not_pass(tmp_path: Path) -> None:
    done = run_checker(tmp_path, "with Checker(args) as check:\n    pass\n")
    assert done.returncode == 1 and protocol(done)[-1]["verdict"] == "failed"


def test_usage_errors_are_one_line_on_stderr_and_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "check.py"
    script.write_text("from labs._exercise import parse_args\n\nparse_args()\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "STUDYAPP_EXERCISE_PROTOCOL": "jsonl"}
    for argv in ([], ["--workspace", str(tmp_path / "absent")], ["--workspace", str(tmp_path), "--bogus"]):
        done = subprocess.run(
            [sys.executable, str(script), *argv], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 2, argv
        assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == "", done.stderr
    inside = run_checker(
        tmp_path,
        """
        with Checker(args) as check:
            fail_usage("this exercise needs torch: pip install torch")
        """,
    )
    assert inside.returncode == 2 and inside.stdout == ""
    assert inside.stderr.strip() == "this exercise needs torch: pip install torch"


def test_sigterm_stops_the_checker_and_the_learners_child(tmp_path: Path) -> None:
    pid_file = tmp_path / "learner.pid"
    learner(
        tmp_path,
        f"""
        import os, time
        def wait_forever():
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(300)
        """,
    )
    script = tmp_path / "check.py"
    script.write_text(
        "from labs._exercise import *\nargs = parse_args()\nwith Checker(args) as check:\n"
        "    check.require_ran('runs', run_learner(args.workspace, 'solution.py', 'wait_forever'))\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "STUDYAPP_EXERCISE_PROTOCOL": "jsonl"}
    process = subprocess.Popen(
        [sys.executable, str(script), "--workspace", str(tmp_path / "ws")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the learner's function never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 130
    assert gone(child)


# -- running the learner's code ----------------------------------------------------------------------


def test_run_learner_returns_plain_data_and_output(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        import collections
        Pair = collections.namedtuple("Pair", "a b")
        def summary(values, *, scale=1):
            print("summing", len(values))
            return {"total": sum(values) * scale, "pair": Pair(1, 2), (0, 1): {3}}
        """,
    )
    result = run_learner(workspace, "solution.py", "summary", [1, 2, 3], kwargs={"scale": 10})
    assert result.ok and result.error is None and result.traceback is None
    assert result.value == {"total": 60, "pair": (1, 2), (0, 1): {3}}
    assert type(result.value["pair"]) is tuple
    assert result.stdout == "summing 3\n"


def test_a_crashing_learner_function_gives_a_traceback_trimmed_to_their_file(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        def ratio(a, b):
            return share(a, b)

        def share(a, b):
            return a / b
        """,
    )
    result = run_learner(workspace, "solution.py", "ratio", 1, 0)
    assert not result.ok and not result.timed_out
    assert result.error == "your code raised ZeroDivisionError: division by zero (solution.py:6)"
    assert result.traceback is not None
    lines = result.traceback.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == '  File "solution.py", line 3, in ratio'
    assert lines[3] == '  File "solution.py", line 6, in share'
    assert lines[-1] == "ZeroDivisionError: division by zero"
    assert "labs/_exercise" not in result.traceback and str(workspace) not in result.traceback


def test_a_syntax_error_names_the_learners_line(tmp_path: Path) -> None:
    workspace = learner(tmp_path, "def broken(:\n    pass\n")
    result = run_learner(workspace, "solution.py", "broken")
    assert not result.ok and result.error is not None
    assert "SyntaxError" in result.error and "solution.py:1" in result.error
    assert result.traceback is not None and str(workspace) not in result.traceback


def test_missing_file_function_and_unplain_values_are_one_line_each(tmp_path: Path) -> None:
    workspace = learner(tmp_path, "def thing():\n    return object()\n")
    missing_file = run_learner(workspace, "absent.py", "thing")
    assert not missing_file.ok and missing_file.error == "absent.py is missing from your workspace"
    missing_function = run_learner(workspace, "solution.py", "other")
    assert missing_function.error == "solution.py has no function other()"
    unplain = run_learner(workspace, "solution.py", "thing")
    assert not unplain.ok and unplain.error is not None and "plain data" in unplain.error


def test_an_endless_loop_times_out_and_its_worker_processes_are_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    workspace = learner(
        tmp_path,
        f"""
        import subprocess, sys
        def spin():
            worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
            open({str(pid_file)!r}, "w").write(str(worker.pid))
            while True:
                pass
        """,
    )
    started = time.monotonic()
    result = run_learner(workspace, "solution.py", "spin", timeout_s=2)
    assert time.monotonic() - started < 15
    assert result.timed_out and not result.ok
    assert result.error is not None and "did not finish within 2 s" in result.error
    assert gone(int(pid_file.read_text()))


def test_endless_output_is_capped_and_cannot_block_the_child(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        import sys
        def chatter():
            while True:
                sys.stdout.write("x" * 1000 + "\\n")
        """,
    )
    result = run_learner(workspace, "solution.py", "chatter", timeout_s=2)
    assert result.timed_out
    assert 60_000 <= len(result.stdout) <= OUTPUT_LIMIT


def test_run_learner_script_reports_exit_codes_and_arguments(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        import sys
        print("args", sys.argv[1:])
        if sys.argv[1:] == ["fail"]:
            sys.exit(4)
        """,
        name="make.py",
    )
    ok = run_learner_script(workspace, "make.py", "out", "--n", "2")
    assert ok.ok and ok.exit_code == 0 and ok.stdout == "args ['out', '--n', '2']\n"
    failed = run_learner_script(workspace, "make.py", "fail")
    assert not failed.ok and failed.exit_code == 4 and "exited with 4" in (failed.error or "")


# -- speed -------------------------------------------------------------------------------------------

# Sleep-based work: stable to about a millisecond even on a busy machine (LAB-NOTES).
PLANTED = """
import time
def quick():
    time.sleep(0.002)
def slow():
    time.sleep(0.010)
def same():
    time.sleep(0.004)
def make_sleeper(seconds):
    return lambda: time.sleep(seconds)
def crashes():
    raise ValueError("not implemented yet")
"""


def speed(workspace: Path, candidate: str, reference: str, threshold: float, rounds: int = 21):  # type: ignore[no-untyped-def]
    return compare_speed(
        FunctionSpec("planted.py", candidate),
        FunctionSpec("planted.py", reference),
        threshold,
        rounds,
        quick=True,
        workspace=workspace,
    )


def test_compare_speed_passes_a_clearly_fast_candidate(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    verdict = speed(workspace, "quick", "slow", 0.6)
    assert verdict.decision == PASSED, verdict.message
    assert verdict.ratio is not None and 0.1 < verdict.ratio < 0.45
    assert verdict.low is not None and verdict.high is not None and verdict.high <= 0.6
    assert verdict.rounds >= 5 and "at most 0.6×" in verdict.message


def test_compare_speed_fails_a_clearly_slow_candidate(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    verdict = speed(workspace, "slow", "quick", 0.6)
    assert verdict.decision == FAILED, verdict.message
    assert verdict.ratio is not None and verdict.ratio > 2 and verdict.low is not None and verdict.low > 0.6


def test_compare_speed_does_not_decide_a_tie_at_the_threshold(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    verdict = speed(workspace, "same", "same", 1.0, rounds=9)
    assert verdict.decision == UNDECIDED, verdict.message
    assert verdict.rounds == 9 and "too close to 1×" in verdict.message


def test_compare_speed_with_a_tiny_round_budget_is_undecided(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    verdict = speed(workspace, "quick", "same", 0.6, rounds=2)  # 0.5× against 0.6×: not a gross margin
    assert verdict.decision == UNDECIDED and verdict.rounds == 2
    assert "only 2 rounds" in verdict.message
    single = speed(workspace, "quick", "slow", 0.6, rounds=1)  # one round never decides
    assert single.decision == UNDECIDED and single.rounds == 1


def test_compare_speed_decides_a_gross_difference_in_few_rounds(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    verdict = speed(workspace, "slow", "quick", 0.6, rounds=2)  # ~5× against 0.6×
    assert verdict.decision == FAILED and verdict.rounds == 2, verdict.message
    assert "every one of 2 rounds beyond it by 2.5×" in verdict.message


def test_compare_speed_prepared_callables_and_a_crashing_candidate(tmp_path: Path) -> None:
    workspace = learner(tmp_path, PLANTED, name="planted.py")
    prepared = compare_speed(
        FunctionSpec("planted.py", "make_sleeper", (0.002,), prepare=True),
        FunctionSpec("planted.py", "make_sleeper", (0.008,), prepare=True),
        0.6,
        quick=True,
        workspace=workspace,
    )
    assert prepared.decision == PASSED, prepared.message
    crashed = speed(workspace, "crashes", "slow", 0.6)
    assert crashed.decision == FAILED and "ValueError: not implemented yet" in crashed.message
    assert crashed.traceback is not None and "planted.py" in crashed.traceback


def test_the_median_interval_and_decision_rule() -> None:
    median, low, high = median_interval([5, 1, 4, 2, 3])
    assert (median, low, high) == (3, 1, 5)  # n=5: the interval is min..max
    values = list(range(1, 17))
    _, low16, high16 = median_interval(values)
    assert (low16, high16) == (4, 13)
    assert decide_ratio([0.5] * 5, 0.6)[0] == PASSED
    assert decide_ratio([0.5] * 4, 0.6)[0] == UNDECIDED  # under min_rounds
    assert decide_ratio([0.5, 0.55, 0.58, 0.62, 0.65], 0.6)[0] == UNDECIDED
    assert decide_ratio([0.7, 0.8, 0.75, 0.9, 0.72], 0.6)[0] == FAILED
    assert decide_few([0.2, 0.22], 0.6) == PASSED and decide_few([0.2, 0.3], 0.6) == UNDECIDED
    assert decide_few([1.6, 2.0], 0.6) == FAILED and decide_few([2.0], 0.6) == UNDECIDED


def test_decide_with_control_passes_when_the_learner_is_clear_of_the_need() -> None:
    verdict, message = decide_with_control([1.8, 1.9, 1.7], [1.8, 1.8, 1.9], 1.5, 3)
    assert verdict == PASSED and "speedup 1.80× (interval 1.70–1.90, 3 rounds)" in message
    assert "the reference's 1.80× in the same rounds" in message and "at least 1.50×" in message
    assert decide_with_control([0.97, 0.99, 0.95], [0.98, 0.99, 0.97], 0.8, 3)[0] == PASSED


def test_a_reference_just_below_the_need_is_not_shown_equal_to_it() -> None:
    """CI printed "the reference's 1.16× …: needs 1.16× … (the reference falls short too)": both
    round to 1.16 though one is below. Then both are shown to the third decimal, and they differ."""
    verdict, message = decide_with_control([1.0, 1.1, 1.2, 1.0, 1.3], [1.155] * 5, 1.1637, 3)
    assert verdict == UNDECIDED and "falls short" in message
    shown = re.search(r"the reference's (\d+\.\d+)× in the same rounds: needs (\d+\.\d+)×", message)
    assert shown and float(shown.group(1)) < float(shown.group(2)), message
    # two decimals where they tell the two apart
    _, message = decide_with_control([1.0, 1.1, 1.2, 1.0, 1.3], [1.5] * 5, 1.3, 3)
    assert "the reference's 1.50× in the same rounds: needs 1.30×" in message


def test_decide_with_control_waits_for_the_minimum_of_rounds() -> None:
    verdict, message = decide_with_control([1.8, 1.9], [1.8, 1.8], 1.5, 3)
    assert verdict == UNDECIDED and "3 rounds are needed" in message


def test_decide_with_control_fails_below_the_need_where_the_control_reaches_it() -> None:
    verdict, message = decide_with_control([1.0, 1.1, 1.0], [1.8, 1.9, 1.7], 1.5, 3)
    assert verdict == FAILED and "yours stays below 1.50× where the reference does not" in message
    assert decide_with_control([0.33, 0.34, 0.33], [0.98, 0.99, 0.97], 0.8, 3)[0] == FAILED


def test_decide_with_control_is_undecided_when_a_busy_machine_holds_both_back() -> None:
    for learner, control, need in (
        ([1.1, 1.2, 1.0], [1.1, 1.3, 1.0], 1.5),
        ([0.7, 0.75, 0.85], [0.72, 0.8, 0.7], 0.8),
    ):
        verdict, message = decide_with_control(learner, control, need, 3)
        assert verdict == UNDECIDED, (learner, control)
        assert "too busy to tell (the reference falls short too)" in message and "check again" in message


def test_decide_with_control_says_truthfully_why_it_is_undecided() -> None:
    """Never "the reference falls short too" next to a reference whose median clears the need."""
    # the reference's median is above the need but its interval reaches below: unsteady rounds
    verdict, message = decide_with_control([1.2, 1.5, 1.25], [1.83, 1.2, 1.9], 1.33, 3)
    assert verdict == UNDECIDED and "falls short" not in message, message
    assert "the rounds vary too much to tell (the reference's interval 1.20–1.90 reaches below it" in message
    assert message.endswith("close other programs and check again")
    # the reference is clearly above: only the learner's rounds straddle the need
    verdict, message = decide_with_control([1.2, 1.5, 1.25], [1.83, 1.7, 1.9], 1.33, 3)
    assert verdict == UNDECIDED and "falls short" not in message and "busy" not in message, message
    assert "yours varies across it (interval 1.20–1.50) while the reference's stays above" in message
    assert message.endswith("; check again")


def test_decide_with_control_fails_clearly_below_the_control_however_busy() -> None:
    """The control falls short of the need too, but the learner is below 0.75× of it in every round."""
    verdict, message = decide_with_control([0.6, 0.6, 0.7], [1.3, 1.2, 1.4], 1.5, 3)
    assert verdict == FAILED and "yours is 0.50× the reference's speedup" in message
    verdict, message = decide_with_control(
        [0.3, 0.35, 0.3], [0.7, 0.75, 0.7], 0.8, 3, measured="throughput", of="1 / slowest stage"
    )
    assert verdict == FAILED and message.startswith("throughput 0.30× of 1 / slowest stage (interval")
    assert "the reference's throughput" in message
    # one round near the control is enough to withhold that verdict: the floor needs every round
    assert decide_with_control([0.6, 0.6, 1.2], [1.3, 1.2, 1.3], 1.5, 3, relative_floor=0.75)[0] == UNDECIDED


def test_keeping_pace_with_a_control_that_reaches_the_need_passes() -> None:
    """A spawn pool's rounds swing together with the reference's: the learner's own interval
    straddles the need (1.1–1.6), but round by round it is 0.85–1.07× a reference whose median
    reaches it. Without `keeps_pace` that is undecided; a pool at 0.6× the reference never passes
    this way, nor does one keeping pace with a reference that falls short itself."""
    learner, control = [1.10, 1.45, 1.60], [1.30, 1.45, 1.50]
    assert decide_with_control(learner, control, 1.2, 3)[0] == UNDECIDED
    verdict, message = decide_with_control(learner, control, 1.2, 3, keeps_pace=0.8)
    assert verdict == PASSED, message
    assert "which reaches 1.20× as required; yours keeps pace with it, 0.85–1.07× of it" in message
    slow = [0.6 * value for value in control]
    assert decide_with_control(slow, control, 1.2, 3, keeps_pace=0.8)[0] == FAILED
    one_slow_round = [1.10, 1.45, 1.10]  # 0.73× the reference in the last round
    assert decide_with_control(one_slow_round, control, 1.2, 3, keeps_pace=0.8)[0] == UNDECIDED
    busy = [1.0, 1.1, 1.15]
    assert decide_with_control(busy, busy, 1.2, 3, keeps_pace=0.8)[0] == UNDECIDED
    # a round below the need closes the learner's own way to pass, not the paired one
    assert not control_still_open([1.5, 1.25], [1.5, 1.4], 1.33, 9)
    assert control_still_open([1.5, 1.25], [1.5, 1.4], 1.33, 9, keeps_pace=0.8)
    assert not control_still_open([1.5, 1.0], [1.5, 1.4], 1.33, 9, keeps_pace=0.8)  # 0.71×


@pytest.mark.parametrize("keeps_pace", [None, 0.8])
def test_a_settled_control_verdict_stays_undecided_whatever_the_later_rounds_bring(
    keeps_pace: float | None,
) -> None:
    """control_still_open(...) False means no rounds to come, up to max_rounds, can pass or fail it:
    every continuation of extreme rounds (far above, far below, the control alike or opposite) is
    still undecided at every count of rounds, so a checker may stop there."""
    import itertools
    import random

    extremes = [(50.0, 50.0), (0.01, 50.0), (50.0, 0.01), (0.01, 0.01), (1.3, 1.3)]
    rng = random.Random(31)
    settled = 0
    for _ in range(400):
        rounds = rng.randint(1, 4)
        learner = [round(rng.uniform(0.8, 1.9), 2) for _ in range(rounds)]
        control = [round(rng.uniform(0.8, 1.9), 2) for _ in range(rounds)]
        most = rng.choice([5, 9, 12, 15])
        if control_still_open(learner, control, 1.33, most, keeps_pace=keeps_pace):
            continue
        settled += 1
        for added in itertools.product(extremes, repeat=min(3, most - rounds)):
            mine = learner + [a for a, _ in added] + [added[-1][0]] * (most - rounds - len(added))
            theirs = control + [b for _, b in added] + [added[-1][1]] * (most - rounds - len(added))
            for n in range(rounds, most + 1):
                verdict = decide_with_control(mine[:n], theirs[:n], 1.33, 1, keeps_pace=keeps_pace)[0]
                assert verdict == UNDECIDED, (
                    mine[:n],
                    theirs[:n],
                )
    assert settled > 20  # the property was exercised


def test_a_control_verdict_stays_open_while_a_pass_or_a_failure_can_still_come() -> None:
    assert control_still_open([1.5], [1.5], 1.33, 9)  # all above so far: a pass may come
    assert control_still_open([1.0], [1.5], 1.33, 9)  # below where the control is above: may fail
    assert control_still_open([1.0, 1.5], [1.5, 1.5], 1.33, 15)  # 15 rounds drop the lowest value
    assert not control_still_open([1.5, 1.0], [1.5, 1.5], 1.33, 9)  # yours varies across the need
    assert not control_still_open([1.0], [1.0], 1.33, 9)  # a busy machine holds both back
    # within 5 % of the need counts as either side: the checker's need may move with the rounds
    assert control_still_open([1.5, 1.3], [1.5, 1.5], 1.33, 9)


def test_decide_with_control_refuses_mismatched_or_empty_rounds() -> None:
    for learner, control, need in (([1.0, 1.0], [1.0], 1.5), ([], [], 1.5), ([1.0], [1.0], 0.0)):
        try:
            decide_with_control(learner, control, need)
        except ValueError:
            continue
        raise AssertionError(f"no ValueError for {learner}, {control}, need {need}")


# -- comparing the learner's answers -----------------------------------------------------------------

DRIVER = """
from labs._exercise import call_on_cases

def probe(function_name, cases, fields):
    return call_on_cases("solution.py", function_name, cases, fields)
"""


def test_call_on_cases_passes_copies_of_each_cases_fields(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        def spoil(y_true, labels):
            y_true.append("extra")  # edits its input: the next case must not see this
            return [len(y_true), labels]
        """,
    )
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    shared = ["a", "b"]
    cases = [{"name": f"case {n}", "y_true": shared, "labels": ("x",), "other": 1} for n in (1, 2)]
    result = run_learner(workspace, driver, "probe", "spoil", cases, ("y_true", "labels"))
    assert result.ok, result.error
    assert result.value == [[3, ["x"]], [3, ["x"]]]  # both saw two labels plus their own "extra"


def test_call_on_cases_names_the_case_a_crash_happened_on(tmp_path: Path) -> None:
    workspace = learner(
        tmp_path,
        """
        def ratio(y_true):
            return y_true[0] / y_true[1]
        """,
    )
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    cases = [{"name": "fine", "y_true": [1, 2]}, {"name": "zero below", "y_true": [1, 0]}]
    result = run_learner(workspace, driver, "probe", "ratio", cases, ("y_true",))
    assert not result.ok and result.error is not None
    assert "ZeroDivisionError: division by zero — on the case: zero below (solution.py:3)" in result.error
    assert result.traceback is not None and "driver.py" not in result.traceback
    assert "labs/_exercise" not in result.traceback
    missing = run_learner(workspace, driver, "probe", "absent", cases, ("y_true",))
    assert missing.error is not None and "solution.py has no function absent()" in missing.error


def test_is_close_accepts_numbers_only_and_short_repr_cuts_long_answers() -> None:
    assert is_close(0.1 + 0.2, 0.3) and is_close(3, 3.0) and not is_close(0.31, 0.3)
    assert is_close(0.31, 0.3, tolerance=0.1)
    assert not any(is_close(value, 1.0) for value in (True, None, "1.0", [1.0]))
    assert short_repr("abc") == "'abc'"
    cut = short_repr(list(range(100)), limit=20)
    assert len(cut) == 20 and cut.endswith("…") and cut.startswith("[0, 1, 2")


# -- running a checker by hand ------------------------------------------------------------------------

SYS_PATH_GUARD = "sys.path.insert(0, str(Path(__file__).resolve().parents[4]))"


def test_every_checker_puts_the_labs_package_it_sits_in_first() -> None:
    """docs/EXERCISES.md: run as a script without studyapp's PYTHONPATH, a checker still imports the
    `labs` package of its own checkout (guarded by `if __name__ == "__main__"`)."""
    checkers = sorted((REPO / "labs").glob("*/exercises/*/check.py"))
    assert checkers
    unguarded = [str(p.relative_to(REPO)) for p in checkers if SYS_PATH_GUARD not in p.read_text("utf-8")]
    assert not unguarded, unguarded


def test_a_checker_runs_by_hand_where_no_labs_package_is_importable(tmp_path: Path) -> None:
    """`python -S` loads no site-packages (so no editable install), and PYTHONPATH is unset."""
    exercise = REPO / "labs" / "amdahl" / "exercises" / "amdahl"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for source in (exercise / "solution").glob("*.py"):
        (workspace / source.name).write_bytes(source.read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "STUDYAPP_EXERCISE_PROTOCOL")}
    done = subprocess.run(
        [sys.executable, "-S", str(exercise / "check.py"), "--workspace", str(workspace), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed: all" in done.stdout


def test_requirement_names_and_messages_follow_the_learners_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """STUDYAPP_LANG=ko (what `studyapp --lang ko exercise check` passes) turns the names and the
    sentences that say what is wrong Korean; without it they stay English (recorded slips name them)."""
    from labs._exercise import messages

    name, message = "crunch_all computes in parallel processes", "close other programs and check again"
    monkeypatch.delenv(messages.LANG_ENV, raising=False)
    assert (messages.translate_name(name), messages.translate_message(message)) == (name, message)
    monkeypatch.setenv(messages.LANG_ENV, "ko")
    assert messages.translate_name(name) == "crunch_all이 프로세스로 병렬 계산한다"
    assert messages.translate_name("mcc() runs") == "mcc()이 실행된다"
    assert messages.translate_message(message) == "다른 프로그램을 닫고 다시 검사하세요"


# Calls that name a requirement, and which argument is the name.
_NAMING_CALLS = {"require": 0, "requirement": 0, "require_ran": 0, "ran_or_explain": 1, "report": 1}


def _literal_requirement_names(path: Path) -> set[str]:
    """The names a checker gives as literals: in a naming call, through a module constant, or
    assigned to `name` first (f-strings are left to the patterns, tested by example below)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == "name" for target in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found.add(node.value.value)
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            position = _NAMING_CALLS.get(called)
            if position is None or len(node.args) <= position:
                continue
            argument = node.args[position]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
            elif isinstance(argument, ast.Name) and argument.id in constants:
                found.add(constants[argument.id])
    return found


def test_every_literal_requirement_name_has_a_korean_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review row 17 / N12: a requirement a checker names has a Korean name (NAMES_KO or a pattern)."""
    from labs._exercise import messages

    monkeypatch.setenv(messages.LANG_ENV, "ko")
    checkers = sorted((REPO / "labs").glob("*/exercises/*/check.py"))
    names = {name: path.parent.name for path in checkers for name in _literal_requirement_names(path)}
    assert len(names) > 60  # the scan itself works (70 names)
    missing = {
        name: exercise
        for name, exercise in names.items()
        if name not in messages.NAMES_KO and messages.translate_name(name) == name
    }
    assert missing == {}


@pytest.mark.parametrize(
    "name",
    [
        "run 2: the trace can be read",
        "run 1: the labels wrap the stages' work",
        "run 3: the trace is exported to trace_path",
        "noise matches the reference",
        "test_sorting_bench.py is in the workspace",
        "the pedantic benchmark runs at least 5 rounds",
        "schedule(wait=1, warmup=1, active=2, repeat=2): one trace per cycle, named by its steps",
        "schedule(wait=1, warmup=1, active=2, repeat=2): tables sorted by self CPU time",
        "every item passes load → transform → save once (one thread per stage)",
        "every item passes load → transform → save once ([2, 3, 2] threads)",
        "no stage runs more threads than asked ([2, 3, 2] threads)",
    ],
)
def test_requirement_names_built_from_values_have_korean_patterns(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from labs._exercise import messages

    monkeypatch.setenv(messages.LANG_ENV, "ko")
    korean = messages.translate_name(name)
    assert korean != name and any("\uac00" <= char <= "\ud7a3" for char in korean), korean


def test_the_causes_named_for_issue_23_read_in_korean(monkeypatch: pytest.MonkeyPatch) -> None:
    from labs._exercise import messages

    monkeypatch.setenv(messages.LANG_ENV, "ko")
    for english, korean in [
        ("x (close, but not exact: return the exact value, not a rounded one)", "반올림하지 말고"),
        ("x (with warmup=0 the first recorded step carries start-up costs)", "warmup=0이면"),
        ("x: start workers[i] threads per stage", "스레드 workers[i]개를 시작하세요"),
    ]:
        assert korean in messages.translate_message(english)


def test_a_check_in_korean_says_what_is_wrong_in_korean(
    tmp_path: Path, isolated_home: Path, studyapp_cli: Any
) -> None:
    """`--lang ko`: the checker's sentences are Korean (say(en, ko)), down to the learner's own
    exception; the same check in English keeps the English sentences."""
    import shutil

    workspace = tmp_path / "ws"
    shutil.copytree(REPO / "labs" / "amdahl" / "exercises" / "amdahl" / "starter", workspace)
    messages = {}
    for lang, name in (("ko", "amdahl_speedup()이 실행된다"), ("en", "amdahl_speedup() runs")):
        done = studyapp_cli(
            "--lang", lang, "exercise", "check", "amdahl", "--path", str(workspace), "--json", "--quick"
        )
        assert done.returncode == 1, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        messages[lang] = {r["name"]: r["message"] for r in report["requirements"]}[name]
    assert messages["ko"].startswith("여러분의 코드가 예외를 냈습니다: NotImplementedError"), messages["ko"]
    assert messages["en"].startswith("your code raised NotImplementedError"), messages["en"]


# The message arguments of the Checker's reporting calls (by position).
_MESSAGE_ARGS = {
    "requirement": (2,),
    "require": (2, 3),
    "undecided": (1,),
    "decision": (2,),
    "progress": (0,),
}
_ENGLISH_RUN = re.compile(r"(?:[A-Za-z][A-Za-z'’-]*[,;:]?\s+){3,}[A-Za-z]")


def _literal_text(node: ast.expr) -> str:
    """The literal words of a str or f-string argument ('' for anything else: say(...), a name)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    return ""


def test_checker_sentences_are_written_in_both_languages() -> None:
    """Issue 23: a checker's sentences follow --lang. A literal English sentence handed straight to
    check.requirement / require / undecided / decision / progress would reach a Korean learner in
    English: each is written as say(en, ko) instead (code in `backticks` does not count)."""
    english_only = []
    for path in sorted((REPO / "labs").glob("*/exercises/*/check.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            for position in _MESSAGE_ARGS.get(node.func.attr, ()):
                if position < len(node.args):
                    words = re.sub(r"`[^`]*`", "", _literal_text(node.args[position]))
                    if _ENGLISH_RUN.search(words):
                        english_only.append(f"{path.relative_to(REPO)}:{node.lineno}: {words[:60]!r}")
    assert english_only == [], "\n".join(english_only)
