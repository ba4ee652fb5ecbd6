"""`studyapp progress --json` on a heavy store: time and peak memory of the whole command.

The reliability review (2026-12-second, M1) found the prediction crashing after ~2000 answers to
one item and growing ~9 KB a review (2.4 GB at 300 000). This fills a fresh store straight through
SQLite with N O/X answers — spread over every item of the bank over 400 days, or all to one item
(`--one-item`) — then runs `studyapp progress --json` in a child process, as a learner would:

    python benchmarks/prediction_heavy.py [--reviews 1000000] [--one-item]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the checkout's studyapp, installed or not
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def fill(db_path: Path, item_ids: list[str], count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    span = 400 * 86400
    with sqlite3.connect(db_path) as db:
        rows = []
        for n in range(count):
            ok = rng.random() < 0.75
            moment = NOW - timedelta(seconds=span * (1 - n / count) + 60)
            rows.append(
                (f"{n:032x}", item_ids[n % len(item_ids)], "ox", "O" if ok else "X", int(ok), 0,
                 3 if ok else 1, "due", None, moment.isoformat(), 5000, None)
            )  # fmt: skip
            if len(rows) == 100_000:
                db.executemany("INSERT INTO reviews(uid, item_id, kind, answer, correct, unsure, rating, mode,"
                               " session_id, reviewed_at, response_ms, text_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)  # fmt: skip
                rows = []
        if rows:
            db.executemany("INSERT INTO reviews(uid, item_id, kind, answer, correct, unsure, rating, mode,"
                           " session_id, reviewed_at, response_ms, text_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", rows)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--one-item", action="store_true", help="every answer to one item")
    args = parser.parse_args(argv)
    env = {**os.environ, "STUDYAPP_NOW": NOW.isoformat(), "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory() as tmp:
        env["STUDYAPP_HOME"] = tmp
        cli = [sys.executable, "-m", "studyapp", "progress", "--json"]
        first = subprocess.run(cli, env=env, capture_output=True, text=True, cwd=REPO, check=True)
        items = [entry["id"] for entry in json.loads(first.stdout).get("items", [])]
        if not items:
            from studyapp.content.loader import load_content
            from studyapp.locations import content_dir

            items = sorted(load_content(content_dir(None)).items)
        started = time.perf_counter()
        fill(Path(tmp) / "progress.db", items[:1] if args.one_item else items, args.reviews)
        filled = time.perf_counter() - started
        started = time.perf_counter()
        result = subprocess.run(cli, env=env, capture_output=True, text=True, cwd=REPO)
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        ok = result.returncode == 0
        today = json.loads(result.stdout)["exam_prediction"]["today"] if ok else result.stderr.strip()
        where = "one item" if args.one_item else f"{len(items)} items"
        print(f"{args.reviews} reviews over {where} (filled in {filled:.1f} s)")
        print(f"studyapp progress --json: rc {result.returncode}, {seconds:.2f} s, peak RSS {peak_mb:.0f} MB")
        print(f"today: {today}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
