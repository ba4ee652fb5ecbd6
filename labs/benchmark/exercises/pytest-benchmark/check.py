"""Checker of the pytest-benchmark exercise: runs pytest with --benchmark-json on the learner's
test file and reads the JSON, plus what probe_plugin saw (which implementation each test called,
how benchmark.pedantic was called, whether insertion_sort ever got an already sorted list).

No speed is judged here: the benchmark's numbers are reported, not compared with a threshold.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

# Run as a script (by studyapp or by hand), the labs package is the one this file sits in. Imported
# as a module in the learner's process, it leaves sys.path alone (their workspace comes first).
if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from labs._exercise import Checker, parse_args, run_learner, say

HERE = Path(__file__).resolve().parent
TEST_FILE = "test_sorting_bench.py"
IN_PLACE, COPYING = "insertion_sort", "merge_sorted"
MIN_ROUNDS = 5


def measured_by(entry: dict[str, Any], calls: dict[str, dict[str, dict[str, int]]]) -> set[str]:
    """The implementations a benchmark entry timed: its test called them in every round at least."""
    counts = calls.get(entry["fullname"], {})
    rounds = entry["stats"]["rounds"] * entry["stats"].get("iterations", 1)
    return {name for name, c in counts.items() if c["calls"] >= rounds}


def milliseconds(entry: dict[str, Any]) -> str:
    stats = entry["stats"]
    return say(
        f"median {stats['median'] * 1e3:.2f} ms, IQR {stats['iqr'] * 1e3:.2f} ms, {stats['rounds']} rounds",
        f"median {stats['median'] * 1e3:.2f} ms, IQR {stats['iqr'] * 1e3:.2f} ms, round {stats['rounds']}번",
    )


def failing_lines(output: str) -> str:
    """pytest's short summary lines, and for an error while collecting, the error itself."""
    lines = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    errors = [line[1:].strip() for line in output.splitlines() if line.startswith("E ") and "Error" in line]
    if errors and not any(line.startswith("FAILED") for line in lines):
        lines = [*lines[:1], errors[-1]]
    return "; ".join(lines[:3]) if lines else (output.strip().splitlines() or ["no output"])[-1]


def recorded_benchmarks(result_json: Path) -> dict[str, Any]:
    """pytest-benchmark's JSON report, or {} when no test timed anything: then 5.3 writes no file
    and 5.2 leaves an empty one."""
    text = result_json.read_text(encoding="utf-8") if result_json.is_file() else ""
    return json.loads(text) if text.strip() else {}


def main() -> None:
    args = parse_args(description="Check the pytest-benchmark exercise")
    quick = bool(args.quick)
    with Checker(args) as check:
        workspace = Path(args.workspace)
        if not check.require(
            f"{TEST_FILE} is in the workspace",
            (workspace / TEST_FILE).is_file(),
            say("found", "있습니다"),
            say(
                f"{TEST_FILE} is missing: start again with `studyapp exercise start pytest-benchmark`",
                f"{TEST_FILE} 파일이 없습니다: `studyapp exercise start pytest-benchmark`로 다시 시작하세요",
            ),
        ):
            check.stop()
        with tempfile.TemporaryDirectory(prefix="studyapp-bench-") as scratch:
            tmp = Path(scratch)
            (tmp / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
            result_json, probe_json = tmp / "benchmark.json", tmp / "probe.json"
            argv = [
                str(workspace / TEST_FILE),
                "-q",
                "-rfEs",
                "--no-header",
                "-p",
                "no:cacheprovider",
                "-c",
                str(tmp / "pytest.ini"),  # the workspace's own ini files must not change the run
                "--rootdir",
                str(workspace),
                f"--benchmark-json={result_json}",
                f"--benchmark-storage=file://{tmp / 'storage'}",  # no .benchmarks/ in the workspace
                f"--benchmark-max-time={0.05 if quick else 0.5}",
            ]
            check.progress(
                say(
                    f"pytest {TEST_FILE} --benchmark-json=... (this runs your benchmarks)",
                    f"pytest {TEST_FILE} --benchmark-json=... (여러분의 벤치마크를 실행합니다)",
                )
            )
            ran = run_learner(
                workspace,
                HERE / "pytest_driver.py",
                "run_pytest",
                argv,
                timeout_s=40 if quick else 100,
                env={
                    "BENCH_PROBE_REFERENCE": str(HERE / "solution" / "sorting.py"),
                    "BENCH_PROBE_OUT": str(probe_json),
                },
            )
            if not check.require_ran("pytest runs your file", ran):
                check.stop()
            summary = (ran.stdout.strip().splitlines() or [""])[-1].strip("= ")
            skipped = [line for line in ran.stdout.splitlines() if line.startswith("SKIPPED")]
            if ran.value != 0:
                check.requirement(
                    "pytest runs your file and its tests pass",
                    False,
                    say(
                        f"pytest exit {ran.value}: {failing_lines(ran.stdout)}",
                        f"pytest 종료 코드 {ran.value}: {failing_lines(ran.stdout)}",
                    ),
                )
                if ran.value != 1 or not probe_json.is_file():
                    check.stop()
            else:
                check.require(
                    "pytest runs your file and its tests pass",
                    not skipped,
                    f"pytest: {summary}",
                    say(
                        f"a skipped test measures nothing: {skipped[0] if skipped else ''}",
                        f"건너뛴(skipped) 테스트는 아무것도 재지 않습니다: {skipped[0] if skipped else ''}",
                    ),
                )
            if not probe_json.is_file():
                check.requirement(
                    "pytest ran the benchmarks",
                    False,
                    say("pytest ended before the tests ran", "pytest가 테스트를 돌리기 전에 끝났습니다"),
                )
                check.stop()
            report = recorded_benchmarks(result_json)
            probe = json.loads(probe_json.read_text(encoding="utf-8"))
        judge(check, report.get("benchmarks", []), probe)


# The benchmark's time per call may exceed the time inside the implementation by the call itself
# (a lambda, the timer: about a microsecond) and a little noise, never by work of its own.
EXTRA_SHARE = 0.08
EXTRA_FLOOR_S = 3e-6
ONLY_THE_IMPLEMENTATION = "each timed call runs the implementation and nothing else"


def only_the_implementation(
    check: Checker, found: dict[str, dict[str, Any]], calls: dict[str, dict[str, dict[str, Any]]]
) -> None:
    """A property of the result, whatever the test looks like: the benchmark's time per call is about
    the time spent inside the implementation in that test. Both are minimums over the same calls:
    noise only adds time, and the fastest of a hundred rounds is one the machine left alone even
    when it was busy for most of them (a lower quartile failed a correct benchmark once a quarter
    of the rounds were slowed, with three test runners on two cores)."""
    shown = []
    for name, entry in found.items():
        probed = calls.get(entry["fullname"], {}).get(name, {})
        inside = probed.get("min_inside_s")
        timed = entry["stats"]["min"]
        if inside is None or not inside > 0:
            continue
        if len(set(probed.get("sizes", []))) > 1:
            # rounds of different sizes (ONE_SIZE fails them): the fastest timed round and the
            # fastest inside need not be one call, so their gap is not work of the timed callable
            # (a smaller list interrupted outside the implementation left +9 % on a busy machine)
            continue
        extra = timed - inside
        if extra > EXTRA_SHARE * inside + EXTRA_FLOOR_S:
            check.requirement(
                ONLY_THE_IMPLEMENTATION,
                False,
                say(
                    f"{entry['name']}: the benchmark says {timed * 1e3:.3f} ms per call, but {name} itself took "
                    f"{inside * 1e3:.3f} ms (+{extra / inside:.0%}): the timed callable does other work too, such "
                    "as building its input — build it before benchmark(...), or in pedantic's setup",
                    f"{entry['name']}: 벤치마크는 호출 한 번에 {timed * 1e3:.3f} ms라고 하지만, {name} 자체는 "
                    f"{inside * 1e3:.3f} ms 걸렸습니다 (+{extra / inside:.0%}): 잰 callable이 입력을 만드는 것 "
                    "같은 다른 일도 합니다 — 입력은 benchmark(...) 전에, 또는 pedantic의 setup에서 만드세요",
                ),
            )
            return
        shown.append(
            say(
                f"{name} {timed * 1e3:.3f} ms timed, {inside * 1e3:.3f} ms inside (+{extra / inside:.0%})",
                f"{name}: 잰 시간 {timed * 1e3:.3f} ms, 구현 안에서 {inside * 1e3:.3f} ms (+{extra / inside:.0%})",
            )
        )
    if shown:
        check.requirement(ONLY_THE_IMPLEMENTATION, True, "; ".join(shown))


ONE_SIZE = "both implementations sort lists of one size, the same for both"


def one_size(
    check: Checker, found: dict[str, dict[str, Any]], calls: dict[str, dict[str, dict[str, Any]]]
) -> None:
    """One table compares like with like only when every round of both benchmarks sorts a list of
    the same length: a setup that changes the size between rounds, or a smaller list for one of
    them, compares different work. The probe records every length each implementation got."""
    if len(found) < 2:
        return
    sizes = {
        name: sorted(calls.get(entry["fullname"], {}).get(name, {}).get("sizes", []))
        for name, entry in found.items()
    }
    for name, seen in sizes.items():
        if len(seen) > 1:
            check.requirement(
                ONE_SIZE,
                False,
                say(
                    f"{found[name]['name']}: {name} got lists of {len(seen)} sizes ({seen[0]} to {seen[-1]} items) "
                    "across its rounds: every round must sort a list of the same length, only shuffled anew",
                    f"{found[name]['name']}: {name}가 round마다 길이가 다른 리스트 {len(seen)}가지({seen[0]}–"
                    f"{seen[-1]}개)를 받았습니다: round마다 같은 길이의 리스트를 새로 섞기만 하세요",
                ),
            )
            return
    if sizes[COPYING] != sizes[IN_PLACE]:
        copying = ", ".join(map(str, sizes[COPYING])) or "no"
        in_place = ", ".join(map(str, sizes[IN_PLACE])) or "no"
        check.requirement(
            ONE_SIZE,
            False,
            say(
                f"{COPYING} sorted {copying} items per call, {IN_PLACE} {in_place}: one table compares "
                "them only on lists of the same length",
                f"{COPYING}는 {copying}개, {IN_PLACE}는 {in_place}개를 정렬했습니다: 한 표에서 "
                "비교하려면 같은 길이의 리스트로 재야 합니다",
            ),
        )
        return
    if sizes[COPYING]:
        check.requirement(
            ONE_SIZE,
            True,
            say(
                f"{sizes[COPYING][0]} items in every round of both",
                f"둘 다 모든 round에서 {sizes[COPYING][0]}개",
            ),
        )


def judge(check: Checker, entries: list[dict[str, Any]], probe: dict[str, Any]) -> None:
    calls, pedantic = probe["calls"], probe["pedantic"]
    found: dict[str, dict[str, Any]] = {}
    for name in (COPYING, IN_PLACE):
        for entry in entries:
            if name in measured_by(entry, calls):
                found.setdefault(name, entry)
    for name in (COPYING, IN_PLACE):
        entry = found.get(name)
        if entry is not None:
            check.requirement(f"{name} is benchmarked", True, f"{entry['name']}: {milliseconds(entry)}")
            continue
        callers = [
            test.split("::")[-1]
            for test, counts in calls.items()
            if name in counts and test in probe["benchmark_tests"]
        ]
        if callers:
            why = say(
                f"{callers[0]} calls {name} but does not time it: "
                f"pass the function to the fixture, e.g. benchmark({name}, numbers)",
                f"{callers[0]}에서 {name}를 부르지만 시간을 재지 않습니다: "
                f"함수를 fixture에 넘기세요, 예: benchmark({name}, numbers)",
            )
        else:
            why = say(
                f"no benchmark test calls {name}: write a test that takes the `benchmark` fixture and times it",
                f"{name}를 부르는 벤치마크 테스트가 없습니다: `benchmark` fixture를 받아 {name}의 시간을 "
                "재는 테스트를 쓰세요",
            )
        skipped = (
            ""
            if not entries
            else say(
                f" ({len(entries)} benchmark(s) recorded, none of them {name})",
                f" (기록된 벤치마크 {len(entries)}개 중 {name}의 것은 없습니다)",
            )
        )
        check.requirement(f"{name} is benchmarked", False, why + skipped)
    only_the_implementation(check, found, calls)
    if len(found) == 2:
        groups = {name: found[name]["group"] for name in found}
        same = groups[COPYING] == groups[IN_PLACE] and groups[COPYING] is not None
        check.require(
            "both benchmarks are in one group",
            same,
            say(
                f"group {groups[COPYING]!r}: pytest-benchmark shows them in one table",
                f"group {groups[COPYING]!r}: pytest-benchmark가 둘을 한 표에 보여 줍니다",
            ),
            say(
                f"groups are {groups[COPYING]!r} ({COPYING}) and {groups[IN_PLACE]!r} ({IN_PLACE}): "
                'put @pytest.mark.benchmark(group="sort") on both tests',
                f"group이 {groups[COPYING]!r} ({COPYING}), {groups[IN_PLACE]!r} ({IN_PLACE})로 서로 다릅니다: "
                '두 테스트 모두에 @pytest.mark.benchmark(group="sort")를 붙이세요',
            ),
        )
    one_size(check, found, calls)
    in_place = found.get(IN_PLACE)
    if in_place is None:
        return
    test = in_place["fullname"]
    how = pedantic.get(test)
    counts = calls.get(test, {}).get(IN_PLACE, {"calls": 0, "presorted": 0})
    if how is None:
        check.requirement(
            f"{IN_PLACE} is timed with benchmark.pedantic and a setup",
            False,
            say(
                f"{in_place['name']} uses benchmark(...): {counts['presorted']} of {counts['calls']} calls "
                "sorted an already sorted list; use benchmark.pedantic(insertion_sort, setup=...)",
                f"{in_place['name']}에서 benchmark(...)를 씁니다: 호출 {counts['calls']}번 중 "
                f"{counts['presorted']}번이 이미 정렬된 리스트를 정렬했습니다; "
                "benchmark.pedantic(insertion_sort, setup=...)을 쓰세요",
            ),
        )
    else:
        check.require(
            f"{IN_PLACE} is timed with benchmark.pedantic and a setup",
            how["setup"],
            f"pedantic(setup=..., rounds={how['rounds']}, iterations={how['iterations']})",
            say(
                "pedantic without setup reuses the same arguments every round: pass setup=a function "
                "that returns ((a freshly shuffled list,), {})",
                "setup 없는 pedantic은 round마다 같은 인자를 다시 씁니다: setup=에 "
                "((새로 섞은 리스트,), {})를 반환하는 함수를 넘기세요",
            ),
        )
    check.require(
        f"every timed call of {IN_PLACE} got an unsorted list",
        counts["presorted"] == 0,
        say(
            f"{counts['calls']} calls, each on a freshly shuffled list",
            f"호출 {counts['calls']}번, 매번 새로 섞은 리스트로",
        ),
        say(
            f"{counts['presorted']} of {counts['calls']} calls got an already sorted list: the first "
            "round sorted it in place; make setup build a NEW shuffled list each time it is called",
            f"호출 {counts['calls']}번 중 {counts['presorted']}번이 이미 정렬된 리스트를 받았습니다: 첫 "
            "round가 그 리스트를 제자리에서(in place) 정렬했습니다; setup이 불릴 때마다 새(NEW) 섞인 "
            "리스트를 만들게 하세요",
        ),
    )
    rounds = in_place["stats"]["rounds"]
    check.require(
        f"the pedantic benchmark runs at least {MIN_ROUNDS} rounds",
        rounds >= MIN_ROUNDS,
        say(f"{rounds} rounds", f"round {rounds}번"),
        say(
            f"{rounds} round(s): one number has no spread (no median, no IQR); pass rounds={MIN_ROUNDS * 4}",
            f"round {rounds}번: 숫자 하나에는 퍼짐이 없습니다 (median도 IQR도 없음); "
            f"rounds={MIN_ROUNDS * 4}를 넘기세요",
        ),
    )


if __name__ == "__main__":
    main()
