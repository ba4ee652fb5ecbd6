"""The benchmark lab's exercises, checked as a learner checks them: the untouched starter, the
reference solution and a plausible wrong solution (a patch in tests/exercises/wrong/ID/NAME.yaml)
come from the session's `catalogue` (each checked once, judged generically by test_catalogue.py);
this file checks what their messages say and checks a few more edits planted by hand."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.exercises.exercise_runs import Catalogue, check_folder, checker_module, failed

EXERCISES = REPO / "labs" / "benchmark" / "exercises"


# -- pytest-benchmark ----------------------------------------------------------------------------


def test_pytest_benchmark_starter_fails_and_says_what_to_do(catalogue: Catalogue) -> None:
    code, result = catalogue.report("pytest-benchmark", "starter")
    assert code == 1 and result["verdict"] == "failed"
    problems = failed(result)
    assert "skipped test measures nothing" in problems["pytest runs your file and its tests pass"]
    assert "benchmark(merge_sorted, numbers)" in problems["merge_sorted is benchmarked"]
    assert "insertion_sort is benchmarked" in problems


def test_pytest_benchmark_solution_passes(catalogue: Catalogue) -> None:
    code, result = catalogue.report("pytest-benchmark", "solution")
    assert (code, result["verdict"]) == (0, "passed"), failed(result)
    messages = {r["name"]: r["message"] for r in result["requirements"]}
    assert "group 'sort'" in messages["both benchmarks are in one group"]
    assert "rounds=20" in messages["insertion_sort is timed with benchmark.pedantic and a setup"]
    assert "median" in messages["insertion_sort is benchmarked"]  # the measured numbers are shown
    workspace = Path(result["workspace"])
    assert sorted(p.name for p in workspace.iterdir()) == ["sorting.py", "test_sorting_bench.py"]


def test_pytest_benchmark_reused_input_is_caught(catalogue: Catalogue) -> None:
    """pedantic(args=(numbers,)) sorts one list in place: every round after the first is sorted."""
    code, result = catalogue.wrong("pytest-benchmark", "reused-list")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {
        "insertion_sort is timed with benchmark.pedantic and a setup",
        "every timed call of insertion_sort got an unsorted list",
    }
    assert (
        "19 of 20 calls got an already sorted list"
        in problems["every timed call of insertion_sort got an unsorted list"]
    )


@pytest.mark.parametrize(
    ("edit", "failing"),
    [
        ('@pytest.mark.benchmark(group="sort")\ndef test_merge', "both benchmarks are in one group"),
        ("rounds=ROUNDS", "the pedantic benchmark runs at least 5 rounds"),
    ],
)
def test_pytest_benchmark_other_mistakes(
    isolated_home: Path, tmp_path: Path, edit: str, failing: str
) -> None:
    folder = tmp_path / "edited"
    shutil.copytree(EXERCISES / "pytest-benchmark" / "solution", folder)
    test_file = folder / "test_sorting_bench.py"
    text = test_file.read_text(encoding="utf-8")
    replacement = "def test_merge" if edit.endswith("test_merge") else "rounds=1"
    assert edit in text
    test_file.write_text(text.replace(edit, replacement), encoding="utf-8")
    code, result = check_folder("pytest-benchmark", folder, tmp_path)
    assert code == 1 and set(failed(result)) == {failing}


# -- regression-check ----------------------------------------------------------------------------


def test_regression_check_starter_fails_with_its_todo(catalogue: Catalogue) -> None:
    code, result = catalogue.report("regression-check", "starter")
    assert code == 1 and result["verdict"] == "failed"
    message = failed(result)["compare_runs(old, new) runs"]
    assert "NotImplementedError" in message and "compare_runs.py:" in message
    assert "compare_runs.py" in (result["learner_traceback"] or "")


def test_regression_check_solution_passes_every_planted_pair(catalogue: Catalogue, tmp_path: Path) -> None:
    for attempt in range(3):  # fresh planted pairs each check: the contract holds for every seed
        # the first is the catalogue's run of the solution; two more checks plant new pairs
        code, result = (
            catalogue.report("regression-check", "solution")
            if attempt == 0
            else check_folder(
                "regression-check", EXERCISES / "regression-check" / "solution", tmp_path / str(attempt)
            )
        )
        assert (code, result["verdict"]) == (0, "passed"), failed(result)
        # 8 + the noisy real change (rule 2 whatever the noise) + the generated edge pairs + the script
        assert len(result["requirements"]) == 11


def test_pytest_benchmark_compares_one_list_size(catalogue: Catalogue) -> None:
    """A smaller list for one implementation, or a setup that changes the length between rounds,
    compares different work in one table: each slip gets the message for what was seen."""
    code, result = catalogue.wrong("pytest-benchmark", "smaller-list-for-insertion-sort")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {ONE_SIZE}, problems
    assert "merge_sorted sorted 300 items per call, insertion_sort 100" in problems[ONE_SIZE]
    code, result = catalogue.wrong("pytest-benchmark", "setup-changes-the-size")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {ONE_SIZE}, problems
    assert re.search(
        r"insertion_sort got lists of \d+ sizes \(\d+ to \d+ items\) across its rounds", problems[ONE_SIZE]
    )
    code, result = catalogue.report("pytest-benchmark", "solution")
    passed = {r["name"]: r["message"] for r in result["requirements"] if r["passed"]}
    assert passed[ONE_SIZE] == "300 items in every round of both"


ONE_SIZE = "both implementations sort lists of one size, the same for both"


def test_regression_check_a_25_percent_effect_threshold_fails_on_the_smallest_edge_pair(
    catalogue: Catalogue,
) -> None:
    """Steady runs 21 % apart are a change by the contract's rule 2; a rule asking for 25 % says
    unchanged. The generated pairs name the smallest one (a single round each), the learner's answer
    and the expected one, as the reference solution gives it."""
    code, result = catalogue.wrong("regression-check", "effect-threshold-25")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {"the contract holds on generated edge pairs"}, problems
    message = problems["the contract holds on generated edge pairs"]
    smallest = re.search(
        r"on the smallest such pair, old rounds \[('[^']+')\], new rounds \[('[^']+')\]", message
    )
    assert smallest, message  # one round each: the smallest input that shows it
    assert (
        "you said 'unchanged', expected " in message
        and "rule 2: the bands are apart by more than 20 %" in message
    )


def test_regression_check_fixed_threshold_raises_false_alarms(catalogue: Catalogue) -> None:
    """A fixed 10 % threshold on the median flags two runs of the same code as a change (the planted
    pairs are drawn afresh each run, so it may also trip on the 5 %-in-noise pair: both are the slip)."""
    code, result = catalogue.wrong("regression-check", "fixed-threshold")
    assert code == 1
    problems = failed(result)
    assert "two runs of the same code are unchanged" in problems
    assert set(problems) <= {
        "two runs of the same code are unchanged",
        "a 5 % change inside 10 % noise is unchanged",
        "the contract holds on generated edge pairs",  # steady runs 21 % apart: 10 % of the median
    }
    assert "the IQR bands overlap" in problems["two runs of the same code are unchanged"]
    assert " moved " in problems["two runs of the same code are unchanged"]  # which statistic, and why


def regression_checker() -> Any:
    return checker_module("regression-check")


def stats(**values: float) -> dict[str, float]:
    return {"min": 1.0, "mean": 1.0, "median": 1.0, **values}


def test_regression_check_names_the_weakness_of_the_statistic_not_only_numbers() -> None:
    """Review row 25: a wrong verdict says which statistic moved and why it misleads."""
    note = regression_checker().weakness_note
    assert note("same", "regression", stats(), stats(min=1.3, mean=1.1)) == (
        "; the min moved 30 %, but the fastest round is luck too"
    )
    assert note("same", "improvement", stats(mean=1.4), stats()).startswith("; the mean moved 40 %")
    assert "stddev" in note("same", "improvement", stats(mean=1.4), stats())
    assert note("small5", "regression", stats(), stats(median=1.05, min=1.2)).startswith(
        "; the min moved 20 %"
    )
    assert note("same", "regression", stats(), stats(min=0.8, mean=0.9)) == ""  # moved the other way
    assert "scaled by the noise" in note("noisy60", "unchanged", stats(), stats(median=1.6))
    assert "fixed threshold" in note("quiet30", "unchanged", stats(), stats(median=1.3))
    assert note("slow2x", "improvement", stats(), stats(median=2.0)) == ""


def test_regression_check_failure_messages_fit_in_one_message() -> None:
    """Every wrong verdict on every planted pair, over many draws, stays within the 300 characters a
    requirement's message keeps (the numbers at its end must not be cut)."""
    import random

    check = regression_checker()
    for seed in range(100):
        old, new, truth = check.planted(random.Random(seed))
        for bench, (category, expected) in truth.items():
            for said in set(check.VERDICTS) - {expected}:
                message = check.wrong_verdict(bench, said, expected, category, old[bench], new[bench])
                assert len(message) <= 300, message


def test_regression_check_blind_rules_are_caught(isolated_home: Path, tmp_path: Path) -> None:
    """'Always unchanged' misses real changes; a division by the median crashes on 0 s timings."""
    folder = tmp_path / "edited"
    shutil.copytree(EXERCISES / "regression-check" / "solution", folder)
    source = folder / "compare_runs.py"
    original = source.read_text(encoding="utf-8")
    source.write_text(
        original.replace("    if slower_beyond_noise(new, old):", "    if False:"), encoding="utf-8"
    )
    code, result = check_folder("regression-check", folder, tmp_path / "a")
    assert code == 1
    assert set(failed(result)) == {
        "a 2× slowdown is a regression",
        "a 30 % slowdown of a quiet benchmark is a regression",
        "a 60 % slowdown of a noisy benchmark, bands apart, is a regression",
        "the contract holds on generated edge pairs",
    }
    ratio_rule = '    bands_apart = slow["q1"] > fast["q3"]\n'
    assert ratio_rule in original
    source.write_text(
        original.replace(ratio_rule, '    bands_apart = slow["q1"] / fast["q3"] > 1\n'), encoding="utf-8"
    )
    code, result = check_folder("regression-check", folder, tmp_path / "b")
    assert code == 1
    # the planted 0 s pair, the generated 0 s-against-a-real-time pair and the script's 0 s
    # benchmark all divide by zero
    problems = failed(result)
    assert set(problems) == {
        "timings of 0 s (below the timer's resolution) are unchanged",
        "the contract holds on generated edge pairs",
        CLI,
    }
    assert all("ZeroDivisionError" in message for message in problems.values()), problems


CLI = "python compare_runs.py OLD.json NEW.json prints every verdict"


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        # the new file read twice: every line says unchanged, 1.00x
        (
            "load_run(argv[0]), load_run(argv[1])",
            "load_run(argv[0]), load_run(argv[0])",
            "it printed unchanged 1.00x",
        ),
        # 1.00x for the benchmark whose old run is 0 s
        ('["median"] else 0.0', '["median"] else 1.0', "bench_timer.py::test_below_resolution it printed"),
        # three arguments accepted
        ("if len(argv) != 2:", "if len(argv) < 2:", "with 3 argument(s) it exited with 0"),
    ],
)
def test_regression_check_the_script_prints_what_compare_runs_says(
    isolated_home: Path, tmp_path: Path, old: str, new: str, fragment: str
) -> None:
    """`python compare_runs.py OLD NEW` is run as the README says: a main() that reads the wrong file,
    prints a ratio for a 0 s benchmark or takes three arguments fails that requirement alone."""
    folder = tmp_path / "edited"
    shutil.copytree(EXERCISES / "regression-check" / "solution", folder)
    source = folder / "compare_runs.py"
    original = source.read_text(encoding="utf-8")
    assert original.count(old) == 1
    source.write_text(original.replace(old, new), encoding="utf-8")
    code, result = check_folder("regression-check", folder, tmp_path / "check")
    assert code == 1
    problems = failed(result)
    assert set(problems) == {CLI}, problems
    assert fragment in problems[CLI], problems[CLI]


def test_pytest_benchmark_a_file_that_does_not_collect_is_one_line(
    isolated_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "broken"
    shutil.copytree(EXERCISES / "pytest-benchmark" / "solution", folder)
    with open(folder / "test_sorting_bench.py", "a", encoding="utf-8") as handle:
        handle.write("\ndef unfinished(:\n")
    code, result = check_folder("pytest-benchmark", folder, tmp_path)
    assert code == 1
    message = failed(result)["pytest runs your file and its tests pass"]
    assert "pytest exit 2" in message and "SyntaxError" in message


def test_an_empty_benchmark_report_reads_as_no_benchmarks(tmp_path: Path) -> None:
    """pytest-benchmark 5.2 leaves an empty --benchmark-json file when no test timed anything (5.3
    writes none): the starter's check must then say what to do, not stop on a JSONDecodeError."""
    check = checker_module("pytest-benchmark")
    report = tmp_path / "benchmark.json"
    assert check.recorded_benchmarks(report) == {}
    report.write_text("", encoding="utf-8")
    assert check.recorded_benchmarks(report) == {}
    report.write_text('{"benchmarks": [{"name": "test_x"}]}', encoding="utf-8")
    assert check.recorded_benchmarks(report) == {"benchmarks": [{"name": "test_x"}]}
