"""The near-duplicate detector and 4-choice generation, against reading the content itself.

`studyapp check` reads and checks every YAML file (`check_content`), then runs the detector
(`duplicate_problems`). The detector compares every pair of statements that share an n-gram, in
pure Python, so it costs about as much as reading the YAML: the aim is a ratio
detector / check_content ≤ 2 on the shipped bank (measured ~1-1.6 at 220 items, ~30 ms). Times are medians of alternating runs in the
same process (this machine is shared, so absolute numbers are noisy; ratios are what to read).

Also measured: how the detector grows with the bank (the bank's statements repeated with a
distinct suffix, ×1, ×2, ×4: all pairs are compared, so expect about n² in the worst case; the
inverted index only visits pairs that share an n-gram), and generating 30 choice questions
(a mock exam) including building the similarity index.

    python benchmarks/similarity.py [--runs 15]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from studyapp.content.loader import check_content  # noqa: E402
from studyapp.content.similarity import SimilarityIndex, duplicate_problems  # noqa: E402
from studyapp.quiz.choice import generate_choice_questions  # noqa: E402


def median_ms(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    root = REPO / "content"
    content, _ = check_content(root)
    if content is None:
        print("the shipped content does not load; run `studyapp check`")
        return 2
    items = list(content.items.values())

    # Alternate the two so that load on the machine hits both alike.
    check_times, detector_times = [], []
    for _ in range(args.runs):
        check_times.append(median_ms(lambda: check_content(root), 1))
        detector_times.append(median_ms(lambda: duplicate_problems(content), 1))
    check_ms, detector_ms = statistics.median(check_times), statistics.median(detector_times)
    print(f"items: {len(items)}")
    print(f"check_content (read + check YAML): {check_ms:8.1f} ms")
    print(f"duplicate_problems (detector):     {detector_ms:8.1f} ms")
    print(f"ratio detector / check_content:    {detector_ms / check_ms:8.2f}  (aim ≤ 2)")

    print("growth (statements repeated with a distinct suffix):")
    base_ms = None
    for factor in (1, 2, 4):
        bank = [
            replace(item, id=f"{item.id}-r{copy}", statement=f"{item.statement} 반복{copy}호")
            for copy in range(factor)
            for item in items
        ]
        elapsed = median_ms(lambda bank=bank: SimilarityIndex(bank).pairs(), max(3, args.runs // 3))
        base_ms = base_ms or elapsed
        print(
            f"  n = {len(bank):5d}: {elapsed:8.1f} ms   ×{elapsed / base_ms:5.1f} (n² would be ×{factor**2})"
        )

    exam_ms = median_ms(lambda: generate_choice_questions(items, 30, random.Random(1)), args.runs)
    print(
        f"30 choice questions (index included): {exam_ms:8.1f} ms   ratio to check_content {exam_ms / check_ms:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
