"""Line mode (`studyapp quiz --plain`): the same engine without a TUI.

For screen readers, pipes and scripted tests. One question per prompt; the learner types `o` or
`x` (or `1`/`2`), a number for drills, an option number 1-4 for a 4-choice question (`?` alone:
"don't know"), `?` before or after the answer for "unsure", `u` to undo, `q` to end. End of
input ends the session the same way as `q`.
"""

from __future__ import annotations

import sys
from typing import TextIO

from studyapp.content.model import Content
from studyapp.errors import EXIT_OK, EXIT_USAGE
from studyapp.i18n import Translator
from studyapp.progress.db import StoreError
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import Feedback, QuizSession, SessionOptions, Summary, finish_unsaved
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.presenting import elapsed_text
from studyapp.quiz.questions import Question


def parse_response(line: str, question: Question) -> tuple[str, bool]:
    """`o`, `x?`, `?1`, `5.9` → (response, unsure). Key aliases are the kind's: `1` is O in an
    O/X question, option 1 in a 4-choice question and the number 1 in a drill."""
    text = line.strip()
    unsure = "?" in text
    text = text.replace("?", "").strip()
    return kind_of(question).plain_response(text), unsure


def format_feedback(feedback: Feedback, content: Content, t: Translator) -> list[str]:
    """The verdict and the answer, then what the kind explains (one block for a statement, one
    per option for a 4-choice question), then when it comes back."""
    view = kind_of(feedback.question).feedback(feedback, content, t)
    head = f"{t('plain.right') if feedback.correct else t('plain.wrong')} — {view.answer}"
    if view.response and not feedback.correct:
        head += f" ({view.response})"
    if feedback.unsure and not view.says_unsure:
        head += f" {t('plain.unsure')}"
    lines = [head]
    for block in view.blocks:
        indent = ""
        if block.heading is not None:
            symbol = {True: "✓", False: "✗"}.get(block.verdict, " ")  # ✓ the answer, ✗ a wrong pick
            lines.append(f" {symbol} {block.heading} {' '.join(f'← {tag}' for tag in block.tags)}".rstrip())
            indent = "     "
        lines.append(f"{indent}{block.text}")
        if block.exam_note:
            lines.append(f"{indent}{t('plain.exam_note', note=block.exam_note)}")
        if block.misconception:
            lines.append(f"{indent}{t('plain.misconception', label=block.misconception)}")
    lines.append(t("plain.next_due", when=feedback.next_due.astimezone().strftime("%Y-%m-%d %H:%M")))
    return lines


def format_summary(summary: Summary, content: Content, t: Translator) -> list[str]:
    lines = [
        # "12 s" or "3 min 5 s", as the TUI's summary says it (not "0.0 min": N18)
        t(
            "plain.summary",
            correct=summary.correct,
            answered=summary.answered,
            time=elapsed_text(summary.elapsed_s, t),
        )
    ]
    for topic_id, (right, wrong) in summary.per_topic.items():
        title = content.topics[topic_id].title if topic_id in content.topics else topic_id
        lines.append(t("plain.topic_line", topic=title, right=right, wrong=wrong))
    if summary.misses:
        lines.append(t("plain.misses"))
        for record in summary.misses:
            lines.append(f"  ✗ {kind_of(record.question).miss_line(record.question)}")
    lines.append(t("plain.due_now", count=summary.due_now))
    return lines


def run_plain(
    content: Content,
    store: ProgressStore,
    options: SessionOptions,
    t: Translator,
    stdin: TextIO,
    stdout: TextIO,
) -> int:
    session = QuizSession(content, store, options)

    def say(*lines: str) -> None:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()

    if session.finished:
        say(t("plain.none"))
        return EXIT_OK
    while not session.finished:
        question = session.current
        assert question is not None
        say(
            "",
            f"({session.position + 1}/{session.total}) [{content.topics[question.topic].title}]",
            question.prompt,
        )
        kind = kind_of(question)
        say(*(f"  {line}" for line in kind.option_lines(question)))
        session.mark_shown()
        stdout.write(t(kind.plain_prompt_key))
        stdout.flush()
        line = stdin.readline()
        if not line or line.strip().lower() == "q":
            say("")
            break
        if line.strip().lower() == "u":
            try:
                say(t("plain.undone") if session.undo() is not None else t("plain.nothing_to_undo"))
            except StoreError as exc:
                print(f"studyapp: {t('plain.undo_failed', problem=exc)}", file=sys.stderr)
                continue
            continue
        response, unsure = parse_response(line, question)
        waiting = len(store.unsaved)
        feedback = session.answer(response, unsure)
        if feedback is None:
            say(t(kind.plain_unreadable_key))
            continue
        if feedback.save_problem:  # kept in memory; the session goes on
            print(f"studyapp: {t('plain.not_saved', problem=feedback.save_problem)}", file=sys.stderr)
        elif waiting:
            print(f"studyapp: {t('plain.saved_later', count=waiting)}", file=sys.stderr)
        say(*format_feedback(feedback, content, t))
        session.settle()
    lost = finish_unsaved(store)  # answers kept after a failed write: one last try
    if session.answers:
        try:
            say("", *format_summary(session.summary(), content, t))
        except StoreError:
            if lost is None:
                raise
    if lost is not None:
        print(f"studyapp: {lost}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
