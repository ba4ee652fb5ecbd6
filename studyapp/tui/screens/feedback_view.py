"""How the quiz screen shows a question kind's feedback (`FeedbackView`) in colour.

The kind decides what is explained (studyapp.quiz.kinds); this only styles it, so a new kind
needs no change here.
"""

from __future__ import annotations

from textual.content import Content

from studyapp.i18n import Translator
from studyapp.quiz.engine import Feedback
from studyapp.quiz.kinds.base import FeedbackView


def feedback_content(view: FeedbackView, feedback: Feedback, t: Translator) -> Content:
    """The verdict and the answer, then each block: a statement's explanation, or for a kind with
    options each option marked ✓ (true) or ✗ (false) with the key and the pick tagged."""
    verdict_style = "bold $success" if feedback.correct else "bold $error"
    head = Content.assemble(
        (t("quiz.right") if feedback.correct else t("quiz.wrong"), verdict_style),
        "   ",
        (view.answer, "bold"),
    )
    if view.response and not feedback.correct:
        head = head.append("   ").append(view.response)
    if feedback.unsure:
        head = head.append("  ").append(Content.styled(t("quiz.recorded_unsure"), "italic"))
    parts: list[Content] = [head]
    for block in view.blocks:
        indent = ""
        parts.append(Content(""))
        if block.heading is not None:
            style = "$success" if block.true_statement else "$error"
            line = Content.assemble(
                ("✓ " if block.true_statement else "✗ ", f"bold {style}"),
                (block.heading, "bold" if block.emphasised else ""),
            )
            if block.tags:
                line = line.append("  ").append(
                    Content.styled(f"← {', '.join(block.tags)}", "italic $accent")
                )
            parts.append(line)
            indent = "   "
        parts.append(Content(f"{indent}{block.text}"))
        if block.exam_note:
            parts.append(Content.styled(f"{indent}{t('quiz.exam_note', note=block.exam_note)}", "$accent"))
        if block.misconception:
            if not indent:
                parts.append(Content(""))
            parts.append(
                Content.styled(f"{indent}{t('quiz.misconception', label=block.misconception)}", "$warning")
            )
    return Content("\n").join(parts)
