"""Speed verdicts that a busy machine cannot fake: ratios and medians with a confidence interval.

`compare_speed` times a candidate and a reference in one learner child process, in interleaved
rounds, and decides only when the ratio is clear of the threshold by more than the noise.
`decide_with_control` decides a speed the checker measured itself, with the reference solution
measured in the same rounds as the control.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labs._exercise.checker import FAILED, PASSED, UNDECIDED
from labs._exercise.learner import _LearnerProblem, _load_function, _run_child
from labs._exercise.messages import say


@dataclass(frozen=True)
class FunctionSpec:
    """A function to time: `function(*args, **kwargs)` from `path` (absolute, or relative to the
    workspace). With `prepare=True` that call is setup (not timed) and returns the zero-argument
    callable that is timed."""

    path: str
    function: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    prepare: bool = False


@dataclass(frozen=True)
class SpeedVerdict:
    """The outcome of `compare_speed`. `ratio` = candidate time / reference time (median of the
    rounds); the ratio lies within [low, high] with ~95% confidence; `spread` is the larger half."""

    ratio: float | None
    spread: float | None
    low: float | None
    high: float | None
    rounds: int
    decision: str  # passed | failed | undecided
    message: str
    threshold: float
    candidate_s: float | None = None  # median seconds per call
    reference_s: float | None = None
    traceback: str | None = None


def median_interval(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The median and a distribution-free ~95% confidence interval for it (order statistics).

    For n values the interval is [x_(k), x_(n-k+1)] with k = floor((n - z·√n) / 2), at least 1:
    it holds whatever the noise's shape (timings are skewed: a busy machine only adds time).
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    k = interval_rank(n, z)
    return statistics.median(ordered), ordered[k - 1], ordered[n - k]


def interval_rank(n: int, z: float = 1.96) -> int:
    """k of `median_interval` for n values: its interval is the k-th smallest to the k-th largest
    (1 up to 10 values: the whole range; it grows with n)."""
    return max(1, math.floor((n - z * math.sqrt(n)) / 2))


TIE_MARGIN = 0.03  # ratios within 3 % of the threshold are a tie: never decided either way


def decide_ratio(
    ratios: Sequence[float], threshold: float, *, min_rounds: int = 5
) -> tuple[str, float, float, float, float]:
    """passed when the whole interval of the median ratio is at or below `threshold`, failed when it
    is wholly above, else undecided (also with fewer than `min_rounds` rounds).

    Returns (decision, median, low, high, spread)."""
    median, low, high = median_interval(ratios)
    spread = max(median - low, high - median)
    if len(ratios) < min_rounds:
        return UNDECIDED, median, low, high, spread
    # The rule is looked at after every round, and with few rounds the interval is just [min, max]
    # (all of 5 rounds land on one side of the true median 1 time in 16). A small indifference zone
    # around the threshold keeps a true tie from being decided by that luck.
    if high * (1 + TIE_MARGIN) <= threshold:
        return PASSED, median, low, high, spread
    if low > threshold * (1 + TIE_MARGIN):
        return FAILED, median, low, high, spread
    return UNDECIDED, median, low, high, spread


GROSS_MARGIN = 2.5


def decide_few(ratios: Sequence[float], threshold: float) -> str:
    """The last word when the budget ran out before `min_rounds`: with at least two rounds, decide
    only if *every* ratio is beyond the threshold by GROSS_MARGIN× (a 2.5× difference seen twice,
    in alternating order, is not what a busy machine does); else undecided."""
    if len(ratios) < 2:
        return UNDECIDED
    if max(ratios) * GROSS_MARGIN <= threshold:
        return PASSED
    if min(ratios) > threshold * GROSS_MARGIN:
        return FAILED
    return UNDECIDED


RELATIVE_FLOOR = 0.75


def decide_with_control(
    learner: Sequence[float],
    control: Sequence[float],
    need: float,
    min_rounds: int = 3,
    *,
    measured: str = "speedup",
    of: str | None = None,
    relative_floor: float = RELATIVE_FLOOR,
    busy_next_step: str = "",
    keeps_pace: float | None = None,
) -> tuple[str, str]:
    """A speed decision with a control: the learner's value and the reference solution's (the
    control), measured in the same rounds, where higher is better (a speedup, a throughput as a
    share of theory). `need` is the learner's target. Returns (decision, message):

    passed     the learner's median is at least `need` with ~95% confidence (the interval of
               `median_interval` lies at or above it);
    failed     the learner's interval lies below `need` while the control's lies at or above it
               (this machine can do it, the learner's code does not); or the learner's value divided
               by the control's, round by round, lies wholly below `relative_floor` (clearly slower
               than the reference however busy the machine is);
    undecided  otherwise, and always with fewer than `min_rounds` rounds: measure another round and
               ask again. Its message says which reason it was: the control's median falls short
               too (a busy machine holds both back), the control's interval reaches below the need
               too (unsteady rounds), or only the learner's interval straddles it.

    The message shows both medians, e.g. "speedup 1.02× (interval 0.98–1.05, 3 rounds); the
    reference's 1.81× in the same rounds: yours stays below 1.50× where the reference does not".
    `measured` names the value and `of` what the × is relative to ("throughput 0.33× of
    1 / slowest stage"). A control of 0 counts as a relative value of 0. `busy_next_step` replaces
    the closing "close other programs and check again" of a too-busy verdict and leads it instead
    (a long message is cut at its end).

    `keeps_pace` (e.g. 0.8) adds a paired way to pass, for a speed whose rounds swing together (a
    spawn pool on two cores: 1.1× one round, 1.6× the next, for the learner and the reference
    alike): the control's median reaches `need`, and learner / control, round by round, lies
    wholly at or above `keeps_pace` (non-inferior to a control that does what is asked). What one
    round's machine did to both cancels in the ratio, so it decides where the learner's own
    interval still straddles the need.
    """
    if len(learner) != len(control):
        raise ValueError(
            f"{len(learner)} learner values but {len(control)} control values: one each per round"
        )
    if not learner:
        raise ValueError("no rounds measured")
    if not (need > 0 and math.isfinite(need)):
        raise ValueError(f"need must be a positive number, not {need!r}")
    rounds = len(learner)
    median, low, high = median_interval(learner)
    control_median, control_low, control_high = median_interval(control)
    relative = [mine / theirs if theirs > 0 else 0.0 for mine, theirs in zip(learner, control, strict=True)]
    relative_median, relative_low, relative_high = median_interval(relative)
    # "the reference's 1.16×" next to "needs 1.16×" reads as a contradiction when the two differ
    # below the second decimal: then both get a third
    places = 3 if f"{control_median:.2f}" == f"{need:.2f}" and control_median != need else 2
    scale = say(f" of {of}", f" ({of} 대비)") if of else ""
    shown = say(
        f"{measured} {median:.2f}×{scale} (interval {low:.2f}–{high:.2f}, {rounds} rounds); "
        f"the reference's {control_median:.{places}f}× in the same rounds",
        f"{measured} {median:.2f}×{scale} (구간 {low:.2f}–{high:.2f}, {rounds} round); "
        f"같은 round에서 참고 답안은 {control_median:.{places}f}×",
    )
    if rounds < min_rounds:
        return UNDECIDED, say(
            f"{shown}: {min_rounds} rounds are needed to decide",
            f"{shown}: 판정하려면 {min_rounds} round가 필요합니다",
        )
    if low >= need:
        return PASSED, say(
            f"{shown}: at least {need:.{places}f}× as required",
            f"{shown}: 요구한 {need:.{places}f}× 이상입니다",
        )
    if keeps_pace is not None and control_median >= need and relative_low >= keeps_pace:
        return PASSED, say(
            f"{shown}, which reaches {need:.{places}f}× as required; yours keeps pace with it, "
            f"{relative_low:.2f}–{relative_high:.2f}× of it round by round (at least {keeps_pace:.2f}×: "
            "what the machine did to a round, it did to both)",
            f"{shown}, 요구한 {need:.{places}f}×에 이릅니다. 여러분의 코드는 round마다 그 "
            f"{relative_low:.2f}–{relative_high:.2f}배로 따라갑니다 ({keeps_pace:.2f}배 이상: 기계가 한 "
            "round에 준 영향은 둘 다 받음)",
        )
    if high < need and control_low >= need:
        return FAILED, say(
            f"{shown}: yours stays below {need:.{places}f}× where the reference does not",
            f"{shown}: 참고 답안은 {need:.{places}f}×에 이르는데 여러분의 코드는 그 아래에 머뭅니다",
        )
    if relative_high < relative_floor:
        return FAILED, say(
            f"{shown}: yours is {relative_median:.2f}× the reference's {measured}",
            f"{shown}: 여러분의 {measured}는 참고 답안의 {relative_median:.2f}배입니다",
        )
    # Undecided: say which of the three reasons it was, from the numbers shown (never "the
    # reference falls short" next to a reference whose median clears the need).
    if control_median < need:
        busy = say(
            f"{shown}: needs {need:.{places}f}×, and the machine is too busy to tell (the reference falls short too)",
            f"{shown}: {need:.{places}f}×가 필요한데 기계가 너무 바빠 판단할 수 없습니다 (참고 답안도 못 미침)",
        )
    elif control_low < need:
        busy = say(
            f"{shown}: needs {need:.{places}f}×; the rounds vary too much to tell (the reference's interval "
            f"{control_low:.2f}–{control_high:.2f} reaches below it too, so this machine is not steady now)",
            f"{shown}: {need:.{places}f}×가 필요한데 round마다 너무 달라 판단할 수 없습니다 (참고 답안의 구간 "
            f"{control_low:.2f}–{control_high:.2f}도 그 아래로 내려가 지금 이 기계가 고르지 않습니다)",
        )
    else:
        busy = say(
            f"{shown}: needs {need:.{places}f}×; yours varies across it (interval {low:.2f}–{high:.2f}) while the "
            f"reference's stays above, and the rounds ran out before it could tell",
            f"{shown}: {need:.{places}f}×가 필요한데 여러분의 값이 그 위아래를 오가고 (구간 {low:.2f}–{high:.2f}) "
            "참고 답안은 위에 머뭅니다. 판단하기 전에 round가 다 떨어졌습니다",
        )
    if control_low >= need:  # the machine did it: only the learner's rounds are unclear
        return UNDECIDED, busy + say("; check again", "; 다시 검사하세요")
    if busy_next_step:
        return UNDECIDED, f"{busy_next_step[0].upper()}{busy_next_step[1:]}: {busy}"
    return UNDECIDED, busy + say(
        "; close other programs and check again", "; 다른 프로그램을 닫고 다시 검사하세요"
    )


def control_still_open(
    learner: Sequence[float],
    control: Sequence[float],
    need: float,
    max_rounds: int,
    *,
    relative_floor: float = RELATIVE_FLOOR,
    margin: float = 0.05,
    keeps_pace: float | None = None,
) -> bool:
    """Could more rounds, up to `max_rounds` in all, still make `decide_with_control` pass or fail?
    False when no values the rounds left could bring would do it: stop measuring, the verdict is
    undecided whatever comes (its message then gives the reason, as after the last round).

    At `max_rounds` the intervals run from the k-th smallest to the k-th largest value
    (`interval_rank`, largest there). Passing needs the learner's k-th smallest at or above `need`:
    impossible once k values lie below it. Failing needs the learner's k-th largest below `need`
    while the control's k-th smallest is at or above it, or the k-th largest of learner / control
    below `relative_floor`. A value within `margin` of `need` counts as either side, because a
    checker may compute `need` from the rounds themselves (the concurrency checker's pool cost).
    With `keeps_pace`, its paired pass stays possible while fewer than k rounds of learner /
    control lie below it (the medians can still move either way).
    """
    k = interval_rank(max(max_rounds, len(learner)))
    low, high = need * (1 - margin), need * (1 + margin)
    if sum(value < low for value in learner) < k:
        return True  # k higher rounds to come could still lift the learner's interval above need
    if sum(value >= high for value in learner) < k and sum(value < low for value in control) < k:
        return True  # lower rounds to come could still put the learner below a control above need
    relative = [mine / theirs if theirs > 0 else 0.0 for mine, theirs in zip(learner, control, strict=True)]
    if keeps_pace is not None and sum(value < keeps_pace for value in relative) < k:
        return True  # every round so far, bar fewer than k, kept pace with the reference
    return sum(value >= relative_floor for value in relative) < k


def compare_speed(
    candidate: FunctionSpec,
    reference: FunctionSpec,
    threshold_ratio: float,
    max_rounds: int = 21,
    quick: bool = False,
    *,
    workspace: str | os.PathLike[str] | None = None,
    min_rounds: int = 5,
    sample_s: float | None = None,
    budget_s: float | None = None,
    timeout_s: float | None = None,
    env: dict[str, str] | None = None,
) -> SpeedVerdict:
    """Is `candidate` at most `threshold_ratio` × `reference`'s time per call? Measured in one child
    process, in interleaved rounds (ABBA order, so a drift of the machine hits both alike).

    Each round times each function over enough calls to last ~`sample_s` and takes the ratio. After
    `min_rounds`, the check stops as soon as the median ratio's confidence interval is clear of the
    threshold; `undecided` when `max_rounds` or `budget_s` seconds run out first. `--quick`
    shortens samples and the budget (CI), not the rule.
    """
    if not (threshold_ratio > 0 and math.isfinite(threshold_ratio)):
        raise ValueError(f"threshold_ratio must be a positive number, not {threshold_ratio!r}")
    sample = sample_s if sample_s is not None else (0.02 if quick else 0.05)
    budget = budget_s if budget_s is not None else (8.0 if quick else 30.0)
    rounds_cap = max(1, min(max_rounds, 11) if quick else max_rounds)
    folder = Path(workspace) if workspace is not None else Path.cwd()
    request = {
        "mode": "call",
        "call": _measure_speed,
        "candidate": candidate,
        "reference": reference,
        "threshold": threshold_ratio,
        "max_rounds": rounds_cap,
        "min_rounds": min_rounds,
        "sample_s": sample,
        "budget_s": budget,
    }
    limit = timeout_s if timeout_s is not None else budget * 2 + 30
    result = _run_child(folder, request, limit, env)
    if not result.ok:
        return SpeedVerdict(
            None,
            None,
            None,
            None,
            0,
            FAILED,
            result.error or "the timed code did not run",
            threshold_ratio,
            traceback=result.traceback,
        )
    data = result.value
    return SpeedVerdict(**data)


def _measure_speed(workspace: str, request: dict[str, Any]) -> dict[str, Any]:
    """In the child: calibrate both callables, run the rounds, decide."""
    threshold = float(request["threshold"])
    callables = []
    for spec in (request["candidate"], request["reference"]):
        function = _load_function(workspace, spec.path, spec.function)
        timed = function(*spec.args, **spec.kwargs) if spec.prepare else _bind(function, spec)
        if not callable(timed):
            raise _LearnerProblem(f"{spec.function}() should return the function to time")
        timed()  # warm up: imports, caches, first-call effects are not what is compared
        callables.append(timed)
    sample = float(request["sample_s"])
    loops = [_calibrate(timed, sample) for timed in callables]
    deadline = time.monotonic() + float(request["budget_s"])
    ratios: list[float] = []
    candidate_times: list[float] = []
    reference_times: list[float] = []
    decision = UNDECIDED
    median = low = high = spread = None
    ran_out = "rounds"
    for round_index in range(int(request["max_rounds"])):
        order = (0, 1) if round_index % 2 == 0 else (1, 0)
        per_call = [0.0, 0.0]
        for which in order:
            per_call[which] = _time_loops(callables[which], loops[which]) / loops[which]
        candidate_times.append(per_call[0])
        reference_times.append(per_call[1])
        ratios.append(per_call[0] / max(per_call[1], 1e-12))
        decision, median, low, high, spread = decide_ratio(
            ratios, threshold, min_rounds=int(request["min_rounds"])
        )
        if decision != UNDECIDED:
            break
        if time.monotonic() > deadline:
            ran_out = "time"
            break
    rounds = len(ratios)
    few = rounds < int(request["min_rounds"])
    if decision == UNDECIDED and few:
        decision = decide_few(ratios, threshold)
    assert median is not None and low is not None and high is not None and spread is not None
    shown = say(
        f"{median:.2f}× the reference's time (±{spread:.2f}, {rounds} rounds)",
        f"참고 답안 시간의 {median:.2f}배 (±{spread:.2f}, {rounds} round)",
    )
    if decision != UNDECIDED and few:
        shown = say(
            f"{median:.2f}× the reference's time (every one of {rounds} rounds beyond it by {GROSS_MARGIN:g}×)",
            f"참고 답안 시간의 {median:.2f}배 ({rounds} round 모두 기준에서 {GROSS_MARGIN:g}배 넘게 벗어남)",
        )
    if decision == PASSED:
        message = say(
            f"{shown}: at most {threshold:g}× as required", f"{shown}: 요구한 {threshold:g}배 이하입니다"
        )
    elif decision == FAILED:
        message = say(f"{shown}: needs at most {threshold:g}×", f"{shown}: {threshold:g}배 이하여야 합니다")
    elif few:
        message = say(
            f"{shown}: only {rounds} rounds fit in the budget, {request['min_rounds']} are needed "
            "to tell your code from the noise: the machine is busy or your code is slow; check again",
            f"{shown}: 시간 안에 {rounds} round만 돌았는데, 여러분의 코드를 잡음과 구별하려면 "
            f"{request['min_rounds']} round가 필요합니다: 기계가 바쁘거나 코드가 느립니다; 다시 검사하세요",
        )
    else:
        why = (
            say("the time budget", "시간 예산을 다 쓴")
            if ran_out == "time"
            else say(f"{rounds} rounds", f"{rounds} round")
        )
        message = say(
            f"{shown}: too close to {threshold:g}× to call after {why}; "
            "the machine is busy or your code is near the limit: check again",
            f"{shown}: {why} 뒤에도 {threshold:g}배에 너무 가까워 판정할 수 없습니다; "
            "기계가 바쁘거나 코드가 한계 근처입니다: 다시 검사하세요",
        )
    return {
        "ratio": median,
        "spread": spread,
        "low": low,
        "high": high,
        "rounds": rounds,
        "decision": decision,
        "message": message,
        "threshold": threshold,
        "candidate_s": statistics.median(candidate_times),
        "reference_s": statistics.median(reference_times),
    }


def _bind(function: Any, spec: FunctionSpec) -> Any:
    args, kwargs = spec.args, spec.kwargs
    return lambda: function(*args, **kwargs)


def _calibrate(timed: Any, sample_s: float) -> int:
    """How many calls make one sample last about `sample_s` (at least one call)."""
    loops = 1
    while True:
        elapsed = _time_loops(timed, loops)
        if elapsed >= sample_s * 0.2 or loops >= 1_000_000:
            break
        loops *= 10
    per_call = max(elapsed / loops, 1e-9)
    return max(1, min(1_000_000, round(sample_s / per_call)))


def _time_loops(timed: Any, loops: int) -> float:
    clock = time.perf_counter
    started = clock()
    for _ in range(loops):
        timed()
    return clock() - started
