"""Line mode (`studyapp quiz --plain`): the same engine without a TUI.

For screen readers, pipes and scripted tests. One question per prompt; the learner types `o` or
`x` (or `1`/`2`), a number for drills, `?` before or after the answer for "unsure", `u` to undo,
`q` to end. End of input ends the session the same way as `q`.
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
from studyapp.quiz.questions import KIND_OX

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
    },
}

_KEY_ALIASES = {"1": "O", "2": "X", "o": "O", "x": "X", "ㅇ": "O", "ㅐ": "O", "ㅌ": "X"}


def parse_response(line: str) -> tuple[str, bool]:
    """`o`, `x?`, `?1`, `5.9` → (response, unsure)."""
    text = line.strip()
    unsure = "?" in text
    text = text.replace("?", "").strip()
    return _KEY_ALIASES.get(text.lower(), text), unsure


def format_feedback(feedback: Feedback, content: Content, t: Translator) -> list[str]:
    question = feedback.question
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
            lines.append(f"  ✗ [{record.question.id}] {record.question.prompt} → {record.question.answer}")
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
    deferred: list[Feedback] = []
    while not session.finished:
        question = session.current
        assert question is not None
        say(
            "",
            f"({session.position + 1}/{session.total}) [{content.topics[question.topic].title}]",
            question.prompt,
        )
        session.mark_shown()
        stdout.write(t("plain.prompt_ox") if question.kind == KIND_OX else t("plain.prompt_num"))
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
            if deferred and len(deferred) > len(session.answers):
                deferred.pop()
            continue
        response, unsure = parse_response(line)
        waiting = len(store.unsaved)
        feedback = session.answer(response, unsure)
        if feedback is None:
            say(t("plain.unreadable") if question.kind == KIND_OX else t("plain.unreadable_num"))
            continue
        if feedback.save_problem:  # kept in memory; the session goes on
            print(f"studyapp: {t('plain.not_saved', problem=feedback.save_problem)}", file=sys.stderr)
        elif waiting:
            print(f"studyapp: {t('plain.saved_later', count=waiting)}", file=sys.stderr)
        if session.deferred_feedback:
            deferred.append(feedback)
        else:
            say(*format_feedback(feedback, content, t))
        session.settle()
    for feedback in deferred:
        say(
            "", f"[{feedback.question.id}] {feedback.question.prompt}", *format_feedback(feedback, content, t)
        )
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
