"""What every command shares: the content, the progress store and starting the TUI."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import Any

from studyapp import locations, startup
from studyapp.cli.option_errors import option_error
from studyapp.content.cache import load_cached
from studyapp.content.model import Content
from studyapp.errors import EXIT_USAGE
from studyapp.i18n import Translator
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import finish_unsaved


def _say_waiting(line: str) -> None:
    print(f"studyapp: {line}", file=sys.stderr, flush=True)


def open_store(args: argparse.Namespace, read_only_ok: bool = False) -> ProgressStore:
    """The learner's progress store; a moved-aside bad file is announced in one line.

    `read_only_ok`: a command that only reads (the progress report) still works on a data
    directory that cannot be written; every other command refuses it up front, in one line."""
    store = ProgressStore.in_dir(
        locations.data_dir(getattr(args, "data_dir", None)), read_only_ok=read_only_ok, on_wait=_say_waiting
    )
    if store.notice:
        print(f"studyapp: {store.notice}", file=sys.stderr)
    return store


def load_content(args: argparse.Namespace) -> Content:
    """The checked content (cached in the user cache directory while the files are unchanged)."""
    return load_cached(locations.content_dir(getattr(args, "content", None)), locations.cache_dir())


def run_tui(
    args: argparse.Namespace,
    t: Translator,
    start: str,
    content: Content | None = None,
    store: ProgressStore | None = None,
    options: Any = None,
) -> int:
    content = content or load_content(args)
    store = store or open_store(args)
    # Until the first frame (the app resumes it then), the collector would only walk Textual's
    # new long-lived objects: see studyapp/startup.py.
    startup.pause_collection()
    # Textual costs ~150 ms to import: only the commands that open the TUI pay it.
    from studyapp.tui.app import make_app

    app = make_app(content=content, store=store, lang=t.lang, start=start, options=options)
    # While the TUI owns the terminal a long silent wait for a lock would look like a hang: a
    # short one, then the quiz screen says the answer is kept and retried (see QuizScreen.submit).
    waits = store.lock_wait_s, store.on_wait
    store.lock_wait_s, store.on_wait = min(store.lock_wait_s, TUI_LOCK_WAIT_S), None
    # Textual keeps the terminal in raw mode: a SIGTERM/SIGHUP raised as an exception inside its
    # loop could leave it there. The defaults end the app at once; its children stop by themselves
    # (their guard sees studyapp's lifeline close: studyapp.child).
    for name in ("SIGTERM", "SIGHUP"):
        with contextlib.suppress(AttributeError, ValueError):  # no SIGHUP, or not the main thread
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        app.run()
    finally:
        startup.resume_collection()  # an app that never painted (an error at start) resumes here
        store.lock_wait_s, store.on_wait = waits
    lost = finish_unsaved(store)  # answers kept after a failed write: one last try, visibly
    if lost is not None:
        print(f"studyapp: {lost}", file=sys.stderr)
        return EXIT_USAGE
    return int(app.return_code or 0)


TUI_LOCK_WAIT_S = 3.0


MAX_TIMEOUT_S = 24 * 3600.0


def timeout_seconds(text: str) -> float:
    """--timeout of a lab or a check: a positive, finite number of seconds (`nan` compares false
    with every limit, so it would switch the safety timeout off)."""
    try:
        value = float(text)
    except ValueError:
        raise option_error("cli.not_seconds", value=repr(text)) from None
    if not 0 < value <= MAX_TIMEOUT_S:  # False for nan as well
        raise option_error("cli.seconds_range", most=f"{MAX_TIMEOUT_S:.0f}", value=repr(text))
    return value
