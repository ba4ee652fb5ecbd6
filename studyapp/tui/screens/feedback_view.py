"""How the quiz screen shows a question kind's feedback (`FeedbackView`) in colour.

The kind decides what is explained (studyapp.quiz.kinds); this only styles it, so a new kind
needs no change here. Options and their explanations hang under their own text
(`HangingRows`), so it is clear where one option ends.
"""

from __future__ import annotations

from textual.content import Content

from studyapp.i18n import Translator
from studyapp.quiz.engine import Feedback
from studyapp.quiz.kinds.base import FeedbackView
from studyapp.tui.widgets.text import Row, row

_VERDICT_MARKS = {True: ("✓ ", "bold $success"), False: ("✗ ", "bold $error")}


def feedback_rows(view: FeedbackView, feedback: Feedback, t: Translator) -> list[Row]:
    """The verdict and the answer, then each block: a statement's explanation, or for a kind with
    options each option with ✓ on the answer and ✗ on a wrong pick (the same meaning as the
    verdict line and the mock exam's result), the key and the pick tagged."""
    verdict_style = "bold $success" if feedback.correct else "bold $error"
    head = Content.assemble(
        (t("quiz.right") if feedback.correct else t("quiz.wrong"), verdict_style),
        "   ",
        (view.answer, "bold"),
    )
    if view.response and not feedback.correct:
        head = head.append("   ").append(view.response)
    if feedback.unsure and not view.says_unsure:
        head = head.append("  ").append(Content.styled(t("quiz.recorded_unsure"), "italic"))
    rows: list[Row] = [row(head)]
    for block in view.blocks:
        indent = ""
        rows.append(row(""))
        if block.heading is not None:
            mark = (
                Content.styled(*_VERDICT_MARKS[block.verdict])
                if block.verdict in _VERDICT_MARKS
                else Content("  ")
            )
            number, separator, statement = block.heading.partition(") ")
            if not separator:
                number, statement = "", block.heading
            marker = mark + Content(number + separator)
            text = Content.styled(statement, "bold" if block.emphasised else "")
            if block.tags:
                text = text.append("  ").append(
                    Content.styled(f"← {', '.join(block.tags)}", "italic $accent")
                )
            rows.append((marker, text))
            indent = " " * marker.cell_length
        rows.append(row(block.text, indent))
        if block.exam_note:
            rows.append(row(Content.styled(t("quiz.exam_note", note=block.exam_note), "$accent"), indent))
        if block.misconception:
            if not indent:
                rows.append(row(""))
            rows.append(
                row(Content.styled(t("quiz.misconception", label=block.misconception), "$warning"), indent)
            )
    return rows
