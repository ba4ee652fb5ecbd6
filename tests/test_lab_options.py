"""Lab options reach the lab through `studyapp lab NAME ...`, and bad numbers never start a run.

Review ../shared/reviews/reliability-bad-input.md, H2 and section 6: `studyapp lab errors --data
FILE` was taken by argparse as an abbreviation of studyapp's own `--data-dir` (a data directory
was created at the CSV's path); `--timeout nan` switched the safety timeout off; `amdahl --seconds
inf` crashed the lab and `--seconds/--repeats 1e12` or `benchmark --slowdown 1e12` ran until the
timeout.
"""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

from studyapp.cli import build_parser
from studyapp.labrunner import registry
from studyapp.progress.store import ProgressStore
from tests.conftest import InProcessCli

CSV = "true,pred\na,a\nb,a\nb,b\n"
RUNNER_OPTIONS = {"--quick", "--out"}  # studyapp's runner passes these to every lab itself


def lab_options() -> list[tuple[str, str]]:
    """(lab, option) for every option string of every shipped lab's parser, but the runner's own
    (--quick, --out: studyapp passes them to every lab itself)."""
    found = []
    for lab_id in registry.discover():
        module = importlib.import_module(f"labs.{lab_id}.lab")
        parser: argparse.ArgumentParser = module.build_parser()
        for action in parser._actions:
            found += [(lab_id, option) for option in action.option_strings if option.startswith("--")]
    return [pair for pair in found if pair[1] not in ("--help", *RUNNER_OPTIONS)]


@pytest.mark.parametrize(("lab", "option"), lab_options(), ids=lambda v: str(v))
def test_every_lab_option_is_left_for_the_lab(lab: str, option: str) -> None:
    """No lab option is taken by studyapp's own parser (as `--data` was taken for `--data-dir`)."""
    parser = build_parser()
    for argv in (["lab", lab, option, "VALUE"], ["lab", lab, f"{option}=VALUE"]):
        args, extra = parser.parse_known_args(argv)
        assert getattr(args, "data_dir", None) is None and getattr(args, "content", None) is None, argv
        assert extra[0].startswith(option), (argv, extra)


def _json_result(result: object) -> dict[str, object]:
    stdout = result.stdout  # type: ignore[attr-defined]
    return json.loads(stdout)


@pytest.mark.parametrize(
    "spelling",
    [["--data", "{csv}"], ["--data={csv}"], ["--", "--data", "{csv}"], ["--quick", "--data", "{csv}"]],
    ids=["space", "equals", "after-double-dash", "after-quick"],
)
def test_errors_data_reaches_the_lab(
    tmp_path: Path, isolated_home: Path, spelling: list[str], studyapp_cli: InProcessCli
) -> None:
    csv = tmp_path / "preds.csv"
    csv.write_text(CSV, encoding="utf-8")
    args = [part.format(csv=csv) for part in spelling]
    result = studyapp_cli("lab", "errors", "--json", *args)
    assert result.returncode == 0, result.stderr
    report = _json_result(result)
    assert report["data"] == {
        "path": str(csv),
        "rows": 3,
        "true_col": "true",
        "pred_col": "pred",
        "score_col": None,
    }
    assert csv.is_file()  # not turned into a data directory
    assert [r.status for r in ProgressStore.in_dir(isolated_home).lab_runs("errors")] == ["ok"]


def test_errors_data_that_is_missing_or_a_folder_is_the_labs_one_line(
    tmp_path: Path, studyapp_cli: InProcessCli
) -> None:
    missing = tmp_path / "NEW.csv"
    result = studyapp_cli("lab", "errors", "--data", str(missing))
    assert result.returncode == 2
    assert result.stderr.strip() == f"studyapp: errors: --data {missing}: 파일이 없습니다"
    assert not missing.exists()  # before: a data directory NEW.csv/ with progress.db and runs/
    folder = tmp_path / "mine"
    folder.mkdir()
    result = studyapp_cli("lab", "errors", "--data", str(folder))
    assert result.returncode == 2 and "디렉터리" in result.stderr
    assert list(folder.iterdir()) == []  # before: progress.db and runs/ were created in it


def test_profiler_trace_reaches_the_lab(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    events = [
        {
            "ph": "X",
            "cat": "user_annotation",
            "name": f"ProfilerStep#{n}",
            "pid": 1,
            "tid": 1,
            "ts": n * 100,
            "dur": 90,
        }
        for n in (1, 2)
    ] + [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": n * 100 + 1, "dur": 50}
        for n in (1, 2)
    ]
    trace = tmp_path / "my.pt.trace.json"
    trace.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    result = studyapp_cli("lab", "profiler", "--json", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    report = _json_result(result)
    assert report["steps"] == [1, 2]
    assert str(trace) in json.dumps(report, ensure_ascii=False)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--compare", "nope"], "benchmark: --compare nope: no saved run"),
        (["--path", "/nonexistent-tests"], "benchmark: --path /nonexistent-tests: no such directory"),
    ],
    ids=["compare", "path"],
)
def test_benchmark_options_reach_the_lab(args: list[str], expected: str, studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("lab", "benchmark", *args)
    assert result.returncode == 2
    assert result.stderr.strip().startswith(f"studyapp: {expected}")


def test_amdahl_calc_options_reach_the_lab(studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("lab", "amdahl", "--json", "--mode", "calc", "--speedup", "5", "--at", "8")
    assert result.returncode == 0, result.stderr
    assert "s = 0.08571" in str(_json_result(result)["summary"])  # Karp–Flatt of 5x at 8 workers


def test_out_reaches_the_lab(tmp_path: Path, studyapp_cli: InProcessCli) -> None:
    out = tmp_path / "my-artifacts"
    result = studyapp_cli("lab", "errors", "--quick", "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert (out / "result.json").is_file() and (out / "lab-stderr.log").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["amdahl", "--quick", "--timeout", "nan"],  # review 6 #11: disabled the safety timeout
        ["amdahl", "--quick", "--timeout", "inf"],
        ["amdahl", "--quick", "--timeout", "0"],
        ["amdahl", "--quick", "--timeout", "-5"],
        ["amdahl", "--quick", "--seconds=inf"],  # review 6 #41: OverflowError in the lab
        ["amdahl", "--quick", "--seconds=nan"],
        ["amdahl", "--quick", "--seconds=1000000000000"],  # review 6 #38: ran until the timeout
        ["amdahl", "--quick", "--repeats=1000000000000"],  # review 6 #44
        ["amdahl", "--mode", "calc", "--speedup", "inf", "--at", "8"],
        ["benchmark", "--quick", "--slowdown=1000000000000"],  # review 6 #76
        ["benchmark", "--quick", "--max-time=nan"],
        ["errors", "--quick", "--label-noise=nan"],
    ],
    ids=lambda a: " ".join(a),
)
def test_absurd_numbers_are_one_usage_line(args: list[str], studyapp_cli: InProcessCli) -> None:
    result = studyapp_cli("lab", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studyapp: "), result.stderr
    assert "argument --" in lines[0] and "Traceback" not in result.stderr


def test_lab_without_a_name_is_one_line_on_stderr(studyapp_cli: InProcessCli) -> None:  # review 6 #8
    result = studyapp_cli("lab")
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "studyapp lab list" in result.stderr


def test_no_studyapp_parser_takes_abbreviations(studyapp_cli: InProcessCli) -> None:
    """Every command's parser (today's and any added later) refuses `--data` for `--data-dir`."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert parser.allow_abbrev is False
    for name, command in subparsers.choices.items():
        assert command.allow_abbrev is False, name
    result = studyapp_cli("topics", "--data", "somewhere")
    assert result.returncode == 2 and "unrecognized arguments: --data somewhere" in result.stderr
