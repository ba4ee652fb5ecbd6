"""Explain-it: write your own answer (multi-line), then your answer beside the model answer and a
checkbox per key point; tick what you covered and save. The flow is
`studyapp.quiz.explain.ExplainSession`.

Opened from Home (`d`), from the checklist screen (`e`, on the selected item), from the palette
and by `studyapp explain [ID]`. While writing, Ctrl+B / Ctrl+N switch prompts (of the same
checklist item when opened from the checklist); the model answer is hidden until an answer was
submitted. What is written is kept as a draft in the store (a second after the last key, and on
every way out), so Esc, switching prompts and quitting lose nothing; leaving with key points
ticked but not saved asks first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
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
    load_draft,
    next_prompt,
    save_draft,
)
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import HangingRows, row

SIDE_BY_SIDE_MIN = 70  # columns: below this the two answers are stacked
DRAFT_DELAY_S = 1.0  # the draft is written this long after the last key (one write, not one a key)


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

    def render(self) -> HangingRows:
        box = "[x]" if self.value else "[ ]"
        return HangingRows([row(self.text, f"{box} {self.number}. ")])  # wrapped lines under the text

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
        # One key, two steps: submit the answer while writing, save the ticks while reviewing.
        Binding("ctrl+s", "submit", "key.explain_submit", key_display="^s", priority=True),
        Binding("ctrl+s", "save", "key.explain_save", key_display="^s", priority=True),
        # ctrl+b / ctrl+n: letters and brackets are typed into the answer box.
        Binding("ctrl+b", "switch(-1)", "key.explain_prev", key_display="^b", priority=True),
        Binding("ctrl+n", "switch(1)", "key.explain_next", key_display="^n", priority=True),
        Binding("n", "again", "key.explain_again"),
        # Digits tick key points while reviewing (typed into the answer box while writing: the
        # binding is off then). Priority, like ^s: a digit typed just before ^s is handled before
        # it, not left in a widget's queue while the save runs.
        *(
            Binding(str(number), f"tick({number - 1})", "key.explain_tick", show=False, priority=True)
            for number in range(1, 7)
        ),
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
        self._stored_draft = ""  # what the store holds for this prompt (skip writing it again)
        self._draft_timer: Timer | None = None
        self._leaving = False
        self._typed = ""  # the answer box's text, kept here so it can be saved while unmounting

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
                # The learner's answer beside the model answer, to compare line by line.
                with Horizontal(id="explain-compare"):
                    with Vertical(id="explain-mine-column", classes="explain-column"):
                        yield Static(Content(self.t("explain.your_answer")), classes="heading", markup=False)
                        yield Static(id="explain-mine", markup=False)
                    with Vertical(id="explain-model-column", classes="explain-column"):
                        yield Static(
                            Content(self.t("explain.model_heading")), classes="heading", markup=False
                        )
                        yield Static(id="explain-model", markup=False)
                yield Static(Content(self.t("explain.points_heading")), classes="heading", markup=False)
                yield Vertical(id="explain-points")
            yield Static(id="explain-saved", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.show_prompt()

    def on_resize(self, event: events.Resize) -> None:
        # Side by side from 70 columns; narrower, one above the other (each column would be
        # too narrow for Korean prose).
        self.query_one("#explain-compare").set_class(event.size.width < SIDE_BY_SIDE_MIN, "-stacked")

    # -- rendering -----------------------------------------------------------------------------
    def show_prompt(self) -> None:
        t = self.t
        prompt = self.prompt
        entry = self.study.content.checklist_entry(prompt.checklist)
        index = self.prompts.index(prompt) + 1 if prompt in self.prompts else 1
        where = t("explain.title_item", number=entry.number) if entry else prompt.checklist
        self.query_one("#explain-title", TitleBar).set(
            f"{t('explain.title')} · {where}", t("explain.of", index=index, total=len(self.prompts))
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
        draft = load_draft(self.study.store, prompt.id)
        self._stored_draft = self._typed = draft
        area = self.query_one("#explain-answer", TextArea)
        area.text = draft
        area.read_only = False
        area.display = True
        area.placeholder = t("explain.placeholder")
        if draft:
            area.move_cursor(area.document.end)
        hint = self.query_one("#explain-hint", Static)
        hint.update(Content(t("explain.draft_restored" if draft else "explain.write_hint")))
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
        self.call_after_refresh(self._show_compare)
        self.refresh_bindings()

    def _show_compare(self) -> None:
        # The two answers come into view first; the body has the focus, so PageDown / End / ↓
        # scroll on to the key points; digits tick them, Tab walks them (Space ticks).
        body = self.query_one("#explain-body", VerticalScroll)
        body.focus()
        body.scroll_to_widget(self.query_one("#explain-compare"), animate=False, top=True)

    # -- the draft -----------------------------------------------------------------------------
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.session.state != WRITING or self._leaving:
            return
        self._typed = event.text_area.text
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = self.set_timer(DRAFT_DELAY_S, self.keep_draft)

    def keep_draft(self) -> bool:
        """Write what is in the box as this prompt's draft, if it changed. False: the write failed."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
            self._draft_timer = None
        if self.session.state == DONE:
            return True
        text = self.session.answer_text if self.session.state == REVIEWING else self._typed
        if text == self._stored_draft or (not text.strip() and not self._stored_draft):
            return True
        try:
            save_draft(self.study.store, self.prompt.id, text)
        except (StudyappError, sqlite3.Error, OSError) as exc:
            self.notify(self.t("explain.draft_failed", problem=str(exc)), severity="error", markup=False)
            return False
        self._stored_draft = text
        return True

    def unsaved(self) -> bool:
        """Something would be lost by leaving now: ticks not saved, or a draft the store refused."""
        if self.session.state == REVIEWING:
            return True
        return not self.keep_draft()

    # -- actions -------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        state = self.session.state
        if action == "switch":
            return state == WRITING and len(self.prompts) > 1
        if action == "again":
            return state == DONE
        if action == "submit":  # hidden, not dimmed: the key bar shows what ^s does now
            return state == WRITING
        if action in ("save", "tick"):
            return state == REVIEWING
        return True

    def action_submit(self) -> None:
        if self.session.state != WRITING:
            return
        text = self.query_one("#explain-answer", TextArea).text
        if not text.strip():
            hint = self.query_one("#explain-hint", Static)
            hint.update(Content(self.t("explain.empty_answer")))
            hint.add_class("warning")
            return
        self.session.submit_answer(text)
        if len(text.strip()) > MAX_ANSWER_CHARS:  # said, not cut silently
            self.notify(self.t("explain.cut", limit=MAX_ANSWER_CHARS), severity="warning")
        self.keep_draft()  # the submitted text stays a draft until the ticks are saved
        self.show_review()

    def action_save(self) -> None:
        if self.session.state == REVIEWING:
            self.save()

    def on_key_point_changed(self, event: KeyPoint.Changed) -> None:
        event.stop()
        if self.session.state != REVIEWING:
            return
        self.session.set_point(event.point.number - 1, event.value)

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
        self._stored_draft = ""  # the answer is saved; the draft went with it
        self.query_one("#explain-hint").display = False
        body = self.query_one("#explain-body", VerticalScroll)
        body.focus()  # PageUp / Home scroll back to the answers
        self.call_after_refresh(body.scroll_end, animate=False)
        self.refresh_bindings()

    def action_switch(self, step: int) -> None:
        if self.session.state != WRITING or len(self.prompts) < 2:
            return
        if not self.keep_draft():
            return  # the draft could not be written: stay on it (the toast says why)
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
        if not self.unsaved():
            self._leave()
            return
        self._ask("explain.leave_title", lambda: self._leave())

    def confirm_quit(self) -> bool:
        """Ctrl+Q: the draft is written on the way out; ticks not saved yet are asked about."""
        if not self.unsaved():
            return False
        self._ask("explain.quit_title", self.app.exit)
        return True

    def _ask(self, title_key: str, then: Callable[[], object]) -> None:
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.confirm import ConfirmScreen

        if isinstance(self.app.screen, ConfirmScreen):
            return
        t = self.t
        body = t("explain.leave_review") if self.session.state == REVIEWING else t("explain.leave_draft")

        def decided(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmScreen(t(title_key), body, yes=t("key.leave"), no=t("key.stay")), decided)

    def _leave(self) -> None:
        self._leaving = True
        if len(self.app.screen_stack) > 1:
            self.dismiss()
        else:
            self.study.switch_mode("home")

    def on_unmount(self) -> None:
        if self.session.state == WRITING:  # quitting the app from anywhere: keep what was typed
            self.keep_draft()


__all__ = ["ExplainScreen"]
