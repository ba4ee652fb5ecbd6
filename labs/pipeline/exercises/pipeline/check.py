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

import itertools
import random
import sys
from pathlib import Path

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
)

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pipeline_driver.py"
NAMES = ("load", "transform", "save")
SPEED_COSTS = [0.003, 0.015, 0.005]
SPEED_WORKERS = [1, 3, 2]
OVERLAP = "the stages work at the same time (a pipeline)"
NEED = 0.8  # measured throughput must reach this share of 1 / slowest stage
THREADS = 6
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
        if key == "bottleneck":
            check.require(
                name,
                answer["value"] == slow,
                say(f"{slow!r} (planted: {shown})", f"{slow!r} (심어 둔 비용: {shown})"),
                say(
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
        check.require(
            name,
            valid and rate >= 0.95 * best_rate,
            say(
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s (best {best_rate:.0f}, "
                f"one thread each {predicted(costs, [1, 1, 1]):.0f})",
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s (최선 {best_rate:.0f}, "
                f"단계마다 스레드 1개면 {predicted(costs, [1, 1, 1]):.0f})",
            ),
            say(
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
        rng = random.Random(random.SystemRandom().randrange(1_000_000))
        find_and_relieve(check, workspace, rng, evidence)
        speed(check, workspace, quick)


if __name__ == "__main__":
    main()
