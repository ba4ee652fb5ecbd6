"""pytest-benchmark 실습: 벤치마크 suite를 돌리고, 통계를 읽고, 저장된 실행과 비교한다.

    python -m labs.benchmark --quick                 # labs/benchmark/suite 를 빠른 설정으로
    python -m labs.benchmark --save base             # 이번 실행을 'base'로 저장
    python -m labs.benchmark --compare base          # 새로 재서 'base'와 비교 (잡음 고려 판정)
    python -m labs.benchmark --path my_benchmarks/   # 내가 쓴 pytest-benchmark 테스트를 같은 방식으로

pytest는 **별도 프로세스(subprocess)** 로 실행한다. 같은 프로세스에서 pytest.main을 두 번 부르면
이미 import된 모듈이 재사용되어, 고친 코드가 반영되지 않는다.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labs._protocol import (
    LabDependencyError,
    LabUsageError,
    bounded_int,
    parse_args,
    progress,
    write_artifact,
)
from labs.benchmark.compare import (
    CONTROL_GROUP,
    MIN_ROUNDS_FOR_SPREAD,
    REGRESSION,
    UNCHANGED,
    VERDICT_KO,
    below_resolution,
    comparison_findings,
    fixed_verdict,
    machine_drift,
    noise_findings,
    noise_verdict,
    relative_iqr,
    safe_ratio,
    scaled,
    threshold_for,
    unit_vs_bench,
)
from labs.benchmark.probe import PROBE_ENV

SUITE_DIR = Path(__file__).resolve().parent / "suite"
LABS_PARENT = Path(__file__).resolve().parents[2]  # so the suite's pytest can load labs.benchmark.probe
CONTROL_TEST = "test_control_fixed_work"
SLOWDOWN_ENV = "STUDYAPP_BENCH_SLOWDOWN"  # labs/benchmark/suite/ml_steps.py가 읽는다
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

# pytest-benchmark가 JSON에 남기는 통계 중 여기서 보고하는 것 (시간은 모두 초, 1 iteration 기준)
STAT_KEYS = ("min", "max", "mean", "median", "stddev", "iqr", "outliers", "rounds", "ops")

QUICK = {"max_time": 0.1, "min_rounds": 5}  # 테스트 하나에 약 0.1초
FULL = {"max_time": 1.0, "min_rounds": 5}  # pytest-benchmark의 기본값


def default_store() -> Path:
    """저장한 실행을 두는 곳: $STUDYAPP_HOME/benchmarks, 없으면 ~/.local/share/studyapp/benchmarks."""
    home = os.environ.get("STUDYAPP_HOME")
    if home:
        return Path(home) / "benchmarks"
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "studyapp" / "benchmarks"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m labs.benchmark",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="짧은 측정 (테스트당 약 0.1초)")
    parser.add_argument(
        "--out", type=Path, default=None, help="결과 파일(JSON, junit XML)을 쓸 폴더 (기본: 새 임시 폴더)"
    )
    parser.add_argument(
        "--path", type=Path, default=None, help="내 pytest-benchmark 테스트 폴더 (기본: 내장 suite)"
    )
    parser.add_argument("--save", metavar="NAME", help="이번 실행을 STORE/NAME.json으로 저장")
    parser.add_argument("--compare", metavar="NAME", help="저장된 실행 NAME과 비교")
    parser.add_argument(
        "--store", type=Path, default=None, help="저장 폴더 (기본: $STUDYAPP_HOME/benchmarks)"
    )
    parser.add_argument("--max-time", type=float, default=None, help="테스트 하나를 재는 최대 시간(초)")
    parser.add_argument("--min-rounds", type=int, default=None, help="테스트 하나의 최소 round 수")
    # 숨은 옵션: suite의 함수들을 N배 느리게 만든다 (regression을 심어 --compare를 시험할 때)
    parser.add_argument("--slowdown", type=bounded_int(1, 1000), default=1, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(build_parser(), argv)
    settings = dict(QUICK if args.quick else FULL)
    if args.max_time is not None:
        if not 0 < args.max_time <= 60:
            raise LabUsageError("--max-time must be between 0 and 60 seconds")
        settings["max_time"] = args.max_time
    if args.min_rounds is not None:
        if not 1 <= args.min_rounds <= 100_000:
            raise LabUsageError("--min-rounds must be between 1 and 100000")
        settings["min_rounds"] = args.min_rounds
    if args.slowdown < 1:
        raise LabUsageError("--slowdown must be 1 or more")

    # 잘못된 입력은 측정을 시작하기 전에 알린다 (한 줄, exit 2)
    target = SUITE_DIR if args.path is None else args.path.expanduser().resolve()
    if args.path is not None and not target.is_dir():
        raise LabUsageError(f"--path {args.path}: no such directory")
    store = (args.store or default_store()).expanduser().resolve()
    for option, name in (("--save", args.save), ("--compare", args.compare)):
        if name is not None and not NAME_RE.match(name):
            raise LabUsageError(f"{option} {name!r}: use letters, digits, '.', '_' or '-'")
    old_run = load_saved(store, args.compare) if args.compare else None
    for module, package in (
        ("pytest", "pytest"),
        ("pytest_benchmark", "pytest-benchmark"),
        ("numpy", "numpy"),
    ):
        if importlib.util.find_spec(module) is None:
            raise LabDependencyError(f"the benchmark lab needs {package}: pip install {package}")

    # 결과 파일을 쓸 곳: --out (studyapp은 늘 넘긴다), 없으면 새 임시 폴더
    out = (
        args.out.expanduser().resolve() if args.out else Path(tempfile.mkdtemp(prefix="studyapp-benchmark-"))
    )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LabUsageError(f"cannot use --out {args.out}: {exc.strerror or exc}") from None
    json_path, junit_path, probe_path = out / "benchmark.json", out / "junit.xml", out / "fixtures.json"
    for stale in (json_path, junit_path, probe_path):
        stale.unlink(missing_ok=True)

    own_suite = args.path is None
    run_pytest(target, json_path, junit_path, settings, args.slowdown, own_suite=own_suite, probe_path=probe_path,
               span=(0.02, 0.78 if not own_suite else 0.85))  # fmt: skip

    progress("analysing", 0.85, "reading pytest-benchmark JSON")
    report = read_report(json_path, target)
    if not own_suite:
        # The learner's suite has no control benchmark: measure the lab's own next to it, so a saved
        # run and a comparison of this suite can take the machine's drift out too.
        add_control(report, json_path, out / "control.json", settings, span=(0.78, 0.85))
    # With --path the control is the lab's, not the learner's: kept in the saved JSON, reported apart.
    benchmarks = [summarise(b) for b in report["benchmarks"] if own_suite or b.get("group") != CONTROL_GROUP]
    control = [
        summarise(b) for b in report["benchmarks"] if not own_suite and b.get("group") == CONTROL_GROUP
    ]
    tests = read_junit(junit_path, benchmarks, read_probe(probe_path))

    fastest, ratios = compare_within_groups(benchmarks)
    result: dict[str, Any] = {
        "benchmarks": benchmarks,
        "fastest": fastest,
        "ratios": ratios,
        "tests": tests,
        "control": control[0] if control else None,  # --path only: the lab's drift yardstick
        "settings": {**settings, "path": str(target), "slowdown": args.slowdown},
        "artifacts": {"benchmark_json": str(json_path), "junit_xml": str(junit_path)},
    }
    tables = [*stats_tables(benchmarks), groups_table(benchmarks, fastest)]
    findings = within_group_findings(benchmarks, fastest) + noise_findings(benchmarks) + unit_vs_bench(tests)

    if old_run is not None:
        comparison = compare_runs(old_run, report)
        # 잡음 기준을 넘은 테스트는 한 번 더 재서, 같은 판정이 다시 나올 때만 믿는다.
        suspects = sorted({c["name"].split("[")[0] for c in comparison if c["noise_verdict"] != UNCHANGED})
        if suspects and own_suite:
            suspects.append(CONTROL_TEST)  # measure the machine's speed again too
        if suspects:
            confirm_path = out / "benchmark-confirm.json"
            confirm_path.unlink(missing_ok=True)
            run_pytest(target, confirm_path, None, settings, args.slowdown, own_suite=own_suite,
                       select=suspects, span=(0.87, 0.95 if not own_suite else 0.97))  # fmt: skip
            confirm = read_report(confirm_path, target)
            if not own_suite:
                add_control(confirm, confirm_path, out / "control-confirm.json", settings, span=(0.95, 0.97))
            confirm_runs(comparison, old_run, confirm)
            result["artifacts"]["confirm_json"] = str(confirm_path)
        result["comparison"] = comparison
        result["compared_with"] = str(store / f"{args.compare}.json")
        tables.append(comparison_table(comparison, args.compare))
        findings += comparison_findings(comparison, old_run, report, args.compare)

    if args.save:
        store.mkdir(parents=True, exist_ok=True)
        saved = store / f"{args.save}.json"
        shutil.copyfile(json_path, saved)
        result["artifacts"]["saved"] = str(saved)
        findings.append(
            f"이번 실행을 '{args.save}'로 저장했다: 나중에 --compare {args.save} 로 비교할 수 있다."
        )

    result.update(tables=tables, findings=findings, summary=make_summary(result))
    progress("done", 1.0, "")
    return result


# --- pytest 실행 ---------------------------------------------------------------------------------


def run_pytest(
    target: Path,
    json_path: Path,
    junit_path: Path | None,
    settings: dict,
    slowdown: int,
    own_suite: bool,
    select: list[str] | None = None,
    span: tuple[float, float] = (0.02, 0.85),
    probe_path: Path | None = None,
) -> None:
    """pytest를 subprocess로 실행하고, 출력은 stderr로 흘려보내며 진행률을 알린다.

    select: 이 이름의 테스트만 다시 잰다 (pytest -k). span: 전체 진행률 중 이 실행이 차지하는 구간.
    """
    cmd = [
        sys.executable, "-m", "pytest", str(target),
        "-p", "no:cacheprovider",            # .pytest_cache를 만들지 않는다
        "-v",                                # 테스트마다 한 줄 → 진행률 [ 50%]을 읽는다
        "--benchmark-enable",                # 설정 파일의 --benchmark-disable을 무시
        f"--benchmark-json={json_path}",     # 모든 통계 + round별 원자료(data)
        f"--benchmark-max-time={settings['max_time']}",
        f"--benchmark-min-rounds={settings['min_rounds']}",
    ]  # fmt: skip
    if junit_path is not None:
        cmd.append(f"--junitxml={junit_path}")  # 테스트마다 통과/실패 (단위 테스트 결과를 읽으려고)
    if select:
        cmd += ["-k", " or ".join(select)]
    if own_suite:
        # suite 폴더가 rootdir: 저장소의 pyproject.toml(addopts 등)이 끼어들지 않는다
        cmd += ["-c", str(target / "pytest.ini"), "--rootdir", str(target)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("STUDYAPP_LAB_PROTOCOL", None)  # pytest 안의 코드는 프로토콜과 무관
    env[SLOWDOWN_ENV] = str(slowdown)
    if probe_path is not None:  # which tests take the benchmark fixture (labs/benchmark/probe.py)
        cmd += ["-p", "labs.benchmark.probe"]
        env[PROBE_ENV] = str(probe_path)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(LABS_PARENT), env.get("PYTHONPATH")) if p)

    phase = "confirm" if select else "pytest"
    start, width = span[0], span[1] - span[0]
    progress(phase, start, f"pytest {target.name} (max_time={settings['max_time']}s)")
    tail: deque[str] = deque(maxlen=15)
    percent = re.compile(r"\[\s*(\d+)%\]\s*$")
    proc = subprocess.Popen(
        cmd, cwd=target, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        encoding="utf-8", errors="replace",
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stderr.write(line)  # 사람이 직접 실행하면 pytest-benchmark의 표를 그대로 볼 수 있다
            tail.append(line.rstrip())
            match = percent.search(line)
            if match:
                name = line.split(" ", 1)[0].rsplit("::", 1)[-1]
                progress(phase, start + width * int(match.group(1)) / 100, name)
        rc = proc.wait()
    finally:
        if proc.poll() is None:  # Ctrl+C 등으로 빠져나올 때 pytest도 끝낸다
            proc.kill()
            proc.wait()

    # pytest exit codes: 0 모두 통과, 1 실패한 테스트 있음, 2 중단(수집 오류), 3 내부 오류, 4 사용법 오류, 5 테스트 없음
    if rc == 5:
        raise LabUsageError(f"no tests collected in {target}")
    if rc in (2, 4):
        last = next((t for t in reversed(tail) if t.startswith(("E ", "ERROR"))), tail[-1] if tail else "")
        raise LabUsageError(f"pytest could not run the tests in {target} (exit {rc}): {last.strip()}")
    if rc not in (0, 1):
        raise RuntimeError(f"pytest exited with {rc}: " + " | ".join(list(tail)[-3:]))


def read_report(json_path: Path, target: Path) -> dict[str, Any]:
    """pytest-benchmark의 JSON을 읽는다. 벤치마크가 하나도 없으면 사용법 오류."""
    try:  # pytest-benchmark leaves the file empty when no test used the fixture
        report = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = {}
    report["benchmarks"] = [b for b in report.get("benchmarks", []) if b.get("stats")]
    if not report["benchmarks"]:
        raise LabUsageError(
            f"no pytest-benchmark tests in {target} (a benchmark test uses the `benchmark` fixture)"
        )
    return report


def add_control(
    report: dict[str, Any], json_path: Path, control_path: Path, settings: dict, span: tuple[float, float]
) -> None:
    """Measure the lab's control benchmark and add it to `report` and to its JSON file (for --save)."""
    control_path.unlink(missing_ok=True)
    run_pytest(SUITE_DIR, control_path, None, settings, 1, own_suite=True, select=[CONTROL_TEST], span=span)
    control = read_report(control_path, SUITE_DIR)["benchmarks"]
    report["benchmarks"] = [b for b in report["benchmarks"] if b.get("group") != CONTROL_GROUP] + control
    write_artifact(json_path, json.dumps(report))


def read_probe(probe_path: Path) -> dict[str, bool]:
    """{test id as junit writes it: uses the benchmark fixture} from labs/benchmark/probe.py's file."""
    try:
        uses = json.loads(probe_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {junit_id(nodeid): bool(flag) for nodeid, flag in uses.items()} if isinstance(uses, dict) else {}


def load_saved(store: Path, name: str) -> dict[str, Any]:
    path = store / f"{name}.json"
    if not path.is_file():
        saved = sorted(p.stem for p in store.glob("*.json")) if store.is_dir() else []
        listing = ", ".join(saved) if saved else "none"
        raise LabUsageError(f"--compare {name}: no saved run {path} (saved runs: {listing})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LabUsageError(f"--compare {name}: cannot read {path}: {exc}") from exc
    if not isinstance(data, dict) or not data.get("benchmarks"):
        raise LabUsageError(f"--compare {name}: {path} is not a pytest-benchmark JSON file")
    return data


# --- 결과 읽기 ------------------------------------------------------------------------------------


def summarise(bench: dict[str, Any]) -> dict[str, Any]:
    """JSON의 benchmark 하나 → 보고할 값. 통계는 JSON 값을 그대로 쓰고, cv만 계산한다."""
    stats = bench["stats"]
    row = {
        "name": bench["name"],
        "fullname": bench.get("fullname", bench["name"]),
        "group": bench.get("group"),
    }
    row.update({key: stats[key] for key in STAT_KEYS})
    row["iterations"] = stats.get("iterations", 1)
    # 변동계수(coefficient of variation): 표준편차가 평균의 몇 배인가. 0.05 = 5 %
    row["cv"] = stats["stddev"] / stats["mean"] if stats["mean"] else 0.0
    row["below_resolution"] = below_resolution(stats)  # min 0: the timer could not see it
    return row


def read_junit(
    junit_path: Path, benchmarks: list[dict[str, Any]], uses_fixture: dict[str, bool] | None = None
) -> list[dict[str, Any]]:
    """junit XML에서 테스트마다 결과를 읽고, 벤치마크인지 단위 테스트인지 표시한다.

    kind: "benchmark" (통계를 남김), "benchmark_no_stats" (benchmark fixture를 받았지만 잰 것이 없음:
    skip, pytest.raises만 …), "unit" (fixture를 쓰지 않는 보통 테스트).
    """
    uses_fixture = uses_fixture or {}
    if not junit_path.exists():
        return []
    by_id = {junit_id(b["fullname"]): b for b in benchmarks}
    tests = []
    for case in ET.parse(junit_path).getroot().iter("testcase"):
        name = case.get("name", "")
        test_id = f"{case.get('classname', '')}.{name}".lstrip(".")
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if case.find(tag) is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
        bench = by_id.get(test_id)
        if bench is not None:
            calls = bench["rounds"] * bench["iterations"]
            tests.append({"name": name, "kind": "benchmark", "outcome": outcome, "calls": calls})
        elif uses_fixture.get(test_id):
            tests.append({"name": name, "kind": "benchmark_no_stats", "outcome": outcome, "calls": 0})
        else:
            tests.append({"name": name, "kind": "unit", "outcome": outcome, "calls": 1})
    return tests


def junit_id(fullname: str) -> str:
    """'sub/bench_x.py::TestA::test_b' → 'sub.bench_x.TestA.test_b' (junit의 classname.name 모양)."""
    return fullname.replace(".py::", ".").replace("::", ".").replace("/", ".")


def compare_within_groups(
    benchmarks: list[dict[str, Any]],
) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """group마다 median이 가장 작은 테스트와, 각 테스트가 그보다 몇 배 느린지.

    타이머 해상도 미만(min 0)인 것은 비율을 낼 수 없어 뺀다. 한 group의 테스트끼리만 비교한다.
    """
    fastest: dict[str, str] = {}
    ratios: dict[str, dict[str, float]] = {}
    for group, members in group_by(benchmarks).items():
        measurable = [b for b in members if not b["below_resolution"]]
        if not measurable:
            continue
        best = min(measurable, key=lambda b: b["median"])
        fastest[group] = best["name"]
        ratios[group] = {b["name"]: b["median"] / best["median"] for b in measurable}
    return fastest, ratios


def group_of(bench: dict[str, Any]) -> str:
    """pytest-benchmark's group; a test without one is compared only with its own module's tests."""
    if bench["group"]:
        return str(bench["group"])
    module = bench["fullname"].split("::", 1)[0].rsplit("/", 1)[-1]
    return f"(module {module})"


def group_by(benchmarks: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for bench in benchmarks:
        groups.setdefault(group_of(bench), []).append(bench)
    return groups


def compare_runs(old_report: dict[str, Any], new_report: dict[str, Any]) -> list[dict[str, Any]]:
    """같은 테스트(fullname)끼리 저장된 실행과 새 실행을 비교한다 (첫 판정).

    suite에 control 벤치마크가 있으면 그 비율(machine drift = 기계 전체가 느려진 정도)도 기록한다.
    drift를 빼는 것은 다시 잴 때(confirm_runs) 한다. 고정 5 % 판정은 비교용으로 비율 그대로 둔다.
    """
    old_all = {b.get("fullname", b["name"]): b for b in old_report["benchmarks"] if b.get("stats")}
    new_all = {b.get("fullname", b["name"]): b for b in new_report["benchmarks"] if b.get("stats")}
    drift = machine_drift(old_all, new_all)  # None: no control in one of the runs → no drift removed
    rows = []
    for key, bench in new_all.items():
        if key not in old_all or bench.get("group") == CONTROL_GROUP:
            continue
        o, n = old_all[key]["stats"], bench["stats"]
        if below_resolution(o) or below_resolution(n):
            continue  # no ratio of a 0-second measurement (reported by comparison_findings)
        ratio = n["median"] / o["median"]
        verdict = noise_verdict(o, n)  # suspects are re-measured; drift is judged then (confirm_runs)
        too_few_rounds = min(o.get("rounds", 0), n.get("rounds", 0)) < MIN_ROUNDS_FOR_SPREAD
        if too_few_rounds:
            verdict = UNCHANGED  # one or two rounds carry no spread to judge a change against
        rows.append({
            "name": bench["name"],
            "fullname": key,
            "old_median": o["median"],
            "new_median": n["median"],
            "ratio": ratio,
            "machine_drift": drift,           # control 벤치마크가 느려진 배율 (1 = 기계 속도 그대로)
            "drift_adjusted_ratio": ratio / drift if drift else None,
            "min_ratio": n["min"] / o["min"],
            "new_stats": {k: n[k] for k in ("min", "median", "iqr")},
            "old_rel_iqr": relative_iqr(o),
            "new_rel_iqr": relative_iqr(n),
            "noise_threshold": threshold_for(o, n),
            "first_verdict": verdict,   # 첫 측정의 잡음 고려 판정
            "confirm_ratio": None,      # 다시 잰 median 비율 (첫 판정이 '변화 없음'이 아닐 때만)
            "drift_used": None,         # 최종 판정에서 뺀 machine drift (두 번 모두 본 만큼, 1 이상)
            "noise_verdict": verdict,   # 최종 판정: 다시 재도 같을 때만 변화로 남는다
            "fixed5_verdict": fixed_verdict(ratio),
            "too_few_rounds": too_few_rounds,
        })  # fmt: skip
    return rows


def drift_seen_twice(first: float, second: float) -> float:
    """The part of the machine's drift both measurements agree on (1 when they disagree in direction).

    Slower both times (1.7 and 1.5) → 1.5; faster both times, i.e. the saved run was the slow one
    (0.6 and 0.7) → 0.7; one slower and one faster → 1 (no correction).
    """
    if first > 1 and second > 1:
        return min(first, second)
    if first < 1 and second < 1:
        return max(first, second)
    return 1.0


def confirm_runs(
    comparison: list[dict[str, Any]], old_report: dict[str, Any], confirm: dict[str, Any]
) -> None:
    """다시 잰 결과로 판정을 확인한다: 두 번 모두 같은 판정일 때만 남기고, 아니면 잡음으로 본다."""
    old_all = {b.get("fullname", b["name"]): b for b in old_report["benchmarks"] if b.get("stats")}
    again = {b.get("fullname", b["name"]): b for b in confirm["benchmarks"] if b.get("stats")}
    for row in comparison:
        if row["noise_verdict"] == UNCHANGED or row["fullname"] not in again:
            continue
        o, n = old_all[row["fullname"]]["stats"], again[row["fullname"]]["stats"]
        row["confirm_ratio"] = n["median"] / o["median"]
        # The control was measured in both runs. Only the drift it saw *both* times is the machine's:
        # one control measurement is a 50 ms window and catches passing spikes.
        again_drift = machine_drift(old_all, again)
        if row["machine_drift"] is None or again_drift is None:
            drift = 1.0  # no control to compare: nothing is removed, and the findings say so
        else:
            drift = drift_seen_twice(row["machine_drift"], again_drift)
        row["drift_used"] = drift if row["machine_drift"] is not None and again_drift is not None else None
        first_new = scaled(row["new_stats"], drift)
        if {noise_verdict(o, first_new), noise_verdict(o, scaled(n, drift))} != {row["first_verdict"]}:
            row["noise_verdict"] = UNCHANGED  # 기계 drift를 빼고 두 번 다 같지 않으면 잡음


# --- 표 ------------------------------------------------------------------------------------------

US = 1e6  # 초 → µs (표에서만; 결과의 benchmarks 값은 초)


def stats_tables(benchmarks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """두 표: 시간이 어디에 있나(위치)와 얼마나 흩어졌나(spread). 시간은 1회 호출 기준 µs."""
    location = {
        "title": "벤치마크: 위치 (1회 호출 기준 µs; ops = 1/mean)",
        "columns": ["test", "min µs", "median µs", "mean µs", "ops/s", "rounds"],
        "rows": [
            [b["name"], b["min"] * US, b["median"] * US, b["mean"] * US, b["ops"], b["rounds"]]
            for b in benchmarks
        ],
    }
    spread = {
        "title": "벤치마크: 흩어짐 (outliers = 1 stddev 밖;1.5 IQR 밖; CV = stddev/mean)",
        "columns": ["test", "stddev µs", "IQR µs", "outliers", "CV %", "IQR/median %"],
        "rows": [
            [b["name"], b["stddev"] * US, b["iqr"] * US, b["outliers"], b["cv"] * 100, relative_iqr(b) * 100]
            for b in benchmarks
        ],
    }
    return [location, spread]


def groups_table(benchmarks: list[dict[str, Any]], fastest: dict[str, str]) -> dict[str, Any]:
    rows = []
    for group, members in group_by(benchmarks).items():
        if group not in fastest:
            continue
        best = next(b for b in members if b["name"] == fastest[group])
        for b in sorted(members, key=lambda b: b["median"]):
            if b["below_resolution"]:
                rows.append([group, b["name"], b["median"] * US, None, None])  # shown, not compared
                continue
            rows.append(
                [
                    group,
                    b["name"],
                    b["median"] * US,
                    b["median"] / best["median"],
                    safe_ratio(b["min"], best["min"]),
                ]
            )
    columns = ["group", "test", "median µs", "× fastest (median)", "× fastest (min)"]
    return {"title": "그룹별 비교: 가장 빠른 것보다 몇 배 느린가", "columns": columns, "rows": rows}


def comparison_table(comparison: list[dict[str, Any]], name: str) -> dict[str, Any]:
    rows = [
        [c["name"], c["old_median"] * US, c["new_median"] * US, c["ratio"], c["drift_adjusted_ratio"], c["min_ratio"],
         c["noise_threshold"], c["confirm_ratio"], VERDICT_KO[c["noise_verdict"]], VERDICT_KO[c["fixed5_verdict"]]]
        for c in comparison
    ]  # fmt: skip
    columns = ["test", f"{name} median µs", "new median µs", "ratio (median)", "ratio ÷ drift", "ratio (min)",
               "잡음 기준 ×", "다시 잰 ratio", "잡음 고려 판정", "고정 5 % 판정"]  # fmt: skip
    return {"title": f"저장된 실행 '{name}'과 비교", "columns": columns, "rows": rows}


# --- 해석 (모두 측정값에서 계산) -------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def within_group_findings(benchmarks: list[dict[str, Any]], fastest: dict[str, str]) -> list[str]:
    findings = []
    for group, members in group_by(benchmarks).items():
        members = [b for b in members if not b["below_resolution"]]
        if len(members) < 2 or group not in fastest:
            continue
        best = next(b for b in members if b["name"] == fastest[group])
        slowest = max(members, key=lambda b: b["median"])
        text = (
            f"[{group}] 가장 빠른 것은 {best['name']} (median {fmt_time(best['median'])}), "
            f"가장 느린 {slowest['name']}는 {slowest['median'] / best['median']:.1f}배 느리다."
        )
        # 같은 실행 안에서도, 차이가 잡음 기준보다 작으면 "더 빠르다"고 말할 수 없다
        ties = [b["name"] for b in members if b is not best and noise_verdict(best, b) != REGRESSION]
        if ties:
            text += f" {', '.join(ties)}와의 차이는 잡음 범위 안이라 어느 쪽이 빠르다고 말할 수 없다."
        findings.append(text)
    return findings


def make_summary(result: dict[str, Any]) -> str:
    benchmarks, tests = result["benchmarks"], result["tests"]
    units = [t for t in tests if t["kind"] == "unit"]
    parts = [f"벤치마크 {len(benchmarks)}개(그룹 {len(result['fastest'])}개)"]
    if units:
        parts[0] += f", 단위 테스트 {sum(t['outcome'] == 'passed' for t in units)}/{len(units)} 통과"
    for group, name in result["fastest"].items():
        slowest = max(result["ratios"][group].items(), key=lambda kv: kv[1])
        if slowest[1] > 1:
            parts.append(f"{group}: {name}가 {slowest[0]}보다 {slowest[1]:.1f}배 빠름")
    if "comparison" in result:
        comparison = result["comparison"]
        noisy = sum(c["noise_verdict"] == REGRESSION for c in comparison)
        fixed = sum(c["fixed5_verdict"] == REGRESSION for c in comparison)
        parts.append(f"비교: 느려짐 {noisy}개 (고정 5 % 기준이면 {fixed}개)")
    return "; ".join(parts)
