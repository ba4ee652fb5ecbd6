"""The run panel of the labs and exercises screens: one child run at a time, in a thread.

A screen hands `start` a job (a call of `run_lab` or `run_check`) and gets two messages back:
`RunProgress` for each event the job reports, `RunFinished` once, with the job's outcome or the
error that ended it. The thread only posts them, so widgets and the progress store are touched on
the UI thread alone. The panel shows the phase (and, for labs, a progress bar and a message line)
while a run is on; `cancel` (Esc) sets the job's cancel Event, which stops the child and its group.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import ProgressBar, Static
from textual.worker import Worker, WorkerState

RUN_GROUP = "run-panel"

# A job runs in the worker thread: it gets a function to report progress events with and the
# run's cancel Event, and returns the run's outcome.
Job = Callable[[Callable[[Any], None], threading.Event], Any]


class RunProgress(Message, bubble=False):
    """The running job reported an event (posted from the worker thread to the screen)."""

    def __init__(self, run_id: str, event: Any) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class RunFinished(Message, bubble=False):
    """A run ended: `outcome` is what the job returned, or None and `error` if the job raised."""

    def __init__(self, run_id: str, outcome: Any, error: BaseException | None = None) -> None:
        super().__init__()
        self.run_id = run_id
        self.outcome = outcome
        self.error = error


class RunPanel(Vertical):
    """The phase line (with `bar`: a progress bar and a message line) of the run in progress."""

    DEFAULT_CSS = """
    RunPanel { height: auto; margin-top: 1; display: none; }
    RunPanel .run-phase { height: auto; text-style: bold; }
    RunPanel .run-bar { height: 1; }
    RunPanel .run-bar Bar { width: 1fr; }
    """

    def __init__(self, *, bar: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bar = bar
        self.running: str | None = None  # the id of the run in progress
        self._cancel = threading.Event()

    def compose(self) -> ComposeResult:
        yield Static(classes="run-phase", markup=False)
        if self.bar:
            yield ProgressBar(total=1.0, show_eta=False, classes="run-bar")
            yield Static(classes="run-message muted", markup=False)

    def start(self, run_id: str, job: Job, phase: str) -> None:
        """Show the panel and run `job` in a thread; the screen gets RunProgress and RunFinished.

        `running` changes here and in `done`: the screen refreshes its bindings after each.
        """
        self.running = run_id
        self._cancel = cancel = threading.Event()
        self.display = True
        self.show_phase(phase)
        if self.bar:
            self.show_progress(0.0, "")
        screen = self.screen  # the thread posts to the screen, never touches a widget

        def work() -> None:
            outcome = job(lambda event: screen.post_message(RunProgress(run_id, event)), cancel)
            screen.post_message(RunFinished(run_id, outcome))

        self.run_worker(work, thread=True, exclusive=True, exit_on_error=False, group=RUN_GROUP)

    def show_phase(self, text: str) -> None:
        self.query_one(".run-phase", Static).update(Content(text))

    def show_progress(self, fraction: float | None, message: str) -> None:
        """The bar at `fraction` (None: busy, no known end) and the message line under it."""
        bar = self.query_one(ProgressBar)
        if fraction is None:
            bar.update(total=None)
        else:
            bar.update(total=1.0, progress=fraction)
        self.query_one(".run-message", Static).update(Content(message))

    def cancel(self, phase: str | None = None) -> bool:
        """Ask the job to stop, showing `phase` meanwhile; False when nothing runs."""
        self._cancel.set()
        if self.running is None:
            return False
        if phase is not None:
            self.show_phase(phase)
        return True

    def done(self) -> None:
        """The run is over (the screen handled its RunFinished): hide the panel."""
        self.running = None
        self.display = False

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != RUN_GROUP:
            return
        event.stop()
        if event.state == WorkerState.ERROR and self.running is not None:
            self.screen.post_message(RunFinished(self.running, None, event.worker.error))

    def on_unmount(self) -> None:
        self._cancel.set()  # leaving the app mid-run stops the child and everything it started
