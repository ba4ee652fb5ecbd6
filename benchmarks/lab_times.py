"""Wall time of every lab, quick and full, as `studyapp lab NAME --json` runs it (median of N runs).

python benchmarks/lab_times.py --runs 3 [--labs profiler,amdahl] [--quick-only]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABS = ["profiler", "benchmark", "amdahl", "concurrency", "pipeline", "errors"]


def one_run(lab: str, quick: bool, home: Path) -> tuple[float, str]:
    command = [sys.executable, "-m", "studyapp", "lab", lab, "--json"] + (["--quick"] if quick else [])
    env = dict(os.environ, STUDYAPP_HOME=str(home), PYTHONPATH=str(REPO))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
    elapsed = time.perf_counter() - started
    status = json.loads(done.stdout).get("status", "?") if done.stdout.strip() else f"exit {done.returncode}"
    return elapsed, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--labs", default=",".join(LABS))
    parser.add_argument("--quick-only", action="store_true")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="studyapp-labtimes-"))
    print(f"lab wall time, median of {args.runs} runs [min–max] s, via `studyapp lab NAME --json`")
    for lab in args.labs.split(","):
        for quick in (True,) if args.quick_only else (True, False):
            runs = [one_run(lab, quick, home) for _ in range(args.runs)]
            times = [t for t, _ in runs]
            statuses = sorted({s for _, s in runs})
            mode = "quick" if quick else "full"
            print(
                f"  {lab:12} {mode:5} {statistics.median(times):6.1f} [{min(times):5.1f}–{max(times):5.1f}]  "
                f"status {','.join(statuses)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
