"""The exam checklist: 11 items with readiness bars, evidence, self-check and the next step."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import DataTable, Static

from studyapp.quiz.presenting import bar, fit, percent
from studyapp.report.readiness import Readiness, checklist_readiness, overall
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

BAR_WIDTH = 8
TEXT_WIDTH = 46


class ChecklistScreen(StudyScreen):
    CSS_PATH = "checklist.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_self_check", "key.self_check", key_display="space"),
        Binding("s", "quiz", "key.checklist_quiz"),
        Binding("l", "lab", "key.checklist_lab"),
        Binding("e", "explain", "key.explain"),
        Binding("escape,q", "back", "key.back", key_display="esc"),
    ]

    def __init__(self, select: str | None = None) -> None:
        super().__init__()
        self.rows: list[Readiness] = []
        self.selected: str | None = select

    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("checklist.title"), id="checklist-title")
        yield DataTable(cursor_type="row", id="checklist-table")
        with VerticalScroll(id="checklist-detail"):  # Tab reaches it: ↓ / End read the evidence
            yield Static(id="checklist-text", classes="bold", markup=False)
            yield Static(id="checklist-components", markup=False)
            # The next step before the evidence: at 80×24 it is the line that must show (N3).
            yield Static(id="checklist-next", markup=False)
            yield Static(Content(self.t("checklist.evidence")), classes="heading", markup=False)
            yield Vertical(id="checklist-evidence")
            yield Static(Content(self.t("checklist.hint")), classes="muted hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#checklist-table", DataTable)
        table.add_column("#", key="number")
        table.add_column(self.t("checklist.col.item"), key="text")  # not the screen title again
        table.add_column("", key="bar")
        table.add_column("✓", key="self")
        table.focus()

    def on_screen_resume(self) -> None:
        if self.is_current:
            self.refresh_data()

    # -- data ----------------------------------------------------------------------------------
    def refresh_data(self) -> None:
        app = self.study
        self.rows = checklist_readiness(app.content, app.store, app.now(), app.lab_questions())
        self.query_one("#checklist-title", TitleBar).set(
            right=self.t("checklist.overall", percent=percent(overall(self.rows)))
        )
        table = self.query_one("#checklist-table", DataTable)
        table.clear()
        for row in self.rows:
            readiness = Text(bar(row.readiness, BAR_WIDTH), style="green")
            readiness.append(f" {percent(row.readiness):>4}")
            table.add_row(
                Text(str(row.entry.number), justify="right"),
                Text(fit(row.entry.text, max(TEXT_WIDTH, self.app.size.width - 30))),
                readiness,
                Text(
                    "✓" if row.self_check >= 1.0 else "·",
                    style="bold green" if row.self_check >= 1.0 else "dim",
                ),
                key=row.entry.id,
            )
        ids = [r.entry.id for r in self.rows]
        if self.selected in ids:
            table.move_cursor(row=ids.index(self.selected), animate=False)
        elif ids:
            self.selected = ids[0]
        self.show_detail()

    def current(self) -> Readiness | None:
        return next((r for r in self.rows if r.entry.id == self.selected), None)

    def show_detail(self) -> None:
        row = self.current()
        if row is None:
            return
        t = self.t
        self.query_one("#checklist-text", Static).update(
            Content.styled(f"{row.entry.number}. {row.entry.text}", "bold")
        )
        components = " · ".join(
            [
                f"{bar(row.readiness, 10)} {percent(row.readiness)}",
                t("checklist.quiz", percent=percent(row.quiz)),
                t(
                    "checklist.exercises",
                    percent=percent(row.exercises) if "exercises" in row.weights else "-",
                ),
                t("checklist.labs", percent=percent(row.labs) if row.entry.labs else "-"),
                # the explain slot (explain-it coverage or the self-check's share): the evidence
                # below lists it, the summary left it out (c6)
                t("checklist.explain", percent=percent(row.explain) if "explain" in row.weights else "-"),
                t("checklist.self", value="✓" if row.self_check >= 1.0 else "–"),
            ]
        )
        self.query_one("#checklist-components", Static).update(Content(components))
        evidence = self.query_one("#checklist-evidence", Vertical)
        evidence.remove_children()
        evidence.mount_all(
            [Hanging("•", line, classes="evidence-line") for line in self._evidence_lines(row)]
        )
        self.query_one("#checklist-next", Static).update(
            Content.styled(t("checklist.next_step", step=self._step_text(row)), "bold $accent")
        )

    def _step_text(self, row: Readiness) -> str:
        """`Readiness.action` (the step `studyapp progress` names) in the interface language,
        with the key that does it here."""
        t = self.t
        step = row.action
        if step.kind == "quiz":
            return t("checklist.step.quiz", items=row.evidence.get("quiz", {}).get("items", 0))
        if step.kind in ("exercise_start", "exercise_check"):
            return t("checklist.step.exercise", id=step.target)
        if step.kind in ("lab", "lab_question", "explain"):
            return t(f"checklist.step.{step.kind}", lab=step.target)
        if step.kind == "self_check":
            return t("checklist.step.self")
        return t("checklist.step.ready")

    def _evidence_lines(self, row: Readiness) -> list[str]:
        t = self.t
        quiz: dict[str, Any] = row.evidence.get("quiz", {})
        lines = [
            t(
                "checklist.ev.quiz",
                items=quiz.get("items", 0),
                seen=quiz.get("seen", 0),
                right=quiz.get("last_right", 0),
                expected=quiz.get("expected_right_now", 0),
            )
        ]
        for exercise_id, info in row.evidence.get("exercises", {}).items():  # a pass raises this item most
            status = t(f"ex.status.{info['status']}") + (f" ({t('ex.stale')})" if info.get("stale") else "")
            lines.append(t("checklist.ev.exercise", id=exercise_id, status=status))
        for lab, info in row.evidence.get("labs", {}).items():
            answer = info.get("check_question")
            question = (
                ""
                if answer is None
                else t(
                    "checklist.ev.lab_question",
                    answer={True: "✓", False: "✗"}.get(answer, t("checklist.ev.unanswered")),
                )
            )
            lines.append(t("checklist.ev.lab", lab=lab, runs=info.get("ok_runs", 0), question=question))
        explain = row.evidence.get("explain", {})
        if explain.get("prompts"):
            latest = explain.get("latest")
            lines.append(
                t("checklist.ev.explain_none")
                if not latest
                else t(
                    "checklist.ev.explain",
                    percent=percent(row.explain),
                    when=str(latest.get("answered_at", ""))[:10],
                    # the mean over the item's prompts: say how many were answered (N31)
                    answered=latest.get("prompts_answered", 1),
                    prompts=latest.get("prompts_total", 1),
                )
            )
        check = row.evidence.get("self_check", {})
        when = check.get("checked_at")
        if when is None:
            lines.append(t("checklist.ev.self_none"))
        else:
            shown = str(when)[:10]
            lines.append(
                t("checklist.ev.self", when=shown)
                if check.get("valid", True)
                else t("checklist.ev.self_invalid", when=shown)
            )
        return lines

    # -- events and actions --------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value and event.row_key.value != self.selected:
            self.selected = event.row_key.value
            self.show_detail()
            self.refresh_bindings()  # `e` only where the item has explain-it prompts (N28)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.selected = event.row_key.value
        self.next_step()

    def action_toggle_self_check(self) -> None:
        row = self.current()
        if row is None:
            return
        checked = row.entry.id in self.study.store.self_checks()
        if not self.study.save(partial(self.study.store.set_self_check, row.entry.id, not checked)):
            return
        self.notify(self.t("checklist.self_off" if checked else "checklist.self_on"), timeout=2)
        self.refresh_data()

    def action_quiz(self) -> None:
        if self.selected:
            # The session the next step recommends (`studyapp quiz --checklist ID`): due + new.
            self.study.action_quiz("due", checklist=self.selected)

    def _lab_to_run(self, row: Readiness) -> str | None:
        labs = row.evidence.get("labs", {})
        for lab, info in labs.items():
            if not info.get("ok_runs") or info.get("check_question") not in (None, True):
                return lab
        return row.entry.labs[0] if row.entry.labs else None

    def action_lab(self) -> None:
        row = self.current()
        if row is None:
            return
        lab = self._lab_to_run(row)
        if lab is None:
            self.notify(self.t("checklist.no_lab"), timeout=2)
            return
        self.study.open_lab(lab)

    def next_step(self) -> None:
        """Do what the item's next step says: review, an exercise, explain, a lab, or self-check."""
        row = self.current()
        if row is None:
            return
        kind = row.action.kind
        if kind == "quiz":
            self.action_quiz()
        elif kind in ("exercise_start", "exercise_check"):
            # Screens load on first use: importing all of them up front costs ~40 % more start-up.
            from studyapp.tui.screens.exercises import ExercisesScreen

            self.app.push_screen(ExercisesScreen(select=row.action.target, pushed=True))
        elif kind == "explain":
            self.action_explain()
        elif kind in ("lab", "lab_question"):
            self.action_lab()
        elif kind == "self_check":
            self.action_toggle_self_check()
        else:
            self.notify(self._step_text(row), timeout=2, markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "explain":
            row = self.current()
            return row is not None and bool(row.evidence.get("explain", {}).get("prompts"))
        return True

    def action_explain(self) -> None:
        """The explain-it prompts of the selected item (readiness evidence, stronger than ✓)."""
        if self.selected:
            self.study.action_explain(checklist=self.selected)

    def action_back(self) -> None:
        self.study.switch_mode("home")


__all__ = ["ChecklistScreen"]
