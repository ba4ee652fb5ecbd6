"""Decided rate of the concurrency check for every right approach: the reference solution and the
right-but-different solutions in tests/exercises/right/concurrency/ (fork or spawn, map or submit,
multiprocessing.Pool, asyncio gather), each checked N times as `studyapp exercise check concurrency
--json` runs it. Issue 31 asks for at least 9 decided of 10 on an idle 2-core machine; the load
average before and after is printed, because on a shared machine the rate says how busy it was.

nice python benchmarks/concurrency_decided_rate.py --runs 10 [--quick] [--only spawn-pool-map]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.exercise_times import one_check  # noqa: E402
from studyapp.exercises import verify  # noqa: E402

EXERCISE = REPO / "labs" / "concurrency" / "exercises" / "concurrency"
RIGHT = REPO / "tests" / "exercises" / "right" / "concurrency"


def approaches(work: Path) -> dict[str, Path]:
    """name → a folder holding that right solution."""
    folders = {"reference (fork, map)": EXERCISE / "solution"}
    for path in sorted(RIGHT.glob("*.yaml")):
        folders[path.stem] = verify.plant_slip(
            verify.load_slip(path), EXERCISE / "solution", work / path.stem
        )
    return folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="", help="comma-separated approach names")
    args = parser.parse_args()
    chosen = {name for name in args.only.split(",") if name}
    with tempfile.TemporaryDirectory(prefix="decided-rate-") as temporary:
        work = Path(temporary)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        for name, folder in approaches(work).items():
            if chosen and name not in chosen:
                continue
            verdicts: Counter[str] = Counter()
            times = []
            for _ in range(args.runs):
                elapsed, verdict = one_check("concurrency", folder, args.quick, work)
                verdicts[verdict] += 1
                times.append(elapsed)
            decided = verdicts["passed"] + verdicts["failed"]
            print(
                f"{name}: decided {decided}/{args.runs} ({dict(verdicts)}), "
                f"check {min(times):.1f}–{max(times):.1f} s, load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
