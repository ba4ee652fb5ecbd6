"""Labs: the list (id, title, topics, last result), a run with live progress, cancel, results.

A lab runs as a subprocess read by `studyapp.labrunner.runner.run_lab` in the run panel's thread
worker (`widgets/run_panel.py`); widgets and the progress store are touched on the UI thread
alone (the run is recorded here, as `run_and_record` would).

The lab's check question (`check_question.py`) belongs to this screen: a lab that finishes while
the learner is elsewhere (a quiz, Home) only shows a toast, and the question waits until Labs is
on screen again — a modal over a quiz would take the O/X key meant for the quiz. Each question is
asked once per version of its text; `a` asks it again on request. The last results of every lab
are kept in the store and shown again when the lab is selected.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import DataTable, Static

from studyapp.errors import StudyappError
from studyapp.labrunner import runner
from studyapp.labrunner.render import format_cell
from studyapp.quiz.presenting import fit
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.screens.check_question import CHECK_META_PREFIX, CheckQuestionScreen, check_version
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.run_panel import RunFinished, RunPanel, RunProgress
from studyapp.tui.widgets.text import Hanging

# The column that states the table's conclusion goes first, so it is on screen at 80 columns.
VERDICT_COLUMNS = ("verdict", "conclusion", "판정", "결론", "해석")


def verdict_first(columns: list[str], rows: list[list[Any]]) -> tuple[list[str], list[list[Any]]]:
    """Move the verdict/conclusion column (if any) to the front, cells with it."""
    index = next((i for i, c in enumerate(columns) if c.strip().lower() in VERDICT_COLUMNS), None)
    if index is None or index == 0:
        return columns, rows
    order = [index, *(i for i in range(len(columns)) if i != index)]
    padded = [list(row) + [None] * (len(columns) - len(row)) for row in rows]
    return [columns[i] for i in order], [[row[i] for i in order] for row in padded]


class LabsScreen(StudyScreen):
    CSS_PATH = "labs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "key.cancel", key_display="esc"),
        Binding("escape", "back", "key.back", key_display="esc"),
        Binding("r", "run(True)", "key.run_quick"),
        Binding("f", "run(False)", "key.run_full"),
        Binding("a", "ask", "key.ask_check"),
        Binding("v", "last_results", "key.last_results"),
        Binding("e", "exercises", "key.ex_lab"),
        Binding("q", "back", "key.back", show=False),
    ]

    def __init__(self, select: str | None = None, pushed: bool = False) -> None:
        super().__init__()
        self.labs: dict[str, Any] = self.study.lab_registry()
        self.selected: str | None = select if select in self.labs else next(iter(self.labs), None)
        self.pushed = pushed
        self.run_panel = RunPanel(bar=True, id="lab-run")
        self._run_uid: str | None = None
        self._pending_question: str | None = None  # finished while another screen was showing
        self._labs_with_results: set[str] = set()  # labs with a finished run (`v` shows it)

    @property
    def running(self) -> str | None:
        """The lab whose run is in progress."""
        return self.run_panel.running

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("labs.title"), id="labs-title")
        table: DataTable[Text] = DataTable(cursor_type="row", id="labs-table")
        yield table
        with VerticalScroll(id="lab-detail"):
            # The run's progress first: on a short terminal it must not sit below the fold.
            yield self.run_panel
            yield Static(id="lab-summary", markup=False)
            yield Vertical(id="lab-results")
            yield Static(Content(self.t("labs.hint")), classes="muted hint", markup=False)
        yield KeyBar()

    def _close_stale_runs(self) -> None:
        """A run still marked "running" whose studyapp is gone (a quit or a kill mid-run) is
        recorded as cancelled instead of showing "running" for good."""

        def time_limit_s(lab_id: str) -> float | None:
            info = self.labs.get(lab_id)
            return None if info is None else max(info.timeout_s, info.quick_timeout_s)

        # Never raises: a read-only or busy store leaves the records as they are.
        runner.sweep_stale_runs(
            self.study.store,
            now=self.study.store.clock(),
            time_limit_s=time_limit_s,
            summary=self.t("labs.stale_run"),
        )

    def on_mount(self) -> None:
        t = self.t
        self._close_stale_runs()
        table = self.query_one("#labs-table", DataTable)
        table.add_column(t("labs.col.id"), key="id")
        table.add_column(t("labs.col.title"), key="title")
        table.add_column(t("labs.col.topics"), key="topics")
        table.add_column(t("labs.col.last"), key="last")
        self._fill_table()
        table.focus()
        self._show_selected()
        if self.selected:
            self.show_last_results(self.selected, scroll=False)

    def on_screen_resume(self) -> None:
        if self.is_current and self.is_mounted:
            # Back from elsewhere: the list has the focus again, not a results table that may
            # have been replaced meanwhile (↓ chose nothing, N17).
            self.query_one("#labs-table", DataTable).focus()
            self._fill_table()
            pending, self._pending_question = self._pending_question, None
            if pending and self.running is None and self.needs_asking(pending):
                self.selected = pending
                self._fill_table()
                self._show_selected()
                self.ask(pending)

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
        runs = self.study.store.lab_runs()
        last = {run.lab: run for run in runs}  # oldest first: the last one wins
        # Read here, not in check_action: bindings are checked on every refresh of the key bar.
        self._labs_with_results = {run.lab for run in runs if run.status != "running"}
        if table.row_count == len(self.labs):
            # Update in place: clearing would move the cursor and drop the results on screen.
            for lab_id in self.labs:
                table.update_cell(lab_id, "last", self._status_text(last.get(lab_id)), update_width=True)
            return
        table.clear()
        topics = self.study.content.topics
        topic_titles = {
            lab_id: ", ".join(topics[t].title if t in topics else t for t in info.topics)
            for lab_id, info in self.labs.items()
        }
        title_width, topics_width = self._text_widths(topic_titles)
        for lab_id, info in self.labs.items():
            table.add_row(
                Text(lab_id),
                Text(fit(info.title, title_width)),
                Text(fit(topic_titles[lab_id], topics_width)),
                self._status_text(last.get(lab_id)),
                key=lab_id,
            )
        if self.selected in self.labs:
            table.move_cursor(row=list(self.labs).index(self.selected), animate=False)

    def _text_widths(self, topic_titles: dict[str, str]) -> tuple[int, int]:
        """Title and topics column widths: the whole row, "Last result" included, fits the
        terminal (27 + 15 cells at 80 columns); wider terminals get the full texts where they fit."""
        title_need = max((cell_len(info.title) for info in self.labs.values()), default=27)
        topics_need = max((cell_len(text) for text in topic_titles.values()), default=15)
        room = max(42, self.app.size.width - 38)  # id, last result, cell padding and the scrollbar
        if title_need + topics_need <= room:
            return title_need, topics_need
        spare = room - 42
        topics_width = min(topics_need, 15 + spare // 3)
        return max(27, room - topics_width), topics_width

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
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exercises import exercises_for_lab

        exercises = exercises_for_lab(info.id)
        if exercises:  # each lab links to the exercises that practise it
            text = text.append("\n").append(Content(self.t("labs.exercises", ids=", ".join(exercises))))
        summary.update(text)

    def action_exercises(self) -> None:
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
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
                self.show_last_results(lab_id, scroll=False)
            self._show_selected()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.selected = event.row_key.value
        self.action_run(True)

    # -- running -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running is not None
        if action == "back":
            return self.running is None
        if action == "last_results":
            return self.running is None and self.selected in self._labs_with_results
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
        self._sync_selected()
        info = self.labs.get(self.selected) if self.selected else None
        if info is None:
            return
        store = self.study.store
        out_dir = runner.default_out_dir(info.id, store.path.parent)
        try:
            self._run_uid = store.start_lab_run(info.id, str(out_dir))
        except StudyappError as exc:  # disk full, read-only: say so and do not start the lab
            self.notify(str(exc), severity="error", markup=False)
            return
        self.query_one("#lab-results").remove_children()
        self.query_one("#labs-title", TitleBar).set(right=self.t("labs.status.running"))
        data_dir = store.path.parent  # as run_and_record does: labs keep state with the learner's data

        def job(report: Callable[[Any], None], cancel: threading.Event) -> Any:
            return runner.run_lab(
                info, (), quick=quick, out_dir=out_dir, on_progress=report, cancel=cancel, data_dir=data_dir
            )

        phase = f"{self.t('labs.running', lab=info.id)} · {self.t('labs.starting')}"
        self.run_panel.start(info.id, job, phase)
        self._fill_table()
        self.refresh_bindings()

    def _sync_selected(self) -> None:
        """Take the selection from the list's cursor: a key typed right after ↓ (before the
        highlight message arrived) must run the lab under the cursor, not the previous one."""
        table = self.query_one("#labs-table", DataTable)
        if table.row_count and 0 <= table.cursor_row < table.row_count:
            lab_id = list(self.labs)[table.cursor_row]
            if lab_id != self.selected:
                self.selected = lab_id
                self._show_selected()

    def on_run_progress(self, message: RunProgress) -> None:
        if message.run_id != self.running:
            return
        event = message.event
        self.run_panel.show_phase(f"{self.t('labs.running', lab=message.run_id)} · {event.phase}")
        self.run_panel.show_progress(event.fraction, event.message or "")

    def on_run_finished(self, message: RunFinished) -> None:
        lab, outcome, run_uid = message.run_id, message.outcome, self._run_uid
        if message.error is not None:
            if run_uid is not None:
                self.study.save(
                    partial(self.study.store.finish_lab_run, run_uid, "failed", str(message.error), None)
                )
            self._finish_ui()
            self.notify(self.t("labs.error", error=message.error), severity="error", markup=False)
            return
        if run_uid is not None:
            self.study.save(
                partial(
                    self.study.store.finish_lab_run, run_uid, outcome.status, outcome.summary, outcome.result
                )
            )
        self._finish_ui()
        status = (
            self.t(f"labs.status.{outcome.status}")
            if outcome.status in ("ok", "failed", "cancelled")
            else outcome.status
        )
        self.query_one("#labs-title", TitleBar).set(
            right=self.t("labs.done", lab=lab, status=status, seconds=outcome.elapsed_s)
        )
        if lab != self.selected and lab in self.labs:
            self.selected = lab
            self.query_one("#labs-table", DataTable).move_cursor(row=list(self.labs).index(lab))
            self._show_selected()
        self.show_outcome(outcome)
        asks = outcome.status == "ok" and self.needs_asking(lab)
        if self.is_current:
            if asks:
                self.ask(lab)
            return
        # The learner is on another screen (a quiz, Home): never open a modal there.
        self._pending_question = lab if asks else None
        key = "labs.finished_elsewhere_ask" if asks else "labs.finished_elsewhere"
        self.app.notify(self.t(key, lab=lab, status=status), timeout=8)

    def needs_asking(self, lab_id: str) -> bool:
        """True while this version of the lab's check question has not been answered."""
        info = self.labs.get(lab_id)
        if info is None or info.check_question is None:
            return False
        asked = self.study.store.get_meta(CHECK_META_PREFIX + lab_id)
        return asked != check_version(info.check_question)

    def _finish_ui(self) -> None:
        self._run_uid = None
        self.run_panel.done()
        self._fill_table()
        self.refresh_bindings()

    def show_outcome(self, outcome: Any) -> None:
        self._show_result(
            outcome.status, outcome.result, outcome.message, str(outcome.artifact_dir), heading=None
        )

    def _last_run(self, lab_id: str) -> Any:
        """The latest finished run of a lab that left results (ok first, else any finished one)."""
        runs = [r for r in self.study.store.lab_runs(lab_id) if r.status != "running"]
        with_results = [r for r in runs if r.status == "ok" and r.result]
        return (with_results or runs or [None])[-1]

    def show_last_results(self, lab_id: str, scroll: bool = True) -> None:
        """The results of the lab's last run, from the store (they survive moving the cursor)."""
        run = self._last_run(lab_id)
        if run is None:
            self.query_one("#lab-results").remove_children()
            return
        when = run.started_at.astimezone(self.study.tz).strftime("%m-%d %H:%M")
        heading = self.t("labs.last_results", when=when, status=self._status_text(run).plain)
        self._show_result(
            run.status, run.result, run.summary, run.artifact_dir, heading=heading, scroll=scroll
        )

    def action_last_results(self) -> None:
        # The results scroll into view; the focus stays on the list, so ↓ still picks a lab
        # (Tab reaches the results) (N17).
        if self.selected:
            self.show_last_results(self.selected)

    def _show_result(
        self,
        status: str,
        result: dict[str, Any] | None,
        message: str | None,
        artifact_dir: str | None,
        heading: str | None,
        scroll: bool = True,
    ) -> None:
        results = self.query_one("#lab-results", Vertical)
        results.remove_children()
        widgets = self._outcome_widgets(status, result, message, artifact_dir)
        if heading:
            widgets.insert(0, Static(Content(heading), classes="heading", markup=False))
        results.mount_all(widgets)
        if scroll:
            detail = self.query_one("#lab-detail", VerticalScroll)
            self.call_after_refresh(detail.scroll_to_widget, results, animate=False, top=True)

    def _outcome_widgets(
        self, status: str, result: dict[str, Any] | None, message: str | None, artifact_dir: str | None
    ) -> list[Widget]:
        t = self.t
        widgets: list[Widget] = []
        if status != "ok" or not result:
            widgets.append(Static(Content(message or status), classes="lab-error", markup=False))
            return widgets
        if result.get("summary"):
            widgets.append(
                Static(Content(str(result["summary"])), classes="lab-result-summary", markup=False)
            )
        room = max(20, self.app.size.width - 4)  # the detail pane's inner width
        for spec in result.get("tables", []):
            widgets.append(Static(Content(str(spec.get("title", ""))), classes="heading", markup=False))
            columns, rows = verdict_first(
                [str(c) for c in spec.get("columns", [])], [list(r) for r in spec.get("rows", [])]
            )
            # Focusable (Tab reaches it) so ←/→ scroll a table wider than the terminal.
            table: DataTable[Text] = DataTable(cursor_type="none", show_cursor=False, classes="lab-table")
            for column in columns:
                table.add_column(column)
            widths = [cell_len(c) for c in columns]
            for row in rows:
                cells = [
                    Text(format_cell(v), justify="right" if isinstance(v, (int, float)) else "left")
                    for v in row
                ]
                cells += [Text("")] * (len(columns) - len(cells))
                table.add_row(*cells[: len(columns)])
                widths = [max(w, cell_len(c.plain)) for w, c in zip(widths, cells, strict=False)]
            widgets.append(table)
            if sum(w + 2 for w in widths) > room:
                widgets.append(
                    Static(
                        Content(t("labs.table_scroll", columns=len(columns))), classes="muted", markup=False
                    )
                )
        for spec in result.get("plots", []):
            plot = _plot(spec)
            if plot is not None:
                widgets.append(plot)
        findings = result.get("findings", [])
        if findings:
            widgets.append(Static(Content(t("labs.findings")), classes="heading", markup=False))
            widgets += [Hanging("•", str(finding), classes="lab-finding") for finding in findings]
        artifacts = dict(result.get("artifacts") or {})
        if artifact_dir:
            artifacts.setdefault("dir", str(artifact_dir))
        widgets.append(Static(Content(t("labs.artifacts")), classes="heading", markup=False))
        widgets += [
            Static(Content(f"{name}: {path}"), classes="muted", markup=False)
            for name, path in artifacts.items()
        ]
        return widgets

    # -- cancel, back, check question ----------------------------------------------------------
    def action_cancel(self) -> None:
        self.run_panel.cancel(self.t("labs.cancelling"))

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
        if not self.is_current:  # only ever over the labs screen itself
            self._pending_question = lab_id
            return
        self.app.push_screen(CheckQuestionScreen(lab_id, info.check_question))

    def on_unmount(self) -> None:
        self.run_panel.cancel()  # leaving the app mid-run stops the lab and its workers
        if self.running is not None and self._run_uid is not None:
            # The run's RunFinished will never be handled now (ctrl+q): record the run here.
            self.study.save(
                partial(
                    self.study.store.finish_lab_run,
                    self._run_uid,
                    "cancelled",
                    f"{self.running}: cancelled (app closed)",
                    None,
                )
            )
            self._run_uid = None


def _plot(spec: Any) -> Widget | None:
    """A result plot ({title, x, series, xlabel, ylabel}) as a textual-plot line plot (`studyapp
    lab` prints the same spec with plotext); None for a spec it cannot read."""
    # textual-plot brings numpy (~100 ms): imported when a result with a plot is shown
    from studyapp.tui.widgets.plot import LinePlot

    try:
        series = spec.get("series") or {}
        x = list(spec.get("x") or [])
        if not x or not isinstance(series, dict):
            return None
        return LinePlot(
            str(spec.get("title", "")),
            x,
            {str(name): list(values) for name, values in series.items()},
            xlabel=str(spec.get("xlabel", "") or ""),
            ylabel=str(spec.get("ylabel", "") or ""),
            classes="lab-plot",
        )
    except (AttributeError, TypeError, ValueError):  # a malformed spec must not take the results down
        return None
