"""Keypress → feedback latency of the question screen, headless (Textual `run_test`).

Each sample sends a key event for `o` or `x` to a fresh question, the way the terminal driver
does, and stops the clock when the feedback is laid out on the screen: the key was dispatched
through the bindings, `QuizSession.answer` committed the review to SQLite (WAL,
synchronous=FULL), the feedback panel was filled and the compositor has placed it. Then one full
80×24 render of the screen is timed on its own (what drawing that frame costs), and Enter → next
question is timed like the answer. Between samples the app is left to settle (footer keys
recomposed, timers idle), as between a learner's keystrokes; `pilot.press` is not used for timing
because it sleeps until the process looks idle, which measures its polling, not the app.
Textual lays out at most every 1/60 s, so a change waits 0–16.7 ms for the next frame tick on top
of the work it causes. Aim: median key → feedback < 16 ms.

    python benchmarks/keypress_latency.py [--answers 100] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from studyapp import locations
from studyapp.content.loader import load_content
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import SessionOptions
from studyapp.tui.app import make_app
from studyapp.tui.screens.quiz import ASKING, FEEDBACK, QuizScreen


async def send_key(app: Any, key: str, done: Callable[[], bool], timeout: float = 5.0) -> None:
    """Send `key` as the terminal driver would and return as soon as `done()` holds."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    deadline = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > deadline:
            raise SystemExit(f"no reaction to {key!r} within {timeout} s")
        await asyncio.sleep(0)


async def settle(pilot: Any) -> None:
    """Let the app finish what the last key started, like the pause between two keystrokes."""
    await pilot.pause()
    await asyncio.sleep(0.03)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def describe(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"  {name:<28} median {statistics.median(ms):6.2f}   p95 {percentile(ms, 0.95):6.2f}   "
        f"max {max(ms):6.2f} ms   (n={len(ms)})"
    )


async def measure(answers: int, data_dir: Path) -> dict[str, list[float]]:
    content = load_content(locations.content_dir())
    store = ProgressStore.in_dir(data_dir)
    options = SessionOptions(mode="cram", count=answers, include_drills=False, seed=1)
    app = make_app(content=content, store=store, lang="ko", start="quiz", options=options)
    times: dict[str, list[float]] = {
        "answer → feedback": [],
        "render 80×24 frame": [],
        "Enter → next question": [],
    }
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        feedback = screen.query_one("#feedback")
        statement = screen.query_one("#statement")
        for index in range(screen.session.total):
            question = screen.question
            assert question is not None
            key = "o" if index % 2 else "x"
            await settle(pilot)
            started = time.perf_counter()
            await send_key(app, key, lambda: screen.state == FEEDBACK and feedback.region.height > 0)
            times["answer → feedback"].append(time.perf_counter() - started)
            started = time.perf_counter()
            screen._compositor.render_update(full=True)
            times["render 80×24 frame"].append(time.perf_counter() - started)
            if index == screen.session.total - 1:
                break
            await settle(pilot)
            started = time.perf_counter()
            await send_key(
                app,
                "enter",
                lambda: (
                    screen.state == ASKING and feedback.region.height == 0 and statement.region.height > 0
                ),
            )
            times["Enter → next question"].append(time.perf_counter() - started)
        await pilot.pause()
        assert store.review_count() == screen.session.total
    store.close()
    return times


def filesystem(path: Path) -> str:
    try:
        out = subprocess.run(["df", "-T", str(path)], capture_output=True, text=True, check=True).stdout
        return out.splitlines()[-1].split()[1]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--data-dir", type=Path, help="where the progress file goes (default: a temp dir)")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="studyapp-latency-"))
    os.environ.setdefault("STUDYAPP_HOME", str(data_dir))
    times = asyncio.run(measure(args.answers, data_dir))
    print(f"keypress latency, headless, 80×24, progress store on {filesystem(data_dir)} ({data_dir})")
    for name, values in times.items():
        print(describe(name, values))


if __name__ == "__main__":
    main()
