"""Exercises: the list with status, start (copy the starter), check with live output, hints one
at a time, the solution after a pass, and the workspace path (copy it, open it in $EDITOR).

The checker (`studyapp.exercises.checker.run_check`) runs in the run panel's thread worker
(`widgets/run_panel.py`), as a lab does on the labs screen; widgets and the progress store are
touched on the UI thread alone.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.markdown import Markdown
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.errors import StudyappError
from studyapp.exercises import checker, workspace
from studyapp.exercises.checker import run_check
from studyapp.exercises.compare import compare_with_solution
from studyapp.exercises.status import all_statuses, has_passed
from studyapp.exercises.strings import verdict_line
from studyapp.exercises.study_path import next_exercise, study_path
from studyapp.exercises.workspace import default_workspace
from studyapp.progress import exercise_store
from studyapp.quiz.presenting import fit
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.run_panel import RunFinished, RunPanel, RunProgress

STATUS_STYLE = {"passed": "green", "failing": "yellow", "started": "cyan", "not started": "dim"}


def has_desktop() -> bool:
    """A desktop session that can open a folder (macOS and Windows always have one)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def discover_exercises() -> dict[str, Any]:
    """Every exercise (id → ExerciseInfo) on the study path (the checklist's order, as `exercise
    list` shows them); empty when the labs or their metadata are missing."""
    try:  # PyYAML and the exercises' metadata load when this screen first needs them
        from studyapp.exercises.registry import discover

        return study_path(discover())
    except Exception:  # the rest of the app works without exercises
        return {}


def exercises_for_lab(lab: str) -> list[str]:
    return [e.id for e in discover_exercises().values() if e.lab == lab]


class ExercisesScreen(StudyScreen):
    CSS_PATH = "exercises.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "key.ex_start"),
        Binding("c", "check", "key.ex_check"),
        Binding("h", "hint", "key.ex_hint"),
        Binding("v", "solution", "key.ex_solution"),
        Binding("d", "diff", "key.ex_diff"),
        Binding("n", "next_exercise", "key.ex_next"),
        Binding("y", "copy_path", "key.ex_copy"),
        Binding("o", "open_workspace", "key.ex_open"),
        Binding("escape", "cancel_or_back", "key.back", key_display="esc"),
        Binding("q", "back", "key.back", show=False),
    ]

    def __init__(
        self, lab: str | None = None, select: str | None = None, pushed: bool = False, quick: bool = False
    ) -> None:
        super().__init__()
        found = discover_exercises()
        self.exercises: dict[str, Any] = {k: v for k, v in found.items() if lab is None or v.lab == lab}
        self.lab = lab
        self.selected: str | None = select if select in self.exercises else next(iter(self.exercises), None)
        self.passed_before: frozenset[str] | None = None  # passed checks when the running check began
        self.pushed = pushed
        self.quick = quick  # smaller checker settings (tests)
        self.run_panel = RunPanel(id="exs-run")
        self.statuses: dict[str, Any] = {}

    @property
    def running(self) -> str | None:
        """The exercise whose check is in progress."""
        return self.run_panel.running

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        title = self.t("exs.title") + (f" › {self.lab}" if self.lab else "")
        yield TitleBar(title, id="exs-title")
        yield DataTable(cursor_type="row", id="exs-table")
        with VerticalScroll(id="exs-detail"):
            yield Static(id="exs-summary", markup=False)
            yield Static(id="exs-workspace", markup=False)
            yield self.run_panel
            yield Vertical(id="exs-results")
            yield Vertical(id="exs-hints")
            yield Vertical(id="exs-solution")
            yield Vertical(id="exs-diff")
            yield Static(Content(self.t("exs.keys")), classes="muted hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        t = self.t
        table = self.query_one("#exs-table", DataTable)
        table.add_column("id", key="id")
        table.add_column(t("exs.col.status"), key="status")
        table.add_column(t("exs.col.checklist"), key="checklist")
        table.add_column(t("exs.col.title"), key="title")
        self._fill_table()
        table.focus()
        self._show_selected()

    def on_screen_resume(self) -> None:
        if self.is_current and self.is_mounted:
            self._fill_table()

    # -- data ----------------------------------------------------------------------------------
    def _status_text(self, exercise_id: str) -> Text:
        status = self.statuses.get(exercise_id)
        if status is None:
            return Text("-")
        label = self.t(f"ex.status.{status.status}")
        if status.stale or status.broken:
            label += " *"
        return Text(label, style=STATUS_STYLE.get(status.status, ""))

    def _fill_table(self) -> None:
        self.statuses = all_statuses(self.exercises, self.study.store)
        table = self.query_one("#exs-table", DataTable)
        if table.row_count == len(self.exercises) and table.row_count:
            for exercise_id in self.exercises:
                table.update_cell(exercise_id, "status", self._status_text(exercise_id))
            return
        table.clear()
        for exercise_id, info in self.exercises.items():
            table.add_row(
                Text(exercise_id),
                self._status_text(exercise_id),
                Text(fit(", ".join(self._checklist_numbers(info)), 22)),
                # the title takes the room the window has (120 columns: no cut at 34)
                Text(fit(info.title_for(self.t.lang), max(34, self.app.size.width - 44))),
                key=exercise_id,
            )
        if self.selected in self.exercises:
            table.move_cursor(row=list(self.exercises).index(self.selected), animate=False)

    def _checklist_numbers(self, info: Any) -> list[str]:
        """Checklist numbers, as the rest of the app names items (an unknown id stays an id)."""
        content = self.study.content
        return [str(entry.number) if (entry := content.checklist_entry(c)) else c for c in info.checklist]

    def current(self) -> Any:
        return self.exercises.get(self.selected) if self.selected else None

    def workspace(self, info: Any) -> Path:
        store = self.study.store
        return exercise_store.workspace(store, info.id) or default_workspace(store.path.parent, info.id)

    def _show_selected(self) -> None:
        info = self.current()
        summary = self.query_one("#exs-summary", Static)
        if info is None:
            summary.update(Content(self.t("exs.none_for_lab" if self.lab else "exs.none")))
            self.query_one("#exs-workspace", Static).update("")
            return
        # The README is markdown (tables, code, bold): rendered, in the interface language.
        summary.update(
            Group(
                Text(info.title_for(self.t.lang), style="bold"),
                Markdown(info.readme_for(self.t.lang), hyperlinks=False),
            )
        )
        self._show_workspace(info)
        self.query_one("#exs-hints", Vertical).remove_children()
        self.query_one("#exs-solution", Vertical).remove_children()
        self.query_one("#exs-diff", Vertical).remove_children()
        self._show_revealed_hints(info)

    def _show_workspace(self, info: Any) -> None:
        path = self.workspace(info)
        line = self.t("exs.workspace", path=path) if path.is_dir() else self.t("exs.workspace_none")
        status = self.statuses.get(info.id)
        if status is not None and (status.stale or status.broken):  # what the * in the list means
            line += f"\n* {self.t('ex.stale' if status.stale else 'ex.broken')}"
        self.query_one("#exs-workspace", Static).update(Content(line))

    def _show_revealed_hints(self, info: Any) -> None:
        box = self.query_one("#exs-hints", Vertical)
        box.remove_children()
        box.mount_all(self._hint_widgets(info))

    def _hint_widgets(self, info: Any) -> list[Static]:
        hints = info.hints()
        revealed = exercise_store.hints_revealed(self.study.store, info.id)
        return [
            Static(
                Group(
                    Text(self.t("exs.hint", number=number, total=len(hints)), style="bold"),
                    Markdown(hints[number - 1], hyperlinks=False),
                ),
                classes="exs-hint",
                markup=False,
            )
            for number in range(1, min(revealed, len(hints)) + 1)
        ]

    async def _reveal(self, box: Vertical, widgets: list[Static], show: int = -1) -> None:
        """Put `widgets` in `box`, then scroll the detail so `widgets[show]` starts at the top:
        what a key opened is on screen at 80×24 (N4). The scroll waits for the new widgets'
        layout (scrolling right after mounting found them without a position)."""
        await box.remove_children()
        await box.mount_all(widgets)
        if widgets:
            detail = self.query_one("#exs-detail", VerticalScroll)
            self.call_after_refresh(detail.scroll_to_widget, widgets[show], animate=False, top=True)

    # -- events --------------------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        exercise_id = event.row_key.value
        if exercise_id and exercise_id != self.selected:
            self.selected = exercise_id
            if self.running is None:
                self.query_one("#exs-results", Vertical).remove_children()
            self._show_selected()
            self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.selected = event.row_key.value
        self.action_check()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("diff", "next_exercise"):  # shown once passed (the key bar stays short)
            info = self.current()
            passed = info is not None and has_passed(exercise_store.checks(self.study.store, info.id))
            if action == "next_exercise":
                return passed and self._following() is not None
            return self.running is None and passed
        if action in ("start", "check", "hint", "solution"):
            return self.running is None and self.current() is not None
        if action in ("copy_path", "open_workspace"):
            return self.current() is not None
        return True

    # -- actions -------------------------------------------------------------------------------
    def action_start(self) -> None:
        info = self.current()
        if info is None:
            return
        try:
            result = workspace.start(info, self.workspace(info))
        except StudyappError as exc:
            self.notify(str(exc), severity="warning", markup=False, timeout=8)
            return
        self.study.save(partial(exercise_store.set_workspace, self.study.store, info.id, result.path))
        key = "exs.started" if result.copied else "exs.started_again"
        self.notify(self.t(key, path=result.path), markup=False)
        self._fill_table()  # "started" from now on, not "not started" until the first check (N5)
        self._show_workspace(info)

    def action_check(self) -> None:
        info = self.current()
        if info is None or self.running is not None:
            return
        path = self.workspace(info)
        if not path.is_dir():
            self.notify(self.t("ex.no_workspace", id=info.id, path=path), severity="warning", markup=False)
            return

        self.query_one("#exs-results", Vertical).remove_children()
        self.query_one("#exs-title", TitleBar).set(right=self.t("exs.checking", id=info.id))
        quick, lang = self.quick, self.t.lang
        # A pass that appears in the store while the learner's code runs is not counted (record_check).
        self.passed_before = exercise_store.passed_check_uids(self.study.store)

        def job(report: Callable[[Any], None], cancel: threading.Event) -> Any:
            # lang: the checker writes its requirement lines in it (STUDYAPP_LANG); without it
            # they were English in the Korean TUI while `studyapp exercise check` was Korean (m10)
            return run_check(info, path, quick=quick, on_event=report, cancel=cancel, lang=lang)

        self.run_panel.start(info.id, job, self.t("exs.checking", id=info.id))
        self.refresh_bindings()

    def on_run_progress(self, message: RunProgress) -> None:
        if message.run_id != self.running:
            return
        event = message.event
        if event.requirement is not None:
            self.query_one("#exs-results", Vertical).mount(self._requirement_widget(event.requirement))
        elif event.message:
            self.run_panel.show_phase(f"{self.t('exs.checking', id=message.run_id)} {event.message}")

    def _requirement_widget(self, requirement: Any) -> Static:
        mark = "✓" if requirement.passed else "✗"
        text = f"{mark} {requirement.name}" + (f" — {requirement.message}" if requirement.message else "")
        return Static(
            Content(text), classes="exs-req " + ("passed" if requirement.passed else "failed"), markup=False
        )

    def on_run_finished(self, message: RunFinished) -> None:
        if message.error is not None:
            self._finish_ui()
            self.notify(self.t("exs.error", error=message.error), severity="error", markup=False)
            return
        outcome = message.outcome
        info = self.exercises.get(message.run_id)
        if outcome.verdict != checker.USAGE and info is not None:
            self.study.save(
                partial(
                    exercise_store.record_check,
                    self.study.store,
                    info.id,
                    info.checker_hash(),
                    outcome.verdict,
                    outcome.details(),
                    outcome.duration_s,
                    self.passed_before,
                )
            )
        self._finish_ui()
        if info is not None and info.id == self.selected:
            self._show_workspace(info)
        results = self.query_one("#exs-results", Vertical)
        shown = len(results.query(".exs-req"))
        results.mount_all([self._requirement_widget(r) for r in outcome.requirements[shown:]])
        if outcome.learner_traceback:
            results.mount(
                Static(
                    Content(self.t("ex.traceback") + "\n" + outcome.learner_traceback),
                    classes="exs-traceback",
                    markup=False,
                )
            )
        t = self.t
        verdict = verdict_line(outcome, t, "h")
        results.mount(Static(Content(verdict), classes=f"exs-verdict {outcome.verdict}", markup=False))
        if outcome.verdict == checker.PASSED:
            results.mount(Static(Content(t("exs.after_pass")), classes="muted", markup=False))
            following = self._following()
            if following is not None and info is not None and info.id == self.selected:
                title = following.title_for(t.lang)
                results.mount(
                    Static(
                        Content(t("exs.next", id=following.id, title=title)), classes="exs-next", markup=False
                    )
                )
        self.query_one("#exs-title", TitleBar).set(right=t(f"ex.status.{self._status_of(message.run_id)}"))
        detail = self.query_one("#exs-detail", VerticalScroll)
        self.call_after_refresh(detail.scroll_to_widget, results, animate=False, top=True)

    def _following(self) -> Any | None:
        """The next exercise on the study path not passed yet (rustlings moves on after a pass)."""
        if self.selected is None:
            return None
        return next_exercise(self.exercises, self.selected, self.statuses)

    def action_next_exercise(self) -> None:
        following = self._following()
        if following is None:
            return
        table = self.query_one("#exs-table", DataTable)
        table.move_cursor(row=list(self.exercises).index(following.id), animate=False)
        table.focus()

    def _status_of(self, exercise_id: str) -> str:
        status = self.statuses.get(exercise_id)
        return status.status if status else "not started"

    def _finish_ui(self) -> None:
        self.run_panel.done()
        self._fill_table()
        self.refresh_bindings()

    async def action_hint(self) -> None:
        info = self.current()
        if info is None:
            return
        hints = info.hints()
        if not hints:
            self.notify(self.t("exs.no_hints"), timeout=2)
            return
        before = exercise_store.hints_revealed(self.study.store, info.id)
        if not self.study.save(
            partial(exercise_store.reveal_next_hint, self.study.store, info.id, len(hints))
        ):
            return
        if before >= len(hints):
            self.notify(self.t("exs.all_hints"), timeout=2)
        await self._reveal(self.query_one("#exs-hints", Vertical), self._hint_widgets(info))

    async def action_solution(self) -> None:
        info = self.current()
        if info is None:
            return
        store = self.study.store
        if not has_passed(exercise_store.checks(store, info.id)):
            # the TUI's words: the key to press, not the command line and its --force (N13)
            self.notify(self.t("exs.solution_locked"), severity="warning", markup=False, timeout=6)
            return
        if not self.study.save(partial(exercise_store.mark_solution_seen, store, info.id)):
            return
        widgets: list[Static] = [
            Static(
                Content.styled(self.t("exs.solution_title", path=info.solution_dir), "bold"),
                classes="exs-code",
                markup=False,
            )
        ]
        for relative in info.solution_files():
            try:
                code = (info.solution_dir / relative).read_text(encoding="utf-8").rstrip()
            except (OSError, UnicodeDecodeError):
                code = "(binary file)"
            widgets.append(Static(Content.styled(f"── {relative.as_posix()} ──", "bold"), classes="exs-code"))
            lexer = Syntax.guess_lexer(str(relative), code)
            # wrapped: at 80 columns long lines were cut at the edge with no way to see the rest
            widgets.append(
                Static(Syntax(code, lexer, background_color="default", word_wrap=True), classes="exs-source")
            )
        self.query_one("#exs-diff", Vertical).remove_children()
        await self._reveal(self.query_one("#exs-solution", Vertical), widgets, show=0)

    async def action_diff(self) -> None:
        """After a pass: the learner's code against the reference solution, file by file."""
        info = self.current()
        if info is None:
            return
        store = self.study.store
        if not has_passed(exercise_store.checks(store, info.id)):
            return
        if not self.study.save(partial(exercise_store.mark_solution_seen, store, info.id)):
            return
        t = self.t
        widgets: list[Static] = [
            Static(Content.styled(t("exs.diff_title"), "bold"), classes="exs-code", markup=False)
        ]
        for change in compare_with_solution(info, self.workspace(info)):
            widgets.append(Static(Content.styled(f"── {change.name} ──", "bold"), classes="exs-code"))
            if change.same:
                widgets.append(Static(Content(t("exs.diff_same")), classes="muted", markup=False))
            elif change.missing:
                widgets.append(Static(Content(t("exs.diff_missing")), classes="warning", markup=False))
            else:
                widgets.append(
                    Static(
                        Syntax(change.diff, "diff", background_color="default", word_wrap=True),
                        classes="exs-source",
                    )
                )
        self.query_one("#exs-solution", Vertical).remove_children()
        await self._reveal(self.query_one("#exs-diff", Vertical), widgets, show=0)

    def action_copy_path(self) -> None:
        info = self.current()
        if info is None:
            return
        path = self.workspace(info)
        self.app.copy_to_clipboard(str(path))
        self.notify(self.t("exs.copied", path=path), markup=False)

    def action_open_workspace(self) -> None:
        """Open the workspace in $VISUAL / $EDITOR (the terminal is handed over), else the file manager."""
        info = self.current()
        if info is None:
            return
        path = self.workspace(info)
        if not path.is_dir():
            self.notify(self.t("exs.workspace_none"), severity="warning")
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            # `open_url` never says whether anything opened: on a terminal-only machine (ssh,
            # WSL, a console) it silently does nothing. Ask a desktop only where one is likely,
            # and say what to do otherwise; the path is copied either way (N10).
            self.app.copy_to_clipboard(str(path))
            if has_desktop():
                self.app.open_url(path.as_uri())
                self.notify(self.t("exs.opened_desktop", path=path), markup=False)
            else:
                self.notify(self.t("exs.no_editor", path=path), severity="warning", markup=False, timeout=10)
            return
        try:
            files = [path / f for f in info.starter_files()] or [path]
            with self.app.suspend():
                subprocess.run([*shlex.split(editor), str(files[0])], check=False)
        except Exception:  # no terminal to hand over: the path is still useful
            self.app.copy_to_clipboard(str(path))
            self.notify(self.t("exs.copied", path=path), markup=False)
            return
        self.notify(self.t("exs.opened", path=path), markup=False)

    def action_cancel_or_back(self) -> None:
        if not self.run_panel.cancel(self.t("exs.cancelling")):
            self.action_back()

    def action_back(self) -> None:
        if self.running is not None:
            return
        if self.pushed:
            self.dismiss()
        else:
            self.study.switch_mode("home")

    def on_unmount(self) -> None:
        self.run_panel.cancel()  # leaving the app mid-check stops the checker and the learner's code
