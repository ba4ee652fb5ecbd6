"""Checker of the pipeline exercise: a threaded 3-stage pipeline, its bottleneck found and relieved.

1. correctness: every item passes load → transform → save exactly once, with one thread per stage
   and with several; the slow stage really runs its threads at once (the probe in the stage work
   counts threads inside it), and no stage runs more threads than asked;
2. find: the learner's busy_s measures the time inside work() (in every run: the correctness runs
   too, where a stage starves on every item) and, on planted costs, bottleneck() names the slow
   stage. transform runs 2 threads and has the largest cost; the slow stage per thread is load or
   save, drawn at random, so only busy_s / workers finds it;
3. relieve: relieve(report, 6) gives the allocation whose 1 / max(cost / workers) is the best;
4. speed: with costs (3, 15, 5) ms on (1, 3, 2) threads theory says 1 / 5 ms = 200 items/s. The
   learner's pipeline and the reference (solution/pipeline.py) are measured in alternating rounds;
   labs._exercise.decide_with_control decides (the reference is the control).
"""

from __future__ import annotations

import ast
import itertools
import random
import sys
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import (
    UNDECIDED,
    Checker,
    LearnerResult,
    decide_with_control,
    parse_args,
    run_learner,
    say,
    short_repr,
)

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pipeline_driver.py"
NAMES = ("load", "transform", "save")
SPEED_COSTS = [0.003, 0.015, 0.005]
SPEED_WORKERS = [1, 3, 2]
OVERLAP = "the stages work at the same time (a pipeline)"
NEED = 0.8  # measured throughput must reach this share of 1 / slowest stage
THREADS = 6
GENERATED = "run_pipeline agrees with the reference on generated pipelines"
# Stage names by pipeline length, for the generated pipelines and reports (the README's three, and
# shorter and longer pipelines: nothing in run_pipeline, bottleneck or relieve is about three).
STAGE_NAMES = {1: ("load",), 2: ("load", "save"), 3: NAMES, 4: ("load", "decode", "transform", "save")}
LONG = 300  # stages of the longest generated pipeline: past CPython's small-int cache (-5..256)


def stage_names(count: int) -> list[str]:
    return list(STAGE_NAMES.get(count) or (f"stage{k}" for k in range(1, count + 1)))


HANG_HINT = (
    " — threads may be waiting forever on queue.get(): does every thread of every stage get its own "
    "_DONE, sent only after the last thread of the stage before it has finished?"
)
HANG_HINT_KO = (
    " — 스레드가 queue.get()에서 끝없이 기다리고 있을 수 있습니다: 모든 단계의 스레드마다 자기 몫의 "
    "_DONE을 받나요? 그 _DONE은 앞 단계의 마지막 스레드가 끝난 뒤에만 보내나요?"
)


def predicted(costs: list[float], workers: list[int]) -> float:
    """Pipeline theory: items per second = 1 / max(cost / workers)."""
    return 1.0 / max(c / w for c, w in zip(costs, workers, strict=True))


def predicted_end_to_end(costs: list[float], workers: list[int], items: int) -> float:
    """Items per second from the first item in to the last out: the first item crosses every stage
    (the fill), then one more leaves every 1 / rate seconds."""
    return items / (sum(costs) + (items - 1) / predicted(costs, workers))


def best_allocation(costs: list[float], threads: int) -> tuple[list[int], float]:
    best: tuple[list[int], float] = ([1] * len(costs), 0.0)
    for split in itertools.product(range(1, threads + 1), repeat=len(costs)):
        if sum(split) <= threads and predicted(costs, list(split)) > best[1] + 1e-12:
            best = (list(split), predicted(costs, list(split)))
    return best


def ran_or_explain(check: Checker, name: str, result: LearnerResult) -> bool:
    if result.timed_out:
        return check.requirement(
            name, False, (result.error or say("timed out", "시간 초과")) + say(HANG_HINT, HANG_HINT_KO)
        )
    return check.require_ran(name, result)


BusyEvidence = tuple[str, dict[str, float], dict[str, float]]  # (run, learner's busy_s, probe's)


def busy_problem(evidence: list[BusyEvidence]) -> str:
    """The first stage whose busy_s is off the time the probe measured inside work(), or "".

    The learner's busy_s wraps the same calls the probe times, so it should agree (sleep overshoot
    on a busy machine is in both). Time spent waiting in get()/put() is not work: it shows only in a
    stage that starves, so every run is compared — in the one-thread run save (1 ms) waits for
    transform (2 ms) on every item; in the planted run a stage starves only when load is the slow one.
    """
    for run, theirs, seen in evidence:
        for stage in NAMES:
            mine = theirs.get(stage, 0.0)
            if not 0.9 * seen[stage] <= mine <= 1.25 * seen[stage] + 0.002:
                return say(
                    f"busy_s[{stage!r}] = {mine:.3f} s, but the work itself took {seen[stage]:.3f} s ({run}): "
                    "time only the work() call, not the waiting in get()/put()",
                    f"busy_s[{stage!r}] = {mine:.3f} s인데 작업 자체는 {seen[stage]:.3f} s 걸렸습니다 ({run}): "
                    "get()/put()에서 기다린 시간은 빼고 work() 호출만 재세요",
                )
    return ""


def too_few_inside(most: int, workers: int, mean_gap_s: dict[str, float | None], cost: float) -> str:
    """Why fewer transform threads than asked were inside work() at once, from what the probe saw:
    how long a thread stayed out of work() between two of its items. Next to nothing is too few
    threads; a good part of work()'s own time is something between the items (a lock held around
    work(), a sleep, other work), which this cannot tell apart, so it names them all."""
    seen = say(
        f"at most {most} item(s) inside transform at once, with workers[1] = {workers}",
        f"workers[1] = {workers}인데 transform 안에 동시에 있던 item은 많아야 {most}개였습니다",
    )
    start_threads = say(": start workers[i] threads per stage", ": 단계마다 스레드 workers[i]개를 시작하세요")
    gap = mean_gap_s.get("transform")
    if gap is None:
        return seen + start_threads
    seen += say(
        f"; a transform thread spent {gap * 1e3:.1f} ms outside work() between two items on average "
        f"(work() takes {cost * 1e3:.1f} ms)",
        f". transform 스레드가 두 item 사이에 work() 밖에서 평균 {gap * 1e3:.1f} ms를 보냈습니다 "
        f"(work()는 {cost * 1e3:.1f} ms 걸립니다)",
    )
    if gap < cost / 4:
        return seen + start_threads
    return seen + say(
        ": something keeps the threads out of work(), such as a lock held while work() runs, "
        "or sleeping or other work after each item",
        ": 무언가가 스레드를 work() 밖에 붙잡아 둡니다. 예를 들어 work()가 도는 동안 잡고 있는 lock, "
        "또는 item마다 자기(sleep)나 다른 일",
    )


def generated_pipelines() -> list[dict[str, Any]]:
    """Small pipelines, smallest first: no item, one item, more threads than items (300 in one
    stage), one to four stages and 300, the threads spread in different orders; then three worker
    lists the reference refuses. Work takes well under a millisecond, so all of them run in a
    fraction of a second."""
    shapes = [
        (0, [1, 1, 1]),
        (1, [1]),
        (1, [1, 1]),
        (1, [1, 1, 1]),
        (1, [2, 3, 2]),
        (2, [1]),
        (2, [4, 4, 4]),
        (2, [1, LONG, 1]),  # past the small-int cache: a count compared with `is` never matches
        (1, [1] * LONG),  # and lengths and indexes past it
        (2, [1, 1, 1, 1]),
        (3, [3]),
        (4, [1, 2]),
        (4, [2, 1]),
        (5, [3, 1, 2]),
        (6, [1, 2, 3, 1]),
        (7, [2, 1, 1, 3]),
    ]
    costs = [0.0004, 0.0008, 0.0003, 0.0006]
    valid = [
        {"stages": stage_names(len(w)), "workers": w, "items": n, "costs": (costs + [0.0] * len(w))[: len(w)]}
        for n, w in sorted(shapes, key=lambda shape: (shape[0], len(shape[1]), sum(shape[1])))
    ]
    # then workers the pipeline cannot run: a stage with no thread, one count short, one too many
    refused = [
        {"stages": list(NAMES), "workers": workers, "items": 3, "costs": costs[:3]}
        for workers in ([1, 0, 1], [1, 1], [1, 1, 1, 1])
    ]
    return valid + refused


def pipeline_text(case: dict[str, Any]) -> str:
    stages, workers = shortened(case["stages"]), shortened(case["workers"])
    # the driver's items say they equal anything (pipeline_driver.Eager): said, so an answer that
    # lost them can be read against what went in
    return say(
        f"{case['items']} item(s) (each == anything) through {stages} on {workers} thread(s)",
        f"item {case['items']}개(각각 무엇과도 ==), 단계 {stages}, 스레드 {workers}",
    )


def shortened(values: list[Any]) -> str:
    """A list as written, or its ends and its length when it is the 300-stage pipeline's."""
    return str(values) if len(values) <= 4 else f"[{values[0]!r}, …, {values[-1]!r}] ({len(values)})"


def generated_problem(case: dict[str, Any], result: dict[str, Any]) -> str:
    """What the learner's report on one generated pipeline gets wrong next to the reference's, or "";
    with the exception one of their stage threads raised, when one did (the cause the checker saw)."""
    problem = report_mismatch(case, result)
    if not problem or "thread_error" not in result:
        return problem
    raised = result["thread_error"]["error"]
    return problem + say(
        f", after a thread raised {raised.removeprefix('your code raised ')}",
        f" (스레드 하나가 예외를 냈습니다: {raised.removeprefix('여러분의 코드가 예외를 냈습니다: ')})",
    )


def report_mismatch(case: dict[str, Any], result: dict[str, Any]) -> str:
    on = pipeline_text(case)
    hung = say(
        f"did not finish within {result['timeout_s']:.0f} s",
        f"{result['timeout_s']:.0f}초 안에 끝나지 않았습니다",
    )
    expected = result["expected"]
    if "raises" in expected:  # workers the reference refuses: one count per stage, none below 1
        wanted = expected["raises"]
        if result.get("error", {}).get("type") == wanted and not result["worked"]:
            return ""
        if result.get("error", {}).get("type") == wanted:  # refused, but only after the work
            return say(
                f"on {on}: {wanted} only after the stages had worked; the reference refuses these "
                "workers before any work",
                f"{on}에서: 단계들이 일한 뒤에야 {wanted}; 참고 답안은 일을 시작하기 전에 이 workers를 거절합니다",
            )
        theirs = (
            hung
            if result["status"] == "hung"
            else result["error"]["error"]
            if "error" in result
            else say("returned a report", "보고서를 돌려주었습니다")
        )
        return say(
            f"on {on}: {theirs}; the reference raises {wanted} for these workers",
            f"{on}에서: {theirs}; 참고 답안은 이 workers에 {wanted}를 냅니다",
        )
    if result["status"] == "hung":
        # the usual cause, unless a thread's own exception (added by generated_problem) is the one seen
        hint = "" if "thread_error" in result else say(HANG_HINT, HANG_HINT_KO)
        return say(f"on {on}: {hung}", f"{on}에서: {hung}") + hint
    if "error" in result:
        return say(f"on {on}: {result['error']['error']}", f"{on}에서: {result['error']['error']}")
    mine = result["report"]
    checks = (
        ("outputs", sorted(mine["outputs"]), sorted(expected["outputs"])),
        ("items", mine["items"], expected["items"]),
        ("workers", mine["workers"], expected["workers"]),
        ("busy_s stages", sorted(mine["busy_s"]), sorted(expected["busy_s"])),
    )
    for field, answer, wanted in checks:
        if answer != wanted:
            return say(
                f"on {on}: {field} {short_repr(answer)}, the reference's {short_repr(wanted)}",
                f"{on}에서: {field} {short_repr(answer)}, 참고 답안은 {short_repr(wanted)}",
            )
    low = result["worked"][1] - result["worked"][0] if result["worked"] else 0.0
    high = result["called"][1] - result["called"][0]
    if not low - 1e-6 <= mine["wall_s"] <= high + 1e-6:
        return say(
            f"on {on}: wall_s = {mine['wall_s']:.6f} s, but the stages worked for {low:.6f} s and the call "
            f"took {high:.6f} s: wall_s is the time run_pipeline took",
            f"{on}에서: wall_s = {mine['wall_s']:.6f} s인데 단계들이 일한 시간은 {low:.6f} s, 호출 전체는 "
            f"{high:.6f} s였습니다: wall_s는 run_pipeline이 걸린 시간입니다",
        )
    return ""


def check_generated_pipelines(check: Checker, workspace: str, quick: bool) -> None:
    cases = generated_pipelines()
    check.progress(
        say(
            f"running your pipeline and the reference on {len(cases)} generated pipelines",
            f"만들어 낸 파이프라인 {len(cases)}개로 여러분의 파이프라인과 참고 답안 실행 중",
        )
    )
    result = run_learner(workspace, DRIVER, "run_generated", cases, timeout_s=20 if quick else 40)
    if not ran_or_explain(check, GENERATED, result):
        return
    problem = ""
    for case, ran in zip(cases, result.value, strict=False):
        problem = generated_problem(case, ran)
        if problem:
            raised = ran.get("error") or ran.get("thread_error") or {}
            if check.learner_traceback is None and raised.get("traceback"):
                check.learner_traceback = raised["traceback"]
            break
    check.require(
        GENERATED,
        not problem,
        say(
            f"{len(cases)} pipelines (0 to 7 items, 1 to 4 stages, 3 with workers it cannot run): the same "
            "items out, items, workers and stages in busy_s as the reference's, wall_s within the call, "
            "ValueError before any work where the reference raises it",
            f"파이프라인 {len(cases)}개 (item 0–7개, 단계 1–4개, 돌릴 수 없는 workers 3개): 참고 답안과 같은 "
            "item, items, workers, busy_s의 단계; wall_s는 호출 시간 안; 참고 답안처럼 일하기 전에 ValueError",
        ),
        problem,
    )


def correctness(check: Checker, workspace: str, quick: bool) -> list[BusyEvidence] | None:
    """The correctness runs; None when one did not run right, else their busy_s evidence."""
    evidence: list[BusyEvidence] = []
    items = 24 if quick else 40
    expected = [(i, NAMES) for i in range(items)]
    for workers, costs in (([1, 1, 1], [0.001, 0.002, 0.001]), ([2, 3, 2], [0.002, 0.006, 0.003])):
        label = "one thread per stage" if workers == [1, 1, 1] else f"{workers} threads"
        shown_label = say(label, "단계마다 스레드 1개" if workers == [1, 1, 1] else f"스레드 {workers}")
        check.progress(
            say(f"running your pipeline with {label}", f"{shown_label}로 여러분의 파이프라인 실행 중")
        )
        result = run_learner(
            workspace, DRIVER, "run_once", costs, workers, items, timeout_s=10 if quick else 30
        )
        name = f"every item passes load → transform → save once ({label})"
        if not ran_or_explain(check, name, result):
            return None
        outputs = sorted(result.value["report"]["outputs"])
        if not check.require(
            name,
            outputs == expected,
            say(
                f"{items} items out, each through the three stages",
                f"item {items}개가 모두 세 단계를 하나씩 거쳐 나왔습니다",
            ),
            say(
                f"{len(outputs)} of {items} items came out",
                f"item {items}개 중 {len(outputs)}개가 나왔습니다",
            )
            + (
                say(
                    f"; e.g. item {outputs[0][0]} went through {outputs[0][1]}",
                    f". 예: item {outputs[0][0]}이 거친 단계는 {outputs[0][1]}입니다",
                )
                if outputs and outputs[0] != expected[0]
                else ""
            ),
        ):
            return None
        evidence.append((shown_label, result.value["report"]["busy_s"], result.value["probe_busy_s"]))
        most = result.value["most_inside"]
        if workers != [1, 1, 1]:
            check.require(
                "the slow stage runs its threads at the same time",
                most["transform"] == workers[1],
                say(
                    f"at most {most['transform']} items inside transform at once ({workers[1]} threads)",
                    f"transform 안에 동시에 최대 item {most['transform']}개 (스레드 {workers[1]}개)",
                ),
                too_few_inside(most["transform"], workers[1], result.value.get("mean_gap_s", {}), costs[1]),
            )
        too_many = [(n, most[n], w) for n, w in zip(NAMES, workers, strict=True) if most[n] > w]
        problem = ""
        if too_many:
            stage, seen, asked = too_many[0]
            problem = say(
                f"{stage} had {seen} items inside at once, with only {asked} thread(s) asked",
                f"{stage} 안에 item {seen}개가 동시에 있었습니다. 요청한 스레드는 {asked}개뿐입니다",
            )
        check.requirement(
            f"no stage runs more threads than asked ({label})",
            not problem,
            problem
            or say(
                f"threads inside each stage at once: {most}", f"단계마다 동시에 안에 있던 스레드 수: {most}"
            ),
        )
    return evidence


def find_and_relieve(check: Checker, workspace: str, rng: random.Random, earlier: list[BusyEvidence]) -> None:
    # transform gets 2 threads and the largest cost of all, but per thread the planted slow stage
    # (load or save, drawn at random) is slower: only busy_s / workers finds it.
    slow = rng.choice(["load", "save"])
    costs = [
        rng.uniform(0.010, 0.013)
        if name == slow
        else rng.uniform(0.015, 0.019)
        if name == "transform"
        else rng.uniform(0.0025, 0.005)
        for name in NAMES
    ]
    workers = [1, 2, 1]
    items = 24
    shown = say(
        ", ".join(
            f"{n} {c * 1e3:.1f} ms × {w} thread(s)" for n, c, w in zip(NAMES, costs, workers, strict=True)
        ),
        ", ".join(
            f"{n} {c * 1e3:.1f} ms × 스레드 {w}개" for n, c, w in zip(NAMES, costs, workers, strict=True)
        ),
    )
    check.progress(
        say(
            f"planting a slow stage and running your pipeline ({shown})",
            f"느린 단계를 심고 여러분의 파이프라인 실행 중 ({shown})",
        )
    )
    result = run_learner(workspace, DRIVER, "find_and_relieve", costs, workers, items, THREADS, timeout_s=30)
    if not ran_or_explain(check, "your pipeline runs on planted stage costs", result):
        return
    report = result.value["report"]
    planted = say("planted costs", "심어 둔 비용")
    problem = busy_problem([(planted, report["busy_s"], result.value["probe_busy_s"]), *earlier])
    check.requirement(
        "busy_s is the time spent inside work()",
        not problem,
        problem
        or say("busy_s matches the time inside work(): ", "busy_s가 work() 안의 시간과 맞습니다: ")
        + ", ".join(f"{n} {report['busy_s'][n]:.3f} s" for n in NAMES if n in report["busy_s"]),
    )
    reports = generated_reports()
    judged = run_learner(workspace, DRIVER, "judge_reports", reports, timeout_s=20)
    for key, name in (
        ("bottleneck", "bottleneck() names the slowest stage"),
        ("relieve", "relieve() spends the threads on the bottleneck"),
    ):
        answer = result.value[key]
        if "error" in answer:
            if check.learner_traceback is None:
                check.learner_traceback = answer.get("traceback")
            check.requirement(name, False, answer["error"])
            continue
        # the planted run first (its message names the planted costs), then the generated reports
        extra = report_problem(check, key, judged)
        generated_ok = say(
            f"; as good as the reference's on {len(reports)} generated reports",
            f"; 만들어 낸 보고서 {len(reports)}개에서 참고 답안만큼 좋은 답",
        )
        if key == "bottleneck":
            planted_ok = answer["value"] == slow
            check.require(
                name,
                planted_ok and not extra,
                say(f"{slow!r} (planted: {shown})", f"{slow!r} (심어 둔 비용: {shown})") + generated_ok,
                extra
                if planted_ok
                else say(
                    f"you said {answer['value']!r}, but the planted costs were {shown}: a stage with more threads "
                    "shares its busy time among them; compare busy_s / workers",
                    f"여러분이 고른 단계는 {answer['value']!r}, 하지만 심어 둔 비용은 {shown}였습니다: 스레드가 많은 단계는 "
                    "busy 시간을 스레드끼리 나눠 가집니다. busy_s / workers를 비교하세요",
                ),
            )
            continue
        workers = answer["value"]
        best, best_rate = best_allocation(costs, THREADS)
        valid = (
            len(workers) == 3
            and all(isinstance(w, int) and w >= 1 for w in workers)
            and sum(workers) <= THREADS
        )
        rate = predicted(costs, workers) if valid else 0.0
        planted_ok = valid and rate >= 0.95 * best_rate
        check.require(
            name,
            planted_ok and not extra,
            say(
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s (best {best_rate:.0f}, "
                f"one thread each {predicted(costs, [1, 1, 1]):.0f})",
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s (최선 {best_rate:.0f}, "
                f"단계마다 스레드 1개면 {predicted(costs, [1, 1, 1]):.0f})",
            )
            + generated_ok,
            extra
            if planted_ok
            else say(
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s, but {best} gives "
                f"{best_rate:.0f}: give each extra thread to the stage that is the bottleneck at that moment",
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s인데 {best}이면 "
                f"{best_rate:.0f}입니다: 스레드를 하나 더 줄 때마다 그 순간 병목인 단계에 주세요",
            )
            if valid
            else say(
                f"relieve(report, {THREADS}) = {workers!r}: expected 3 numbers ≥ 1 adding up to at most {THREADS}",
                f"relieve(report, {THREADS}) = {workers!r}: 1 이상인 숫자 3개, 합이 {THREADS} 이하여야 합니다",
            ),
        )


def generated_reports() -> list[dict[str, Any]]:
    """Reports for bottleneck() and relieve(), smallest first (stages, items, threads): the edges —
    one stage, no item, one item, ties, the slow stage first, in the middle and last (hidden by
    another stage's larger total), more than a second per item, no thread to spare, two and four
    stages — then seeded random ones, the same every run."""
    edges: list[tuple[int, int, list[float], list[int], int]] = [
        (1, 4, [0.02], [1], 1),
        (1, 4, [0.02], [2], 5),
        (3, 0, [0.0, 0.0, 0.0], [1, 1, 1], 6),
        (3, 1, [0.003, 0.015, 0.005], [1, 3, 2], 6),
        (3, 10, [0.2, 0.4, 0.2], [1, 2, 1], 6),
        (3, 10, [0.3, 0.3, 0.1], [1, 1, 1], 4),
        (3, 10, [0.12, 0.3, 0.05], [1, 3, 1], 6),
        (3, 10, [0.05, 0.2, 0.04], [1, 1, 1], 6),
        (3, 10, [0.04, 0.2, 0.11], [1, 3, 1], 6),
        (3, 10, [30.0, 12.0, 4.0], [1, 1, 1], 9),
        (3, 20, [0.0021, 0.0029, 0.0004], [2, 1, 1], 3),
        (2, 3, [0.9, 0.3], [1, 1], 5),
        (4, 8, [0.04, 0.1, 0.3, 0.08], [1, 2, 3, 1], 10),
    ]
    rng = random.Random(31)
    generated = []
    for _ in range(40):
        count, items = rng.randint(1, 4), rng.randint(1, 60)
        busy = [round(items * 10 ** rng.uniform(-4, 0.7), 6) for _ in range(count)]
        generated.append(
            (count, items, busy, [rng.randint(1, 4) for _ in range(count)], count + rng.randint(0, 8))
        )
    return [
        {
            "stages": stage_names(count),
            "items": items,
            "busy_s": busy,
            "workers": workers,
            "threads": threads,
        }
        for count, items, busy, workers, threads in sorted(
            edges + generated, key=lambda case: (case[0], case[1], case[4])
        )
    ]


def report_text(case: dict[str, Any]) -> str:
    busy = {name: round(b, 6) for name, b in zip(case["stages"], case["busy_s"], strict=True)}
    workers = dict(zip(case["stages"], case["workers"], strict=True))
    return say(
        f"a report of {case['items']} item(s), busy_s {busy}, workers {workers}",
        f"item {case['items']}개, busy_s {busy}, workers {workers}인 보고서",
    )


def report_problem(check: Checker, key: str, judged: LearnerResult) -> str:
    """The first generated report on which the learner's bottleneck() or relieve() does worse than
    the reference's: the report, their answer and the reference's. "" when none does."""
    if not judged.ok:
        return judged.error or say(
            "the generated reports did not run", "만들어 낸 보고서로 실행하지 못했습니다"
        )
    found = judged.value[key]
    if found is None:
        return ""
    case, expected = found["case"], found["expected"]
    on = report_text(case)
    if "raised" in found:
        if check.learner_traceback is None:
            check.learner_traceback = found["raised"].get("traceback")
        return say(f"on {on}: {found['raised']['error']}", f"{on}에서: {found['raised']['error']}")
    if key == "bottleneck":
        per_thread = {
            n: b / w for n, b, w in zip(case["stages"], case["busy_s"], case["workers"], strict=True)
        }
        theirs = found["answer"]
        try:
            named = ast.literal_eval(theirs)
        except (ValueError, SyntaxError):
            named = None
        ratio = (  # the ratio of the stage they named, when they named one
            say(
                f" (busy_s / workers {per_thread[named]:.6g} s)",
                f" (busy_s / workers {per_thread[named]:.6g} s)",
            )
            if isinstance(named, str) and named in per_thread
            else say(", not a stage of the report", ", 보고서의 단계가 아님")
        )
        return say(
            f"on {on}: you said {theirs}{ratio}, the reference {expected!r} "
            f"(busy_s / workers {per_thread[expected]:.6g} s, the largest)",
            f"{on}에서: 여러분은 {theirs}{ratio}, 참고 답안은 {expected!r} "
            f"(busy_s / workers {per_thread[expected]:.6g} s, 가장 큼)",
        )
    per_item = [b / max(case["items"], 1) for b in case["busy_s"]]
    slowest = max(c / w for c, w in zip(per_item, expected, strict=True))
    theirs = split_read(found["answer"], case)
    if theirs is None:  # what was wrong with it, as seen: not a split of these threads
        why = say(
            f"not {len(case['stages'])} whole numbers ≥ 1 adding up to at most {case['threads']}",
            f"1 이상인 정수 {len(case['stages'])}개, 합 {case['threads']} 이하가 아닙니다",
        )
    else:
        mine = max(c / w for c, w in zip(per_item, theirs, strict=True))
        why = say(
            f"its slowest stage takes {mine * 1e3:.6g} ms per item, the reference's {slowest * 1e3:.6g} ms",
            f"가장 느린 단계가 item당 {mine * 1e3:.6g} ms, 참고 답안은 {slowest * 1e3:.6g} ms",
        )
    return say(
        f"on {on}: relieve(report, {case['threads']}) = {found['answer']}, the reference's {expected}: {why}",
        f"{on}에서: relieve(report, {case['threads']}) = {found['answer']}, 참고 답안은 {expected}: {why}",
    )


def split_read(answer: str, case: dict[str, Any]) -> list[int] | None:
    """The learner's split back from its repr when it is one (whole numbers ≥ 1, one per stage, at
    most `threads` in all), else None."""
    try:
        value = ast.literal_eval(answer)
    except (ValueError, SyntaxError):
        return None
    ok = (
        isinstance(value, list)
        and len(value) == len(case["stages"])
        and all(type(w) is int and w >= 1 for w in value)
        and sum(value) <= case["threads"]
    )
    return value if ok else None


def speed(check: Checker, workspace: str, quick: bool) -> None:
    items = 60 if quick else 90
    min_rounds, max_rounds = 3, 7 if quick else 15
    theory = predicted_end_to_end(SPEED_COSTS, SPEED_WORKERS, items)
    check.progress(
        say(
            f"measuring throughput end to end: {items} items, costs 3/15/5 ms on {SPEED_WORKERS} threads, "
            f"theory {theory:.0f} items/s (1 / slowest stage, after the fill), alternating with the reference",
            f"종단 처리량 재는 중: item {items}개, 비용 3/15/5 ms, 스레드 {SPEED_WORKERS}, 이론값 "
            f"{theory:.0f} items/s (1 / 가장 느린 단계, 파이프라인이 찬 뒤), 참고 답안과 번갈아",
        )
    )
    mine: list[float] = []
    theirs: list[float] = []
    decision, message = UNDECIDED, ""
    name = "throughput ≈ 1 / slowest stage (measured)"
    for round_index in range(max_rounds):
        result = run_learner(
            workspace,
            DRIVER,
            "measure_round",
            SPEED_COSTS,
            SPEED_WORKERS,
            items,
            round_index % 2 == 0,
            timeout_s=30,
        )
        if not ran_or_explain(check, name, result):
            return
        if round_index == 0 and not check.require(
            OVERLAP,
            result.value["learner_overlaps"],
            say(
                "the last stage began its first item before the first stage had finished its last",
                "첫 단계가 마지막 item을 끝내기 전에 마지막 단계가 첫 item을 시작했습니다",
            ),
            say(
                "save began only after load had finished every item: the stages ran one after another. "
                "Pass each item on as soon as a stage is done with it (queues between the stages)",
                "save는 load가 모든 item을 끝낸 뒤에야 시작했습니다: 단계들이 차례로 돌았습니다. "
                "단계가 item 하나를 끝내면 바로 넘기세요 (단계 사이에 queue)",
            ),
        ):
            check.requirement(
                name,
                False,
                say(
                    "not measured: without overlap there is no pipeline to time",
                    "재지 않았습니다: 단계가 겹치지 않으면 잴 파이프라인이 없습니다",
                ),
            )
            return
        mine.append(result.value["learner"] / theory)
        theirs.append(result.value["reference"] / theory)
        # In Korean "of theory" goes in front: 이론값 대비 종단 처리량 0.85×
        decision, message = decide_with_control(
            mine,
            theirs,
            NEED,
            min_rounds,
            measured=say("throughput end to end", "이론값 대비 종단 처리량"),
            of=say("theory", ""),
        )
        if decision != UNDECIDED:
            break
    check.decision(name, decision, message)


def main() -> None:
    args = parse_args(description="Check the pipeline exercise")
    quick = bool(args.quick)
    with Checker(args) as check:
        workspace = str(args.workspace)
        evidence = correctness(check, workspace, quick)
        if evidence is None:
            check.stop()
        check_generated_pipelines(check, workspace, quick)
        rng = random.Random(random.SystemRandom().randrange(1_000_000))
        find_and_relieve(check, workspace, rng, evidence)
        speed(check, workspace, quick)


if __name__ == "__main__":
    main()
