"""Checker of the regression-check exercise: the learner's compare_runs(old, new) gets planted
pairs of pytest-benchmark JSON runs whose true answer is known, drawn afresh every check.

The planted timings are random (lognormal noise plus a few outlier rounds, as a busy machine
makes them) but each pair is drawn until it sits clearly inside the README's contract:
- overlapping IQR bands [q1, q3] (the same code measured twice, or a 5 % change inside 10 % noise)
  must be "unchanged";
- bands apart by more than 20 % (new q1 > 1.2 × old q3: a 2× slowdown, or 30 % on a quiet
  benchmark) must be "regression" (and the mirror image "improvement").
Nothing is timed here, so the verdict does not depend on how busy the machine is.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, learner_function, parse_args, reference_function, run_learner, say

HERE = Path(__file__).resolve().parent

LEARNER_FILE = "compare_runs.py"
VERDICTS = ("regression", "improvement", "unchanged")
MARGIN = 1.2  # bands apart by more than this factor: a change every noise-aware rule must see

NAMES = [
    "bench_normalize.py::test_normalize_loop",
    "bench_normalize.py::test_normalize_numpy",
    "bench_collate.py::test_collate_with_stack",
    "bench_collate.py::test_collate_by_concatenating",
    "bench_io.py::test_parse_csv",
    "bench_io.py::test_decode_json",
    "bench_model.py::test_forward_small",
    "bench_model.py::test_tokenize",
    "bench_sort.py::test_merge_sorted",
    "bench_sort.py::test_insertion_sort",
    "bench_text.py::test_join_words",
    "bench_text.py::test_regex_split",
]


def hinges(times: list[float]) -> tuple[float, float]:
    """q1 and q3 as medians of the lower and upper halves (Tukey's hinges)."""
    ordered = sorted(times)
    half = len(ordered) // 2
    return statistics.median(ordered[: max(1, half)]), statistics.median(ordered[-max(1, half) :])


def stats_of(times: list[float]) -> dict[str, Any]:
    """The "stats" block pytest-benchmark writes for one benchmark (seconds per call)."""
    q1, q3 = hinges(times)
    iqr = q3 - q1
    mean = statistics.fmean(times)
    stddev = statistics.stdev(times) if len(times) > 1 else 0.0
    low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    return {
        "min": min(times),
        "max": max(times),
        "mean": mean,
        "stddev": stddev,
        "rounds": len(times),
        "median": statistics.median(times),
        "iqr": iqr,
        "q1": q1,
        "q3": q3,
        "iqr_outliers": sum(1 for t in times if t < low or t > high),
        "stddev_outliers": sum(1 for t in times if abs(t - mean) > stddev),
        "outliers": "0;0",
        "ld15iqr": min(t for t in times if t >= low),
        "hd15iqr": max(t for t in times if t <= high),
        "ops": 1.0 / mean if mean else 0.0,
        "total": sum(times),
        "iterations": 1,
        "data": times,
    }


def noisy(rng: random.Random, base: float, spread: float, rounds: int, outliers: bool = True) -> list[float]:
    """Round times around `base` whose IQR is about `spread` × base; some rounds hit by other work."""
    sigma = spread / 1.349  # for small sigma a lognormal's relative IQR is about 1.349 sigma
    times = [base * math.exp(rng.gauss(0.0, sigma)) for _ in range(rounds)]
    if outliers:
        for index in rng.sample(range(rounds), k=max(1, rounds // 10)):
            times[index] *= rng.uniform(2.0, 4.0)
    return times


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["q1"] <= b["q3"] and b["q1"] <= a["q3"]


def apart(slow: dict[str, Any], fast: dict[str, Any]) -> bool:
    return slow["q1"] > fast["q3"] * MARGIN


def draw(
    rng: random.Random,
    make: Callable[[], tuple[list[float], list[float]]],
    keep: Callable[[dict[str, Any], dict[str, Any]], bool],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Draw (old, new) stats until the pair is clearly on its side of the contract."""
    for _ in range(10_000):
        old_times, new_times = make()
        old, new = stats_of(old_times), stats_of(new_times)
        if keep(old, new):
            return old, new
    raise RuntimeError("could not plant a pair (a fault of the exercise)")


def planted(
    rng: random.Random,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], dict[str, tuple[str, str]]]:
    """Old and new benchmarks by name, and for each compared name (category, expected verdict)."""
    names = list(NAMES)
    rng.shuffle(names)
    old: dict[str, dict[str, Any]] = {}
    new: dict[str, dict[str, Any]] = {}
    truth: dict[str, tuple[str, str]] = {}

    def base() -> float:
        return rng.uniform(0.5e-3, 20e-3)

    def add(category: str, expected: str, pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
        name = names.pop()
        old[name], new[name] = pair
        truth[name] = (category, expected)

    def runs(change: float, spread: float, rounds: int) -> Callable[[], tuple[list[float], list[float]]]:
        """A maker of (old, new) round times: new is `change` × old's speed, both with this noise."""
        b = base()
        return lambda: (noisy(rng, b, spread, rounds), noisy(rng, change * b, spread, rounds))

    def unlucky(old: dict[str, Any], new: dict[str, Any]) -> bool:
        ratio = new["median"] / old["median"]
        return overlap(old, new) and 1.35 <= max(ratio, 1 / ratio) <= 1.6

    def statistic_apart(key: str) -> Callable[[dict[str, Any], dict[str, Any]], bool]:
        """Bands overlap, yet this one statistic differs by 30 % or more: the rule must not use it."""

        def keep(old: dict[str, Any], new: dict[str, Any]) -> bool:
            ratio = new[key] / old[key]
            return overlap(old, new) and max(ratio, 1 / ratio) >= 1.3

        return keep

    def quiet_and_disturbed(b: float) -> Callable[[], tuple[list[float], list[float]]]:
        """The same code twice, once on a quiet machine and once with a few rounds hit by other work."""

        def make() -> tuple[list[float], list[float]]:
            quiet, disturbed = noisy(rng, b, 0.15, 8, outliers=False), noisy(rng, b, 0.15, 8)
            return (quiet, disturbed) if rng.random() < 0.5 else (disturbed, quiet)

        return make

    for _ in range(2):  # the same code measured twice, 8-30 % noise
        add("same", "unchanged", draw(rng, runs(1.0, rng.uniform(0.08, 0.3), rng.randint(10, 40)), overlap))
    # The same code again, very noisy and few rounds, and (unluckily) medians 35–60 % apart.
    add("same", "unchanged", draw(rng, runs(1.0, 0.5, 8), unlucky))
    # Every statistic outside the band has its unlucky pair of the same code: mins (the least
    # disturbed round is luck too) and means (pulled by a few disturbed rounds) 30 % apart.
    add("same", "unchanged", draw(rng, runs(1.0, 0.3, 12), statistic_apart("min")))
    add("same", "unchanged", draw(rng, quiet_and_disturbed(base()), statistic_apart("mean")))
    add("slow2x", "regression", draw(rng, runs(2.0, 0.1, 25), lambda o, n: apart(n, o)))
    add("fast2x", "improvement", draw(rng, runs(0.5, 0.1, 25), lambda o, n: apart(o, n)))
    add("small5", "unchanged", draw(rng, runs(1.05, 0.1, 20), overlap))
    add("quiet30", "regression", draw(rng, runs(1.3, 0.02, 30), lambda o, n: apart(n, o)))

    # A noisy benchmark with a real change: wide bands, yet apart — rule 2 holds whatever the noise.
    # Drawn where a threshold that grows with the noise (3 × IQR / median) would still call it noise.
    def apart_within_noise_threshold(old: dict[str, Any], new: dict[str, Any]) -> bool:
        return apart(new, old) and new["median"] < old["median"] * (1 + 3 * old["iqr"] / old["median"])

    add("noisy60", "regression", draw(rng, runs(1.6, 0.3, 30), apart_within_noise_threshold))
    only_old, only_new = names.pop(), names.pop()
    old[only_old] = stats_of(noisy(rng, base(), 0.1, 20))
    new[only_new] = stats_of(noisy(rng, base(), 0.1, 20))
    return old, new, truth


def document(benchmarks: dict[str, dict[str, Any]], when: str) -> dict[str, Any]:
    """A pytest-benchmark JSON document holding these benchmarks."""
    entries = []
    for fullname, stats in benchmarks.items():
        entries.append(
            {
                "group": None,
                "name": fullname.split("::")[-1],
                "fullname": fullname,
                "params": None,
                "param": None,
                "extra_info": {},
                "options": {"disable_gc": False, "timer": "perf_counter", "min_rounds": 5, "max_time": 1.0},
                "stats": stats,
            }
        )
    return {
        "machine_info": {"node": "planted", "processor": "x86_64", "python_version": "3.11"},
        "commit_info": {},
        "benchmarks": entries,
        "datetime": when,
        "version": "5.3.1",
    }


def ms(stats: dict[str, Any]) -> str:
    return f"q1–q3 {stats['q1'] * 1e3:.2f}–{stats['q3'] * 1e3:.2f} ms, median {stats['median'] * 1e3:.2f} ms"


CATEGORIES = [
    (
        "same",
        "two runs of the same code are unchanged",
        say(
            "the same code measured twice; the IQR bands overlap",
            "같은 코드를 두 번 잰 것입니다; IQR band가 겹칩니다",
        ),
    ),
    (
        "slow2x",
        "a 2× slowdown is a regression",
        say(
            "the new run is 2× slower, far outside both runs' spread",
            "새 실행이 2× 느립니다: 두 실행의 퍼짐을 훨씬 벗어납니다",
        ),
    ),
    (
        "fast2x",
        "a 2× speedup is an improvement",
        say(
            "the new run is 2× faster, far outside both runs' spread",
            "새 실행이 2× 빠릅니다: 두 실행의 퍼짐을 훨씬 벗어납니다",
        ),
    ),
    (
        "small5",
        "a 5 % change inside 10 % noise is unchanged",
        say(
            "5 % slower, but the IQR bands overlap: that is noise",
            "5 % 느리지만 IQR band가 겹칩니다: 잡음입니다",
        ),
    ),
    (
        "quiet30",
        "a 30 % slowdown of a quiet benchmark is a regression",
        say(
            "30 % slower with 2 % noise: far outside the spread",
            "잡음 2 %에 30 % 느립니다: 퍼짐을 훨씬 벗어납니다",
        ),
    ),
    (
        "noisy60",
        "a 60 % slowdown of a noisy benchmark, bands apart, is a regression",
        say(
            "wide bands (30 % noise), yet apart by over 20 %: a change, however noisy",
            "band가 넓은데도(잡음 30 %) 20 % 넘게 떨어져 있습니다: 잡음이 아무리 커도 변화입니다",
        ),
    ),
]


# Why a rule that leans on one statistic gets a planted pair wrong: each statistic's weakness.
WEAKNESS = {
    "min": say("the fastest round is luck too", "가장 빠른 round도 운입니다"),
    "mean": say("slow rounds pull it (and stddev)", "느린 round가 mean을 (stddev도) 끌어당깁니다"),
    "median": say("noise moves it; the bands overlap", "잡음이 median을 움직입니다; band는 겹칩니다"),
}


def weakness_note(category: str, said: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """The clause that names the slip a wrong verdict on this pair shows, not only its numbers:
    for noise called a change, the statistic that moved most that way and why it misleads; for a change
    called noise, the kind of threshold that misses it. '' when the numbers say nothing more."""
    if category in ("same", "small5") and said in ("regression", "improvement"):

        def apart(key: str) -> float:
            """How far this statistic moved in the direction of the verdict said (1: not at all)."""
            if not old[key] > 0 or not new[key] > 0:
                return 1.0
            ratio = new[key] / old[key] if said == "regression" else old[key] / new[key]
            return max(ratio, 1.0)

        key = max(WEAKNESS, key=apart)
        if apart(key) < 1.05:
            return ""
        return say(
            f"; the {key} moved {(apart(key) - 1) * 100:.0f} %, but {WEAKNESS[key]}",
            f"; {key}이 {(apart(key) - 1) * 100:.0f} % 움직였지만, {WEAKNESS[key]}",
        )
    if category == "noisy60" and said == "unchanged":
        return say("; a threshold scaled by the noise misses it", "; 잡음에 비례하는 문턱은 이것을 놓칩니다")
    if category == "quiet30" and said == "unchanged":
        return say(
            "; a fixed threshold of 30 % or more misses it", "; 30 % 이상의 고정 문턱은 이것을 놓칩니다"
        )
    return ""


def judge(
    check: Checker,
    old: dict[str, Any],
    new: dict[str, Any],
    truth: dict[str, tuple[str, str]],
    answer: dict[str, str],
) -> None:
    for category, name, _why in CATEGORIES:
        wrong = [
            (bench, expected, answer.get(bench))
            for bench, (kind, expected) in truth.items()
            if kind == category and answer.get(bench) != expected
        ]
        count = sum(1 for kind, _ in truth.values() if kind == category)
        if not wrong:
            check.requirement(
                name, True, say(f"{count} planted pair(s) right", f"심어 둔 쌍 {count}개를 맞혔습니다")
            )
            continue
        bench, expected, said = wrong[0]
        if said is None:
            check.requirement(
                name,
                False,
                say(
                    f"no verdict for {bench!r}: key each verdict by the benchmark's fullname",
                    f"{bench!r}의 판정이 없습니다: 판정마다 벤치마크의 fullname을 키로 쓰세요",
                ),
            )
            continue
        check.requirement(name, False, wrong_verdict(bench, said, expected, category, old[bench], new[bench]))


def wrong_verdict(
    bench: str, said: str, expected: str, category: str, old: dict[str, Any], new: dict[str, Any]
) -> str:
    """A wrong verdict on one planted pair: what was said, why the answer differs, and its numbers."""
    why = next(text for kind, _, text in CATEGORIES if kind == category)
    return say(
        f"{bench}: you said {said!r}, expected {expected!r} — {why}"
        f"{weakness_note(category, said, old, new)} (old {ms(old)}; new {ms(new)})",
        f"{bench}: 여러분의 답은 {said!r}, 기대값은 {expected!r} — {why}"
        f"{weakness_note(category, said, old, new)} (old {ms(old)}; new {ms(new)})",
    )


EDGES = "the contract holds on generated edge pairs"
RULE_1 = say(
    "rule 1: the bands [q1, q3] overlap (touching counts)", "1번: band [q1, q3]가 겹칩니다 (맞닿아도)"
)
RULE_2 = say("rule 2: the bands are apart by more than 20 %", "2번: band가 20 % 넘게 떨어져 있습니다")


SCALES = (1e-8, 1e-5, 1e-3, 1.0, 10.0)  # seconds per round: 10 ns to 10 s


def edge_pairs(rng: random.Random) -> list[tuple[list[float], list[float], str, str]]:
    """(old times, new times, expected verdict, the contract rule that decides it): pairs at the
    contract's edges, each at several round counts (1 to 15), scales (10 ns to 10 s) and orders —
    bands that just touch, bands just over 20 % apart either way (also steady runs, whose every
    statistic differs by 21 %: a rule that asks for 25 % misses them), and 0 s against a real time."""
    pairs: list[tuple[list[float], list[float], str, str]] = []
    for rounds in (1, 2, 3, 4, 5, 8, 15):
        scale = rng.choice(SCALES)
        old = [scale * rng.uniform(1.0, 1.5) for _ in range(rounds)]
        _, old_q3 = hinges(old)
        # touching: every new round at or above the old run's q3, the new q1 exactly on it
        touching = [old_q3] * max(1, rounds // 2 + 1) + [
            old_q3 * rng.uniform(1.0, 1.4) for _ in range(rounds)
        ]
        touching = touching[:rounds] if rounds > 1 else [old_q3]
        rng.shuffle(touching)
        if hinges(touching)[0] == old_q3:
            pairs.append((old, touching, "unchanged", RULE_1))
        # just over the 20 %: the new run's fastest round 21 % above the old run's slowest
        slower = [max(old) * 1.21 * rng.uniform(1.0, 1.3) for _ in range(rounds)]
        pairs.append((old, slower, "regression", RULE_2))
        pairs.append((slower, old, "improvement", RULE_2))
        # steady runs 21 % apart: every statistic (min, q1, median, mean, q3) differs by just over 20 %
        steady = [scale] * rounds
        pairs.append((steady, [scale * 1.21] * rounds, "regression", RULE_2))
        pairs.append(([scale * 1.21] * rounds, steady, "improvement", RULE_2))
    for scale in SCALES:
        # steady runs 21 % apart at every scale: a rule whose threshold bends with the size of the
        # numbers (a power of the median, say) gets the 10 s benchmark wrong
        pairs.append(([scale] * 3, [scale * 1.21] * 3, "regression", RULE_2))
        pairs.append(([scale * 1.21] * 3, [scale] * 3, "improvement", RULE_2))
    for half in (1, 2, 4):
        # touching bands whose medians are 2× apart: touching counts as overlapping, however far
        # the medians are (old q1–q3 = s–2s, new q1–q3 = 2s–4s)
        scale = rng.choice(SCALES)
        low, high = [scale] * half + [2 * scale] * half, [2 * scale] * half + [4 * scale] * half
        rng.shuffle(low)
        rng.shuffle(high)
        pairs.append((low, high, "unchanged", RULE_1))
        pairs.append((high, low, "unchanged", RULE_1))
    pairs.append(([0.0] * 5, [2e-6] * 5, "regression", RULE_2))
    pairs.append(([3e-3] * 5, [0.0] * 5, "improvement", RULE_2))
    rng.shuffle(pairs)
    return pairs


def reference_verdicts(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """The reference solution's answer, computed here: the oracle the learner's is compared with."""
    return dict(reference_function(__file__, LEARNER_FILE, "compare_runs")(old, new))


def check_edges(check: Checker, workspace: str, rng: random.Random) -> None:
    pairs = edge_pairs(rng)
    names = [f"bench_edge.py::test_pair_{index}" for index in range(len(pairs))]
    old = document({name: stats_of(pair[0]) for name, pair in zip(names, pairs, strict=True)}, "a")
    new = document({name: stats_of(pair[1]) for name, pair in zip(names, pairs, strict=True)}, "b")
    expected = reference_verdicts(old, new)
    for name, (_, _, contract, _) in zip(names, pairs, strict=True):  # the oracle keeps the contract
        assert expected[name] == contract, f"the reference breaks the contract on {name}"
    check.progress(
        say(
            f"comparing {len(pairs)} generated pairs at the contract's edges with the reference's verdicts",
            f"계약의 경계에 있는 쌍 {len(pairs)}개를 만들어 참고 답안의 판정과 비교합니다",
        )
    )
    result = run_learner(workspace, LEARNER_FILE, "compare_runs", old, new, timeout_s=30)
    if not check.require_ran(EDGES, result):
        return
    answer = result.value if isinstance(result.value, dict) else {}
    wrong = [
        (len(pair[0]) + len(pair[1]), index, pair)
        for index, (name, pair) in enumerate(zip(names, pairs, strict=True))
        if answer.get(name) != expected[name]
    ]
    if not wrong:
        check.requirement(
            EDGES,
            True,
            say(
                f"all {len(pairs)} right (touching bands, also with medians 2× apart; just over 20 % apart either way; steady runs 21 % apart at every scale; 1–15 rounds, 10 ns–10 s, 0 s)",
                f"{len(pairs)}개 모두 맞혔습니다 (맞닿은 band, median이 2× 떨어져도; 20 % 조금 넘게 떨어진 band; 모든 크기에서 21 % 떨어진 고른 실행; 1–15 round, 10 ns–10 s, 0 s)",
            ),
        )
        return
    _, index, (old_times, new_times, _, rule) = min(wrong)  # the smallest input that shows it
    name = names[index]
    shown = say(
        f"on the smallest such pair, old rounds {[f'{t:.3g}' for t in sorted(old_times)]}, new rounds "
        f"{[f'{t:.3g}' for t in sorted(new_times)]}: you said {answer.get(name)!r}, expected "
        f"{expected[name]!r} — {rule} ({len(wrong)} of {len(pairs)} generated pairs wrong)",
        f"가장 작은 쌍, old round {[f'{t:.3g}' for t in sorted(old_times)]}, new round "
        f"{[f'{t:.3g}' for t in sorted(new_times)]}에서: 여러분의 답은 {answer.get(name)!r}, 기대값은 "
        f"{expected[name]!r} — {rule} (만든 쌍 {len(pairs)}개 중 {len(wrong)}개가 틀림)",
    )
    check.requirement(EDGES, False, shown)


CLI = "python compare_runs.py OLD.json NEW.json prints every verdict"
# A benchmark timed at 0 s in the old run: its line shows the ratio as 0.00 (no division by zero).
BELOW_RESOLUTION = "bench_timer.py::test_below_resolution"


def probe_cli(old_path: str, new_path: str) -> dict[str, Any]:
    """In the learner's child: the script run as the README says (`python compare_runs.py OLD NEW`),
    then with one and with three arguments; and their compare_runs on the same files, which the
    printed verdicts must repeat."""
    runs = []
    for argv in ([old_path, new_path], [old_path], [old_path, new_path, new_path]):
        done = subprocess.run(
            [sys.executable, LEARNER_FILE, *argv], capture_output=True, text=True, timeout=20, check=False
        )
        runs.append(
            {"args": len(argv), "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        )
    documents = [json.loads(Path(path).read_text(encoding="utf-8")) for path in (old_path, new_path)]
    verdicts = learner_function(LEARNER_FILE, "compare_runs")(*documents)
    return {"runs": runs, "verdicts": dict(verdicts)}


def expected_lines(
    old: dict[str, Any], new: dict[str, Any], verdicts: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """fullname -> (verdict, ratio as printed): the ratio is new median / old median, 0.00 when the
    old median is 0 s."""
    lines = {}
    for name, said in verdicts.items():
        old_median, new_median = old[name]["median"], new[name]["median"]
        lines[name] = (said, f"{new_median / old_median if old_median else 0.0:.2f}x")
    return lines


def cli_problem(runs: list[dict[str, Any]], expected: dict[str, tuple[str, str]]) -> str:
    """What the runs of the script got wrong ('' when nothing)."""
    run, *wrong_counts = runs
    if run["code"] != 0:
        tail = (run["stderr"].strip().splitlines() or [""])[-1]
        return say(
            f"with OLD.json NEW.json it exited with {run['code']}: {tail[:160]}",
            f"OLD.json NEW.json으로 실행하니 종료 코드 {run['code']}: {tail[:160]}",
        )
    printed: dict[str, tuple[str, str]] = {}
    for line in run["stdout"].splitlines():
        fields = line.split()
        if len(fields) == 3:
            printed[fields[2]] = (fields[0], fields[1])
    for name, (said, ratio) in sorted(expected.items()):
        if name not in printed:
            return say(
                f"no line for {name} (it is in both runs); printed: {run['stdout'].strip()[:160]!r}",
                f"{name}의 줄이 없습니다 (두 실행 모두에 있습니다); 출력: {run['stdout'].strip()[:160]!r}",
            )
        if printed[name] != (said, ratio):
            return say(
                f"for {name} it printed {' '.join(printed[name])}, expected {said} {ratio} (your compare_runs' verdict; "
                "new median / old median, 0.00 when the old median is 0 s)",
                f"{name}에 {' '.join(printed[name])}를 출력했는데, 기대값은 {said} {ratio}입니다 (여러분의 compare_runs 판정; "
                "new median / old median, old median이 0 s이면 0.00)",
            )
    extra = sorted(set(printed) - set(expected))
    if extra:
        return say(
            f"printed a line for {extra[0]}, which is not in both runs",
            f"두 실행 모두에 있지 않은 {extra[0]}의 줄을 출력했습니다",
        )
    for other in wrong_counts:
        if other["code"] != 2 or "usage" not in other["stderr"].lower() or other["stdout"].strip():
            return say(
                f"with {other['args']} argument(s) it exited with {other['code']} and printed "
                f"{(other['stdout'] or other['stderr']).strip()[:120]!r}; expected a usage line on stderr and exit 2",
                f"인자 {other['args']}개로 실행하니 종료 코드 {other['code']}, 출력 "
                f"{(other['stdout'] or other['stderr']).strip()[:120]!r}; stderr에 usage 한 줄과 종료 코드 2여야 합니다",
            )
    return ""


def check_cli(check: Checker, workspace: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    old, new = dict(old), dict(new)
    old[BELOW_RESOLUTION], new[BELOW_RESOLUTION] = stats_of([0.0] * 5), stats_of([2e-6] * 5)
    check.progress(
        say(
            "running python compare_runs.py OLD.json NEW.json, and with one and three arguments",
            "python compare_runs.py OLD.json NEW.json을 실행하고, 인자 1개와 3개로도 실행합니다",
        )
    )
    with tempfile.TemporaryDirectory(prefix="regression-check-") as folder:
        paths = []
        for label, benchmarks in (("old", old), ("new", new)):
            path = Path(folder) / f"{label}.json"
            path.write_text(json.dumps(document(benchmarks, label)), encoding="utf-8")
            paths.append(str(path))
        result = run_learner(workspace, Path(__file__).resolve(), "probe_cli", *paths, timeout_s=90)
    if not check.require_ran(CLI, result):
        return
    problem = cli_problem(result.value["runs"], expected_lines(old, new, result.value["verdicts"]))
    check.require(
        CLI,
        not problem,
        say(
            f"one line per benchmark in both runs ({len(result.value['verdicts'])}), its verdict and ratio; "
            "usage and exit 2 with one or three arguments",
            f"두 실행 모두에 있는 벤치마크마다 한 줄({len(result.value['verdicts'])}개), 판정과 비율; "
            "인자 1개나 3개면 usage와 종료 코드 2",
        ),
        problem,
    )


def main() -> None:
    args = parse_args(description="Check the regression-check exercise")
    with Checker(args) as check:
        seed = random.SystemRandom().randrange(1_000_000)
        rng = random.Random(seed)
        old, new, truth = planted(rng)
        check.progress(
            say(
                f"comparing planted runs (seed {seed}): {len(truth)} pairs of known answer",
                f"심어 둔 실행을 비교합니다 (seed {seed}): 답을 아는 쌍 {len(truth)}개",
            )
        )
        result = run_learner(
            args.workspace,
            LEARNER_FILE,
            "compare_runs",
            document(old, "2026-01-01T00:00:00"),
            document(new, "2026-01-02T00:00:00"),
            timeout_s=30,
        )
        if not check.require_ran("compare_runs(old, new) runs", result):
            check.stop()
        answer = result.value
        if not check.require(
            "compare_runs returns {fullname: verdict}",
            isinstance(answer, dict) and all(isinstance(v, str) and v in VERDICTS for v in answer.values()),
            say(
                f"a dict of {len(answer) if isinstance(answer, dict) else 0} verdicts",
                f"판정 {len(answer) if isinstance(answer, dict) else 0}개를 담은 dict",
            ),
            say(
                f"expected a dict mapping each fullname to one of {', '.join(VERDICTS)}; got {str(answer)[:120]}",
                f"fullname마다 {', '.join(VERDICTS)} 중 하나를 주는 dict여야 합니다; 받은 값: {str(answer)[:120]}",
            ),
        ):
            check.stop()
        both = set(old) & set(new)
        extra, missing = set(answer) - both, both - set(answer)
        problems = []
        if missing:
            problems.append(
                say(
                    f"no verdict for {sorted(missing)[0]} (it is in both runs)",
                    f"{sorted(missing)[0]}의 판정이 없습니다 (두 실행 모두에 있습니다)",
                )
            )
        unknown = sorted(extra - set(old) - set(new))
        if unknown:
            problems.append(
                say(
                    f"{unknown[0]!r} is not the fullname of any benchmark (like 'file.py::test_x')",
                    f"{unknown[0]!r}: 어느 벤치마크의 fullname도 아닙니다 ('file.py::test_x' 같은 모양이어야 합니다)",
                )
            )
        elif extra:
            problems.append(
                say(
                    f"{sorted(extra)[0]} is in only one run: it cannot be compared",
                    f"{sorted(extra)[0]}: 한 실행에만 있어 비교할 수 없습니다",
                )
            )
        check.requirement(
            "only benchmarks in both runs get a verdict",
            not problems,
            "; ".join(problems)
            or say(
                f"{len(both)} compared; the one only in the old run and the one only in the new run are left out",
                f"{len(both)}개를 비교했습니다; old 실행에만 있는 것과 new 실행에만 있는 것은 뺐습니다",
            ),
        )
        judge(check, old, new, truth, answer)
        check_edges(check, str(args.workspace), rng)
        check_cli(check, str(args.workspace), old, new)
        zero = stats_of([0.0] * 10)
        zeros = {NAMES[0]: zero, NAMES[1]: zero}
        check.progress(
            say(
                "comparing two runs timed below the timer's resolution (0 s)",
                "timer 해상도보다 짧게 잰 두 실행(0 s)을 비교합니다",
            )
        )
        result = run_learner(
            args.workspace,
            LEARNER_FILE,
            "compare_runs",
            document(zeros, "a"),
            document(zeros, "b"),
            timeout_s=30,
        )
        if check.require_ran("timings of 0 s (below the timer's resolution) are unchanged", result):
            check.require(
                "timings of 0 s (below the timer's resolution) are unchanged",
                result.value == dict.fromkeys(zeros, "unchanged"),
                say("0 s vs 0 s: unchanged, no division by zero", "0 s 대 0 s: unchanged, 0으로 나누기 없음"),
                say(
                    f"expected unchanged for both; got {result.value!r}",
                    f"둘 다 unchanged여야 하는데 받은 값은 {result.value!r}입니다",
                ),
            )


if __name__ == "__main__":
    main()
