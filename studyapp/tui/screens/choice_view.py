"""How the quiz screen shows a 4-choice question (4지선다) and its feedback.

Kept apart from quiz.py so that screen stays a thin switch over question kinds; the grading and
the per-option credits are the engine's (`studyapp.quiz.choice`). Registers its own strings.
"""

from __future__ import annotations

from textual.content import Content

from studyapp.content.model import Content as StudyContent
from studyapp.i18n import Translator
from studyapp.quiz.choice import option_marks
from studyapp.quiz.engine import Feedback
from studyapp.quiz.questions import Question

STRINGS = {
    "ko": {
        "key.pick": "고르기",
        "key.dont_know": "모르겠음",
        "choice.hint": "1 · 2 · 3 · 4: 고르기    0: 모르겠음    ?: 모름 표시",
        "choice.answer": "정답은 {number}번",
        "choice.your_pick": "내 선택: {number}번",
        "choice.no_pick": "고르지 않음 (모르겠음)",
        "choice.key": "정답",
        "choice.picked": "내 선택",
    },
    "en": {
        "key.pick": "pick",
        "key.dont_know": "don't know",
        "choice.hint": "1 · 2 · 3 · 4: pick    0: don't know    ?: unsure",
        "choice.answer": "Answer: {number}",
        "choice.your_pick": "You: {number}",
        "choice.no_pick": "no pick (don't know)",
        "choice.key": "answer",
        "choice.picked": "your pick",
    },
}
Translator().register(STRINGS)  # the table is shared: every Translator sees these


def question_text(question: Question) -> str:
    """The stem and the options numbered 1-4, as the learner answers them."""
    assert question.choice is not None
    lines = [question.prompt, ""]
    lines += [f"{index + 1}) {item.statement}" for index, item in enumerate(question.choice.options)]
    return "\n".join(lines)


def feedback_content(feedback: Feedback, study: StudyContent, t: Translator) -> Content:
    """The verdict, then every option: ✓ (true statement) or ✗ (false), the key and the pick
    marked, and its explanation — one question teaches four facts."""
    question = feedback.question
    assert question.choice is not None
    verdict_style = "bold $success" if feedback.correct else "bold $error"
    head = Content.assemble(
        (t("quiz.right") if feedback.correct else t("quiz.wrong"), verdict_style),
        "   ",
        (t("choice.answer", number=question.choice.answer_index + 1), "bold"),
    )
    if not feedback.correct:
        pick = (
            t("choice.no_pick")
            if feedback.picked is None
            else t("choice.your_pick", number=feedback.picked + 1)
        )
        head = head.append("   ").append(pick)
    if feedback.unsure:
        head = head.append("  ").append(Content.styled(t("quiz.recorded_unsure"), "italic"))
    parts: list[Content] = [head]
    for mark in option_marks(question.choice, feedback.picked):
        symbol, style = ("✓", "$success") if mark.true_statement else ("✗", "$error")
        tags = [t("choice.key")] if mark.is_key else []
        tags += [t("choice.picked")] if mark.picked else []
        line = Content.assemble(
            (f"{symbol} {mark.number}) ", f"bold {style}"),
            (f"[{mark.item.answer}] ", style),  # the statement's own O/X key
            (mark.item.statement, "bold" if mark.is_key or mark.picked else ""),
        )
        if tags:
            line = line.append("  ").append(Content.styled(f"← {', '.join(tags)}", "italic $accent"))
        parts += [Content(""), line, Content(f"   {mark.item.explanation}")]
        note = getattr(mark.item, "exam_note", None)
        if note:
            parts.append(Content.styled(f"   {t('quiz.exam_note', note=note)}", "$accent"))
        if mark.picked and not feedback.correct and mark.item.misconception:
            label = study.misconceptions.get(mark.item.misconception, mark.item.misconception)
            parts.append(Content.styled(f"   {t('quiz.misconception', label=label)}", "$warning"))
    return Content("\n").join(parts)
