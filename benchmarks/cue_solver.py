"""How far a learner who knows nothing gets on the bank: the cue-only solver of issue 20.

The solver (studyapp/content/cues.py) reads only the text's form: lengths, absolute words
(항상, 반드시, 모든, …), hedges (…할 수 있다), option positions and options that contradict each
other. Printed per topic and for the whole bank:

- O/X: every rule's accuracy on statements held out (fitted on one half, scored on the other,
  averaged over `--splits` seeded splits), and the best of them. Issue 20's target: ≤ 60 %.
- 4-choice: every strategy's share of keys found over the questions `studyapp quiz --kind choice
  --topic T` generates for `--seeds` seeds, and the best. Target: ≤ 35 % (chance 25 %).

    python benchmarks/cue_solver.py [--content DIR] [--seeds 8] [--splits 50] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from studyapp.content import cues  # noqa: E402
from studyapp.content.loader import check_content  # noqa: E402
from studyapp.quiz.choice_cues import choice_scores  # noqa: E402

OX_TARGET = 0.60
CHOICE_TARGET = 0.35


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", type=Path, default=REPO / "content")
    parser.add_argument("--seeds", type=int, default=8, help="4-choice batches per topic")
    parser.add_argument("--splits", type=int, default=50, help="O/X half/half splits")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    content, _ = check_content(args.content)
    if content is None:
        print("the content does not load; run `studyapp check`")
        return 2

    started = time.perf_counter()
    scores = choice_scores(content, range(args.seeds))
    choice_s = time.perf_counter() - started
    started = time.perf_counter()
    report = cues.lint(content, scores, splits=args.splits)
    ox_s = time.perf_counter() - started

    rows = [*report.topics, report.bank]
    if args.json:
        print(
            json.dumps(
                {
                    row.topic: {
                        "statements": row.statements,
                        "ox": row.ox.by_rule if row.ox else None,
                        "ox_best": row.ox.best if row.ox else None,
                        "choice": row.choice.by_strategy if row.choice else None,
                        "choice_best": row.choice.best if row.choice else None,
                        "choice_questions": row.choice.questions if row.choice else 0,
                        "key_positions": list(row.choice.positions) if row.choice else [],
                    }
                    for row in rows
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0

    print("\n".join(cues.format_figures(report)))
    print(f"\nO/X rules, held-out accuracy ({args.splits} splits):")
    for row in rows:
        if row.ox is None:
            continue
        best = f"best {row.ox.best:.1%} ({row.ox.best_rule})"
        print(f"  {row.topic:<22} {best}")
        for name, value in sorted(row.ox.by_rule.items(), key=lambda entry: -entry[1]):
            print(f"      {value:6.1%}  {name}")
    print(f"\n4-choice strategies, share of keys found ({args.seeds} batches per topic):")
    for row in rows:
        if row.choice is None or not row.choice.questions:
            continue
        choice = row.choice
        print(
            f"  {row.topic:<22} best {choice.best:.1%} ({choice.best_strategy}) over {choice.questions} "
            f"questions; key longest {choice.key_longest:.0%}, shortest {choice.key_shortest:.0%}, "
            f"positions {'/'.join(map(str, choice.positions))}, 옳은/옳지 않은 {choice.kinds[0]}/{choice.kinds[1]}"
        )
        for name, value in sorted(choice.by_strategy.items(), key=lambda entry: -entry[1]):
            print(f"      {value:6.1%}  {name}")
    bank_ox = report.bank.ox.best if report.bank.ox else 0.0
    worst_choice = max((row.choice.best for row in report.topics if row.choice), default=0.0)
    print(
        f"\ntargets: O/X {bank_ox:.1%} (≤ {OX_TARGET:.0%}: {'met' if bank_ox <= OX_TARGET else 'NOT met'}), "
        f"4-choice worst topic {worst_choice:.1%} (≤ {CHOICE_TARGET:.0%}: "
        f"{'met' if worst_choice <= CHOICE_TARGET else 'NOT met'})"
    )
    print(f"time: 4-choice generation and scoring {choice_s:.1f} s, O/X rules and lint {ox_s:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
