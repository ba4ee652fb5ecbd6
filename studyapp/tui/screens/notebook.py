"""The wrong-answer notebook (오답 노트): every item last answered wrong, under its misconception,
then the misses of the last mock exam.

Each group has a heading (`오개념: … — 3문항`); each item shows the statement, the answer, what
the learner last said, the explanation and the card section it comes from. ↑/↓ move between
items; `c` opens the item's card section, `s`/Enter retries the item's group, `w` every item.
A mock exam measures without moving the review schedule (unless asked), so its misses are not
among the items above: they get their own group, and `s` on one (or `e`) sits them again as a
new mock exam, like `r` on the exam's result.
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
from studyapp.progress import exams
from studyapp.progress.exams import ExamAttempt
from studyapp.quiz.engine import SessionOptions, select_questions
from studyapp.quiz.kinds import recorded_answer
from studyapp.quiz.presenting import answer_text, exam_note, topic_path
from studyapp.quiz.questions import Question
from studyapp.tui.screens.base import StudyScreen, TitleBar
from studyapp.tui.widgets.keybar import KeyBar
from studyapp.tui.widgets.text import Hanging

NO_MISCONCEPTION = "~"  # sorts last, like the wrong mode's own order
EXAM_GROUP = "exam"  # the last mock exam's misses


class NoteItem(Vertical, can_focus=True):
    """One missed item; focusable so ↑/↓ walk the notebook and `c` knows which card to open.
    `question` is None for a mock-exam miss (its card comes from `topic` and `section`)."""

    def __init__(self, question: Question | None, group: str, topic: str = "", section: str = "") -> None:
        super().__init__(classes="note-item")
        self.question = question
        self.group = group
        self.topic = question.topic if question is not None else topic
        self.section = (question.section or "") if question is not None else section


def last_exam_with_misses(store: object) -> ExamAttempt | None:
    """The newest submitted mock exam that has misses."""
    finished = [a for a in exams.attempts(store) if a.finished and a.misses]  # type: ignore[arg-type]
    return finished[-1] if finished else None


class NotebookScreen(StudyScreen):
    CSS_PATH = "notebook.tcss"
    AUTO_FOCUS = None  # on_mount focuses the first item without scrolling its heading away
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "key.back", key_display="esc"),
        Binding("s,enter", "retry_group", "key.retry_group", key_display="s"),
        Binding("w", "retry_all", "key.retry_all"),
        Binding("e", "retry_exam", "key.retry_exam_misses"),
        Binding("c", "card", "key.open_card"),
        Binding("down,j", "move(1)", "key.next_item", show=False),
        Binding("up,k", "move(-1)", "key.prev_item", show=False),
    ]

    def __init__(self, pushed: bool = False) -> None:
        super().__init__()
        self.pushed = pushed
        self.groups: dict[str, list[Question]] = {}
        self._headings: dict[str, Hanging] = {}
        self.exam: ExamAttempt | None = None

    def _load(self) -> dict[str, list[Question]]:
        app = self.study
        # every kind, glossary terms among them (m1): a fifth of the mock exam is terms
        wrong = SessionOptions(mode="wrong", kind="mixed")
        questions = select_questions(app.content, app.store, wrong, app.now(), app.tz)
        groups: dict[str, list[Question]] = defaultdict(list)
        for question in questions:
            groups[question.misconception or NO_MISCONCEPTION].append(question)
        return dict(groups)

    def compose(self) -> ComposeResult:
        t = self.t
        self.groups = self._load()
        self.exam = last_exam_with_misses(self.study.store)
        items = sum(len(g) for g in self.groups.values())
        labelled = len([g for g in self.groups if g != NO_MISCONCEPTION])
        count = t("notebook.count_one" if items == 1 else "notebook.count", items=items, groups=labelled)
        if labelled == 1:
            count = t("notebook.count_one_group" if items != 1 else "notebook.count_one_one", items=items)
        yield TitleBar(t("notebook.title"), count, id="notebook-title")
        with VerticalScroll(id="notebook-body", can_focus=False):
            if not self.groups:
                yield Static(Content(t("notebook.empty")), classes="muted", markup=False)
            for tag, questions in self.groups.items():
                key = "_one" if len(questions) == 1 else ""
                if tag == NO_MISCONCEPTION:
                    heading = t(f"notebook.group_none{key}", count=len(questions))
                else:
                    label = self.study.content.misconceptions.get(tag, tag)
                    heading = t(f"notebook.group{key}", label=label, count=len(questions))
                head = Hanging("■", heading, classes="note-group")
                self._headings[tag] = head
                yield head
                for question in questions:
                    yield self._item(question, tag)
            if self.exam is not None:
                yield from self._exam_misses(self.exam)
            # only keys that do something here (N29)
            hint = t("notebook.hint") if self.groups else t("notebook.hint_exam_only")
            if self.groups and self.exam is not None:
                hint += " · " + t("notebook.hint_exam")
            if self.groups or self.exam is not None:
                yield Static(Content(hint), classes="muted hint", markup=False)
        yield KeyBar()

    def _exam_misses(self, attempt: ExamAttempt) -> ComposeResult:
        """The last mock exam's misses: the question, the answer given, the key and why."""
        t = self.t
        content = self.study.content
        when = attempt.started_at.astimezone(self.study.tz).strftime("%m-%d %H:%M")
        head = Hanging(
            "■",
            t("notebook.exam_group", id=attempt.short_id, date=when, count=len(attempt.misses)),
            classes="note-group note-exam",
        )
        self._headings[EXAM_GROUP] = head
        yield head
        from studyapp.quiz.exam_resume import question_from_row  # with the exam's modules

        for row in attempt.misses:
            # the row's kind rebuilds it (4-choice, glossary terms, O/X, a new kind), with today's
            # explanations; a row whose items all left the bank is shown as archived
            question = question_from_row(content, row)
            first = next((content.items[i] for i in question.item_ids if i in content.items), None)
            box = NoteItem(
                None,
                EXAM_GROUP,
                topic=question.topic or (first.topic if first else ""),
                section=first.section if first is not None else "",
            )
            box.compose_add_child(Hanging("✗", question.stem, classes="note-statement"))
            response = row.get("response")
            box.compose_add_child(
                Static(
                    Content(
                        t("exam.you", answer=response if response else t("exam.no_answer"))
                        + " · "
                        + t("exam.key", answer=question.answer)
                    ),
                    classes="note-answer",
                    markup=False,
                )
            )
            if question.options:  # the key and the pick, each with why (a term: its definition)
                for number, option in enumerate(question.options, start=1):
                    if str(number) not in (question.answer, str(response)):
                        continue
                    mark = "✓" if str(number) == question.answer else "✗"
                    box.compose_add_child(
                        Hanging(f"{mark} {number})", option.text, classes="note-explanation")
                    )
                    if option.explanation:
                        box.compose_add_child(
                            Static(Content(option.explanation), classes="note-why", markup=False)
                        )
            elif question.explanation:
                box.compose_add_child(
                    Static(Content(question.explanation), classes="note-explanation", markup=False)
                )
            yield box

    def _item(self, question: Question, tag: str) -> NoteItem:
        t = self.t
        store = self.study.store
        reviews = store.reviews(question.id)
        content = self.study.content
        # where the answer was given: an O/X item missed through a 4-choice pick says so (m2)
        last = recorded_answer(question, reviews[-1].kind, reviews[-1].answer, content, t) if reviews else "?"
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
        if action == "retry_exam":
            return self.exam is not None
        if action == "retry_all":
            return bool(self.groups)
        if action in ("retry_group", "card", "move"):
            return bool(self.groups) or self.exam is not None
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
        first_of_group = next(item for item in items if item.group == target.group) is target
        if first_of_group and target.group in self._headings:
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

        self.study.push_screen(CardsScreen(topic=item.topic, section=item.section or None, pushed=True))

    def action_retry_group(self) -> None:
        item = self._focused_item()
        if item is not None and item.group == EXAM_GROUP:
            self.action_retry_exam()
            return
        group = self.groups.get(item.group) if item else next(iter(self.groups.values()), None)
        if group:
            self.study.start_quiz(SessionOptions(mode="wrong"), questions=list(group))
        elif self.exam is not None:
            self.action_retry_exam()

    def action_retry_exam(self) -> None:
        """The last mock exam's misses as a new mock exam (its intro first)."""
        if self.exam is None:
            return
        # Screens load on first use: importing all of them up front costs ~40 % more start-up.
        from studyapp.tui.screens.exam import retry_intro

        intro = retry_intro(self, self.exam)
        if intro is not None:
            self.study.push_screen(intro)

    def action_retry_all(self) -> None:
        questions = [q for group in self.groups.values() for q in group]
        if questions:
            self.study.start_quiz(SessionOptions(mode="wrong"), questions=questions)

    def on_screen_resume(self) -> None:
        # Back from a retry: answers changed the notebook, so rebuild it.
        changed = self._load() != self.groups or last_exam_with_misses(self.study.store) != self.exam
        if self.is_current and self.is_mounted and changed:
            self.refresh(recompose=True)
            self.call_after_refresh(self.on_mount)
