"""Peak memory of a quiz session: the TUI (headless) and, for comparison, the engine alone.

Each variant runs in its own fresh process so the numbers do not mix: tracemalloc is started
before anything is imported (so it counts Python allocations by studyapp, Textual, Rich, YAML…),
then the content is loaded, a session of N questions is answered, the summary is built, and the
process reports tracemalloc's current and peak bytes and the kernel's ru_maxrss (the resident
set high-water mark, which also counts the interpreter and C extensions).

    python benchmarks/quiz_memory.py [--answers 100]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import tracemalloc
tracemalloc.start()
import asyncio, json, resource, sys, tempfile
from pathlib import Path

variant, answers = sys.argv[1], int(sys.argv[2])
from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import QuizSession, SessionOptions

content = load_content(locations.content_dir())
store = ProgressStore.in_dir(Path(tempfile.mkdtemp()))
options = SessionOptions(mode="cram", count=answers, seed=1)


def reply(question):
    return question.answer if question.kind == "ox" else f"{float(question.answer):.6g}"


if variant == "engine":
    session = QuizSession(content, store, options)
    while not session.finished:
        session.answer(reply(session.current))
    session.summary()
    answered = len(session.answers)
else:
    from studyapp.tui.app import make_app

    app = make_app(content=content, store=store, lang="ko", start="quiz", options=options)

    async def run():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            total = screen.session.total
            for _ in range(total):
                question = screen.question
                if question.kind == "ox":
                    await pilot.press(question.answer.lower())
                else:
                    await pilot.press(*reply(question), "enter")
                await pilot.press("enter")  # next question; after the last one, the summary
            await pilot.pause()
            return len(screen.session.answers), type(app.screen).__name__

    answered, last_screen = asyncio.run(run())
    assert last_screen == "SummaryScreen", last_screen

current, peak = tracemalloc.get_traced_memory()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({
    "answered": answered,
    "reviews": store.review_count(),
    "traced_current": current,
    "traced_peak": peak,
    "maxrss_kib": usage.ru_maxrss,
    "modules": len(sys.modules),
    "torch": "torch" in sys.modules,
    "numpy": "numpy" in sys.modules,
}))
"""


def run(variant: str, answers: int) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(REPO), STUDYAPP_HOME=tempfile.mkdtemp(prefix="studyapp-mem-"))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, variant, str(answers)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=600,
    )
    if out.returncode != 0:
        raise SystemExit(f"{variant} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    args = parser.parse_args()
    print(f"quiz session memory, {args.answers} questions (cram mode, O/X and drills)")
    for variant, label in (("engine", "engine only (no TUI)"), ("tui", "TUI, headless 80×24")):
        data = run(variant, args.answers)
        print(
            f"  {label:<22} tracemalloc peak {int(data['traced_peak']) / 2**20:6.1f} MiB"
            f" (current {int(data['traced_current']) / 2**20:5.1f})   ru_maxrss {int(data['maxrss_kib']) / 1024:6.1f} MiB"
            f"   answered {data['answered']}, reviews {data['reviews']}, modules {data['modules']},"
            f" torch {data['torch']}, numpy {data['numpy']}"
        )


if __name__ == "__main__":
    main()
