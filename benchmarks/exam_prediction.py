"""How well the exam prediction predicts: simulated learners study with the real engine for weeks,
then sit real mock exams (tests/learner_sim.py has the memory model — not FSRS).

For learners who can learn 30 %, 60 % and 90 % of the items, over study plans of different
lengths and a gap of days without study before the exam, it prints:
- MAE: mean absolute error, in points, between the predicted and the actual mock-exam score —
  per sitting (one 30-question exam: its own luck included), and per learner (the mean of the
  learner's sittings); "floor" is the per-sitting MAE of the simulator's own true probabilities
  for the same questions, the part no prediction can remove; "floor (pool)" that of the
  simulator's own expectation over exams not yet drawn, the part no prediction made before the
  questions are drawn (MAE/sitting's, Home's) can remove;
- the exam-day projection made at the end of study, against the exams sat after the gap;
- pass probability (mean of the predictions) against the actual pass rate;
- the calibration of the per-question probabilities (Brier score, and the reliability table);
- the share of sittings whose score fell inside the predicted 80 % interval.

    python benchmarks/exam_prediction.py [--learners 12] [--exams 6] [--quick] [--early-only] [--seed N]
        [--keep DIR]
    python benchmarks/exam_prediction.py --replay DIR [DIR ...]

`--keep DIR` keeps each learner's progress store as it stood when the prediction was made, with
what the learner then scored (DIR/l{seed}/). `--replay` runs today's prediction code on kept
stores and prints the rows again (Home's prediction: "its questions" and the per-question
calibration need the exams themselves and are left out): a change to the model is measured on
the same learners in a minute, where simulating them again takes a quarter of an hour. The
simulator never reads the prediction, so the learners' answers do not depend on it.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from studyapp import locations  # noqa: E402
from studyapp.content.loader import load_content  # noqa: E402
from studyapp.content.model import Content  # noqa: E402
from studyapp.progress.db import DB_NAME  # noqa: E402
from studyapp.report import prediction  # noqa: E402
from studyapp.report.recall_model import score_predictions  # noqa: E402
from tests.learner_sim import (  # noqa: E402
    START,
    Learner,
    SimClock,
    Sitting,
    open_store,
    pool_oracle,
    sit_exam,
    study_day,
)

SHARES = (0.3, 0.6, 0.9)
PLANS = (
    (10, 30, 0),
    (20, 30, 0),
    (14, 30, 7),
)  # (study days, answers a day, days without study before the exam)
# Learners in their first 100 answers (3 days of 30, mixed O/X and 4-choice), some of whom studied
# before the app (PRIOR_KNOWN: the share of their learnable items known on day 0).
EARLY_PLAN = (3, 30, 0)
EARLY_PRIOR_KNOWN = (0.25, 0.8)
POOL_DRAWS = 40  # exams drawn (not sat) for the simulator's own pool expectation


@dataclass
class LearnerRun:
    share: float
    plan: tuple[int, int, int]
    sittings: list[Sitting]
    projected: prediction.Outlook | None  # the exam-day outlook made at the end of study
    calibration: Any = None
    answers: int = 0
    seconds: float = 0.0
    fitted: bool = False
    pool_oracle: float = 0.0  # the simulator's expected share over exams not yet drawn


def run_learner(
    content: Content,
    folder: Path,
    share: float,
    plan: tuple[int, int, int],
    seed: int,
    exams: int,
    prior_known: float = 0.25,
    keep: Path | None = None,
) -> LearnerRun:
    started = time.perf_counter()
    days, per_day, gap = plan
    clock = SimClock()
    store = open_store(folder, clock)
    exam_date = (START + timedelta(days=days + gap)).date()
    store.set_exam_date(exam_date)
    learner = Learner.create(content, share, seed, prior_known)
    answers = 0
    for day in range(days):
        clock.now = START + timedelta(days=day)
        answers += study_day(content, store, learner, clock, per_day, seed * 1000 + day)
    clock.now = START + timedelta(days=days - 1, hours=10)
    projected_at = clock()
    projected = prediction.predict(content, store, projected_at).exam_day if gap else None
    clock.now = START + timedelta(days=days + gap, hours=0 if gap else -14)
    if keep is not None:  # the store as the prediction reads it, before the exams add to it
        store.close()
        (keep / f"l{seed}").mkdir(parents=True, exist_ok=True)
        shutil.copy(folder / DB_NAME, keep / f"l{seed}" / DB_NAME)
        store = open_store(folder, clock)
    state = prediction.learner_state(content, store)
    today = prediction.predict(content, store, clock(), state=state)
    sittings = [sit_exam(content, store, learner, clock, seed * 7919 + n, today.today) for n in range(exams)]
    # the exams teach the simulated learner nothing, so the pool is the same for every sitting
    pool = pool_oracle(content, learner, clock(), [seed * 7919 + 100_000 + n for n in range(POOL_DRAWS)])
    store.close()
    if keep is not None:
        kept = {
            "share": share,
            "plan": plan,
            "prior_known": prior_known,
            "answers": answers,
            "at": clock().isoformat(),
            "projected_at": projected_at.isoformat() if gap else None,
            "scores": [s.score for s in sittings],
            "passed": [s.passed for s in sittings],
            "oracles": [s.oracle for s in sittings],
            "pool_oracle": pool,
        }
        (keep / f"l{seed}" / "run.json").write_text(json.dumps(kept), encoding="utf-8")
    return LearnerRun(
        share,
        plan,
        sittings,
        projected,
        state.calibration,
        answers,
        time.perf_counter() - started,
        state.model.fitted,
        pool,
    )


@dataclass
class Group:
    runs: list[LearnerRun] = field(default_factory=list)

    @property
    def sittings(self) -> list[Sitting]:
        return [s for r in self.runs for s in r.sittings]


def points(value: float) -> str:
    return f"{value * 100:5.1f}"


def summarise(label: str, runs: list[LearnerRun]) -> dict[str, float]:
    sittings = [s for r in runs for s in r.sittings]
    per_sitting = statistics.mean(abs(s.predicted_pool - s.score) for s in sittings)
    attempt = statistics.mean(abs(s.predicted_attempt - s.score) for s in sittings)
    floor = statistics.mean(abs(s.oracle - s.score) for s in sittings)
    pool_floor = statistics.mean(abs(r.pool_oracle - s.score) for r in runs for s in r.sittings)
    per_learner = statistics.mean(
        abs(r.sittings[0].predicted_pool - statistics.mean(s.score for s in r.sittings)) for r in runs
    )
    pass_p = statistics.mean(s.pool_pass_probability for s in sittings)
    pass_rate = statistics.mean(float(s.passed) for s in sittings)
    inside = statistics.mean(float(s.low - 1e-9 <= s.score <= s.high + 1e-9) for s in sittings)
    pairs = [pair for s in sittings for pair in s.per_question]
    brier = score_predictions([p for p, _ in pairs], [y for _, y in pairs]).brier
    brier = math.nan if brier is None else brier  # replayed: no per-question predictions
    return {
        "label": label,
        "learners": len(runs),
        "sittings": len(sittings),
        "predicted": statistics.mean(s.predicted_pool for s in sittings),
        "actual": statistics.mean(s.score for s in sittings),
        "mae_sitting": per_sitting,
        "mae_attempt": attempt,
        "mae_floor": floor,
        "mae_pool_floor": pool_floor,
        "mae_learner": per_learner,
        "pass_p": pass_p,
        "pass_rate": pass_rate,
        "inside": inside,
        "brier": brier,
    }


def table_rows(runs: list[LearnerRun], early: list[LearnerRun]) -> list[dict[str, float]]:
    """A row per share the runs hold, "all" over them, and the early learners' row."""
    rows = [
        summarise(f"{share:.0%}", [r for r in runs if r.share == share])
        for share in SHARES
        if any(r.share == share for r in runs)
    ]
    if runs:
        rows.append(summarise("all", runs))
    if early:
        rows.append(summarise("first 90 answers", early))
    return rows


def print_table(rows: list[dict[str, float]]) -> None:
    print(
        "| learner knows | learners | sittings | predicted | actual | MAE/sitting | MAE/sitting (its questions)"
        " | floor | floor (pool) | MAE/learner | P(pass) | pass rate | in 80 % interval | Brier/question |"
    )
    print(
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    for row in rows:
        print(
            f"| {row['label']} | {row['learners']} | {row['sittings']} | {points(row['predicted'])} |"
            f" {points(row['actual'])} | {points(row['mae_sitting'])} | {points(row['mae_attempt'])} |"
            f" {points(row['mae_floor'])} | {points(row['mae_pool_floor'])} | {points(row['mae_learner'])} | {row['pass_p']:.2f} |"
            f" {row['pass_rate']:.2f} | {row['inside']:.2f} | {row['brier']:.3f} |"
        )


def projection_table(runs: list[LearnerRun]) -> None:
    projected = [r for r in runs if r.projected is not None]
    if not projected:
        return
    print()
    print("Exam-day projection made at the end of study, exams sat after the gap:")
    print("| learner knows | learners | projected | actual | MAE/learner | P(pass) projected | pass rate |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    by_share: dict[float, list[LearnerRun]] = defaultdict(list)
    for run in projected:
        by_share[run.share].append(run)
    for share, group in sorted(by_share.items()):
        actual = [statistics.mean(s.score for s in r.sittings) for r in group]
        guess = [r.projected.expected for r in group if r.projected]
        print(
            f"| {share:.0%} | {len(group)} | {points(statistics.mean(guess))} | {points(statistics.mean(actual))} |"
            f" {points(statistics.mean(abs(a - b) for a, b in zip(guess, actual, strict=True)))} |"
            f" {statistics.mean(r.projected.pass_probability for r in group if r.projected):.2f} |"
            f" {statistics.mean(float(s.passed) for r in group for s in r.sittings):.2f} |"
        )


def reliability_table(runs: list[LearnerRun]) -> None:
    pairs = [pair for r in runs for s in r.sittings for pair in s.per_question]
    result = score_predictions([p for p, _ in pairs], [y for _, y in pairs])
    print()
    print(
        f"Per-question calibration over {result.answers} exam questions: Brier {result.brier:.3f},"
        f" log loss {result.log_loss:.3f}"
    )
    print("| predicted | questions | mean predicted | share right |")
    print("| --- | ---: | ---: | ---: |")
    for b in result.bins:
        print(f"| {b.low:.1f}–{b.high:.1f} | {b.count} | {b.predicted:.2f} | {b.observed:.2f} |")
    answers = [r.calibration for r in runs if r.calibration and r.calibration.answers]
    if answers:
        print()
        print(
            "Study answers (O/X, each predicted before it was given, prequentially):"
            f" {sum(c.answers for c in answers)} answers, mean Brier"
            f" {statistics.mean(c.brier for c in answers):.3f}, mean log loss"
            f" {statistics.mean(c.log_loss for c in answers):.3f}"
        )


def replay_learner(content: Content, folder: Path) -> LearnerRun:
    """A kept learner (`--keep`) predicted again by today's code: Home's prediction at the moment
    it was made, against the scores kept. The per-question and "its questions" parts are not
    replayed (they were predicted with the exams in the store)."""
    kept = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    at = datetime.fromisoformat(kept["at"])
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(folder / DB_NAME, Path(tmp) / DB_NAME)
        store = open_store(Path(tmp), SimClock(at))
        started = time.perf_counter()
        state = prediction.learner_state(content, store)
        today = prediction.predict(content, store, at, state=state).today
        projected = None
        if kept["projected_at"]:
            projected = prediction.predict(
                content, store, datetime.fromisoformat(kept["projected_at"])
            ).exam_day
        store.close()
    sittings = [
        Sitting(
            today.expected,
            today.pass_probability,
            math.nan,
            math.nan,
            today.low,
            today.high,
            score,
            passed,
            (),
            oracle,
        )
        for score, passed, oracle in zip(kept["scores"], kept["passed"], kept["oracles"], strict=True)
    ]
    return LearnerRun(
        kept["share"],
        tuple(kept["plan"]),
        sittings,
        projected,
        state.calibration,
        kept["answers"],
        time.perf_counter() - started,
        state.model.fitted,
        kept["pool_oracle"],
    )


def replay(folders: list[Path]) -> int:
    content = load_content(locations.content_dir(None))
    started = time.perf_counter()
    learners = sorted(
        (path.parent for folder in folders for path in folder.glob("l*/run.json")),
        key=lambda path: int(path.name[1:]),
    )
    if not learners:
        print(
            f"no kept learners under {', '.join(map(str, folders))} (made with --keep DIR)", file=sys.stderr
        )
        return 2
    runs = [replay_learner(content, folder) for folder in learners]
    main_runs = [r for r in runs if r.plan != EARLY_PLAN]
    early = [r for r in runs if r.plan == EARLY_PLAN]
    print(f"Exam prediction replayed on {len(runs)} kept learners ({time.perf_counter() - started:.0f} s)")
    print()
    print_table(table_rows(main_runs, early))
    projection_table(main_runs)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    # 12: 36 learners a row. With 12 a row, a row's MAE moves by up to three points from one set
    # of learners to the next, with 36 by about one (docs/READINESS.md, --seed)
    parser.add_argument("--learners", type=int, default=12, help="learners per share and plan")
    parser.add_argument("--exams", type=int, default=6, help="mock exams each learner sits")
    parser.add_argument("--quick", action="store_true", help="one plan, two learners per share")
    parser.add_argument("--early-only", action="store_true", help="only the first-100-answers row")
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="the first learner's seed (another value: other learners, other exams)",
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep each learner's store and scores here")
    parser.add_argument(
        "--replay", type=Path, nargs="+", metavar="DIR", help="predict again on stores kept with --keep"
    )
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    content = load_content(locations.content_dir(None))
    plans = () if args.early_only else PLANS[:1] if args.quick else PLANS
    learners = 2 if args.quick else args.learners
    runs: list[LearnerRun] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        seed = args.seed
        for share in SHARES:
            for plan in plans:
                for _ in range(learners):
                    run = run_learner(
                        content, Path(tmp) / f"l{seed}", share, plan, seed, args.exams, keep=args.keep
                    )
                    runs.append(run)
                    print(
                        f"  learner {seed}: knows {share:.0%}, plan {plan}, {run.answers} answers;"
                        f" predicted {points(run.sittings[0].predicted_pool)},"
                        f" actual {points(statistics.mean(s.score for s in run.sittings))},"
                        f" pool oracle {points(run.pool_oracle)}; {run.seconds:.1f}s",
                        file=sys.stderr,
                    )
                    seed += 1
        # --early-only: the same learners (seeds) as the full table's early row
        seed = args.seed + len(SHARES) * len(PLANS) * args.learners
        early: list[LearnerRun] = []
        for share in SHARES:
            for prior_known in EARLY_PRIOR_KNOWN:
                for _ in range(max(1, learners // 2)):
                    folder = Path(tmp) / f"l{seed}"
                    run = run_learner(
                        content, folder, share, EARLY_PLAN, seed, args.exams, prior_known, keep=args.keep
                    )
                    early.append(run)
                    actual = statistics.mean(s.score for s in run.sittings)
                    passed = statistics.mean(float(s.passed) for s in run.sittings)
                    print(
                        f"  early learner {seed}: knows {share:.0%}, {prior_known:.0%} before, {run.answers}"
                        f" answers; predicted {points(run.sittings[0].predicted_pool)}, actual {points(actual)},"
                        f" pool oracle {points(run.pool_oracle)};"
                        f" P(pass) {run.sittings[0].pool_pass_probability:.2f}, passed {passed:.2f}",
                        file=sys.stderr,
                    )
                    seed += 1
    print(f"Exam prediction against simulated learners ({time.perf_counter() - started:.0f} s)")
    print()
    print_table(table_rows(runs, early))
    projection_table(runs)
    reliability_table(runs + early)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
