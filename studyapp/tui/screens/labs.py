"""Labs: the list (id, title, topics, last result), a run with live progress, cancel, results.

A lab runs as a subprocess read by `studyapp.labrunner.runner.run_lab` in a thread worker. The
thread only posts messages (`LabProgress`, `LabFinished`); widgets and the progress store are
touched on the UI thread alone (the run is recorded here, as `run_and_record` would).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, ProgressBar, Static
from textual.worker import Worker, WorkerState

from studyapp.quiz.presenting import fit
from studyapp.tui.screens.base import StudyModal, StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

PLOT_WIDTH = 72
PLOT_HEIGHT = 14


class LabProgress(Message, bubble=False):
    """A lab reported progress (posted from the runner's thread)."""

    def __init__(self, lab: str, event: Any) -> None:
        super().__init__()
        self.lab = lab
        self.event = event


class LabFinished(Message, bubble=False):
    """A lab run ended: ok, failed or cancelled (posted from the runner's thread)."""

    def __init__(self, lab: str, run_uid: str, outcome: Any) -> None:
        super().__init__()
        self.lab = lab
        self.run_uid = run_uid
        self.outcome = outcome


class LabsScreen(StudyScreen):
    CSS_PATH = "labs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run(True)", "key.run_quick"),
        Binding("f", "run(False)", "key.run_full"),
        Binding("a", "ask", "key.ask_check"),
        Binding("e", "exercises", "key.ex_lab"),
        Binding("escape", "cancel_or_back", "key.back", key_display="esc"),
        Binding("q", "back", "key.back", show=False),
    ]

    def __init__(self, select: str | None = None, pushed: bool = False) -> None:
        super().__init__()
        self.labs: dict[str, Any] = self.study.lab_registry()
        self.selected: str | None = select if select in self.labs else next(iter(self.labs), None)
        self.pushed = pushed
        self.running: str | None = None
        self._cancel = threading.Event()
        self._run_uid: str | None = None

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("labs.title"), id="labs-title")
        table: DataTable[Text] = DataTable(cursor_type="row", id="labs-table")
        yield table
        with VerticalScroll(id="lab-detail"):
            yield Static(id="lab-summary", markup=False)
            with Vertical(id="lab-run"):
                yield Static(id="lab-phase", markup=False)
                yield ProgressBar(total=1.0, show_eta=False, id="lab-progress")
                yield Static(id="lab-message", classes="muted", markup=False)
            yield Vertical(id="lab-results")
            yield Static(Content(self.t("labs.hint")), classes="muted hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        t = self.t
        table = self.query_one("#labs-table", DataTable)
        table.add_column(t("labs.col.id"), key="id")
        table.add_column(t("labs.col.title"), key="title")
        table.add_column(t("labs.col.topics"), key="topics")
        table.add_column(t("labs.col.last"), key="last")
        self.query_one("#lab-run").display = False
        from studyapp.labrunner.runner import sweep_stale_runs

        sweep_stale_runs(self.study.store)  # a run of a killed studyapp is not "running" for ever
        self._fill_table()
        table.focus()
        self._show_selected()

    def on_screen_resume(self) -> None:
        if self.is_current and self.is_mounted:
            self._fill_table()

    def _status_text(self, run: Any) -> Text:
        if run is None:
            return Text(self.t("labs.never"), style="dim")
        status = (
            self.t(f"labs.status.{run.status}")
            if run.status in ("ok", "failed", "cancelled", "running")
            else run.status
        )
        when = run.started_at.astimezone(self.study.tz).strftime("%m-%d %H:%M")
        style = {"ok": "green", "failed": "red"}.get(run.status, "yellow")
        return Text(f"{status} {when}", style=style)

    def _fill_table(self) -> None:
        table = self.query_one("#labs-table", DataTable)
        last = self.study.store.last_lab_runs()
        if table.row_count == len(self.labs):
            # Update in place: clearing would move the cursor and drop the results on screen.
            for lab_id in self.labs:
                table.update_cell(lab_id, "last", self._status_text(last.get(lab_id)))
            return
        table.clear()
        for lab_id, info in self.labs.items():
            table.add_row(
                Text(lab_id),
                Text(fit(info.title, 30)),
                Text(fit(", ".join(info.topics), 18)),
                self._status_text(last.get(lab_id)),
                key=lab_id,
            )
        if self.selected in self.labs:
            table.move_cursor(row=list(self.labs).index(self.selected), animate=False)

    def _show_selected(self) -> None:
        info = self.labs.get(self.selected) if self.selected else None
        summary = self.query_one("#lab-summary", Static)
        if info is None:
            summary.update(Content(self.t("notify.no_labs")))
            return
        self.query_one("#labs-title", TitleBar).set(f"{self.t('labs.title')} › {info.title}")
        text = Content.assemble((info.title, "bold"), "\n", info.summary)
        if info.check_question is not None:
            text = text.append("\n").append(
                Content.styled(f"{self.t('labs.check_title')}: {info.check_question.statement}", "italic")
            )
        from studyapp.tui.screens.exercises import exercises_for_lab

        exercises = exercises_for_lab(info.id)
        if exercises:  # each lab links to the exercises that practise it
            text = text.append("\n").append(Content(self.t("labs.exercises", ids=", ".join(exercises))))
        summary.update(text)

    def action_exercises(self) -> None:
        from studyapp.tui.screens.exercises import ExercisesScreen

        if self.selected:
            self.app.push_screen(ExercisesScreen(lab=self.selected, pushed=True))

    # -- events --------------------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        lab_id = event.row_key.value
        if lab_id and lab_id != self.selected:
            self.selected = lab_id
            if self.running is None:
                self.query_one("#lab-results").remove_children()
            self._show_selected()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.selected = event.row_key.value
        self.action_run(True)

    # -- running -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "run":
            return self.running is None and self.selected is not None
        if action == "ask":
            info = self.labs.get(self.selected) if self.selected else None
            return self.running is None and info is not None and info.check_question is not None
        return True

    def action_run(self, quick: bool = True) -> None:
        if self.running is not None:
            self.notify(self.t("labs.already_running"), timeout=2)
            return
        info = self.labs.get(self.selected) if self.selected else None
        if info is None:
            return
        from studyapp.labrunner.runner import default_out_dir

        store = self.study.store
        out_dir = default_out_dir(info.id, store.path.parent)
        self._run_uid = store.start_lab_run(info.id, str(out_dir))
        self._cancel = threading.Event()
        self.running = info.id
        self.query_one("#lab-results").remove_children()
        self.query_one("#lab-run").display = True
        self.query_one("#lab-phase", Static).update(
            Content(f"{self.t('labs.running', lab=info.id)} · {self.t('labs.starting')}")
        )
        self.query_one("#lab-message", Static).update("")
        self.query_one("#lab-progress", ProgressBar).update(total=1.0, progress=0)
        self.query_one("#labs-title", TitleBar).set(right=self.t("labs.status.running"))
        self._fill_table()
        self.refresh_bindings()
        self._run_worker(info, quick, out_dir, self._run_uid, self._cancel)

    @work(thread=True, exclusive=True, exit_on_error=False, group="lab")
    def _run_worker(
        self, info: Any, quick: bool, out_dir: Path, run_uid: str, cancel: threading.Event
    ) -> None:
        from studyapp.labrunner.runner import run_lab

        def on_progress(event: Any) -> None:
            self.post_message(LabProgress(info.id, event))

        outcome = run_lab(
            info,
            (),
            quick=quick,
            out_dir=out_dir,
            on_progress=on_progress,
            cancel=cancel,
            data_dir=self.study.store.path.parent,  # as run_and_record does: labs keep state with the learner's data
        )
        self.post_message(LabFinished(info.id, run_uid, outcome))

    def on_lab_progress(self, message: LabProgress) -> None:
        if message.lab != self.running:
            return
        event = message.event
        self.query_one("#lab-phase", Static).update(
            Content(f"{self.t('labs.running', lab=message.lab)} · {event.phase}")
        )
        self.query_one("#lab-message", Static).update(Content(event.message or ""))
        bar = self.query_one("#lab-progress", ProgressBar)
        if event.fraction is None:
            bar.update(total=None)
        else:
            bar.update(total=1.0, progress=event.fraction)

    def on_lab_finished(self, message: LabFinished) -> None:
        outcome = message.outcome
        self.study.store.finish_lab_run(message.run_uid, outcome.status, outcome.summary, outcome.result)
        self._finish_ui()
        status = (
            self.t(f"labs.status.{outcome.status}")
            if outcome.status in ("ok", "failed", "cancelled")
            else outcome.status
        )
        self.query_one("#labs-title", TitleBar).set(
            right=self.t("labs.done", lab=message.lab, status=status, seconds=outcome.elapsed_s)
        )
        self.show_outcome(outcome)
        info = self.labs.get(message.lab)
        if outcome.status == "ok" and info is not None and info.check_question is not None:
            self.ask(message.lab)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "lab" or event.state != WorkerState.ERROR:
            return
        if self._run_uid is not None and self.running is not None:
            self.study.store.finish_lab_run(self._run_uid, "failed", str(event.worker.error), None)
        self._finish_ui()
        self.notify(self.t("labs.error", error=event.worker.error), severity="error", markup=False)

    def _finish_ui(self) -> None:
        self.running = None
        self._run_uid = None
        self.query_one("#lab-run").display = False
        self._fill_table()
        self.refresh_bindings()

    def show_outcome(self, outcome: Any) -> None:
        results = self.query_one("#lab-results", Vertical)
        results.remove_children()
        results.mount_all(list(self._outcome_widgets(outcome)))
        detail = self.query_one("#lab-detail", VerticalScroll)
        self.call_after_refresh(detail.scroll_to_widget, results, animate=False, top=True)

    def _outcome_widgets(self, outcome: Any) -> list[Widget]:
        t = self.t
        widgets: list[Widget] = []
        if outcome.status != "ok" or not outcome.result:
            widgets.append(
                Static(Content(outcome.message or outcome.status), classes="lab-error", markup=False)
            )
            return widgets
        result = outcome.result
        if result.get("summary"):
            widgets.append(
                Static(Content(str(result["summary"])), classes="lab-result-summary", markup=False)
            )
        for spec in result.get("tables", []):
            widgets.append(Static(Content(str(spec.get("title", ""))), classes="heading", markup=False))
            table: DataTable[Text] = DataTable(cursor_type="none", show_cursor=False, classes="lab-table")
            table.can_focus = False
            columns = [str(c) for c in spec.get("columns", [])]
            for column in columns:
                table.add_column(column)
            for row in spec.get("rows", []):
                cells = [
                    Text(_cell(v), justify="right" if isinstance(v, (int, float)) else "left") for v in row
                ]
                cells += [Text("")] * (len(columns) - len(cells))
                table.add_row(*cells[: len(columns)])
            widgets.append(table)
        for plot in result.get("plots", []):
            text = _plot(plot)
            if text:
                widgets.append(Static(Text.from_ansi(text), classes="lab-plot"))
        findings = result.get("findings", [])
        if findings:
            widgets.append(Static(Content(t("labs.findings")), classes="heading", markup=False))
            widgets += [Hanging("•", str(finding), classes="lab-finding") for finding in findings]
        artifacts = dict(result.get("artifacts") or {})
        artifacts.setdefault("dir", str(outcome.artifact_dir))
        widgets.append(Static(Content(t("labs.artifacts")), classes="heading", markup=False))
        widgets += [
            Static(Content(f"{name}: {path}"), classes="muted", markup=False)
            for name, path in artifacts.items()
        ]
        return widgets

    # -- cancel, back, check question ----------------------------------------------------------
    def action_cancel_or_back(self) -> None:
        if self.running is not None:
            self._cancel.set()
            self.query_one("#lab-phase", Static).update(Content(self.t("labs.cancelling")))
            return
        self.action_back()

    def action_back(self) -> None:
        if self.running is not None:
            return
        if self.pushed:
            self.dismiss()
        else:
            self.study.switch_mode("home")

    def action_ask(self) -> None:
        if self.selected:
            self.ask(self.selected)

    def ask(self, lab_id: str) -> None:
        info = self.labs.get(lab_id)
        if info is None or info.check_question is None:
            self.notify(self.t("labs.no_question"), timeout=2)
            return
        self.app.push_screen(CheckQuestionScreen(lab_id, info.check_question))

    def on_unmount(self) -> None:
        self._cancel.set()  # leaving the app mid-run stops the lab and its workers
        if self.running is not None and self._run_uid is not None:
            # The worker's LabFinished will never be handled now (ctrl+q): record the run here.
            self.study.store.finish_lab_run(
                self._run_uid, "cancelled", f"{self.running}: cancelled (app closed)", None
            )
            self.running = self._run_uid = None


class CheckQuestionScreen(StudyModal):
    """The lab's O/X check question; the answer is stored with `store.record_lab_answer`."""

    CSS_PATH = "labs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,1,left", "answer('O')", "key.answer_o", key_display="o"),
        Binding("x,2,right", "answer('X')", "key.answer_x", key_display="x"),
        Binding("enter,space", "close", "key.close", key_display="⏎"),
        Binding("escape", "skip", "key.close", key_display="esc"),
    ]

    def __init__(self, lab_id: str, question: Any) -> None:
        super().__init__()
        self.lab_id = lab_id
        self.question = question
        self.answered: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="check-box"):
            yield Static(Content(self.t("labs.check_title")), classes="heading", markup=False)
            yield Static(Content(self.question.statement), id="check-statement", markup=False)
            yield Static(id="check-verdict", markup=False)
            yield Static(id="check-explanation", markup=False)
            yield Static(Content(self.t("labs.check_hint")), id="check-hint", classes="muted", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return self.answered is None
        if action == "close":
            return self.answered is not None
        return True

    def action_answer(self, answer: str) -> None:
        if self.answered is not None:
            return
        self.answered = answer
        correct = answer == self.question.answer
        self.study.store.record_lab_answer(self.lab_id, answer, correct)
        t = self.t
        verdict = t("labs.check_right") if correct else t("labs.check_wrong", answer=self.question.answer)
        self.query_one("#check-verdict", Static).update(Content.styled(verdict, "bold"))
        self.query_one("#check-verdict").set_class(correct, "right")
        self.query_one("#check-verdict").set_class(not correct, "wrong")
        self.query_one("#check-explanation", Static).update(Content(self.question.explanation))
        self.query_one("#check-hint", Static).update(Content(t("labs.check_close")))
        self.refresh_bindings()

    def action_close(self) -> None:
        self.dismiss(self.answered)

    def action_skip(self) -> None:
        self.dismiss(self.answered)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def _plot(plot: dict[str, Any]) -> str:
    """plotext text for a result plot ({title, x, series, xlabel, ylabel}); '' without plotext."""
    try:
        from studyapp.labrunner.cli import plot_text
    except ImportError:
        return ""
    try:
        return plot_text(plot, width=PLOT_WIDTH, height=PLOT_HEIGHT)
    except Exception:  # a malformed plot spec must not take the results down with it
        return ""
