"""The library every exercise checker (`labs/NAME/exercises/ID/check.py`) uses.

A checker is a small program that studyapp runs as `python check.py --workspace DIR [--quick]`
(docs/EXERCISES.md, "The checker contract"). This package does the parts every checker needs, so a
checker only says *what* it checks:

    from labs._exercise import Checker, parse_args, run_learner

    def main() -> None:
        args = parse_args()
        with Checker(args) as check:
            check.progress("calling your add()")
            result = run_learner(args.workspace, "adder.py", "add", 2, 3)
            if check.require_ran("add() runs", result):
                check.require("adds", result.value == 5, "add(2, 3) = 5", f"add(2, 3) = {result.value!r}")

- `checker.py`: `Checker` writes the JSON-lines protocol when STUDYAPP_EXERCISE_PROTOCOL=jsonl (else
  a readable report), turns any unexpected exception of the checker's own code into one failed
  requirement, and exits 0 passed / 1 failed / 3 undecided / 130 interrupted; `parse_args`.
- `learner.py`: `run_learner` / `run_learner_script` run the learner's code in a child process with a
  timeout and bring back plain data, their output, and their traceback trimmed to their own files.
- `speed.py`: `compare_speed` compares a candidate with a reference in the same child process, in
  interleaved rounds, and decides only when the ratio is clear of the threshold by more than the
  noise. `decide_with_control` decides a speed requirement measured by the checker itself (a
  speedup, a throughput), with the reference solution measured in the same rounds as the control:
  it fails the learner only where the reference, on this machine and at this moment, does better.
- `cases.py`: `call_on_cases`, `learner_function`, `reference_function`, `is_close`, `short_repr` for
  comparing answers.

Import from `labs._exercise`, not from the modules: they are how the package is laid out, not its API.
Only the standard library is imported here: a checker that needs torch imports it itself.
"""

from __future__ import annotations

from labs._exercise.cases import call_on_cases, is_close, learner_function, reference_function, short_repr
from labs._exercise.checker import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_PASSED,
    EXIT_UNDECIDED,
    EXIT_USAGE,
    FAILED,
    MESSAGE_LIMIT,
    PASSED,
    PROTOCOL_ENV,
    UNDECIDED,
    Checker,
    fail_usage,
    one_line,
    parse_args,
)
from labs._exercise.learner import (
    OUTPUT_LIMIT,
    TRACEBACK_FRAMES,
    LearnerResult,
    run_learner,
    run_learner_script,
)

# Private, but labs/pipeline/exercises/pipeline/pipeline_driver.py imports them from here.
from labs._exercise.learner import _error_line as _error_line
from labs._exercise.learner import _learner_traceback as _learner_traceback
from labs._exercise.messages import say
from labs._exercise.speed import (
    GROSS_MARGIN,
    RELATIVE_FLOOR,
    TIE_MARGIN,
    FunctionSpec,
    SpeedVerdict,
    compare_speed,
    control_still_open,
    decide_few,
    decide_ratio,
    decide_with_control,
    interval_rank,
    median_interval,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_PASSED",
    "EXIT_UNDECIDED",
    "EXIT_USAGE",
    "FAILED",
    "GROSS_MARGIN",
    "MESSAGE_LIMIT",
    "OUTPUT_LIMIT",
    "PASSED",
    "PROTOCOL_ENV",
    "RELATIVE_FLOOR",
    "TIE_MARGIN",
    "TRACEBACK_FRAMES",
    "UNDECIDED",
    "Checker",
    "FunctionSpec",
    "LearnerResult",
    "SpeedVerdict",
    "call_on_cases",
    "compare_speed",
    "control_still_open",
    "decide_few",
    "decide_ratio",
    "decide_with_control",
    "fail_usage",
    "interval_rank",
    "is_close",
    "learner_function",
    "median_interval",
    "one_line",
    "parse_args",
    "reference_function",
    "run_learner",
    "run_learner_script",
    "say",
    "short_repr",
]
