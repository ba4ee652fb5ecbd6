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
        return check.requirement(name, False, (result.error or "timed out") + HANG_HINT)
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
                return (
                    f"busy_s[{stage!r}] = {mine:.3f} s, but the work itself took {seen[stage]:.3f} s ({run}): "
                    "time only the work() call, not the waiting in get()/put()"
                )
    return ""


def too_few_inside(most: int, workers: int, mean_gap_s: dict[str, float | None], cost: float) -> str:
    """Why fewer transform threads than asked were inside work() at once, from what the probe saw:
    how long a thread stayed out of work() between two of its items. Next to nothing is too few
    threads; a good part of work()'s own time is something between the items (a lock held around
    work(), a sleep, other work), which this cannot tell apart, so it names them all."""
    seen = f"at most {most} item(s) inside transform at once, with workers[1] = {workers}"
    gap = mean_gap_s.get("transform")
    if gap is None:
        return seen + ": start workers[i] threads per stage"
    seen += (
        f"; a transform thread spent {gap * 1e3:.1f} ms outside work() between two items on average "
        f"(work() takes {cost * 1e3:.1f} ms)"
    )
    if gap < cost / 4:
        return seen + ": start workers[i] threads per stage"
    return seen + (
        ": something keeps the threads out of work(), such as a lock held while work() runs, "
        "or sleeping or other work after each item"
    )


def correctness(check: Checker, workspace: str, quick: bool) -> list[BusyEvidence] | None:
    """The correctness runs; None when one did not run right, else their busy_s evidence."""
    evidence: list[BusyEvidence] = []
    items = 24 if quick else 40
    expected = [(i, NAMES) for i in range(items)]
    for workers, costs in (([1, 1, 1], [0.001, 0.002, 0.001]), ([2, 3, 2], [0.002, 0.006, 0.003])):
        label = "one thread per stage" if workers == [1, 1, 1] else f"{workers} threads"
        check.progress(f"running your pipeline with {label}")
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
            f"{items} items out, each through the three stages",
            f"{len(outputs)} of {items} items came out"
            + (
                f"; e.g. item {outputs[0][0]} went through {outputs[0][1]}"
                if outputs and outputs[0] != expected[0]
                else ""
            ),
        ):
            return None
        evidence.append((label, result.value["report"]["busy_s"], result.value["probe_busy_s"]))
        most = result.value["most_inside"]
        if workers != [1, 1, 1]:
            check.require(
                "the slow stage runs its threads at the same time",
                most["transform"] == workers[1],
                f"at most {most['transform']} items inside transform at once ({workers[1]} threads)",
                too_few_inside(most["transform"], workers[1], result.value.get("mean_gap_s", {}), costs[1]),
            )
        too_many = [(n, most[n], w) for n, w in zip(NAMES, workers, strict=True) if most[n] > w]
        problem = ""
        if too_many:
            stage, seen, asked = too_many[0]
            problem = f"{stage} had {seen} items inside at once, with only {asked} thread(s) asked"
        check.requirement(
            f"no stage runs more threads than asked ({label})",
            not problem,
            problem or f"threads inside each stage at once: {most}",
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
    shown = ", ".join(
        f"{n} {c * 1e3:.1f} ms × {w} thread(s)" for n, c, w in zip(NAMES, costs, workers, strict=True)
    )
    check.progress(f"planting a slow stage and running your pipeline ({shown})")
    result = run_learner(workspace, DRIVER, "find_and_relieve", costs, workers, items, THREADS, timeout_s=30)
    if not ran_or_explain(check, "your pipeline runs on planted stage costs", result):
        return
    report = result.value["report"]
    problem = busy_problem([("planted costs", report["busy_s"], result.value["probe_busy_s"]), *earlier])
    check.requirement(
        "busy_s is the time spent inside work()",
        not problem,
        problem
        or "busy_s matches the time inside work(): "
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
                f"{slow!r} (planted: {shown})",
                f"you said {answer['value']!r}, but the planted costs were {shown}: a stage with more threads "
                "shares its busy time among them; compare busy_s / workers",
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
            f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s (best {best_rate:.0f}, "
            f"one thread each {predicted(costs, [1, 1, 1]):.0f})",
            (
                f"relieve(report, {THREADS}) = {workers}: 1 / slowest = {rate:.0f} items/s, but {best} gives "
                f"{best_rate:.0f}: give each extra thread to the stage that is the bottleneck at that moment"
            )
            if valid
            else f"relieve(report, {THREADS}) = {workers!r}: expected 3 numbers ≥ 1 adding up to at most {THREADS}",
        )


def speed(check: Checker, workspace: str, quick: bool) -> None:
    items = 60 if quick else 90
    min_rounds, max_rounds = 3, 7 if quick else 15
    theory = predicted_end_to_end(SPEED_COSTS, SPEED_WORKERS, items)
    check.progress(
        f"measuring throughput end to end: {items} items, costs 3/15/5 ms on {SPEED_WORKERS} threads, "
        f"theory {theory:.0f} items/s (1 / slowest stage, after the fill), alternating with the reference"
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
            "the last stage began its first item before the first stage had finished its last",
            "save began only after load had finished every item: the stages ran one after another. "
            "Pass each item on as soon as a stage is done with it (queues between the stages)",
        ):
            check.requirement(name, False, "not measured: without overlap there is no pipeline to time")
            return
        mine.append(result.value["learner"] / theory)
        theirs.append(result.value["reference"] / theory)
        decision, message = decide_with_control(
            mine, theirs, NEED, min_rounds, measured="throughput end to end", of="theory"
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
