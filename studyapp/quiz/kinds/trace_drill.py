"""Trace drills: a number read off a trace excerpt and typed into a box — the share of GPU kernel
time in communication, how long the GPU sat idle, the speedup of compiled over eager, the GPU time
of one op's kernels. The key is computed from the trace's events (studyapp.quiz.trace_reading) and
a typed answer is read like any drill's (studyapp.quiz.numbers: `65.3`, `65.3%`, `1,226 µs`).

The sources and the excerpt are the trace kind's (kinds/trace.py), asked on request the same way.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import INPUT_NUMBER, Credit, FeedbackBlock, FeedbackView, Graded, QuestionKind
from studyapp.quiz.kinds.drill import unit_suffix
from studyapp.quiz.kinds.trace import as_question, dump_row, explained, handed_out, trace_questions, traced
from studyapp.quiz.numbers import parse_number, within
from studyapp.quiz.question import Question

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback

KIND_TRACE_DRILL = "trace-drill"


def typed_value(question: Question, typed: str) -> float | None:
    """The typed number; the unit as the reader sees it after NFKC (µ, the micro sign, becomes μ)."""
    return parse_number(typed, unicodedata.normalize("NFKC", question.unit))


class TraceDrillKind(QuestionKind):
    name: ClassVar[str] = KIND_TRACE_DRILL
    guess_rate: ClassVar[float] = 0.0
    input: ClassVar[str] = INPUT_NUMBER
    on_request: ClassVar[bool] = True
    label_key: ClassVar[str | None] = "trace.drill_label"
    hint_key: ClassVar[str] = "quiz.drill_hint"
    unreadable_key: ClassVar[str] = "quiz.unreadable_drill"
    plain_prompt_key: ClassVar[str] = "plain.prompt_num"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_num"

    def source(self, content: Content) -> Iterable[Question]:
        return [as_question(q, self.name) for q in trace_questions(content) if q.number is not None]

    def prepare(
        self, question: Question, content: Content, rng: random.Random, queued: Collection[str]
    ) -> Question | None:
        if not handed_out(question.id):
            trace_questions(content)
        return question if handed_out(question.id) else None

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        typed = response.strip()
        value = typed_value(question, typed)
        if value is None:
            return None
        correct = within(value, float(question.answer), question.tolerance)
        return Graded(correct, typed, (Credit(question.id, typed, correct, unsure, question.text_hash),))

    def answer_text(self, question: Question) -> str:
        """The computed number with its unit, e.g. `65.3%`, `1.62배`, `1226 µs`."""
        return f"{float(question.answer):g}{unit_suffix(question.unit)}"

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        question = feedback.question
        return FeedbackView(
            answer=t("quiz.answer", answer=self.answer_text(question)),
            response=t("quiz.your_answer", answer=feedback.response.strip()),
            blocks=(FeedbackBlock(explained(traced(question), t)),),
        )

    def dump_row(self, question: Question) -> dict[str, Any]:
        """The number, its tolerance and unit, the excerpt apart from the stem (`--dump --json`)."""
        return dump_row(traced(question))

    def miss_line(self, question: Question) -> str:
        return f"[{question.id}] {question.prompt.split(chr(10), 1)[0]} → {self.answer_text(question)}"


KIND = TraceDrillKind()
