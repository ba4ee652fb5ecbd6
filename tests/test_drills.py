"""Calculation drills: answers recomputed from the ids, grading, parsing, import hygiene."""

from __future__ import annotations

import math
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from studyapp import locations
from studyapp.cli.plain import format_summary
from studyapp.content.loader import load_content
from studyapp.quiz.drills import Drill, all_drills, grade
from studyapp.quiz.engine import AnswerRecord, Summary
from studyapp.quiz.questions import all_questions

REPO = Path(__file__).resolve().parent.parent


def recompute(drill_id: str) -> float:
    """The answer from the parameters in the id, written independently of studyapp.quiz.drills."""
    if m := re.fullmatch(r"drill-amdahl-speedup-(\d+)-(\d+)", drill_id):
        f, n = int(m[1]) / 100, int(m[2])
        return 1 / ((1 - f) + f / n)
    if m := re.fullmatch(r"drill-amdahl-limit-(\d+)", drill_id):
        return 100 / (100 - int(m[1]))
    if m := re.fullmatch(r"drill-amdahl-efficiency-(\d+)-(\d+)", drill_id):
        f, n = int(m[1]) / 100, int(m[2])
        return 1 / ((1 - f) + f / n) / n
    if m := re.fullmatch(r"drill-karp-flatt-(\d+)-(\d+)", drill_id):
        s, p = int(m[1]) / 100, int(m[2])
        return (1 / s - 1 / p) / (1 - 1 / p)
    if m := re.fullmatch(r"drill-gustafson-(\d+)-(\d+)", drill_id):
        s, n = int(m[1]) / 100, int(m[2])
        return n - s * (n - 1)
    if m := re.fullmatch(r"drill-pipeline-throughput-([\d-]+)", drill_id):
        return 1000 / max(int(t) for t in m[1].split("-"))
    if m := re.fullmatch(r"drill-pipeline-fill-([\d-]+)-n(\d+)", drill_id):
        stages, n = [int(t) for t in m[1].split("-")], int(m[2])
        # Simulate single-worker stages with unbounded queues, every item waiting at t = 0.
        done = [0.0] * len(stages)  # when each stage finished its previous item
        for _ in range(n):
            ready = 0.0
            for j, t in enumerate(stages):
                done[j] = max(ready, done[j]) + t
                ready = done[j]
        return done[-1]
    if m := re.fullmatch(r"drill-little-(\d+)-(\d+)", drill_id):
        return int(m[1]) * int(m[2]) / 1000
    if m := re.fullmatch(r"drill-pipeline-parallel-([\d-]+)-w(\d+)", drill_id):
        stages = [int(t) for t in m[1].split("-")]
        k = int(m[2])
        slowest = max(stages)
        # Only the (first) slowest stage gets k workers.
        i = stages.index(slowest)
        return 1000 / max(t / k if j == i else t for j, t in enumerate(stages))
    if m := re.fullmatch(r"drill-critical-path-((?:[a-z]\d+[a-z]*-?)+)", drill_id):
        return simulate_task_graph(m[1])
    if m := re.fullmatch(r"drill-(mae|rmse)-([\dm-]+)", drill_id):
        residuals = [-int(v[1:]) if v.startswith("m") else int(v) for v in m[2].split("-")]
        if m[1] == "mae":
            return statistics.fmean(abs(e) for e in residuals)
        return math.sqrt(statistics.fmean(e * e for e in residuals))
    if m := re.fullmatch(r"drill-r-squared-y([\d-]+)-p([\d-]+)", drill_id):
        actual = [int(v) for v in m[1].split("-")]
        predicted = [int(v) for v in m[2].split("-")]
        unexplained = sum((y - p) ** 2 for y, p in zip(actual, predicted, strict=True))
        return 1 - unexplained / (len(actual) * statistics.pvariance(actual))
    if m := re.fullmatch(r"drill-auc-p([\d-]+)-n([\d-]+)", drill_id):
        return rank_sum_auc([int(v) for v in m[1].split("-")], [int(v) for v in m[2].split("-")])
    raise AssertionError(f"unknown drill id {drill_id}")


def simulate_task_graph(spec: str) -> float:
    """Run `a30-b20a-…` (task, ms, the tasks it waits for) with a worker for every ready task, one
    millisecond at a time, and return when the last task ends."""
    tasks = {m[1]: (int(m[2]), set(m[3])) for m in re.finditer(r"([a-z])(\d+)([a-z]*)", spec)}
    left = {name: time for name, (time, _) in tasks.items()}
    done: set[str] = set()
    clock = 0
    while len(done) < len(tasks):
        running = [n for n in tasks if n not in done and tasks[n][1] <= done]
        for name in running:
            left[name] -= 1
        clock += 1
        done |= {name for name in running if left[name] == 0}
    return float(clock)


def rank_sum_auc(positives: list[int], negatives: list[int]) -> float:
    """AUC from the Mann–Whitney rank sum (ties get their average rank), not by counting pairs."""
    ranked = sorted(positives + negatives)
    rank = {v: statistics.fmean(i + 1 for i, w in enumerate(ranked) if w == v) for v in ranked}
    rank_sum = sum(rank[v] for v in positives)
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


DRILLS = all_drills()


def test_bank_size_ids_and_fields() -> None:
    assert 25 <= len(DRILLS) <= 60
    ids = [d.id for d in DRILLS]
    assert len(ids) == len(set(ids))
    for d in DRILLS:
        assert re.fullmatch(r"drill-[a-z0-9-]+", d.id), d.id
        assert d.topic in ("bottleneck-analysis", "error-decomposition")
        assert d.checklist in (
            ("amdahl",),
            ("pipeline-bottleneck",),
            ("bias-variance",),
            ("imbalance-detection",),
        )
        assert d.prompt and d.explanation and d.tolerance > 0
        assert re.search(r"[가-힣]", d.prompt) and re.search(r"[가-힣]", d.explanation)
    # The kind is the id without its parameters (`-90`, `-w3`, `-m4`, `-p90`, `-b20a`).
    kinds = {re.sub(r"(?:-[a-z]?\d+[a-z]*)+$", "", d.id) for d in DRILLS}
    assert kinds == {
        "drill-amdahl-speedup",
        "drill-amdahl-limit",
        "drill-amdahl-efficiency",
        "drill-karp-flatt",
        "drill-gustafson",
        "drill-pipeline-throughput",
        "drill-pipeline-parallel",
        "drill-pipeline-fill",
        "drill-little",
        "drill-critical-path",
        "drill-mae",
        "drill-rmse",
        "drill-r-squared",
        "drill-auc",
    }
    counts = {kind: sum(d.id.startswith(kind + "-") for d in DRILLS) for kind in kinds}
    assert all(count >= 3 for count in counts.values()), counts


def test_bank_is_deterministic() -> None:
    assert all_drills() == DRILLS


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_answer_recomputed_from_id(drill: Drill) -> None:
    assert drill.answer == pytest.approx(recompute(drill.id), rel=1e-12)


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_grade_within_and_outside_tolerance(drill: Drill) -> None:
    a, tol = drill.answer, drill.tolerance
    assert grade(drill, repr(a)) is True
    assert grade(drill, f"{a + 0.9 * tol:.6f}") is True
    assert grade(drill, f"{a - 0.9 * tol:.6f}") is True
    assert grade(drill, f"{a + 1.5 * tol:.6f}") is False
    assert grade(drill, f"{a - 1.5 * tol:.6f}") is False
    # The answer as asked for (rounded to the requested decimals) passes, with the unit too.
    decimals = round(-math.log10(tol))
    assert grade(drill, f"{a:.{decimals}f}{drill.unit}") is True
    assert grade(drill, f"{a:.{decimals}f}".replace(".", ",")) is True


def _by_id(prefix: str) -> list[Drill]:
    return [d for d in DRILLS if d.id.startswith(prefix)]


def test_regression_metric_drills_show_what_each_metric_weighs() -> None:
    """RMSE is never below the MAE of the same residuals, equal only when every residual has the
    same size; one R² drill is negative (worse than predicting the mean); each is in 에러 분해."""
    maes = {d.id.removeprefix("drill-mae-"): d.answer for d in _by_id("drill-mae-")}
    for drill in _by_id("drill-rmse-"):
        residuals = drill.id.removeprefix("drill-rmse-")
        mean_abs = maes.get(residuals, recompute(f"drill-mae-{residuals}"))
        assert drill.answer >= mean_abs - 1e-12
        sizes = {v.lstrip("m") for v in residuals.split("-")}
        assert (abs(drill.answer - mean_abs) < 1e-12) == (len(sizes) == 1), drill.id
        assert "MAE" in drill.explanation and "MSE" in drill.explanation
    assert any(d.answer < 0 for d in _by_id("drill-r-squared-"))
    assert {d.topic for d in _by_id("drill-mae-") + _by_id("drill-rmse-") + _by_id("drill-r-squared-")} == {
        "error-decomposition"
    }


def test_auc_drills_count_ties_as_half() -> None:
    tied = [d for d in _by_id("drill-auc-") if "동점 0개" not in d.explanation]
    assert tied, "no AUC drill has a tie"
    for drill in tied:
        positives, negatives = (
            [int(v) for v in part.split("-")]
            for part in re.fullmatch(r"drill-auc-p([\d-]+)-n([\d-]+)", drill.id).groups()  # type: ignore[union-attr]
        )
        strict = sum(p > n for p in positives for n in negatives) / (len(positives) * len(negatives))
        assert drill.answer > strict  # a tie adds ½, not 0
        assert grade(drill, f"{strict:.2f}") is False  # counting ties as losses is marked wrong
    assert {d.checklist for d in _by_id("drill-auc-")} == {("imbalance-detection",)}


def test_critical_path_is_shorter_than_the_serial_sum() -> None:
    for drill in _by_id("drill-critical-path-"):
        serial = sum(int(t) for t in re.findall(r"[a-z](\d+)", drill.id.removeprefix("drill-critical-path-")))
        assert drill.answer < serial
        assert grade(drill, str(serial)) is False  # adding every task up is the classic miss
        assert f"{serial} ms" in drill.explanation and "→" in drill.explanation


def test_grade_parses_the_ways_people_type() -> None:
    drill = next(d for d in DRILLS if d.id == "drill-amdahl-speedup-90-8")  # 4.7059
    for text in ("4.71", "4,71", "4.71배", " 4.71 ", "약 4.71", "≈4.71", "4.71 배", "４．７１", "4.7x"):
        assert grade(drill, text) is not None, text
    assert grade(drill, "4.71") is True
    assert grade(drill, "4.7배") is True  # 4.7 is within 0.01 of 4.7059
    assert grade(drill, "4.69") is False
    assert grade(drill, "5.9") is False
    assert grade(drill, "1/(0.1+0.9/8)") is True  # the formula typed as it is written
    assert grade(drill, "80/17") is True  # 4.70588…, the exact fraction
    # A percentage typed for a 0–1 answer is read as a fraction.
    efficiency = next(d for d in DRILLS if d.id == "drill-amdahl-efficiency-90-8")  # 0.588
    assert grade(efficiency, "59%") is True and grade(efficiency, "59 %") is True
    assert grade(efficiency, "0.59") is True
    pipeline = next(d for d in DRILLS if d.id == "drill-pipeline-throughput-6-25-10")
    assert grade(pipeline, "40 items/s") is True and grade(pipeline, "40") is True
    # The prompts ask in Korean (초당 몇 개, 몇 건, 몇 ms), so the Korean counters are read too (review B D2).
    for text in ("40개", "초당 40개", "40개/초", "초당 40.0 개"):
        assert grade(pipeline, text) is True, text
    little = next(d for d in DRILLS if d.id == "drill-little-120-75")  # 9.0
    for text in ("9건", "9 건", "약 9건", "9.0"):
        assert grade(little, text) is True, text
    fill = next(d for d in DRILLS if d.id == "drill-pipeline-fill-4-12-6-n50")  # 610
    for text in ("610 밀리초", "610ms", "610"):
        assert grade(fill, text) is True, text


@pytest.mark.parametrize(
    "text", ["", "   ", "abc", "모름", "5.9.1", "1,2,3", "nan", "inf", "1/0", "5 6", "(1+2"]
)
def test_unparseable_is_none(text: str) -> None:
    assert grade(DRILLS[0], text) is None


def test_importing_drills_does_not_import_numpy() -> None:
    code = (
        "import sys, studyapp.quiz.drills\n"
        "heavy = [m for m in ('numpy', 'torch', 'textual') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def _numbers_in(text: str) -> set[str]:
    """The numbers written in a statement, normalised ("7.30" and "7.3" are the same number)."""
    return {f"{float(n):g}" for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))}


def test_no_drill_repeats_the_numbers_of_an_item() -> None:
    """A drill whose parameters and answer are all in one O/X statement is a give-away: the learner
    who met the item answers the drill from memory (review B: limit-90 = ba-016, gustafson-10-8 = ba-020)."""
    from studyapp import locations
    from studyapp.content.loader import load_content

    content = load_content(locations.content_dir())
    assert content.items_for_topic("bottleneck-analysis")
    for drill in DRILLS:
        items = content.items_for_topic(drill.topic)
        parameters = {f"{float(n):g}" for n in re.findall(r"\d+", drill.id)}
        if m := re.search(r"karp-flatt-(\d+)-", drill.id):  # the id holds the speedup × 100
            parameters = (parameters - {f"{float(m[1]):g}"}) | {f"{int(m[1]) / 100:g}"}
        if drill.id.startswith("drill-auc-"):  # scores × 100 too
            parameters = {f"{int(n) / 100:g}" for n in re.findall(r"\d+", drill.id)}
        decimals = round(-math.log10(drill.tolerance))
        answer = f"{float(f'{drill.answer:.{decimals}f}'):g}"
        for item in items:
            found = _numbers_in(item.statement)
            assert not (parameters | {answer}) <= found, f"{drill.id} repeats {item.id}: {item.statement}"


def test_plain_summary_lists_a_missed_drill_as_asked() -> None:
    """The --plain summary's missed list shows the answer rounded as asked, with its unit, not the
    raw float "8.333333333333334" (review B D3)."""

    content = load_content(locations.content_dir())
    questions = all_questions(content)
    missed = [questions["drill-amdahl-limit-88"], questions["drill-little-120-75"]]
    summary = Summary(
        mode="review",
        answered=2,
        correct=0,
        per_topic={},
        misses=[AnswerRecord(q, "1", False, False, None) for q in missed],
        elapsed_s=1.0,
        due_now=0,
        next_due=None,
    )
    lines = format_summary(summary, content, lambda key, **values: key)
    assert any(line.endswith("→ 8.33배") for line in lines), lines
    assert any(line.endswith("→ 9.0건") for line in lines), lines
