"""How long the cue lint that learns takes on the bank, and what it finds (issue 32).

`studyapp check` runs `studyapp.content.learned_cues.learned_cue_report` on every statement: a
logistic regression on words, word endings, named clause forms and length, 5-fold × 4 seeded
repeats, plus every feature alone. Issue 32's targets: under 5 s on the shipped bank (~490
statements), and no feature (nor the model) above chance + 10 points held out.

    python benchmarks/cue_learned.py [--content DIR] [--runs 5] [--top 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from studyapp.content import learned_cues  # noqa: E402
from studyapp.content.loader import check_content  # noqa: E402

TIME_TARGET_S = 5.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", type=Path, default=REPO / "content")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (the first also imports numpy)")
    parser.add_argument("--top", type=int, default=15, help="leaning features to print")
    args = parser.parse_args()
    content, _ = check_content(args.content)
    if content is None:
        print("the content does not load; run `studyapp check`")
        return 2
    items = list(content.items.values())
    times = []
    report = None
    for _ in range(args.runs):
        started = time.perf_counter()
        report = learned_cues.learned_cue_report(items)
        times.append(time.perf_counter() - started)
    if report is None:
        print(f"{len(items)} statements: too few to fold (at least {learned_cues.MIN_STATEMENTS})")
        return 0
    print("\n".join(learned_cues.format_report(report, top=args.top)))
    print("\nnamed forms:")
    for cue in report.judged:
        if cue.named:
            print(f"  {cue.held_out:4.0%}  {cue.feature} → {cue.answer} ({cue.o_count} O / {cue.x_count} X)")
    flagged = ", ".join(cue.feature for cue in report.flagged) or "none"
    print(f"\nflagged: {flagged}; model {'FLAGGED' if report.model_flagged else 'ok'}")
    median = statistics.median(times)
    print(
        f"time over {args.runs} runs: first {times[0]:.2f} s (imports numpy), median {median:.2f} s, "
        f"max {max(times):.2f} s (target < {TIME_TARGET_S:.0f} s: {'met' if max(times) < TIME_TARGET_S else 'NOT met'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
