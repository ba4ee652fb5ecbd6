"""Checker of the amdahl exercise: property checks of the learner's laws.py.

Every call runs in one child process (laws_driver.evaluate); the properties are judged here:
known values, S(p, 1) = 1, monotone in n, the limit 1/(1 − p), Gustafson's line, Karp–Flatt
inverting Amdahl (fed with the checker's own Amdahl values, so each function is judged alone) and
ValueError on impossible inputs. The random points are drawn afresh each check. Nothing is timed.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, parse_args, run_learner

HERE = Path(__file__).resolve().parent
FUNCTIONS = ("amdahl_speedup", "gustafson_speedup", "karp_flatt")
SAMPLE_ARGS = {"amdahl_speedup": (0.9, 10.0), "gustafson_speedup": (0.9, 10.0), "karp_flatt": (4.0, 8.0)}
WORKERS = [1, 2, 3, 4, 8, 16, 32, 64, 128, 1024, 1e6]
BIG_N = 1e12


def amdahl(p: float, n: float) -> float:
    return 1.0 / ((1.0 - p) + p / n)


def gustafson(p: float, n: float) -> float:
    return (1.0 - p) + p * n


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def call_text(name: str, args: tuple[float, ...]) -> str:
    return f"{name}({', '.join(f'{a:g}' for a in args)})"


class Calls:
    """Collects calls, runs them all in one child, answers each by index."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[float, ...]]] = []
        self.results: list[dict[str, Any]] = []

    def add(self, name: str, *args: float) -> int:
        self.calls.append((name, tuple(float(a) for a in args)))
        return len(self.calls) - 1

    def value(self, index: int) -> float | None:
        return self.results[index].get("value")

    def describe(self, index: int) -> str:
        name, args = self.calls[index]
        result = self.results[index]
        if "value" in result:
            return f"{call_text(name, args)} = {result['value']:.6g}"
        return f"{call_text(name, args)} raised {result['raised']}: {result['message']}"


def main() -> None:
    args = parse_args(description="Check the amdahl exercise")
    with Checker(args) as check:
        check.progress("calling each function of laws.py once")
        broken = False
        for name in FUNCTIONS:
            ran = run_learner(args.workspace, "laws.py", name, *SAMPLE_ARGS[name], timeout_s=20)
            if not check.require_ran(f"{name}() runs", ran):
                broken = True
        if broken:
            check.stop()
        rng = random.Random(random.SystemRandom().randrange(1_000_000))
        calls = Calls()
        plan = build_plan(calls, rng)
        check.progress(f"checking {len(calls.calls)} calls against the laws' properties")
        ran = run_learner(args.workspace, HERE / "laws_driver.py", "evaluate", calls.calls, timeout_s=30)
        if not check.require_ran("laws.py answers every call", ran):
            check.stop()
        calls.results = ran.value
        judge(check, calls, plan)


def build_plan(calls: Calls, rng: random.Random) -> dict[str, Any]:
    fractions = [0.0, 1.0, 0.5, 0.9, 0.95, 0.99] + [rng.uniform(0.0, 0.999) for _ in range(20)]
    plan: dict[str, Any] = {
        "amdahl_values": [
            (calls.add("amdahl_speedup", p, n), amdahl(p, n), p, n) for p in fractions for n in (1, 2, 8, 100)
        ],
        "amdahl_curves": [(p, [calls.add("amdahl_speedup", p, n) for n in WORKERS]) for p in fractions],
        "amdahl_limit": [(p, calls.add("amdahl_speedup", p, BIG_N)) for p in fractions if p < 1],
        "gustafson_values": [
            (calls.add("gustafson_speedup", p, n), gustafson(p, n)) for p in fractions for n in (1, 2, 8, 100)
        ],
        "gustafson_above": [
            (calls.add("gustafson_speedup", p, n), amdahl(p, n), p, n) for p in fractions for n in (2, 16)
        ],
        "karp_flatt": [],
        "bad": [
            calls.add(name, *bad)
            for name, bad in [
                ("amdahl_speedup", (-0.1, 4)),
                ("amdahl_speedup", (1.5, 4)),
                ("amdahl_speedup", (math.nan, 4)),
                ("amdahl_speedup", (0.5, 0)),
                ("amdahl_speedup", (0.5, 0.5)),
                ("amdahl_speedup", (0.5, -2)),
                ("gustafson_speedup", (-0.1, 4)),
                ("gustafson_speedup", (2.0, 4)),
                ("gustafson_speedup", (0.5, 0)),
                ("karp_flatt", (2.0, 1)),
                ("karp_flatt", (0.0, 4)),
                ("karp_flatt", (-1.5, 4)),
            ]
        ],
    }
    for p in [0.0, 0.5, 0.9, 0.99] + [rng.uniform(0.0, 0.99) for _ in range(20)]:
        n = rng.choice([2, 3, 4, 8, 16, 64, 256])
        plan["karp_flatt"].append((calls.add("karp_flatt", amdahl(p, n), n), 1.0 - p, p, n))
    plan["karp_flatt"].append((calls.add("karp_flatt", 6.0, 8), (1 / 6 - 1 / 8) / (1 - 1 / 8), None, 8))
    return plan


def report(check: Checker, name: str, problem: str, ok_message: str) -> bool:
    """One requirement: passed when no problem was found, else the problem is its message."""
    return check.requirement(name, not problem, problem or ok_message)


def first_wrong(calls: Calls, expected: list[tuple[int, float]], rel: float = 1e-9) -> str:
    for index, value in expected:
        got = calls.value(index)
        if got is None or not close(got, value, rel):
            return f"{calls.describe(index)}, expected {value:.6g}"
    return ""


def amdahl_wrong(calls: Calls, expected: list[tuple[int, float, float, float]]) -> str:
    """The first wrong Amdahl value, with the likely slip where the value itself shows it: the
    fractions swapped (it equals S for 1 − p) or a rounded result (right to within 1 %)."""
    for index, value, p, n in expected:
        got = calls.value(index)
        if got is not None and close(got, value):
            continue
        problem = f"{calls.describe(index)}, expected {value:.6g}"
        if got is None or not math.isfinite(got):
            return problem
        if close(got, amdahl(1.0 - p, n)):
            return (
                problem
                + f" (that is S for p = {1.0 - p:g}: p is the parallel fraction; 1 − p is the serial one)"
            )
        if math.isclose(got, value, rel_tol=1e-2):
            return problem + " (close, but not exact: return the exact value, not a rounded one)"
        return problem
    return ""


def not_monotone(calls: Calls, curves: list[tuple[float, list[int]]]) -> str:
    for p, indices in curves:
        for before_index, after_index in itertools.pairwise(indices):
            before, after = calls.value(before_index), calls.value(after_index)
            if before is None or after is None or after < before - 1e-12 or (p > 0 and after <= before):
                return (
                    f"p = {p:.3g}: {calls.describe(before_index)} but {calls.describe(after_index)}: more "
                    "workers must never make it slower (and must make it faster whenever p > 0)"
                )
    return ""


def past_the_limit(calls: Calls, limits: list[tuple[float, int]]) -> str:
    for p, index in limits:
        value, limit = calls.value(index), 1.0 / (1.0 - p)
        if value is None or not close(value, limit, rel=1e-6) or value > limit * (1 + 1e-9):
            return f"{calls.describe(index)}, but the limit 1 / (1 − p) is {limit:.6g}"
    return ""


def judge(check: Checker, calls: Calls, plan: dict[str, Any]) -> None:
    report(
        check,
        "amdahl_speedup follows S = 1 / ((1 − p) + p / n)",
        amdahl_wrong(calls, plan["amdahl_values"]),
        f"{len(plan['amdahl_values'])} values right, e.g. {calls.describe(plan['amdahl_values'][13][0])}",
    )
    report(
        check,
        "amdahl_speedup grows with n",
        not_monotone(calls, plan["amdahl_curves"]),
        f"{len(plan['amdahl_curves'])} fractions, n = 1 … 10⁶: never decreasing, rising whenever p > 0",
    )
    report(
        check,
        "amdahl_speedup tends to 1 / (1 − p) and never passes it",
        past_the_limit(calls, plan["amdahl_limit"]),
        f"n = 10¹²: within 10⁻⁶ of 1 / (1 − p) for {len(plan['amdahl_limit'])} fractions",
    )
    report(
        check,
        "gustafson_speedup follows S = (1 − p) + p · n",
        first_wrong(calls, plan["gustafson_values"]),
        f"{len(plan['gustafson_values'])} values right",
    )
    problem = ""
    for index, amdahl_value, p, n in plan["gustafson_above"]:
        got = calls.value(index)
        if got is None or got < amdahl_value - 1e-9:
            problem = f"{calls.describe(index)} < Amdahl's {amdahl_value:.6g} for p = {p:g}, n = {n:g}"
            break
    report(
        check,
        "Gustafson's scaled speedup is never below Amdahl's",
        problem,
        "growing the problem with n never gives less speedup than a fixed problem",
    )
    problem = ""
    for index, serial, p, n in plan["karp_flatt"]:
        got = calls.value(index)
        if got is None or not close(got, serial, rel=1e-7):
            given = f" (Amdahl's speedup for p = {p:.3g} on n = {n:g})" if p is not None else ""
            problem = f"{calls.describe(index)}{given}, expected the serial fraction {serial:.6g}"
            break
    report(
        check,
        "karp_flatt inverts Amdahl: karp_flatt(amdahl_speedup(p, n), n) = 1 − p",
        problem,
        f"{len(plan['karp_flatt'])} speedups turned back into their serial fraction",
    )
    accepted = [i for i in plan["bad"] if calls.results[i].get("raised") != "ValueError"]
    problem = ""
    if accepted:
        result = calls.results[accepted[0]]
        what = "returned a number" if "value" in result else f"raised {result['raised']}, not ValueError"
        problem = f"{calls.describe(accepted[0])}: {what}; an impossible input must raise ValueError"
        if len(accepted) > 1:
            problem += f" ({len(accepted)} of {len(plan['bad'])} bad inputs got through)"
    report(
        check,
        "impossible inputs raise ValueError",
        problem,
        f"{len(plan['bad'])} bad inputs (p outside 0…1 or NaN, n < 1, Karp–Flatt with n < 2 or S ≤ 0) refused",
    )


if __name__ == "__main__":
    main()
