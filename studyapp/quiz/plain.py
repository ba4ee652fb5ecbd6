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
from studyapp.progress.store import ProgressStore, StoreError
from studyapp.quiz.engine import Feedback, QuizSession, SessionOptions, Summary, finish_unsaved
from studyapp.quiz.presenting import answer_text, exam_note
from studyapp.quiz.questions import KIND_CHOICE, KIND_OX, Question

STRINGS = {
    "ko": {
        "plain.none": "지금 풀 문항이 없습니다. 다른 모드(--mode new, cram)를 써 보세요.",
        "plain.prompt_ox": "[o/x, o?/x?=모름 표시, u=되돌리기, q=끝] > ",
        "plain.prompt_num": "[숫자, u=되돌리기, q=끝] > ",
        "plain.unreadable": "o 또는 x로 답하세요 (모름 표시는 o? / x?).",
        "plain.unreadable_num": "숫자로 답하세요 (예: 5.9, 1/9, 12.5%). 기록하지 않았습니다.",
        "plain.right": "맞음",
        "plain.wrong": "틀림",
        "plain.answer": "정답은 {answer}",
        "plain.misconception": "오개념: {label}",
        "plain.exam_note": "시험 기준: {note}",
        "plain.next_due": "다음 복습: {when}",
        "plain.undone": "마지막 답을 되돌렸습니다.",
        "plain.nothing_to_undo": "되돌릴 답이 없습니다.",
        "plain.summary": "요약: {correct}/{answered} 정답, {minutes:.1f}분",
        "plain.topic_line": "  {topic}: 맞음 {right}, 틀림 {wrong}",
        "plain.due_now": "지금 복습할 문항: {count}",
        "plain.misses": "틀린 문항:",
        "plain.unsure": "(모름 표시)",
        "plain.not_saved": "답을 아직 저장하지 못했습니다: {problem}. 기억해 두었다가 다음 답과 끝날 때 다시 저장합니다.",
        "plain.saved_later": "저장하지 못했던 답 {count}개를 이제 저장했습니다.",
        "plain.undo_failed": "되돌리지 못했습니다: {problem}",
        "plain.prompt_choice": "[1-4, 3?=모름 표시, ?=모르겠음, u=되돌리기, q=끝] > ",
        "plain.unreadable_choice": "1~4 중 번호로 답하세요 (모르면 ?). 기록하지 않았습니다.",
        "plain.choice_answer": "정답은 {number}번",
        "plain.choice_none": "(고르지 않음)",
        "plain.choice_key": "← 정답",
        "plain.choice_picked": "← 선택",
    },
    "en": {
        "plain.none": "Nothing to ask right now. Try another mode (--mode new, cram).",
        "plain.prompt_ox": "[o/x, o?/x?=unsure, u=undo, q=quit] > ",
        "plain.prompt_num": "[number, u=undo, q=quit] > ",
        "plain.unreadable": "Answer with o or x (o? / x? marks it unsure).",
        "plain.unreadable_num": "Answer with a number (e.g. 5.9, 1/9, 12.5%). Nothing was recorded.",
        "plain.right": "Right",
        "plain.wrong": "Wrong",
        "plain.answer": "Answer: {answer}",
        "plain.misconception": "Misconception: {label}",
        "plain.exam_note": "Exam key: {note}",
        "plain.next_due": "Next review: {when}",
        "plain.undone": "Last answer undone.",
        "plain.nothing_to_undo": "Nothing to undo.",
        "plain.summary": "Summary: {correct}/{answered} right, {minutes:.1f} min",
        "plain.topic_line": "  {topic}: right {right}, wrong {wrong}",
        "plain.due_now": "Due now: {count}",
        "plain.misses": "Missed:",
        "plain.unsure": "(unsure)",
        "plain.not_saved": "Answer not saved yet: {problem}. It is kept and saved with your next answer or at the end.",
        "plain.saved_later": "Saved the {count} answer(s) that were waiting.",
        "plain.undo_failed": "Could not undo: {problem}",
        "plain.prompt_choice": "[1-4, 3?=unsure, ?=don't know, u=undo, q=quit] > ",
        "plain.unreadable_choice": "Answer with an option number 1-4 (? if you don't know). Nothing was recorded.",
        "plain.choice_answer": "Answer: {number}",
        "plain.choice_none": "(no pick)",
        "plain.choice_key": "← answer",
        "plain.choice_picked": "← your pick",
    },
}

_KEY_ALIASES = {"1": "O", "2": "X", "o": "O", "x": "X", "ㅇ": "O", "ㅐ": "O", "ㅌ": "X"}


def parse_response(line: str, kind: str = KIND_OX) -> tuple[str, bool]:
    """`o`, `x?`, `?1`, `5.9` → (response, unsure). The o/x key aliases (`1` → O) apply to O/X
    questions only: in a 4-choice question `1` is option 1, in a drill the number 1."""
    text = line.strip()
    unsure = "?" in text
    text = text.replace("?", "").strip()
    return (_KEY_ALIASES.get(text.lower(), text) if kind == KIND_OX else text), unsure


def format_choice_options(question: Question) -> list[str]:
    """A 4-choice question's options, numbered 1-4 as the learner answers them."""
    assert question.choice is not None
    return [f"  {index + 1}) {item.statement}" for index, item in enumerate(question.choice.options)]


def format_choice_feedback(feedback: Feedback, content: Content, t: Translator) -> list[str]:
    """Every option with ✓ (true statement) or ✗ (false), the key and the pick marked, and its
    explanation: one question teaches four facts."""
    from studyapp.quiz.choice import option_marks

    question = feedback.question
    assert question.choice is not None
    verdict = t("plain.right") if feedback.correct else t("plain.wrong")
    answer = t("plain.choice_answer", number=question.choice.answer_index + 1)
    head = f"{verdict} — {answer}"
    if feedback.picked is None:
        head += f" {t('plain.choice_none')}"
    if feedback.unsure:
        head += f" {t('plain.unsure')}"
    lines = [head]
    for mark in option_marks(question.choice, feedback.picked):
        tags = [t("plain.choice_key")] if mark.is_key else []
        tags += [t("plain.choice_picked")] if mark.picked else []
        symbol = "✓" if mark.true_statement else "✗"
        lines.append(
            f" {symbol} {mark.number}) [{mark.item.answer}] {mark.item.statement} {' '.join(tags)}".rstrip()
        )
        lines.append(f"     {mark.item.explanation}")
        note = getattr(mark.item, "exam_note", None)
        if note:
            lines.append(f"     {t('plain.exam_note', note=note)}")
        if mark.picked and mark.item.misconception and not feedback.correct:
            label = content.misconceptions.get(mark.item.misconception, mark.item.misconception)
            lines.append(f"     {t('plain.misconception', label=label)}")
    lines.append(t("plain.next_due", when=feedback.next_due.astimezone().strftime("%Y-%m-%d %H:%M")))
    return lines


def format_feedback(feedback: Feedback, content: Content, t: Translator) -> list[str]:
    question = feedback.question
    if question.kind == KIND_CHOICE:
        return format_choice_feedback(feedback, content, t)
    lines = [
        f"{t('plain.right') if feedback.correct else t('plain.wrong')} — {t('plain.answer', answer=answer_text(question))}"
        + (f" {t('plain.unsure')}" if feedback.unsure else "")
    ]
    lines.append(question.explanation)
    note = exam_note(content, question)
    if note:
        lines.append(t("plain.exam_note", note=note))
    if question.misconception:
        label = content.misconceptions.get(question.misconception, question.misconception)
        lines.append(t("plain.misconception", label=label))
    lines.append(t("plain.next_due", when=feedback.next_due.astimezone().strftime("%Y-%m-%d %H:%M")))
    return lines


def format_summary(summary: Summary, content: Content, t: Translator) -> list[str]:
    lines = [
        t("plain.summary", correct=summary.correct, answered=summary.answered, minutes=summary.elapsed_s / 60)
    ]
    for topic_id, (right, wrong) in summary.per_topic.items():
        title = content.topics[topic_id].title if topic_id in content.topics else topic_id
        lines.append(t("plain.topic_line", topic=title, right=right, wrong=wrong))
    if summary.misses:
        lines.append(t("plain.misses"))
        for record in summary.misses:
            question = record.question
            if question.choice is not None:  # name the statement that was the key
                key = question.choice.key
                lines.append(f"  ✗ [{key.id}] {question.prompt} {key.statement} → {question.answer}")
                continue
            lines.append(f"  ✗ [{question.id}] {question.prompt} → {answer_text(question)}")
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
    t.register(STRINGS)
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
        if question.kind == KIND_CHOICE:
            say(*format_choice_options(question))
        session.mark_shown()
        prompts = {KIND_OX: "plain.prompt_ox", KIND_CHOICE: "plain.prompt_choice"}
        stdout.write(t(prompts.get(question.kind, "plain.prompt_num")))
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
        response, unsure = parse_response(line, question.kind)
        waiting = len(store.unsaved)
        feedback = session.answer(response, unsure)
        if feedback is None:
            unreadable = {KIND_OX: "plain.unreadable", KIND_CHOICE: "plain.unreadable_choice"}
            say(t(unreadable.get(question.kind, "plain.unreadable_num")))
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
