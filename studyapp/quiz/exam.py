"""The mock exam (`studyapp quiz --mode exam`): a timed sitting graded only at the end.

One `ExamSession` per attempt. Questions are 4-choice (4지선다, built by `studyapp.quiz.choice`)
by default, with a share (`GLOSSARY_SHARE`) of glossary questions ("다음 설명에 해당하는 것은?",
`studyapp.quiz.glossary`) when content/glossary.yaml exists; O/X when the choice generator is
unavailable or `--kind ox` asks for it; glossary questions only with `--kind glossary`. The learner
answers in any order, flags questions for review and jumps between them; nothing is graded and no
explanation is shown until the exam is submitted — by the learner or by the clock. The result is
the score, pass/fail against the pass mark (60 % by default), the score per topic, the time used
and a review of every miss with its explanations.

Each attempt is archived in the store (studyapp/progress/exams.py, as the rows `archive_row`
builds): written when it starts, kept up to date after each answer (an interrupted sitting is not
lost), finished on submit; `retry_questions` asks an archived attempt's misses again. By default
an exam does not touch the FSRS schedule (`schedule=False`): a mock exam measures, it does not
drill, and 30 answers in one sitting would bunch the reviews. `--schedule` opts in; then each
answer is recorded like a quiz answer (a 4-choice answer credits every option's item the way
`studyapp.quiz.choice` grades it, a glossary answer its terms the way `studyapp.quiz.glossary` does).

The clock is injectable (`clock=`): the TUI's countdown and the tests read the same function.
No Textual here.
"""

from __future__ import annotations

import random
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from studyapp.content.glossary import askable_terms
from studyapp.content.model import Content, Item
from studyapp.errors import StudyappError
from studyapp.ids import new_id
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import interleave, topic_family
from studyapp.quiz.glossary import GlossaryQuestion, generate_glossary_questions
from studyapp.quiz.pass_rule import Verdict, verdict
from studyapp.quiz.questions import glossary_item_id, question_from_item, record_credits

KIND_CHOICE = "choice"
KIND_OX = "ox"
KIND_GLOSSARY = "glossary"  # "다음 설명에 해당하는 것은?": a definition, four terms
GLOSSARY_SHARE = 0.2  # of a 4-choice exam (rounded down) when the glossary has terms in its scope
DEFAULT_COUNT = 30
DEFAULT_PASS_MARK = 0.60
SECONDS_PER_QUESTION = 60  # default time limit: one minute a question
MIN_TIME_LIMIT_S = 1.0
MAX_TIME_LIMIT_S = 6 * 3600.0
MAX_COUNT = 200
OX_ANSWERS = ("O", "X")
ROW_FORMAT = 2  # of an archived question (ExamQuestion.to_dict); 1: before "v" was written

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class ExamSettings:
    count: int = DEFAULT_COUNT
    time_limit_s: float | None = None  # None: SECONDS_PER_QUESTION × the number of questions
    pass_mark: float = DEFAULT_PASS_MARK  # a share, 0 < pass_mark <= 1
    topic_cutoff: float | None = None  # 과락: a share every topic must reach (settings, F8); None: none
    kind: str = KIND_CHOICE  # choice, ox or glossary; `ExamSession.kind` says what was built
    topic: str | None = None
    checklist: str | None = None
    schedule: bool = False  # record answers into FSRS
    seed: int | None = None
    retry_of: str | None = None  # the attempt whose misses this one retries

    def validated(self) -> ExamSettings:
        if not 1 <= self.count <= MAX_COUNT:
            raise StudyappError(
                f"--count must be between 1 and {MAX_COUNT} for an exam",
                key="cli.exam_count_range",
                values={"most": MAX_COUNT},
            )
        if not 0 < self.pass_mark <= 1:
            raise StudyappError(
                "--pass-mark must be more than 0 % and at most 100 %", key="cli.exam_pass_mark_range"
            )
        if self.topic_cutoff is not None and not 0 < self.topic_cutoff <= 1:
            raise StudyappError(
                "the per-topic cutoff must be more than 0 % and at most 100 %", key="cli.exam_cutoff_range"
            )
        if self.time_limit_s is not None and not MIN_TIME_LIMIT_S <= self.time_limit_s <= MAX_TIME_LIMIT_S:
            least, most = f"{MIN_TIME_LIMIT_S:.0f}", f"{MAX_TIME_LIMIT_S / 3600:.0f}"
            raise StudyappError(
                f"--time-limit must be between {least} s and {most} h",
                key="cli.time_limit_range",
                values={"least": least, "most": most},
            )
        if self.kind not in (KIND_CHOICE, KIND_OX, KIND_GLOSSARY):
            raise StudyappError(f"an exam asks 4-choice, O/X or glossary questions, not '{self.kind}'")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # every field is a plain value: the archive's settings_json


@dataclass(frozen=True)
class ExamOption:
    item_id: str
    text: str
    explanation: str  # a glossary option: the term's definition
    true_statement: bool  # the item's O/X answer is O; a glossary option: the term defined


@dataclass(frozen=True)
class ExamQuestion:
    """One exam question. For 4-choice, `options` are the four statements and `answer` is the
    1-based number of the key; for glossary, the same with four terms and the definition in the
    stem; for O/X, `options` is empty and `answer` is "O" or "X"."""

    kind: str
    topic: str
    stem: str  # "다음 중 옳은 것은?" or the O/X statement itself
    answer: str
    options: tuple[ExamOption, ...] = ()
    explanation: str = ""  # O/X: the item's explanation (4-choice: each option has its own)
    item_ids: tuple[str, ...] = ()
    misconception: str | None = None
    source: Any = field(default=None, compare=False, repr=False)  # the Choice/GlossaryQuestion

    @property
    def valid_responses(self) -> tuple[str, ...]:
        return tuple(str(n) for n in range(1, len(self.options) + 1)) if self.options else OX_ANSWERS

    def normalise(self, response: str) -> str | None:
        """The response as stored ("1"–"4" or "O"/"X"), or None when it is not an answer."""
        text = response.strip().upper()
        aliases = {"1": "O", "2": "X", "ㅇ": "O", "ㅐ": "O", "ㅌ": "X"} if not self.options else {}
        text = aliases.get(text, text)
        return text if text in self.valid_responses else None

    def to_dict(self) -> dict[str, Any]:
        """The archive row (`exam_attempts.questions_json`); the kind named in it reads it back
        (`QuestionKind.exam_from_row`, `exam_retried`). Rows without "v" (format 1) hold the same
        fields and are read the same way."""
        return {
            "v": ROW_FORMAT,
            "kind": self.kind,
            "topic": self.topic,
            "stem": self.stem,
            "answer": self.answer,
            "item_ids": list(self.item_ids),
            "options": [{"item_id": o.item_id, "text": o.text} for o in self.options],
        }


# ---------------------------------------------------------------------------------------------
# building the questions
# ---------------------------------------------------------------------------------------------


def choice_module() -> Any | None:
    """`studyapp.quiz.choice`, or None when it is not available (then the exam is O/X)."""
    try:
        from studyapp.quiz import choice
    except ImportError:
        return None
    return choice if hasattr(choice, "generate_choice_questions") else None


def ox_question(item: Item) -> ExamQuestion:
    return ExamQuestion(
        kind=KIND_OX,
        topic=item.topic,
        stem=item.statement,
        answer=item.answer,
        explanation=item.explanation,
        item_ids=(item.id,),
        misconception=item.misconception,
    )


def exam_options(items: Iterable[Item]) -> tuple[ExamOption, ...]:
    return tuple(ExamOption(item.id, item.statement, item.explanation, item.answer == "O") for item in items)


def from_choice(choice_question: Any) -> ExamQuestion:
    """An ExamQuestion from a `studyapp.quiz.choice.ChoiceQuestion` (options are bank items)."""
    options = exam_options(choice_question.options)
    return ExamQuestion(
        kind=KIND_CHOICE,
        topic=choice_question.topic,
        stem=choice_question.stem,
        answer=str(choice_question.answer_index + 1),
        options=options,
        item_ids=tuple(o.item_id for o in options),
        source=choice_question,
    )


def from_glossary(question: GlossaryQuestion) -> ExamQuestion:
    """An ExamQuestion from a glossary question: the options are terms, explained by their definitions."""
    options = tuple(
        ExamOption(glossary_item_id(term.id), term.label, term.definition, index == question.answer_index)
        for index, term in enumerate(question.options)
    )
    return ExamQuestion(
        kind=KIND_GLOSSARY,
        topic=question.topic,
        stem=question.stem,
        answer=str(question.answer_index + 1),
        options=options,
        item_ids=tuple(o.item_id for o in options),
        source=question,
    )


def glossary_scope(content: Content, settings: ExamSettings) -> set[str] | None:
    """The topics whose terms this exam may ask (None: all); empty when a checklist filter is set
    (terms are not linked to checklist items)."""
    if settings.checklist:
        return set()
    return topic_family(content, settings.topic) if settings.topic else None


def _askable_terms(content: Content, scope: set[str] | None) -> int:
    return sum(1 for term in askable_terms(content.glossary) if scope is None or term.topic in scope)


def exam_pool(content: Content, settings: ExamSettings) -> list[Item]:
    items = sorted(content.items.values(), key=lambda i: i.id)
    if settings.topic:
        family = topic_family(content, settings.topic)
        items = [i for i in items if i.topic in family]
    if settings.checklist:
        entry = content.checklist_entry(settings.checklist)
        if entry is None:
            ids = ", ".join(e.id for e in content.checklist)
            raise StudyappError(f"unknown checklist item '{settings.checklist}'. Checklist: {ids}")
        linked = set(entry.items)
        items = [i for i in items if i.id in linked or settings.checklist in i.checklist]
    return items


def build_questions(content: Content, settings: ExamSettings) -> tuple[list[ExamQuestion], str | None]:
    """The exam's questions and, when O/X had to stand in for 4-choice, why (a Translator key)."""
    rng = random.Random(settings.seed)
    scope = glossary_scope(content, settings)
    if settings.kind == KIND_GLOSSARY:
        terms = generate_glossary_questions(content.glossary, settings.count, rng, scope)
        if not terms:
            raise StudyappError("no glossary terms match this exam's filters")
        return [from_glossary(q) for q in terms], None
    pool = exam_pool(content, settings)
    if not pool:
        raise StudyappError("no items match this exam's filters")
    notice = None
    if settings.kind == KIND_CHOICE:
        module = choice_module()
        if module is None:
            notice = "exam.notice.no_choice"  # a Translator key (studyapp/cli/exam.py)
        else:
            # Without a glossary nothing below draws from `rng`: the same seed, the same exam as before.
            share = min(int(settings.count * GLOSSARY_SHARE), _askable_terms(content, scope))
            generated = module.generate_choice_questions(
                pool, settings.count - share, rng, titles=module.topic_titles(content)
            )
            if generated:
                wanted = settings.count - len(generated)  # the share, or more if the bank ran short
                terms = generate_glossary_questions(content.glossary, wanted, rng, scope) if share else []
                mixed = _mixed([from_choice(q) for q in generated], [from_glossary(q) for q in terms], rng)
                return with_kind_questions(content, settings, scope, mixed), None
            notice = "exam.notice.too_few"
    shuffled = list(pool)
    rng.shuffle(shuffled)
    chosen = interleave(question_from_item(item) for item in shuffled)[: settings.count]
    return [ox_question(content.items[q.id]) for q in chosen], notice


def _mixed(choices: list[ExamQuestion], terms: list[ExamQuestion], rng: random.Random) -> list[ExamQuestion]:
    """The glossary questions at random places among the 4-choice ones (each list keeps its order)."""
    if not terms:
        return choices
    total = len(choices) + len(terms)
    places = set(rng.sample(range(total), len(terms)))
    term_iter, choice_iter = iter(terms), iter(choices)
    return [next(term_iter) if index in places else next(choice_iter) for index in range(total)]


def with_kind_questions(
    content: Content, settings: ExamSettings, scope: set[str] | None, questions: list[ExamQuestion]
) -> list[ExamQuestion]:
    """`questions` with some 4-choice ones replaced, in their places, by the questions of each kind
    that has an `exam_share` (trace reading: a tenth). Drawn with a generator of their own, so the
    rest of a seeded exam stays as it was."""
    if scope == set():
        return questions  # a checklist filter: only items are linked to checklist entries
    from studyapp.quiz.kinds import kinds  # a kind may read files for its questions: on first use

    mixed = list(questions)
    for name, kind in sorted(kinds().items()):
        share = int(len(questions) * kind.exam_share)
        if share == 0:
            continue
        rng = random.Random(f"{settings.seed}:{name}" if settings.seed is not None else None)
        drawn = kind.exam_questions(content, share, rng, scope)
        places = [index for index, question in enumerate(mixed) if question.kind == KIND_CHOICE]
        chosen = sorted(rng.sample(places, min(len(drawn), len(places))))
        for index, question in zip(chosen, drawn, strict=False):
            mixed[index] = question
    return mixed


def retry_questions(
    content: Content, attempt: exams.ExamAttempt, rng: random.Random | None = None
) -> list[ExamQuestion]:
    """The misses of an archived `attempt` as questions again (unanswered ones included), with
    today's explanations. A 4-choice or glossary miss comes back as a new question around the
    same key, its options redrawn where the topic allows (else the same options in another
    order), so a retry tests the statements or terms, not where the answer sat. A miss whose
    items were removed from the bank since is left out. `rng`: a seed for tests (default: fresh
    each time)."""
    if not attempt.finished:
        raise StudyappError(f"attempt {attempt.short_id} was never submitted: there are no misses to retry")
    from studyapp.quiz.kinds import kinds  # each row's kind asks its miss again

    rng = rng or random.Random()
    registry = kinds()
    shared: dict[str, Any] = {}  # one retry's scratch space, per kind
    questions: list[ExamQuestion] = []
    for row in attempt.misses:
        kind = registry.get(str(row.get("kind") or KIND_OX))
        if kind is not None:
            questions.extend(kind.exam_retried(row, content, rng, shared))
    if not questions:
        raise StudyappError(f"attempt {attempt.short_id} has no misses left to retry")
    return questions


def rebuild_choice(row: dict[str, Any], items: list[Item]) -> Any | None:
    """The ChoiceQuestion as asked (for FSRS credit with --schedule), when the generator exists."""
    module = choice_module()
    if module is None or not hasattr(module, "ChoiceQuestion"):
        return None
    try:
        answer_index = int(row.get("answer", "")) - 1
        kind = "correct" if items[answer_index].answer == "O" else "incorrect"
        return module.ChoiceQuestion(
            stem=str(row.get("stem") or module.STEMS[kind]),
            kind=kind,
            options=tuple(items),
            answer_index=answer_index,
            topic=str(row.get("topic") or items[0].topic),
        )
    except (ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None


# ---------------------------------------------------------------------------------------------
# the sitting
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionResult:
    number: int  # 1-based
    question: ExamQuestion
    response: str | None  # None: not answered
    correct: bool
    flagged: bool


@dataclass(frozen=True)
class ExamResult:
    attempt_id: str
    settings: ExamSettings
    kind: str
    score: int
    total: int
    passed: bool
    time_used_s: float
    time_limit_s: float
    auto_submitted: bool
    per_topic: dict[str, tuple[int, int]]  # topic → (right, total)
    questions: list[QuestionResult]
    started_at: datetime
    finished_at: datetime
    verdict: Verdict  # which rule decided `passed` (the pass mark, or 과락 in a topic)

    @property
    def percent(self) -> float:
        return self.score / self.total if self.total else 0.0

    @property
    def misses(self) -> list[QuestionResult]:
        return [q for q in self.questions if not q.correct]

    @property
    def unanswered(self) -> int:
        return sum(1 for q in self.questions if q.response is None)


class ExamSession:
    """One attempt: questions, answers in any order, flags, a countdown, one submit."""

    def __init__(
        self,
        content: Content,
        store: ProgressStore,
        settings: ExamSettings | None = None,
        questions: Sequence[ExamQuestion] | None = None,
        clock: Clock | None = None,
        notice: str | None = None,
    ) -> None:
        self.content = content
        self.store = store
        settings = (settings or ExamSettings()).validated()
        self.notice = notice
        if questions is None:
            built, built_notice = build_questions(content, settings)
            self.notice = self.notice or built_notice
            questions = built
        if not questions:
            raise StudyappError("this exam has no questions")
        self.questions: list[ExamQuestion] = list(questions)
        self.requested = settings.count  # the bank may hold fewer questions for a narrow scope
        self.settings = replace(settings, count=len(self.questions))
        # A glossary question is a 4-choice question too (its options are terms).
        self.kind = KIND_CHOICE if any(q.options for q in self.questions) else KIND_OX
        self.clock: Clock = clock or store.clock
        self.attempt_id = new_id()
        self.answers: dict[int, str] = {}  # 0-based index → normalised response
        self.flags: set[int] = set()
        self.position = 0
        self.started_at: datetime | None = None
        self._last_seen: datetime | None = None  # the clock's latest reading (`_now`)
        self.result: ExamResult | None = None
        # One line when the archive could not be written (disk full, locked, read-only): the
        # sitting goes on in memory and the next write (an answer, the submit) tries again.
        self.save_problem: str | None = None
        # The prediction made just before the exam (studyapp.report.prediction.attach_prediction),
        # archived with the attempt as settings["prediction"]; None: none was made.
        self.prediction: dict[str, Any] | None = None
        # The time an archived attempt had used when this sitting took it up again
        # (studyapp.quiz.exam_resume); None: a new attempt.
        self.resumed_used_s: float | None = None
        # This sitting's hold on its attempt (one writer per attempt: exams.hold_attempt).
        self._hold: exams.AttemptLock | None = None

    @property
    def resumed(self) -> bool:
        return self.resumed_used_s is not None

    def hold(self) -> None:
        """Take this attempt for this sitting: StudyappError when another window has it open."""
        if self._hold is None:
            self._hold = exams.hold_attempt(self.store, self.attempt_id)

    def release(self) -> None:
        if self._hold is not None:
            self._hold.release()
            self._hold = None

    def carry_on(self, used_s: float) -> None:
        """Run the clock as if `used_s` seconds were used already: a resumed attempt's countdown
        goes on from the time it had left, not counting the break (nor an intro read before)."""
        self.resumed_used_s = used_s
        self._last_seen = None
        self.started_at = self._now() - timedelta(seconds=used_s)

    # -- time ----------------------------------------------------------------------------------
    @property
    def time_limit_s(self) -> float:
        if self.settings.time_limit_s is not None:
            return self.settings.time_limit_s
        return float(SECONDS_PER_QUESTION * len(self.questions))

    def start(self) -> None:
        """Start the clock and archive the attempt as begun (idempotent)."""
        if self.started_at is not None:
            return
        self.hold()
        self.started_at = self._now()
        self._archive(exams.begin_attempt)

    def _now(self) -> datetime:
        """The clock, with a jump back (set by hand, NTP, a time zone mix-up) taken out: the start
        moves back with it, so the countdown carries on instead of freezing and the time used
        never comes out negative."""
        now = self.clock()
        if self._last_seen is not None and now < self._last_seen and self.started_at is not None:
            self.started_at -= self._last_seen - now
        self._last_seen = now
        return now

    def elapsed_s(self) -> float:
        if self.started_at is None:
            return 0.0
        end = self.result.finished_at if self.result else self._now()
        return max(0.0, (end - self.started_at).total_seconds())

    def remaining_s(self) -> float:
        return max(0.0, self.time_limit_s - self.elapsed_s())

    def time_up(self) -> bool:
        return self.started_at is not None and self.elapsed_s() >= self.time_limit_s

    # -- moving and answering -----------------------------------------------------------------
    @property
    def total(self) -> int:
        return len(self.questions)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def current(self) -> ExamQuestion:
        return self.questions[self.position]

    def go(self, number: int) -> None:
        """Jump to question `number` (1-based)."""
        if not 1 <= number <= self.total:
            raise StudyappError(f"no question {number}: questions are 1–{self.total}")
        self.position = number - 1

    def next(self) -> None:
        self.position = (self.position + 1) % self.total

    def previous(self) -> None:
        self.position = (self.position - 1) % self.total

    def next_unanswered(self) -> int | None:
        """The next unanswered question after the current one (0-based), wrapping; None if all are."""
        for step in range(1, self.total + 1):
            index = (self.position + step) % self.total
            if index not in self.answers:
                return index
        return None

    def answer(self, response: str) -> bool:
        """Answer the current question (changing an earlier answer is fine). False if unreadable.

        Nothing is graded here: the exam says nothing until it is submitted.
        """
        self._require_open()
        normalised = self.current.normalise(response)
        if normalised is None:
            return False
        self.answers[self.position] = normalised
        self._archive(exams.save_progress)
        return True

    def archive_row(self) -> exams.ExamAttempt:
        """This attempt as the archive keeps it: the settings, every question as asked with its
        response and flag and, once submitted, the result."""
        assert self.started_at is not None
        result = self.result
        settings = self.settings.to_dict()
        settings["time_limit_s"] = self.time_limit_s
        settings["built_kind"] = self.kind
        if result is not None:
            settings["auto_submitted"] = result.auto_submitted
        if self.prediction is not None:
            settings["prediction"] = self.prediction
        settings["elapsed_s"] = round(self.elapsed_s(), 3)  # what a resumed sitting has used up
        questions = []
        for index, question in enumerate(self.questions):
            row = question.to_dict()
            row["number"] = index + 1
            row["response"] = self.answers.get(index)
            row["flagged"] = index in self.flags
            row["correct"] = result.questions[index].correct if result else None
            questions.append(row)
        return exams.ExamAttempt(
            uid=self.attempt_id,
            started_at=self.started_at,
            finished_at=result.finished_at if result else None,
            settings=settings,
            score=result.score if result else None,
            total=self.total,
            passed=result.passed if result else None,
            time_used_s=result.time_used_s if result else None,
            questions=questions,
        )

    def _archive(self, write: Callable[[ProgressStore, exams.ExamAttempt], None]) -> bool:
        """Run one archive write; a failing store is remembered in `save_problem`, never raised."""
        try:
            write(self.store, self.archive_row())
        except (StudyappError, sqlite3.Error, OSError) as exc:
            self.save_problem = str(exc) or type(exc).__name__
            return False
        self.save_problem = None
        return True

    def toggle_flag(self, index: int | None = None) -> bool:
        """Flag (or unflag) a question for review; returns whether it is flagged now."""
        self._require_open()
        index = self.position if index is None else index
        if index in self.flags:
            self.flags.discard(index)
            return False
        self.flags.add(index)
        return True

    def _require_open(self) -> None:
        if self.result is not None:
            raise StudyappError("the exam was already submitted")
        if self.started_at is None:
            self.start()

    # -- the end -------------------------------------------------------------------------------
    def submit(self, auto: bool = False) -> ExamResult:
        """Grade every question, archive the attempt and (only with `schedule`) update FSRS."""
        if self.result is not None:
            return self.result
        if self.started_at is None:
            self.start()
        assert self.started_at is not None
        finished_at = self._now()
        limit = self.time_limit_s
        elapsed = max(0.0, (finished_at - self.started_at).total_seconds())
        used = min(elapsed, limit) if auto else elapsed  # a tick late is still the whole limit
        results: list[QuestionResult] = []
        per_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for index, question in enumerate(self.questions):
            response = self.answers.get(index)
            correct = response == question.answer
            results.append(QuestionResult(index + 1, question, response, correct, index in self.flags))
            per_topic[question.topic][1] += 1
            per_topic[question.topic][0] += int(correct)
        score = sum(r.correct for r in results)
        total = len(results)
        per_topic_scores = {topic: (right, count) for topic, (right, count) in per_topic.items()}
        decided = verdict(score, total, per_topic_scores, self.settings.pass_mark, self.settings.topic_cutoff)
        self.result = ExamResult(
            attempt_id=self.attempt_id,
            settings=self.settings,
            kind=self.kind,
            score=score,
            total=total,
            passed=decided.passed,
            time_used_s=used,
            time_limit_s=limit,
            auto_submitted=auto,
            per_topic=per_topic_scores,
            questions=results,
            started_at=self.started_at,
            finished_at=finished_at,
            verdict=decided,
        )
        self._archive(exams.finish_attempt)
        self.release()  # submitted: this sitting writes nothing more to its attempt
        if self.settings.schedule and self.save_problem is None:
            try:
                self._schedule(results, finished_at)
            except (StudyappError, sqlite3.Error, OSError) as exc:
                self.save_problem = str(exc) or type(exc).__name__
        return self.result

    def _schedule(self, results: Iterable[QuestionResult], when: datetime) -> None:
        """Record the answered questions into FSRS, like quiz answers (only with --schedule): each
        question's kind says which reviews its answer stores (`QuestionKind.exam_credits`), written
        through `record_credits` — a write that fails is kept by the store and retried, and its
        reason lands in `save_problem`."""
        from studyapp.quiz.kinds import kind_of

        review: dict[str, Any] = {"mode": "exam", "session_id": self.attempt_id, "reviewed_at": when}
        for record in results:
            if record.response is None:
                continue  # no answer is no evidence either way
            question = record.question
            credits = kind_of(question.kind).exam_credits(question, record.response, self.content)
            _, problem = record_credits(self.store, credits, question.kind, **review)
            self.save_problem = self.save_problem or problem
        self.store.checkpoint()  # record_credits leaves the checkpoint to its caller


def retry_time_limit(per_question_s: float, count: int) -> float:
    """A retry of `count` misses keeps the original time per question, but gets a minute at least."""
    return max(60.0, per_question_s * count)
