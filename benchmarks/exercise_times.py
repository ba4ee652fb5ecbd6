"""Check time of every exercise, as `studyapp exercise check ID --path DIR --json` runs it: the
reference solution (quick and full) and the untouched starter (quick), median of N runs, with the
verdicts seen — the numbers for issue 11's closing note.

python benchmarks/exercise_times.py --runs 3 [--exercises trace-handler,amdahl] [--quick-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def one_check(exercise_id: str, folder: Path, quick: bool, home: Path) -> tuple[float, str]:
    """Wall time of one check of a fresh copy of `folder`, and its verdict."""
    workspace = Path(tempfile.mkdtemp(prefix=f"{exercise_id}-", dir=home))
    shutil.copytree(folder, workspace, dirs_exist_ok=True)
    command = [sys.executable, "-m", "studyapp", "exercise", "check", exercise_id, "--path", str(workspace)]
    command += ["--json"] + (["--quick"] if quick else [])
    env = dict(os.environ, STUDYAPP_HOME=str(home), PYTHONPATH=str(REPO))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=1800)
    elapsed = time.perf_counter() - started
    try:
        verdict = json.loads(done.stdout.strip().splitlines()[-1])["verdict"]
    except (IndexError, KeyError, ValueError):
        verdict = f"exit {done.returncode}: {done.stderr.strip()[-80:]}"
    return elapsed, verdict


def main() -> None:
    from studyapp.exercises.registry import discover

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--exercises", help="comma-separated ids (default: all)")
    parser.add_argument("--quick-only", action="store_true")
    args = parser.parse_args()
    exercises = discover()  # the checkout's labs, or $STUDYAPP_LABS
    chosen = args.exercises.split(",") if args.exercises else list(exercises)
    home = Path(tempfile.mkdtemp(prefix="studyapp-exercise-times-"))
    print(f"exercise check wall time, median of {args.runs} runs [min–max] s, verdicts seen")
    for exercise_id in chosen:
        info = exercises[exercise_id]
        cases = [("solution", info.solution_dir, True), ("starter", info.starter_dir, True)]
        if not args.quick_only:
            cases.insert(1, ("solution", info.solution_dir, False))
        for label, folder, quick in cases:
            runs = [one_check(exercise_id, folder, quick, home) for _ in range(args.runs)]
            times = [t for t, _ in runs]
            verdicts = ",".join(sorted({v for _, v in runs}))
            mode = "quick" if quick else "full"
            print(
                f"  {exercise_id:20} {label:8} {mode:5} {statistics.median(times):6.1f} "
                f"[{min(times):5.1f}–{max(times):5.1f}]  {verdicts}",
                flush=True,
            )
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
