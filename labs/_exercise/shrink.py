"""The smallest generated input on which the learner's answer and the reference's differ.

For a driver in the learner's child process (it calls their function, so it runs where their code
may run): the cases are tried smallest first; the first one they get wrong is then shrunk by
dropping its items one at a time for as long as the answers still differ, so a message can show
a handful of items instead of a generated trace of fifty events.

    def drive(cases):  # in check.py
        return smallest_disagreement(cases, answer_of=learner_answer, expected_of=reading, agree=same)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# Learner calls spent on shrinking one case: enough to drop every item of a 60-event trace twice.
SHRINK_BUDGET = 150


def answer_or_error(function: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """(True, their answer) or (False, "TypeError: …"): an exception is an answer that disagrees."""
    try:
        return True, function(*args)
    except Exception as exc:  # their code: any exception is a wrong answer, shown by its name
        return False, f"{type(exc).__name__}: {exc}"


def smallest_disagreement(
    cases: Sequence[tuple[str, list[Any]]],
    answer_of: Callable[[list[Any]], tuple[bool, Any]],
    expected_of: Callable[[list[Any]], Any],
    agree: Callable[[Any, Any], bool],
    budget: int = SHRINK_BUDGET,
) -> dict[str, Any] | None:
    """None when the learner agrees with the reference on every case; else the first case (in the
    order given: put the small and plain ones first) they get wrong, shrunk: {"case": its name,
    "items": the fewest items still showing the difference, "size": items before shrinking,
    "answer": theirs (or "raised": their error), "expected": the reference's}."""

    def differs(items: list[Any]) -> tuple[bool, Any]:
        ok, answer = answer_of(items)
        return (not ok or not agree(answer, expected_of(items))), (ok, answer)

    for name, items in cases:
        wrong, (ok, answer) = differs(items)
        if not wrong:
            continue
        smallest = list(items)
        calls = 0
        dropped = True
        while dropped and calls < budget:
            dropped = False
            for index in range(len(smallest) - 1, -1, -1):
                if calls >= budget:
                    break
                candidate = smallest[:index] + smallest[index + 1 :]
                calls += 1
                still, outcome = differs(candidate)
                if still:
                    smallest, (ok, answer) = candidate, outcome
                    dropped = True
        found: dict[str, Any] = {
            "case": name,
            "items": smallest,
            "size": len(items),
            "expected": expected_of(smallest),
        }
        found["answer" if ok else "raised"] = answer
        return found
    return None
