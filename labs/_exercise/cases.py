"""Comparing the learner's answers: helpers for a driver in the learner's child process
(`learner_function`, `call_on_cases`), the oracle (`reference_function`) and the checker's
messages (`is_close`, `short_repr`).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labs._exercise.messages import say


def learner_function(learner_file: str, function_name: str) -> Any:
    """For a driver in the learner's child process: `function_name` of the learner's `learner_file`
    (imported by name: the workspace is first on sys.path); AttributeError when it has none."""
    learner = importlib.import_module(Path(learner_file).stem)
    function = getattr(learner, function_name, None)
    if not callable(function):
        raise AttributeError(f"{learner_file} has no function {function_name}()")
    return function


def reference_function(check_file: str, learner_file: str, function_name: str) -> Any:
    """`function_name` of the exercise's reference solution (`solution/LEARNER_FILE` beside the
    checker `check_file`), loaded under a name of its own so it never shadows the learner's module:
    the oracle a learner's answer is compared with."""
    path = Path(check_file).resolve().parent / "solution" / learner_file
    spec = importlib.util.spec_from_file_location(f"reference_{Path(learner_file).stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the reference solution {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, function_name)


def call_on_cases(
    learner_file: str, function_name: str, cases: Sequence[dict[str, Any]], fields: Sequence[str]
) -> list[Any]:
    """For a driver in the learner's child process: `function_name` of the learner's `learner_file`
    called on every planted case, with copies of `case[field]` for each of `fields` as its
    arguments (copies, so a function that edits its input cannot spoil the next case). An exception
    is re-raised with " — on the case: NAME" (the case's "name") added to its message, so the
    learner's traceback and one-line error say which case broke their code.

        def probe(function_name: str, cases: list[dict[str, Any]]) -> list[Any]:  # in check.py
            return call_on_cases("confusion.py", function_name, cases, ("y_true", "y_pred", "labels"))
    """
    function = learner_function(learner_file, function_name)
    results = []
    for case in cases:
        try:
            results.append(function(*(_copied(case[field]) for field in fields)))
        except Exception as exc:
            if len(exc.args) == 1 and isinstance(exc.args[0], str):
                exc.args = (
                    say(
                        f"{exc.args[0]} — on the case: {case['name']}",
                        f"{exc.args[0]} — 사례: {case['name']}",
                    ),
                )
            elif not exc.args:
                exc.args = (say(f"on the case: {case['name']}", f"사례: {case['name']}"),)
            raise
    return results


def _copied(value: Any) -> Any:
    # Each string a new object: pickle hands over one object per distinct label, so code comparing
    # labels with `is` instead of `==` would pass on planted data and fail on a learner's own.
    return [_fresh(item) for item in value] if isinstance(value, (list, tuple)) else value


def _fresh(item: Any) -> Any:
    return "".join(list(item)) if type(item) is str and len(item) > 1 else item


def is_close(value: Any, expected: float, tolerance: float = 1e-9) -> bool:
    """Is the learner's `value` a number (bool is not) within `tolerance` of `expected`, relative or
    absolute? Anything else — None, a string, a list — is simply not close."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isclose(float(value), float(expected), rel_tol=tolerance, abs_tol=tolerance)


def short_repr(value: Any, limit: int = 120) -> str:
    """repr(value), cut to `limit` characters with "…": a learner's answer quoted in a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
