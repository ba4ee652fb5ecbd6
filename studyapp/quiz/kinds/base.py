"""What every question kind provides, so the engine and both front ends treat kinds alike.

A kind says how an answer is typed (`input`), what it draws before it is asked (`prepare`),
how a response is graded and stored (`read`), what the question looks like (`option_lines`,
`answer_text`) and what the feedback teaches (`feedback`). The TUI and `--plain` render a
`FeedbackView` without knowing which kind made it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from studyapp.content.model import Content, Item
from studyapp.i18n import Translator
from studyapp.quiz.question import Option, Question, StoredAnswer, parse_pick

if TYPE_CHECKING:
    from studyapp.quiz.engine import Feedback

ROW_FORMAT = 2  # of an archived exam question (`QuestionKind.exam_row`); 1: before "v" was written

# How a front end takes the answer: the o/x keys, an option number 1-4 (0: don't know), or a
# number typed into a box.
INPUT_OX = "ox"
INPUT_PICK = "pick"
INPUT_NUMBER = "number"

# The records below are NamedTuples, not frozen dataclasses: both are immutable values, but a frozen
# dataclass compiles six methods when its module is imported (~0.8 ms a class), and this module is
# on the quiz's start path (benchmarks/startup.py) while these are only needed after an answer.


class Credit(NamedTuple):
    """One review an answer stores: which item, the answer recorded for it, and how it went."""

    item_id: str
    answer: str
    correct: bool
    unsure: bool
    text_hash: str | None


class Graded(NamedTuple):
    """A readable response: right or wrong, as the feedback shows it, and the reviews to store."""

    correct: bool
    shown: str
    credits: tuple[Credit, ...]
    picked: int | None = None  # the 0-based option picked, for kinds with options


def graded_pick(
    response: str,
    unsure: bool,
    option_count: int,
    credits: Callable[[int | None], Iterable[StoredAnswer]],
    is_right: Callable[[int | None], bool],
) -> Graded | None:
    """A 1–4 (or "don't know") answer to a question with options, graded: None when it cannot be
    read, or when it is empty without an unsure mark; `credits(picked)` gives the reviews to store."""
    try:
        picked = parse_pick(response, option_count)
    except ValueError:
        return None
    if picked is None and not unsure:
        return None  # an empty answer is not "don't know" unless marked so
    stored = tuple(
        Credit(credit.item_id, credit.answer, credit.correct, credit.unsure, credit.text_hash)
        for credit in credits(picked)
    )
    shown = "?" if picked is None else str(picked + 1)
    return Graded(is_right(picked), shown, stored, picked)


class FeedbackBlock(NamedTuple):
    """One thing the feedback explains: the statement itself, or one option of several."""

    text: str  # the explanation
    heading: str | None = None  # an option: "1) [O] statement"
    true_statement: bool | None = None  # the option's own truth (its [O]/[X] tag says it too)
    # ✓ the answer, ✗ the learner's wrong pick, nothing for the others: the same meaning as the
    # verdict line and the mock exam's result, so ✓ never marks a pick that was wrong.
    verdict: bool | None = None
    tags: tuple[str, ...] = ()  # "answer", "your pick"
    emphasised: bool = False  # the key or the pick
    exam_note: str | None = None
    misconception: str | None = None  # the misconception's label, where it explains this miss


class FeedbackView(NamedTuple):
    answer: str  # "Answer: X", translated
    response: str | None  # what the learner gave, shown on a miss ("You: O")
    blocks: tuple[FeedbackBlock, ...]
    # The response itself says "don't know": the front ends leave out "(recorded as unsure)",
    # which would say it twice (c17).
    says_unsure: bool = False


class QuestionKind:
    """The base: subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    input: ClassVar[str] = INPUT_OX
    # How often a blind guess is right (O/X ½, four options ¼, a typed number never): the
    # prediction and the recall model price every answer of this kind with it.
    guess_rate: ClassVar[float] = 0.25
    # Its options are items the learner knows or not (4-choice statements, glossary terms): one
    # known to be wrong is struck before guessing, as the prediction prices it and a learner does.
    strikes_known_options: ClassVar[bool] = False
    # A skill of its own (reading a trace): knowing the bank's items says nothing about it, so an
    # unseen question of this kind is known only as far as the learner's answers to this kind show.
    own_skill: ClassVar[bool] = False
    label_key: ClassVar[str | None] = None  # a word after the topic in the title ("Calculation")
    hint_key: ClassVar[str] = "quiz.ox_hint"  # the keys, under the question
    unreadable_key: ClassVar[str] = "quiz.unreadable_ox"
    plain_prompt_key: ClassVar[str] = "plain.prompt_ox"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable"
    # The bank kind this kind's questions are built from when a session asks for it alone
    # (4-choice: O/X items); None: its own questions.
    asked_from: ClassVar[str | None] = None
    # Its `prepare` loads a generator (drawing a glossary question's options): a mixed session
    # paints another kind's question first and prepares this one after (QuizSession.prepare).
    prepares_late: ClassVar[bool] = False
    # True: its questions join only a session that asks for this kind by name (`--kind trace`), not
    # the bank Home, the stats and a mixed session count, because making them reads files
    # (profiler traces) that would slow every start.
    on_request: ClassVar[bool] = False
    # The kind's own interface strings ({"ko": {...}, "en": {...}}), registered with the kind.
    strings: ClassVar[dict[str, dict[str, str]]] = {}

    def source(self, content: Content) -> Iterable[Question]:
        """The questions of this kind the bank holds (`all_questions`); none for a kind whose
        questions are built from another's (4-choice from O/X items) or given by the caller."""
        return ()

    def prepare(
        self, question: Question, content: Content, rng: random.Random, queued: Collection[str]
    ) -> Question | None:
        """Ready a selected question to be asked, e.g. draw its options (`queued`: the ids of the
        session's questions). None when it cannot be asked any more (its content is gone)."""
        return question

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        """Grade a response; None when it cannot be read (ask again, record nothing)."""
        raise NotImplementedError

    def grade(self, question: Question, response: str) -> bool | None:
        graded = self.read(question, response, unsure=False)
        return None if graded is None else graded.correct

    def plain_response(self, text: str) -> str:
        """A line-mode answer as `read` takes it (key aliases of the kind, if any)."""
        return text

    def option_lines(self, question: Question) -> list[str]:
        """The numbered options, for kinds that have them."""
        return []

    def answer_text(self, question: Question) -> str:
        return question.answer

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        raise NotImplementedError

    def miss_line(self, question: Question) -> str:
        """A missed question in a summary list."""
        return f"[{question.id}] {question.prompt} → {self.answer_text(question)}"

    def recorded_answer(self, question: Question, answer: str, content: Content, t: Translator) -> str:
        """What a review of this kind stored for `question` (`answer`), in the learner's words: the
        notebook's "you last said" (the review's kind says where the answer was given)."""
        return answer

    def retried(
        self, question: Question, content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> Question:
        """`question` asked again after a miss (a summary's `w`): as it was, unless the kind draws
        it anew so the retry tests the answer, not where it sat. `shared`: one retry's scratch
        space, for a kind that keeps something across its questions."""
        return question

    # -- the mock exam (studyapp.quiz.exam) -------------------------------------------------------
    # The exam asks the same `Question`s as practice. It archives each as a row (`exam_row`: kind,
    # topic, stem, answer, item_ids, options [{item_id, text}]); the kind named in the row turns it
    # back into a question (`exam_from_row`: resume, the notebook; `exam_retried`: --retry).

    # A 4-choice option is a statement with its own truth, shown after it in the exam's review
    # ("— 옳음"); a term or another kind's option is not.
    options_are_statements: ClassVar[bool] = False
    in_exam: ClassVar[bool] = True  # a mock exam may ask it (`--mode exam --kind NAME`)
    # The share of an exam of another kind this kind's questions take (the glossary: a fifth of a
    # 4-choice exam), in an exam whose kind takes shares (`exam_takes_shares`).
    exam_share: ClassVar[float] = 0.0
    exam_takes_shares: ClassVar[bool] = False

    def exam_questions(
        self, content: Content, scope: ExamScope, count: int, rng: random.Random
    ) -> list[Question]:
        """Up to `count` questions of this kind for a mock exam within `scope`, ready to ask: by
        default the kind's own bank questions in the scope's topics, shuffled and prepared."""
        admitted = [q for q in self.source(content) if scope.admits(q)]
        rng.shuffle(admitted)
        queued = frozenset(q.id for q in admitted[:count])
        ready = (self.prepare(q, content, rng, queued) for q in admitted)
        return [q for q in ready if q is not None][:count]

    def exam_response(self, question: Question, response: str) -> str | None:
        """An exam answer as it is stored and compared ("O", "3", a number), or None when it is not
        one: the kind's own reading (`read`) of what was typed or pressed."""
        graded = self.read(question, self.plain_response(response.strip()), unsure=False)
        return graded.shown if graded is not None else None

    def exam_correct(self, question: Question, response: str) -> bool:
        graded = self.read(question, response, unsure=False)
        return graded is not None and graded.correct

    def exam_row(self, question: Question) -> dict[str, Any]:
        """The archive row (`exam_attempts.questions_json`); rows without "v" (format 1) hold the
        same fields and are read the same way."""
        return {
            "v": ROW_FORMAT,
            "kind": question.kind,
            "topic": question.topic,
            "stem": question.stem,
            "answer": question.answer,
            "item_ids": list(question.item_ids),
            "options": [{"item_id": o.item_id, "text": o.text} for o in question.options],
        }

    def dump_row(self, question: Question) -> dict[str, Any]:
        """`studyapp quiz --kind NAME --dump N --json`: one question for scripts, its answer as the
        key's 0-based option index where it has options (else the answer as the kind reads it)."""
        row = self.exam_row(question)
        del row["v"]
        key = answer_index(question)
        return {"id": question.id, **row, "answer": key if key is not None else question.answer}

    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        """The question exactly as asked, with today's explanations (a resumed attempt, the
        notebook); None when its items left the bank (the exam then shows the row as archived)."""
        return None

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> list[Question]:
        """An archived miss asked again (`--retry`, the result's `r`): by default the question as
        asked, as this kind retries a practice miss (`retried`); [] when it cannot be."""
        made = self.exam_from_row(row, content)
        return [self.retried(made, content, rng, shared)] if made is not None else []

    def exam_credits(self, question: Question, response: str, content: Content) -> tuple[Credit, ...]:
        """The reviews an exam answer stores with `--schedule`: the same as a quiz answer's."""
        graded = self.read(question, response, unsure=False)
        return graded.credits if graded is not None else ()

    def exam_note(self, question: Question, content: Content) -> str | None:
        """A line the exam's review adds under a missed question (an O/X item's exam note)."""
        return None

    def knows_probability(self, question: Question, knows: Callable[[str], float]) -> float:
        """P(right) for a learner who knows each item with `knows(item_id)` (the prediction): the
        key known, else a blind guess, or, where the options are items of their own
        (`strikes_known_options`), a guess among the options not known to be wrong."""
        ids = question.item_ids
        if not ids:
            return self.guess_rate
        key_index = answer_index(question) or 0
        key = knows(ids[key_index])
        if self.strikes_known_options and len(set(ids)) == len(ids) > 1:
            return key + (1 - key) * eliminated_guess([knows(i) for n, i in enumerate(ids) if n != key_index])
        return key + (1 - key) * self.guess_rate

    def forecast_probabilities(
        self, questions: Sequence[Question], knows: Callable[[str], float]
    ) -> list[float]:
        """P(right) of each of `questions` as the source holds them, before an exam draws their
        options (`prediction.pool_forecast`): by default `knows_probability` of each; a kind whose
        options are drawn later prices the unknown distractors at the pool's average knowledge."""
        if not self.strikes_known_options:
            return [self.knows_probability(q, knows) for q in questions]
        keys = [knows(q.item_ids[answer_index(q) or 0]) if q.item_ids else 0.0 for q in questions]
        if not keys:
            return []
        average = sum(keys) / len(keys)
        distractors = [average] * (round(1 / self.guess_rate) - 1)
        return [key + (1 - key) * eliminated_guess(distractors) for key in keys]


class ExamScope(NamedTuple):
    """What a mock exam may ask: the O/X items its filters admit, its topics and checklist entry."""

    items: list[Item]  # the bank's items in the scope (topic family and checklist), by id
    topics: frozenset[str] | None  # None: every topic
    checklist: str | None

    def admits(self, question: Question) -> bool:
        if self.topics is not None and question.topic not in self.topics:
            return False
        return self.checklist is None or self.checklist in question.checklist


def answer_index(question: Question) -> int | None:
    """The key's 0-based option index of a question with options, or None."""
    return row_answer_index({"answer": question.answer}, len(question.options))


def item_options(items: Iterable[Item]) -> tuple[Option, ...]:
    """O/X items as options: the statement, its explanation and its truth."""
    return tuple(Option(item.id, item.statement, item.explanation, item.answer == "O") for item in items)


def row_kind(row: dict[str, Any]) -> str:
    """The kind an archived exam row names (rows from before kinds were named are O/X)."""
    return str(row.get("kind") or "ox")


def row_ids(row: dict[str, Any]) -> list[str]:
    """An archived exam question's item ids (option order for a question with options)."""
    return [i for i in row.get("item_ids", []) if isinstance(i, str)]


def row_answer_index(row: dict[str, Any], option_count: int) -> int | None:
    """The archived key's 0-based option index, or None when the row's answer is not one."""
    try:
        index = int(row.get("answer", "")) - 1
    except (ValueError, TypeError):
        return None
    return index if 0 <= index < option_count else None


def as_credits(stored: Iterable[StoredAnswer]) -> tuple[Credit, ...]:
    return tuple(Credit(s.item_id, s.answer, s.correct, s.unsure, s.text_hash) for s in stored)


def misconception_label(content: Content, tag: str | None) -> str | None:
    return content.misconceptions.get(tag, tag) if tag else None


class ArchivedKind(QuestionKind):
    """An archived exam question whose items left the bank (`Question.archived`): shown, graded and
    archived again exactly as its row holds it, with no explanation and no review to store."""

    name: ClassVar[str] = "archived"

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        if question.options:
            return graded_pick(
                response,
                unsure,
                len(question.options),
                lambda picked: (),
                lambda picked: picked is not None and str(picked + 1) == question.answer,
            )
        text = response.strip().upper()
        return Graded(text == question.answer, text, ()) if text else None

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        return FeedbackView(t("quiz.answer", answer=feedback.question.answer), None, ())


ARCHIVED = ArchivedKind()


def archived_question(row: dict[str, Any]) -> Question:
    """The question exactly as the archive row holds it (stem, option texts, key), without today's
    explanations: for a question whose items or terms left the bank since it was asked."""
    ids = row_ids(row)
    texts = [str(o.get("text", "")) for o in row.get("options", []) if isinstance(o, dict)]
    key = row_answer_index(row, len(texts))
    options = tuple(
        Option(ids[n] if n < len(ids) else "", text, "", n == key) for n, text in enumerate(texts)
    )
    return Question(
        id=ids[0] if ids else "",
        kind=row_kind(row),
        topic=str(row.get("topic") or ""),
        prompt=str(row.get("stem") or ""),
        answer=str(row.get("answer") or ""),
        explanation="",
        options=options,
        archived=True,
    )


def eliminated_guess(distractor_knows: Sequence[float]) -> float:
    """P(right) when the key is not known: strike the known distractors, guess among the rest
    (the number not known is Poisson-binomial; plain Python: the quiz path never loads numpy)."""
    unknown = [1.0]  # unknown[c]: P(c distractors not known)
    for k in distractor_knows:
        unknown = [
            (unknown[c] if c < len(unknown) else 0.0) * k + (unknown[c - 1] * (1 - k) if c > 0 else 0.0)
            for c in range(len(unknown) + 1)
        ]
    return sum(p / (1 + count) for count, p in enumerate(unknown))
