"""Checker of the toy exercise: follows docs/EXERCISES.md in a few lines.

TOY_CHECKER_MODE makes it misbehave on purpose (garbage, crash, hang, undecided, usage,
result-only) so the
tests can see studyapp turn each into one clear verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def emit(message: dict[str, object]) -> None:
    if os.environ.get("STUDYAPP_EXERCISE_PROTOCOL") == "jsonl":
        print(json.dumps(message, ensure_ascii=False), flush=True)
    elif message["type"] == "requirement":
        print(("ok  " if message["passed"] else "FAIL") + f" {message['name']}: {message['message']}")


def run_learner(workspace: str, expression: str) -> tuple[str | None, str | None]:
    """Evaluate an expression with the learner's module in a child process: (value, traceback)."""
    code = f"import adder; print(repr({expression}))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=workspace, capture_output=True, text=True, timeout=10
    )
    if done.returncode != 0:
        return None, done.stderr.strip()
    return done.stdout.strip(), None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    mode = os.environ.get("TOY_CHECKER_MODE", "")
    if mode == "usage":
        print("this checker needs a module that is not installed", file=sys.stderr)
        return 2
    emit({"type": "progress", "message": "running your add()"})
    if mode == "garbage":
        print("this is not json", flush=True)
        return 0
    if mode == "crash":
        raise RuntimeError("the checker itself broke")
    if mode == "hang":
        time.sleep(600)
    requirements = []
    traceback = None
    for name, expression, expected in (
        ("adds small numbers", "adder.add(2, 3)", "5"),
        ("adds negative numbers", "adder.add(-4, 1)", "-3"),
    ):
        value, error = run_learner(args.workspace, expression)
        if error is not None:
            traceback = traceback or error
            passed, message = False, f"add() raised: {error.splitlines()[-1]}"
        else:
            passed = value == expected
            message = f"{expression} = {value}" + ("" if passed else f", expected {expected}")
        requirement = {"type": "requirement", "name": name, "passed": passed, "message": message}
        requirements.append(requirement)
        if mode != "result-only":  # a checker may list its requirements in the result line alone
            emit(requirement)
    verdict = "passed" if all(r["passed"] for r in requirements) else "failed"
    if mode == "undecided":
        verdict = "undecided"
    emit({"type": "result", "verdict": verdict, "requirements": requirements, "learner_traceback": traceback})
    return {"passed": 0, "failed": 1, "undecided": 3}[verdict]


if __name__ == "__main__":
    sys.exit(main())
