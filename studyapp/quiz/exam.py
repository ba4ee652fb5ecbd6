"""The mock exam (`studyapp quiz --mode exam`): a timed sitting graded only at the end.

One `ExamSession` per attempt. It asks the same `Question`s as practice, and each question's
kind (`studyapp.quiz.kinds`) builds, reads, grades, archives and rebuilds it: by default 4-choice
questions (4지선다) with the shares other kinds take (`exam_share`: a fifth of glossary terms,
"다음 설명에 해당하는 것은?", when the glossary has terms in scope); `--kind NAME` asks one kind
(O/X stands in when 4-choice questions cannot be made, the kind they are `asked_from`).
The learner answers in any order, flags questions for review and jumps between them; nothing is
graded and no explanation is shown until the exam is submitted — by the learner or by the clock. The result is
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
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from studyapp.content.model import Content, Item
from studyapp.errors import StudyappError
from studyapp.ids import new_id
from studyapp.progress import exams
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import topic_family
from studyapp.quiz.kinds import kind_of, kinds
from studyapp.quiz.kinds.base import ExamScope, QuestionKind, row_kind
from studyapp.quiz.pass_rule import Verdict, verdict
from studyapp.quiz.question import Question
from studyapp.quiz.questions import record_credits

# The exam's form as its intro names it (`exam.kind.*`): options to pick from, or statements to
# judge. A word for the sitting, not a question kind: each question's kind asks and grades it.
FORM_OPTIONS = "choice"
FORM_STATEMENTS = "ox"
DEFAULT_KIND = "choice"  # what `--kind` asks of an exam when it names none (the kind's name)
DEFAULT_COUNT = 30
DEFAULT_PASS_MARK = 0.60
SECONDS_PER_QUESTION = 60  # default time limit: one minute a question
MIN_TIME_LIMIT_S = 1.0
MAX_TIME_LIMIT_S = 6 * 3600.0
MAX_COUNT = 200

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class ExamSettings:
    count: int = DEFAULT_COUNT
    time_limit_s: float | None = None  # None: SECONDS_PER_QUESTION × the number of questions
    pass_mark: float = DEFAULT_PASS_MARK  # a share, 0 < pass_mark <= 1
    topic_cutoff: float | None = None  # 과락: a share every topic must reach (settings, F8); None: none
    kind: str = (
        DEFAULT_KIND  # the kind asked (with the others' `exam_share`); `ExamSession.kind`: the form built
    )
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
        askable = [name for name, kind in kinds().items() if kind.in_exam]
        if self.kind not in askable:
            raise StudyappError(
                f"an exam asks {', '.join(askable)} questions: use --kind {' or '.join(askable)}"
            )
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # every field is a plain value: the archive's settings_json


# ---------------------------------------------------------------------------------------------
# building the questions
# ---------------------------------------------------------------------------------------------


def exam_scope(content: Content, settings: ExamSettings) -> ExamScope:
    """What this exam may ask: the O/X items its topic and checklist filters admit (by id), and
    the filters themselves for kinds that draw from elsewhere (glossary terms have no checklist)."""
    items = sorted(content.items.values(), key=lambda i: i.id)
    topics = frozenset(topic_family(content, settings.topic)) if settings.topic else None
    if topics is not None:
        items = [i for i in items if i.topic in topics]
    if settings.checklist:
        entry = content.checklist_entry(settings.checklist)
        if entry is None:
            ids = ", ".join(e.id for e in content.checklist)
            raise StudyappError(f"unknown checklist item '{settings.checklist}'. Checklist: {ids}")
        linked = set(entry.items)
        items = [i for i in items if i.id in linked or settings.checklist in i.checklist]
    return ExamScope(items, topics, settings.checklist)


def exam_pool(content: Content, settings: ExamSettings) -> list[Item]:
    return exam_scope(content, settings).items


def build_questions(content: Content, settings: ExamSettings) -> tuple[list[Question], str | None]:
    """The exam's questions and, when the kind asked had to hand over to the kind it is built
    from (4-choice to O/X), why (a Translator key). The kind asked may take the other kinds'
    shares (`exam_share`: the glossary's fifth of a 4-choice exam), at random places."""
    rng = random.Random(settings.seed)
    scope = exam_scope(content, settings)
    main = kind_of(settings.kind)
    shares = [
        (other, min(int(settings.count * other.exam_share), len(pool)))
        for other, pool in share_pools(content, settings)
    ]
    main_count = settings.count - sum(share for _, share in shares)
    questions = main.exam_questions(content, scope, main_count, rng) if main_count > 0 or not shares else []
    notice = None
    if not questions:
        fallback = kind_of(main.asked_from) if main.asked_from else None
        if fallback is None or not scope.items:
            raise StudyappError("no questions match this exam's filters")
        notice = "exam.notice.too_few"  # a Translator key (studyapp/cli/exam.py)
        return fallback.exam_questions(content, scope, settings.count, rng), notice
    extra: list[Question] = []
    # What the main kind could not make goes to the sharing kinds, in turn (the glossary first).
    missing = max(0, main_count - len(questions))
    for other, share in shares:
        # Without a share nothing below draws from `rng`: the same seed, the same exam as before.
        if share:
            drawn = other.exam_questions(content, scope, share + missing, rng)
            missing = max(0, share + missing - len(drawn))
            extra += drawn
    return _mixed(questions, extra, rng), notice


def share_pools(content: Content, settings: ExamSettings) -> list[tuple[QuestionKind, list[Question]]]:
    """The kinds that take a share of this exam (`exam_share`, when the kind asked takes shares),
    each with its questions in the exam's scope."""
    main = kind_of(settings.kind)
    if not main.exam_takes_shares:
        return []
    scope = exam_scope(content, settings)
    return [
        (other, [q for q in other.source(content) if scope.admits(q)])
        for other in kinds().values()
        if other is not main and other.exam_share > 0
    ]


def _mixed(main: list[Question], extra: list[Question], rng: random.Random) -> list[Question]:
    """The shared kinds' questions at random places among the main ones (each list keeps its order)."""
    if not extra:
        return main
    total = len(main) + len(extra)
    places = set(rng.sample(range(total), len(extra)))
    extra_iter, main_iter = iter(extra), iter(main)
    return [next(extra_iter) if index in places else next(main_iter) for index in range(total)]


def retry_questions(
    content: Content, attempt: exams.ExamAttempt, rng: random.Random | None = None
) -> list[Question]:
    """The misses of an archived `attempt` as questions again (unanswered ones included), with
    today's explanations, each as its row's kind asks a retried miss (`exam_retried`: a 4-choice
    or glossary miss comes back around the same key with its options redrawn where the bank
    allows). A miss whose items were removed from the bank since is left out. `rng`: a seed for
    tests (default: fresh each time)."""
    if not attempt.finished:
        raise StudyappError(f"attempt {attempt.short_id} was never submitted: there are no misses to retry")
    rng = rng or random.Random()
    registry = kinds()
    shared: dict[str, Any] = {}  # one retry's scratch space, per kind
    questions: list[Question] = []
    for row in attempt.misses:
        kind = registry.get(row_kind(row))
        if kind is not None:
            questions.extend(kind.exam_retried(row, content, rng, shared))
    if not questions:
        raise StudyappError(f"attempt {attempt.short_id} has no misses left to retry")
    return questions


# ---------------------------------------------------------------------------------------------
# the sitting
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionResult:
    number: int  # 1-based
    question: Question
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
        questions: Sequence[Question] | None = None,
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
        self.questions: list[Question] = list(questions)
        self.requested = settings.count  # the bank may hold fewer questions for a narrow scope
        self.settings = replace(settings, count=len(self.questions))
        # The sitting's form for its intro: any question with options makes it a pick exam.
        self.kind = FORM_OPTIONS if any(q.options for q in self.questions) else FORM_STATEMENTS
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
    def current(self) -> Question:
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
        normalised = kind_of(self.current).exam_response(self.current, response)
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
            row = kind_of(question).exam_row(question)
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
            correct = response is not None and kind_of(question).exam_correct(question, response)
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
        review: dict[str, Any] = {"mode": "exam", "session_id": self.attempt_id, "reviewed_at": when}
        for record in results:
            if record.response is None:
                continue  # no answer is no evidence either way
            question = record.question
            credits = kind_of(question).exam_credits(question, record.response, self.content)
            _, problem = record_credits(self.store, credits, question.kind, **review)
            self.save_problem = self.save_problem or problem
        self.store.checkpoint()  # record_credits leaves the checkpoint to its caller


def retry_time_limit(per_question_s: float, count: int) -> float:
    """A retry of `count` misses keeps the original time per question, but gets a minute at least."""
    return max(60.0, per_question_s * count)
