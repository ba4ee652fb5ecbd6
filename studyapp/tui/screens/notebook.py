"""The wrong-answer notebook (오답 노트): every item last answered wrong, under its misconception.

Each group has a heading (`오개념: … — 3문항`); each item shows the statement, the answer, what
the learner last said, the explanation and the card section it comes from. ↑/↓ move between
items; `c` opens the item's card section, `s`/Enter retries the item's group, `w` every item.
"""

from __future__ import annotations

from collections import defaultdict
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from studyapp.content.render import section_title
from studyapp.quiz.engine import SessionOptions, select_questions
from studyapp.quiz.presenting import answer_text, exam_note, topic_path
from studyapp.quiz.questions import Question
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

NO_MISCONCEPTION = "~"  # sorts last, like the wrong mode's own order


class NoteItem(Vertical, can_focus=True):
    """One missed item; focusable so ↑/↓ walk the notebook and `c` knows which card to open."""

    def __init__(self, question: Question, group: str) -> None:
        super().__init__(classes="note-item")
        self.question = question
        self.group = group


class NotebookScreen(StudyScreen):
    CSS_PATH = "notebook.tcss"
    AUTO_FOCUS = None  # on_mount focuses the first item without scrolling its heading away
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "key.back", key_display="esc"),
        Binding("s,enter", "retry_group", "key.retry_group", key_display="s"),
        Binding("w", "retry_all", "key.retry_all"),
        Binding("c", "card", "key.open_card"),
        Binding("down,j", "move(1)", "key.next_item", show=False),
        Binding("up,k", "move(-1)", "key.prev_item", show=False),
    ]

    def __init__(self, pushed: bool = False) -> None:
        super().__init__()
        self.pushed = pushed
        self.groups: dict[str, list[Question]] = {}
        self._headings: dict[str, Hanging] = {}

    def _load(self) -> dict[str, list[Question]]:
        app = self.study
        questions = select_questions(app.content, app.store, SessionOptions(mode="wrong"), app.now(), app.tz)
        groups: dict[str, list[Question]] = defaultdict(list)
        for question in questions:
            groups[question.misconception or NO_MISCONCEPTION].append(question)
        return dict(groups)

    def compose(self) -> ComposeResult:
        t = self.t
        self.groups = self._load()
        items = sum(len(g) for g in self.groups.values())
        labelled = len([g for g in self.groups if g != NO_MISCONCEPTION])
        yield TitleBar(
            t("notebook.title"), t("notebook.count", items=items, groups=labelled), id="notebook-title"
        )
        with VerticalScroll(id="notebook-body", can_focus=False):
            if not self.groups:
                yield Static(Content(t("notebook.empty")), classes="muted", markup=False)
            for tag, questions in self.groups.items():
                if tag == NO_MISCONCEPTION:
                    heading = t("notebook.group_none", count=len(questions))
                else:
                    label = self.study.content.misconceptions.get(tag, tag)
                    heading = t("notebook.group", label=label, count=len(questions))
                head = Hanging("■", heading, classes="note-group")
                self._headings[tag] = head
                yield head
                for question in questions:
                    yield self._item(question, tag)
            yield Static(Content(t("notebook.hint")), classes="muted hint", markup=False)
        yield KeyBar()

    def _item(self, question: Question, tag: str) -> NoteItem:
        t = self.t
        store = self.study.store
        reviews = store.reviews(question.id)
        last = reviews[-1].answer if reviews else "?"
        box = NoteItem(question, tag)
        box.compose_add_child(Hanging("✗", question.prompt, classes="note-statement"))
        box.compose_add_child(
            Static(
                Content(t("notebook.last", answer=last, correct=answer_text(question))),
                classes="note-answer",
                markup=False,
            )
        )
        box.compose_add_child(Static(Content(question.explanation), classes="note-explanation", markup=False))
        note = exam_note(self.study.content, question)
        if note:
            box.compose_add_child(
                Static(Content(t("quiz.exam_note", note=note)), classes="note-explanation", markup=False)
            )
        where = topic_path(self.study.content, question.topic)
        topic = self.study.content.topics.get(question.topic)
        section = topic.section(question.section) if topic and question.section else None
        if section is not None:
            where = f"{where} › {section_title(section)}"
        box.compose_add_child(
            Static(Content(t("notebook.card", where=where)), classes="note-card", markup=False)
        )
        return box

    def on_mount(self) -> None:
        first = self.query(NoteItem).first() if self.query(NoteItem) else None
        if first is not None:
            first.focus(scroll_visible=False)  # keep the first heading on screen
        self.call_after_refresh(self.query_one("#notebook-body", VerticalScroll).scroll_home, animate=False)

    def _focused_item(self) -> NoteItem | None:
        focused = self.focused
        return focused if isinstance(focused, NoteItem) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("retry_group", "retry_all", "card", "move"):
            return bool(self.groups)
        return True

    def action_move(self, step: int) -> None:
        items = list(self.query(NoteItem))
        if not items:
            return
        current = self._focused_item()
        index = items.index(current) if current in items else -1
        target = items[max(0, min(len(items) - 1, index + step))]
        target.focus(scroll_visible=False)
        body = self.query_one("#notebook-body", VerticalScroll)
        group = self.groups.get(target.group, [])
        if group and group[0] == target.question and target.group in self._headings:
            body.scroll_to_widget(self._headings[target.group], animate=False, top=True)  # heading too
        body.scroll_to_widget(target, animate=False)

    def action_back(self) -> None:
        if self.pushed:
            self.dismiss()
        else:
            self.study.switch_mode("home")

    def action_card(self) -> None:
        item = self._focused_item()
        if item is None:
            return
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.cards import CardsScreen

        question = item.question
        self.study.push_screen(CardsScreen(topic=question.topic, section=question.section, pushed=True))

    def action_retry_group(self) -> None:
        item = self._focused_item()
        group = self.groups.get(item.group) if item else next(iter(self.groups.values()), None)
        if group:
            self.study.start_quiz(SessionOptions(mode="wrong"), questions=list(group))

    def action_retry_all(self) -> None:
        questions = [q for group in self.groups.values() for q in group]
        if questions:
            self.study.start_quiz(SessionOptions(mode="wrong"), questions=questions)

    def on_screen_resume(self) -> None:
        # Back from a retry: answers changed the notebook, so rebuild it.
        if self.is_current and self.is_mounted and self._load() != self.groups:
            self.refresh(recompose=True)
            self.call_after_refresh(self.on_mount)
