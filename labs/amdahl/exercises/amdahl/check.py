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

from labs._exercise import Checker, parse_args, run_learner, say

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
        return say(
            f"{call_text(name, args)} raised {result['raised']}: {result['message']}",
            f"{call_text(name, args)}에서 {result['raised']} 예외가 났습니다: {result['message']}",
        )


def main() -> None:
    args = parse_args(description="Check the amdahl exercise")
    with Checker(args) as check:
        check.progress(
            say("calling each function of laws.py once", "laws.py의 각 함수를 한 번씩 호출하는 중")
        )
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
        check.progress(
            say(
                f"checking {len(calls.calls)} calls against the laws' properties",
                f"호출 {len(calls.calls)}개를 법칙의 성질과 대조하는 중",
            )
        )
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
            return say(
                f"{calls.describe(index)}, expected {value:.6g}",
                f"{calls.describe(index)}: 기대한 값은 {value:.6g}입니다",
            )
    return ""


def amdahl_wrong(calls: Calls, expected: list[tuple[int, float, float, float]]) -> str:
    """The first wrong Amdahl value, with the likely slip where the value itself shows it: the
    fractions swapped (it equals S for 1 − p) or a rounded result (right to within 1 %)."""
    for index, value, p, n in expected:
        got = calls.value(index)
        if got is not None and close(got, value):
            continue
        problem = say(
            f"{calls.describe(index)}, expected {value:.6g}",
            f"{calls.describe(index)}: 기대한 값은 {value:.6g}입니다",
        )
        if got is None or not math.isfinite(got):
            return problem
        if close(got, amdahl(1.0 - p, n)):
            return problem + say(
                f" (that is S for p = {1.0 - p:g}: p is the parallel fraction; 1 − p is the serial one)",
                f" (이 값은 p = {1.0 - p:g}일 때의 S입니다: p가 병렬 비율이고 1 − p가 직렬 비율입니다)",
            )
        if math.isclose(got, value, rel_tol=1e-2):
            return problem + say(
                " (close, but not exact: return the exact value, not a rounded one)",
                " (가깝지만 정확하지 않습니다: 반올림하지 말고 정확한 값을 돌려주세요)",
            )
        return problem
    return ""


def not_monotone(calls: Calls, curves: list[tuple[float, list[int]]]) -> str:
    for p, indices in curves:
        for before_index, after_index in itertools.pairwise(indices):
            before, after = calls.value(before_index), calls.value(after_index)
            if before is None or after is None or after < before - 1e-12 or (p > 0 and after <= before):
                return say(
                    f"p = {p:.3g}: {calls.describe(before_index)} but {calls.describe(after_index)}: more "
                    "workers must never make it slower (and must make it faster whenever p > 0)",
                    f"p = {p:.3g}: {calls.describe(before_index)}, 그리고 {calls.describe(after_index)}: "
                    "worker를 늘려서 느려지는 일은 없어야 하고, p > 0이면 반드시 빨라져야 합니다",
                )
    return ""


def past_the_limit(calls: Calls, limits: list[tuple[float, int]]) -> str:
    for p, index in limits:
        value, limit = calls.value(index), 1.0 / (1.0 - p)
        if value is None or not close(value, limit, rel=1e-6) or value > limit * (1 + 1e-9):
            return say(
                f"{calls.describe(index)}, but the limit 1 / (1 − p) is {limit:.6g}",
                f"{calls.describe(index)}, 하지만 한계 1 / (1 − p)는 {limit:.6g}입니다",
            )
    return ""


def judge(check: Checker, calls: Calls, plan: dict[str, Any]) -> None:
    report(
        check,
        "amdahl_speedup follows S = 1 / ((1 − p) + p / n)",
        amdahl_wrong(calls, plan["amdahl_values"]),
        say(
            f"{len(plan['amdahl_values'])} values right, e.g. {calls.describe(plan['amdahl_values'][13][0])}",
            f"값 {len(plan['amdahl_values'])}개가 맞습니다. 예: {calls.describe(plan['amdahl_values'][13][0])}",
        ),
    )
    report(
        check,
        "amdahl_speedup grows with n",
        not_monotone(calls, plan["amdahl_curves"]),
        say(
            f"{len(plan['amdahl_curves'])} fractions, n = 1 … 10⁶: never decreasing, rising whenever p > 0",
            f"비율 {len(plan['amdahl_curves'])}개, n = 1 … 10⁶: 줄어들지 않고, p > 0이면 늘어납니다",
        ),
    )
    report(
        check,
        "amdahl_speedup tends to 1 / (1 − p) and never passes it",
        past_the_limit(calls, plan["amdahl_limit"]),
        say(
            f"n = 10¹²: within 10⁻⁶ of 1 / (1 − p) for {len(plan['amdahl_limit'])} fractions",
            f"n = 10¹²: 비율 {len(plan['amdahl_limit'])}개 모두 1 / (1 − p)와 10⁻⁶ 이내로 맞습니다",
        ),
    )
    report(
        check,
        "gustafson_speedup follows S = (1 − p) + p · n",
        first_wrong(calls, plan["gustafson_values"]),
        say(
            f"{len(plan['gustafson_values'])} values right",
            f"값 {len(plan['gustafson_values'])}개가 맞습니다",
        ),
    )
    problem = ""
    for index, amdahl_value, p, n in plan["gustafson_above"]:
        got = calls.value(index)
        if got is None or got < amdahl_value - 1e-9:
            problem = say(
                f"{calls.describe(index)} < Amdahl's {amdahl_value:.6g} for p = {p:g}, n = {n:g}",
                f"p = {p:g}, n = {n:g}에서 {calls.describe(index)}, Amdahl의 {amdahl_value:.6g}보다 작습니다",
            )
            break
    report(
        check,
        "Gustafson's scaled speedup is never below Amdahl's",
        problem,
        say(
            "growing the problem with n never gives less speedup than a fixed problem",
            "문제를 n과 함께 키우면 고정된 문제보다 speedup이 작아지지 않습니다",
        ),
    )
    problem = ""
    for index, serial, p, n in plan["karp_flatt"]:
        got = calls.value(index)
        if got is None or not close(got, serial, rel=1e-7):
            given = (
                say(
                    f" (Amdahl's speedup for p = {p:.3g} on n = {n:g})",
                    f" (p = {p:.3g}, n = {n:g}일 때 Amdahl의 speedup)",
                )
                if p is not None
                else ""
            )
            problem = say(
                f"{calls.describe(index)}{given}, expected the serial fraction {serial:.6g}",
                f"{calls.describe(index)}{given}: 기대한 값은 직렬 비율 {serial:.6g}입니다",
            )
            break
    report(
        check,
        "karp_flatt inverts Amdahl: karp_flatt(amdahl_speedup(p, n), n) = 1 − p",
        problem,
        say(
            f"{len(plan['karp_flatt'])} speedups turned back into their serial fraction",
            f"speedup {len(plan['karp_flatt'])}개를 직렬 비율로 되돌렸습니다",
        ),
    )
    accepted = [i for i in plan["bad"] if calls.results[i].get("raised") != "ValueError"]
    problem = ""
    if accepted:
        result = calls.results[accepted[0]]
        what = (
            say("returned a number", "숫자를 돌려주었습니다")
            if "value" in result
            else say(
                f"raised {result['raised']}, not ValueError",
                f"ValueError가 아니라 {result['raised']}를 냈습니다",
            )
        )
        problem = say(
            f"{calls.describe(accepted[0])}: {what}; an impossible input must raise ValueError",
            f"{calls.describe(accepted[0])}: {what}. 불가능한 입력에는 ValueError를 내야 합니다",
        )
        if len(accepted) > 1:
            problem += say(
                f" ({len(accepted)} of {len(plan['bad'])} bad inputs got through)",
                f" (잘못된 입력 {len(plan['bad'])}개 중 {len(accepted)}개가 통과했습니다)",
            )
    report(
        check,
        "impossible inputs raise ValueError",
        problem,
        say(
            f"{len(plan['bad'])} bad inputs (p outside 0…1 or NaN, n < 1, Karp–Flatt with n < 2 or S ≤ 0) refused",
            f"잘못된 입력 {len(plan['bad'])}개 (0…1 밖이거나 NaN인 p, n < 1, n < 2이거나 S ≤ 0인 Karp–Flatt)를 "
            "모두 거부했습니다",
        ),
    )


if __name__ == "__main__":
    main()
