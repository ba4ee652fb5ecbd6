"""Cold start: process start → first question on screen, against a minimal Textual app.

Both programs run in a real pseudo-terminal (80×24) and exit right after their first paint:
`studyapp quiz` through STUDYAPP_EXIT_AFTER_FIRST_PAINT (the quiz screen calls
`call_after_refresh` once its first question is mounted, writes the wall-clock time to the file
the variable names, then exits), the baseline — an app that shows one Korean line — the same
way. Runs alternate between the programs; the medians are compared. Aim: ratio ≤ 1.3.

Three numbers per program:
  screen  spawn → the terminal receives the frame that shows the question (the first words of
          the first question's statement, or the baseline's line, read from the pty)
  marker  spawn → the app's own after-first-paint callback (it runs once the message queue is
          idle, so it also waits for work queued behind the first frame, e.g. the footer keys)
  exit    spawn → process exit (adds Textual's shutdown, about the same for both)

Bytecode is cached in a private PYTHONPYCACHEPREFIX (an installed studyapp has .pyc files;
an environment with PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every
start). Pass --no-bytecode-cache to measure that case instead.

    python benchmarks/startup.py [--runs 15] [--no-bytecode-cache] [--fresh | --first-start]

`--fresh` starts each run on a new data directory (a new learner profile: no progress file, the
machine's content cache warm); `--first-start` also gives each run an empty content cache, so the
YAML is read and checked (a machine's very first start).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER_ENV = "STUDYAPP_EXIT_AFTER_FIRST_PAINT"

BASELINE = """
import os, time
from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App):
    def compose(self) -> ComposeResult:
        yield Static("데이터 로딩이 느리면 전체 학습이 지연된다.", markup=False)

    def on_mount(self) -> None:
        self.call_after_refresh(self.painted)

    def painted(self) -> None:
        with open(os.environ["STUDYAPP_EXIT_AFTER_FIRST_PAINT"], "w") as marker:
            marker.write(repr(time.time()))
        self.exit()


Minimal().run()
"""


def run_in_pty(
    command: list[str], env: dict[str, str], marker: Path, needle: bytes
) -> tuple[float, float, float]:
    """(seconds to the frame with `needle`, to the paint marker, to exit) on a fresh 80×24 pty."""
    marker.unlink(missing_ok=True)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen: list[float] = []
    started = 0.0

    def drain() -> None:
        received = b""
        try:
            while chunk := os.read(master, 65536):
                if not seen:
                    received += chunk
                    if needle in received:
                        seen.append(time.perf_counter() - started)
        except OSError:
            pass

    reader = threading.Thread(target=drain, daemon=True)
    wall_start = time.time()
    started = time.perf_counter()
    reader.start()
    process = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=dict(env, **{MARKER_ENV: str(marker)}), cwd=REPO
    )
    code = process.wait(timeout=60)
    elapsed = time.perf_counter() - started
    os.close(slave)
    os.close(master)
    reader.join(timeout=1)
    if code != 0 or not marker.exists() or not seen:
        raise SystemExit(
            f"{' '.join(command)} exited with {code} (marker: {marker.exists()}, frame: {bool(seen)})"
        )
    return seen[0], float(marker.read_text()) - wall_start, elapsed


def first_statement(home: Path) -> bytes:
    """The first words of the question `studyapp quiz --seed 1` opens on (as the terminal gets them)."""
    sys.path.insert(0, str(REPO))
    from studyapp import locations
    from studyapp.content.loader import load_content
    from studyapp.progress.store import ProgressStore
    from studyapp.quiz.engine import QuizSession, SessionOptions, default_kind

    store = ProgressStore.in_dir(home)
    # The options `studyapp quiz` builds without flags (cli/quiz.py): ten questions, the mixed kind.
    options = SessionOptions(seed=1, count=10, kind=default_kind("due"))
    session = QuizSession(load_content(locations.content_dir()), store, options)
    store.close()
    assert session.current is not None, "nothing to ask"
    return session.current.prompt.split()[0].encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-bytecode-cache", action="store_true", help="recompile every module each start")
    parser.add_argument(
        "--fresh", action="store_true", help="a new data directory (no progress file) on every start"
    )
    parser.add_argument(
        "--first-start",
        action="store_true",
        help="a new data directory and no content cache on every start (a machine's very first run)",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="studyapp-bench-"))
    env = dict(
        os.environ,
        TERM="xterm-256color",
        LANG="C.UTF-8",
        PYTHONPATH=str(REPO),
        STUDYAPP_HOME=str(work),
        STUDYAPP_CACHE=str(work / "cache"),  # the content cache (machine-wide by default)
    )
    env.pop("STUDYAPP_CONTENT", None)
    if args.no_bytecode_cache:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    baseline_script = work / "minimal_app.py"
    baseline_script.write_text(BASELINE, encoding="utf-8")
    marker = work / "painted"
    # What the `studyapp` console script runs (pip's wrapper imports studyapp.cli and calls main);
    # `python -m studyapp` would add runpy, which the learner's command does not load.
    quiz_command = [
        sys.executable,
        "-c",
        "import sys; from studyapp.cli import main; sys.exit(main())",
        "quiz",
        "--lang",
        "ko",
        "--seed",
        "1",
    ]
    run_in_pty(quiz_command, env, marker, b"")  # warm: file and bytecode caches, the progress file
    programs = {
        "minimal Textual app": ([sys.executable, str(baseline_script)], "데이터 로딩이".encode()),
        "studyapp quiz": (quiz_command, first_statement(work)),
    }
    run_in_pty(*programs["minimal Textual app"][:1], env, marker, b"")
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in programs}
    for run in range(args.runs):
        for name, (command, needle) in programs.items():
            run_env = env
            if name == "studyapp quiz" and (args.fresh or args.first_start):
                run_env = dict(env, STUDYAPP_HOME=str(work / f"home-{run}"))
                if args.first_start:
                    run_env["STUDYAPP_CACHE"] = str(work / f"cache-{run}")
            times[name].append(run_in_pty(command, run_env, marker, needle))

    cache = "no bytecode cache" if args.no_bytecode_cache else "bytecode cached"
    data = (
        "first start (new data dir, no content cache)"
        if args.first_start
        else ("fresh data dir" if args.fresh else "warm data dir")
    )
    print(f"startup, {args.runs} runs each, 80×24 pty, {cache}, {data}: median [min–max] ms")
    medians: dict[str, list[float]] = {}
    for name, runs in times.items():
        columns = list(zip(*runs, strict=True))
        medians[name] = [statistics.median(column) for column in columns]
        cells = [
            f"{label} {statistics.median(c) * 1000:4.0f} [{min(c) * 1000:4.0f}–{max(c) * 1000:4.0f}]"
            for label, c in zip(("screen", "marker", "exit"), columns, strict=True)
        ]
        print(f"  {name:<20} " + "   ".join(cells))
    base, quiz = medians["minimal Textual app"], medians["studyapp quiz"]
    ratios = "   ".join(
        f"{label} {q / b:.2f}×" for label, q, b in zip(("screen", "marker", "exit"), quiz, base, strict=True)
    )
    print(f"  ratio studyapp quiz / minimal app: {ratios}   (aim ≤ 1.3× to the screen)")


if __name__ == "__main__":
    main()
