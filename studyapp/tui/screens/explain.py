"""Explain-it: write your own answer (multi-line), then the model answer and a checkbox per key
point; tick what you covered and save. The flow is `studyapp.quiz.explain.ExplainSession`.

Opened from Home (`d`), from the checklist screen (`e`, on the selected item), from the palette
and by `studyapp explain [ID]`. While writing, `[` / `]` switch prompts (of the same checklist item
when opened from the checklist); the model answer is hidden until an answer was submitted.
"""

from __future__ import annotations

import sqlite3
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static, TextArea

from studyapp.content.explain import ExplainPrompt
from studyapp.errors import StudyappError
from studyapp.quiz.explain import (
    DONE,
    MAX_ANSWER_CHARS,
    REVIEWING,
    WRITING,
    ExplainSession,
    history,
    next_prompt,
)
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar


class KeyPoint(Static, can_focus=True):
    """One key point as a checkbox line that wraps (Textual's Checkbox cuts long labels)."""

    DEFAULT_CSS = """
    KeyPoint { height: auto; padding: 0 1; }
    KeyPoint:focus { background: $boost; text-style: bold; }
    KeyPoint.-on { color: $success; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("space,enter", "toggle", "key.self_check", show=False)]

    value: reactive[bool] = reactive(False)

    class Changed(Message):
        def __init__(self, point: KeyPoint, value: bool) -> None:
            super().__init__()
            self.point = point
            self.value = value

    def __init__(self, number: int, text: str, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.number = number
        self.text = text

    def render(self) -> Content:
        box = "[x]" if self.value else "[ ]"
        return Content(f"{box} {self.number}. {self.text}")

    def watch_value(self, value: bool) -> None:
        self.set_class(value, "-on")
        self.post_message(self.Changed(self, value))

    def action_toggle(self) -> None:
        if not self.disabled:
            self.value = not self.value

    def on_click(self) -> None:
        self.action_toggle()


class ExplainScreen(StudyScreen):
    CSS_PATH = "explain.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "submit", "key.explain_submit", key_display="^s", priority=True),
        # ctrl+b / ctrl+n: letters and brackets are typed into the answer box.
        Binding("ctrl+b", "switch(-1)", "key.explain_prev", key_display="^b", priority=True),
        Binding("ctrl+n", "switch(1)", "key.explain_next", key_display="^n", priority=True),
        Binding("n", "again", "key.explain_again"),
        Binding("escape", "back", "key.back", key_display="esc", priority=True),
    ]

    def __init__(self, prompts: list[ExplainPrompt], start: str | None = None) -> None:
        """`prompts`: those this screen can switch between; `start`: the prompt id to open on
        (default: the one to practise next)."""
        super().__init__()
        self.prompts = prompts
        chosen = next((p for p in prompts if p.id == start), None) or next_prompt(prompts, self.study.store)
        if chosen is None:
            raise StudyappError(self.t("explain.none"))
        self.session = ExplainSession(chosen)

    @property
    def prompt(self) -> ExplainPrompt:
        return self.session.prompt

    def compose(self) -> ComposeResult:
        yield TitleBar(self.t("explain.title"), id="explain-title")
        with VerticalScroll(id="explain-body"):
            yield Static(id="explain-checklist", classes="muted", markup=False)
            yield Static(id="explain-prompt", markup=False)
            yield Static(id="explain-last", classes="muted", markup=False)
            yield TextArea(id="explain-answer", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
            yield Static(id="explain-hint", classes="muted", markup=False)
            with Vertical(id="explain-review"):
                yield Static(Content(self.t("explain.your_answer")), classes="heading", markup=False)
                yield Static(id="explain-mine", markup=False)
                yield Static(Content(self.t("explain.model_heading")), classes="heading", markup=False)
                yield Static(id="explain-model", markup=False)
                yield Static(Content(self.t("explain.points_heading")), classes="heading", markup=False)
                yield Vertical(id="explain-points")
            yield Static(id="explain-saved", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.show_prompt()

    # -- rendering -----------------------------------------------------------------------------
    def show_prompt(self) -> None:
        t = self.t
        prompt = self.prompt
        entry = self.study.content.checklist_entry(prompt.checklist)
        index = self.prompts.index(prompt) + 1 if prompt in self.prompts else 1
        self.query_one("#explain-title", TitleBar).set(
            f"{t('explain.title')} · {prompt.id}", t("explain.of", index=index, total=len(self.prompts))
        )
        self.query_one("#explain-checklist", Static).update(
            Content(
                t("explain.checklist", number=entry.number, text=entry.text) if entry else prompt.checklist
            )
        )
        self.query_one("#explain-prompt", Static).update(Content.styled(prompt.prompt, "bold"))
        last = next(reversed(history(self.study.store, prompt.id)), None)  # this prompt's rows only
        last_line = self.query_one("#explain-last", Static)
        last_line.display = last is not None
        if last is not None:
            when = last.answered_at.astimezone(self.study.tz).date().isoformat()
            last_line.update(
                Content(t("explain.last", covered=len(last.covered), total=last.total_points, date=when))
            )
        area = self.query_one("#explain-answer", TextArea)
        area.text = ""
        area.read_only = False
        area.display = True
        area.placeholder = t("explain.placeholder")
        hint = self.query_one("#explain-hint", Static)
        hint.update(Content(t("explain.write_hint")))
        hint.remove_class("warning")
        self.query_one("#explain-review").display = False
        self.query_one("#explain-saved").display = False
        area.focus()
        self.refresh_bindings()

    def show_review(self) -> None:
        prompt = self.prompt
        self.query_one("#explain-answer", TextArea).display = False
        self.query_one("#explain-mine", Static).update(Content(self.session.answer_text))
        self.query_one("#explain-model", Static).update(Content(prompt.model_answer))
        points = self.query_one("#explain-points", Vertical)
        points.remove_children()
        points.mount_all(
            [
                KeyPoint(number, point, id=f"point-{number - 1}", classes="point")
                for number, point in enumerate(prompt.key_points, start=1)
            ]
        )
        self.query_one("#explain-review").display = True
        self.query_one("#explain-hint", Static).update(Content(self.t("explain.review_hint")))
        self.call_after_refresh(self._focus_first_point)
        self.refresh_bindings()

    def _focus_first_point(self) -> None:
        # The model answer comes into view first; digits tick points, Tab walks them (Space ticks).
        self.set_focus(None)
        self.query_one("#explain-body", VerticalScroll).scroll_to_widget(
            self.query_one("#explain-mine"), animate=False, top=True
        )

    # -- actions -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.session.state
        if action == "switch":
            return state == WRITING and len(self.prompts) > 1
        if action == "again":
            return state == DONE
        if action == "submit":
            return state in (WRITING, REVIEWING)
        return True

    def action_submit(self) -> None:
        if self.session.state == WRITING:
            text = self.query_one("#explain-answer", TextArea).text
            if not text.strip():
                hint = self.query_one("#explain-hint", Static)
                hint.update(Content(self.t("explain.empty_answer")))
                hint.add_class("warning")
                return
            self.session.submit_answer(text)
            if len(text.strip()) > MAX_ANSWER_CHARS:  # said, not cut silently
                self.notify(self.t("explain.cut", limit=MAX_ANSWER_CHARS), severity="warning")
            self.show_review()
        elif self.session.state == REVIEWING:
            self.save()

    def on_key_point_changed(self, event: KeyPoint.Changed) -> None:
        event.stop()
        if self.session.state != REVIEWING:
            return
        self.session.set_point(event.point.number - 1, event.value)

    def on_key(self, event: events.Key) -> None:
        """Digits 1–6 tick key points while reviewing (typed into the answer box while writing)."""
        character = event.character
        if self.session.state == REVIEWING and character and character in "123456":
            event.stop()
            self.action_tick(int(character) - 1)

    def action_tick(self, index: int) -> None:
        if self.session.state != REVIEWING or index >= len(self.prompt.key_points):
            return
        box = self.query_one(f"#point-{index}", KeyPoint)
        box.value = not box.value  # KeyPoint.Changed updates the session

    def save(self) -> None:
        # The checkboxes are the truth on screen: sync them before the write.
        for index in range(len(self.prompt.key_points)):
            self.session.set_point(index, self.query_one(f"#point-{index}", KeyPoint).value)
        try:
            result = self.session.finish(self.study.store)  # one committed write
        except (StudyappError, sqlite3.Error, OSError) as exc:  # a full disk: keep it, try again
            self.notify(self.t("explain.save_failed", problem=str(exc)), severity="error", markup=False)
            return
        for box in self.query(".point").results(KeyPoint):
            box.disabled = True
        saved = self.query_one("#explain-saved", Static)
        when = result.answered_at.astimezone(self.study.tz).date().isoformat()
        saved.update(
            Content.assemble(
                (
                    self.t(
                        "explain.saved_line",
                        covered=len(result.covered),
                        total=result.total_points,
                        percent=f"{result.coverage:.0%}",
                        date=when,
                    ),
                    "bold $success",
                ),
                "\n",
                (self.t("explain.done_hint"), "$text-muted"),
            )
        )
        saved.display = True
        self.query_one("#explain-hint").display = False
        self.set_focus(None)
        self.query_one("#explain-body", VerticalScroll).scroll_end(animate=False)
        self.refresh_bindings()

    def action_switch(self, step: int) -> None:
        if self.session.state != WRITING or len(self.prompts) < 2:
            return
        index = (self.prompts.index(self.prompt) + step) % len(self.prompts)
        self.session = ExplainSession(self.prompts[index])
        self.show_prompt()

    def action_again(self) -> None:
        if self.session.state != DONE:
            return
        following = next_prompt(self.prompts, self.study.store) or self.prompt
        self.session = ExplainSession(following)
        self.query_one("#explain-hint").display = True
        self.show_prompt()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.dismiss()
        else:
            self.study.switch_mode("home")


__all__ = ["ExplainScreen"]
