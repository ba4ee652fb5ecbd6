"""F1: every key of every screen, built from the screens' own BINDINGS (so it cannot go stale)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from studyapp.quiz.presenting import pad
from studyapp.tui import sections as tui_sections
from studyapp.tui.screens.base import StudyModal

KEY_NAMES = {
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "escape": "Esc",
    "enter": "Enter",
    "space": "Space",
    "question_mark": "?",
    "slash": "/",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "tab": "Tab",
    "ctrl+z": "Ctrl+Z",
    "ctrl+s": "Ctrl+S",
    "ctrl+b": "Ctrl+B",
    "ctrl+n": "Ctrl+N",
}
KEY_COLUMN = 16


def key_names(binding: Binding) -> str:
    names = []
    for key in binding.key.split(","):
        key = key.strip()
        if not key.isascii():
            continue  # the Korean-layout twins of the same keys
        names.append(KEY_NAMES.get(key, key.upper() if key.startswith("f") and key[1:].isdigit() else key))
    return " ".join(names)


def merge_rows(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One row per action: keys that do the same thing share it (`1 2 3 4 고르기`, `Enter r 빠른
    실행`, `Esc q 뒤로`), in the order met, digits first and in order (N19)."""
    merged: dict[str, list[str]] = {}
    for keys, description in rows:
        merged.setdefault(description, [])
        for key in keys.split():
            if key not in merged[description]:
                merged[description].append(key)
    result = []
    for description, keys in merged.items():
        digits = digit_ranges(sorted(int(key) for key in keys if key.isdigit()))
        result.append((" ".join([*digits, *(key for key in keys if not key.isdigit())]), description))
    return result


def digit_ranges(digits: list[int]) -> list[str]:
    """`1 2 3 4 5 6` → `1–6` (c5: six digits and Space did not fit the key column: `Spa…`);
    two or three in a row stay as they are (`1 2 3 4` is how the quiz's answers read)."""
    runs: list[list[int]] = []
    for digit in digits:
        if runs and digit == runs[-1][-1] + 1:
            runs[-1].append(digit)
        else:
            runs.append([digit])
    return [f"{run[0]}–{run[-1]}" if len(run) > 4 else " ".join(map(str, run)) for run in runs]


class HelpScreen(StudyModal):
    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "key.close", key_display="esc"),
    ]

    def _sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        # The app and the screens pushed over a section import this module's caller chain; they
        # are imported here, when F1 is pressed, so the help screen does not load every screen
        # at start-up (a section imports its screen the same way).
        from studyapp.tui.app import StudyApp
        from studyapp.tui.screens.check_question import CheckQuestionScreen
        from studyapp.tui.screens.exam import ConfirmSubmit, ExamIntroScreen, ExamScreen
        from studyapp.tui.screens.exam_result import ExamResultScreen
        from studyapp.tui.screens.explain import ExplainScreen
        from studyapp.tui.screens.notebook import NotebookScreen
        from studyapp.tui.screens.quiz import QuizScreen
        from studyapp.tui.screens.summary import SummaryScreen

        t = self.t
        global_rows = self._rows(StudyApp.BINDINGS)
        global_rows += [("Ctrl+P", t("help.palette")), ("Ctrl+Q", t("help.quit"))]
        sections: list[tuple[str, list[tuple[str, str]]]] = [(t("help.global"), global_rows)]
        # Keys that are not BINDINGS of the screen (Enter on a list row, Tab between panes).
        extra = {
            "help.home": [("Enter", t("home.topic_quiz"))],
            "help.cards": [("Tab", t("help.tab_panes"))],
            "help.labs": [("Enter", t("key.run_quick")), ("Tab ← →", t("help.tab_tables"))],
            "help.checklist": [("Enter", t("key.next_step"))],
            "help.exercises": [("Enter", t("key.ex_check"))],
            "help.exam": [("2 3 4", t("key.exam_answer"))],  # 1 is a binding; 2–4 are read in on_key
            "help.explain": [("Space", t("help.explain_tick")), ("Tab", t("help.explain_tab"))],
        }
        home, *others = [
            (f"help.{section.id}", section.screen_class()) for section in tui_sections.sections()
        ]
        pushed: list[tuple[str, type[Any]]] = [
            ("help.quiz", QuizScreen),
            ("help.summary", SummaryScreen),
            ("help.exam_intro", ExamIntroScreen),
            ("help.exam", ExamScreen),
            ("help.exam_confirm", ConfirmSubmit),
            ("help.exam_result", ExamResultScreen),
            ("help.explain", ExplainScreen),
            ("help.notebook", NotebookScreen),
            ("help.check_question", CheckQuestionScreen),
        ]
        for key, screen in [home, *pushed, *others]:
            sections.append((t(key), merge_rows(extra.get(key, []) + self._rows(screen.BINDINGS))))
        return sections

    def _rows(self, bindings: list[Any]) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        seen: set[str] = set()
        for binding in Binding.make_bindings(bindings):
            if (
                binding.action in seen
                or binding.action.startswith("scroll")
                or binding.action == "command_palette"
            ):
                continue
            keys = key_names(binding)
            if not keys:
                continue
            # Bindings sharing an action (e.g. o and its Korean twin) are listed once.
            seen.add(binding.action)
            merged = [b for b in Binding.make_bindings(bindings) if b.action == binding.action]
            keys = " ".join(dict.fromkeys(" ".join(key_names(b) for b in merged).split()))
            description = self.t(binding.description)
            if binding.action.startswith("restart("):  # the quiz's n / r: only once it is empty
                description += " " + self.t("help.when_empty")
            if binding.action == "cancel":  # Esc cancels a running lab, else it goes back (c5)
                description += " " + self.t("help.when_running")
            rows.append((keys, description))
        return rows

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Content.styled(self.t("help.title"), "bold"), classes="heading", markup=False)
            yield Static(
                Content(self.t("help.close")), classes="muted", markup=False
            )  # first, not 3 pages down
            for title, rows in self._sections():
                yield Static(Content.styled(title, "bold $accent"), classes="help-section", markup=False)
                lines = [
                    Content.assemble((pad(keys, KEY_COLUMN), "bold"), " ", description)
                    for keys, description in rows
                ]
                yield Static(Content("\n").join(lines), classes="help-rows", markup=False)

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        self.dismiss()
