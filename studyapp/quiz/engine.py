"""The quiz engine: which questions a session asks, grading, feedback, undo and the summary.

The TUI, the line mode (`--plain`) and the tests all drive this one class; it never imports
Textual. Every answer is committed to the store before the feedback is returned.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import NamedTuple

from studyapp.atomicfile import write_text_atomically
from studyapp.content.model import Content
from studyapp.errors import StudyappError
from studyapp.ids import new_id
from studyapp.progress.db import StoreError
from studyapp.progress.exam_aim import exam_due, exam_moment
from studyapp.progress.scheduler import Grade, ItemSchedule
from studyapp.progress.store import ProgressStore
from studyapp.quiz.kinds import kind_of, kinds
from studyapp.quiz.questions import EVERY_KIND, Question, all_questions, record_credits

# The modes of a practice session. `studyapp quiz --mode exam` is the timed mock exam, a sitting of
# its own (studyapp/quiz/exam.py): it never goes through QuizSession.
SESSION_MODES = ("due", "new", "wrong", "cram")
MODES = (*SESSION_MODES[:3], "exam", SESSION_MODES[3])  # what `--mode` accepts
# What a session asks: O/X statements, 4-choice questions built from them, calculation drills,
# glossary questions ("다음 설명에 해당하는 것은?", when content/glossary.yaml exists), or a mix (O/X,
# drills and glossary terms in their share of the bank, every third O/X item asked as a 4-choice
# question). A new kind module adds itself to what `--kind` accepts.
MIXED = "mixed"


def quiz_kinds() -> tuple[str, ...]:
    """What `--kind` accepts: every registered question kind, or a mix of them."""
    return (*kinds(), MIXED)


DEFAULT_COUNT = 20
DEFAULT_NEW_PER_SESSION = 10


@dataclass(frozen=True)
class SessionOptions:
    mode: str = "due"
    topic: str | None = None  # includes the topic's sub-topics
    checklist: str | None = None
    count: int | None = None
    # False: the O/X bank only (and 4-choice questions built from it): no drills, no glossary
    # terms in a mixed session (`--no-drills`). `--kind glossary` asks terms regardless.
    include_drills: bool = True
    seed: int | None = None  # for reproducible order in tests
    # ox, choice, drill, glossary or mixed (quiz_kinds()). None: O/X items and drills as before
    # 4-choice and glossary questions existed; `studyapp quiz` passes default_kind(mode) instead.
    kind: str | None = None


# A NamedTuple, not a frozen dataclass: as immutable, and cheaper to define on the quiz's start path
# (a frozen dataclass compiles six methods at import; benchmarks/startup.py).
class Feedback(NamedTuple):
    question: Question
    response: str
    correct: bool
    unsure: bool
    grade: Grade
    next_due: datetime
    # One line when the answer could not be written yet (disk full, locked, read-only): it is
    # kept in memory and written with the next answer or at the end of the session.
    save_problem: str | None = None
    picked: int | None = None  # a 4-choice answer: the 0-based option picked (None: "don't know")


@dataclass
class AnswerRecord:
    question: Question
    response: str
    correct: bool
    unsure: bool
    response_ms: int | None
    writes: int = 1  # reviews stored (a 4-choice answer stores one per credited option)


@dataclass
class Summary:
    mode: str
    answered: int
    correct: int
    per_topic: dict[str, tuple[int, int]]  # topic → (right, wrong)
    misses: list[AnswerRecord]
    elapsed_s: float
    due_now: int
    next_due: datetime | None
    by_misconception: dict[str, list[AnswerRecord]] = field(default_factory=dict)


def default_kind(mode: str) -> str:
    """`studyapp quiz` without `--kind`: mixed, except O/X for `wrong` (retry the very statement
    missed) and `exam` (the mock exam builds its own questions)."""
    return "ox" if mode in ("wrong", "exam") else "mixed"


def local_tz() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def topic_family(content: Content, topic_id: str) -> set[str]:
    """A topic and its sub-topics (PyTorch 프로파일링 includes Torch.profiler)."""
    if topic_id not in content.topics:
        raise StudyappError(f"unknown topic '{topic_id}'. Topics: {', '.join(content.topics)}")
    return {topic_id} | {t.id for t in content.topics.values() if t.parent == topic_id}


def interleave(questions: Iterable[Question]) -> list[Question]:
    """Round-robin across topics, keeping each topic's own order (interleaving aids retention)."""
    queues: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        queues[question.topic].append(question)
    result: list[Question] = []
    while any(queues.values()):
        for topic in list(queues):
            if queues[topic]:
                result.append(queues[topic].pop(0))
    return result


def is_due(
    schedule: ItemSchedule, question: Question, now: datetime, exam_at: datetime | None = None
) -> bool:
    """Due by FSRS (aimed at the exam day when `exam_at` is given: studyapp/progress/exam_aim.py),
    or its text changed since it was last answered (shown again once)."""
    return exam_due(schedule, exam_at) <= now or (
        schedule.text_hash is not None and schedule.text_hash != question.text_hash
    )


def exam_at_of(store: ProgressStore, tz: tzinfo | None = None) -> datetime | None:
    """The moment reviews aim at: 09:00 on the stored exam date, or None without one."""
    exam = store.exam_date()
    return exam_moment(exam, tz or local_tz()) if exam is not None else None


def new_quota(unseen: int, exam: date | None, today: date, base: int) -> int:
    """How many new items today: enough that every item is seen before the exam date."""
    if exam is None or unseen == 0:
        return base
    days_left = (exam - today).days
    if days_left <= 0:
        return unseen
    return max(base, math.ceil(unseen / days_left))


def select_questions(
    content: Content,
    store: ProgressStore,
    options: SessionOptions,
    now: datetime,
    tz: tzinfo | None = None,
) -> list[Question]:
    if options.mode not in SESSION_MODES:
        raise StudyappError(f"unknown mode '{options.mode}'. Modes: {', '.join(SESSION_MODES)}")
    if options.count is not None and options.count < 1:
        raise StudyappError("--count must be at least 1", key="cli.count_at_least_1")
    rng = random.Random(options.seed)
    kind = options.kind
    if kind is not None and kind not in quiz_kinds():
        raise StudyappError(f"unknown kind '{kind}'. Kinds: {', '.join(quiz_kinds())}")
    pool = all_questions(
        content,
        include_drills=options.include_drills,
        # terms: asked alone, or in a mix that is not O/X-only; None keeps the bank as it was before
        include_glossary=kind is not None and (kind != MIXED or options.include_drills),
        # a mixed `wrong` session (the notebook) retries every kind's misses, trace reading's too
        asked=EVERY_KIND if kind == MIXED and options.mode == "wrong" else kind,
    )
    if kind is not None and kind != MIXED:  # one kind only; mixed keeps them all
        wanted = kind_of(kind).asked_from or kind  # 4-choice questions are made of O/X items
        pool = {qid: q for qid, q in pool.items() if q.kind == wanted}
    if options.topic:
        family = topic_family(content, options.topic)
        pool = {qid: q for qid, q in pool.items() if q.topic in family}
    if options.checklist:
        if content.checklist_entry(options.checklist) is None:
            ids = ", ".join(e.id for e in content.checklist)
            raise StudyappError(f"unknown checklist item '{options.checklist}'. Checklist: {ids}")
        pool = {qid: q for qid, q in pool.items() if options.checklist in q.checklist}
    schedules = store.schedules()
    ordered = sorted(pool.values(), key=lambda q: q.id)

    if options.mode == "cram":
        chosen = list(ordered)
        rng.shuffle(chosen)
        return interleave(chosen)[: options.count or len(chosen)]
    if options.mode == "wrong":
        wrong = [q for q in ordered if q.id in schedules and not schedules[q.id].last_correct]
        wrong.sort(key=lambda q: (q.misconception or "~", q.topic, q.id))  # grouped by misconception
        return wrong[: options.count or len(wrong)]

    unseen = [q for q in ordered if q.id not in schedules]
    rng.shuffle(unseen)
    unseen = interleave(unseen)
    if options.mode == "new":
        return unseen[: options.count or DEFAULT_COUNT]

    # due: overdue first (most overdue first), then new items, interleaving topics. With an exam
    # date, reviews aim at recall on the exam day (studyapp/progress/exam_aim.py).
    exam_at = exam_at_of(store, tz)
    due = [q for q in ordered if q.id in schedules and is_due(schedules[q.id], q, now, exam_at)]
    due.sort(key=lambda q: exam_due(schedules[q.id], exam_at))
    limit = options.count or DEFAULT_COUNT
    today = now.astimezone(tz or local_tz()).date()
    quota = new_quota(len(unseen), store.exam_date(), today, DEFAULT_NEW_PER_SESSION)
    selected = interleave(due)[:limit]
    selected += unseen[: max(0, min(quota, limit - len(selected)))]
    return selected


class QuizSession:
    """One sitting: a queue of questions, the answers given and what they did to the schedule."""

    def __init__(
        self,
        content: Content,
        store: ProgressStore,
        options: SessionOptions | None = None,
        questions: list[Question] | None = None,
    ) -> None:
        self.content = content
        self.store = store
        self.options = options or SessionOptions()
        if self.options.mode not in SESSION_MODES:  # the mock exam is studyapp/quiz/exam.py
            raise StudyappError(f"unknown mode '{self.options.mode}'. Modes: {', '.join(SESSION_MODES)}")
        self.session_id = new_id()
        self.started_at = store.clock()
        selected = (
            questions
            if questions is not None
            else select_questions(content, store, self.options, self.started_at)
        )
        # Asking some O/X items as 4-choice questions builds the whole bank's similarity index
        # (most of a mixed session's start-up), and drawing a glossary question's options loads
        # its generator. A mixed session asks neither first, so both wait until the first
        # question is on screen (`prepare`, or the first answer).
        self._to_mix: set[str] | None = None  # the items studied so far, while mixing waits
        self._unprepared = True  # glossary options not drawn yet (QuestionKind.prepare)
        self._queue = selected
        waits = questions is None and self.options.kind == MIXED
        if waits:
            self._queue = first_ready(selected)
        if not waits or (self._queue and kind_of(self._queue[0]).prepares_late):
            self._prepare_kinds()  # --kind glossary, given questions, or terms alone: at once
        if questions is None and builds_from_others(self.options.kind):
            self._to_mix = set(store.schedules())
            if self.options.kind != MIXED:  # --kind choice: every question is built, at once
                self.prepare()
        self.position = 0
        self.answers: list[AnswerRecord] = []
        self.shown_at = self.started_at

    @property
    def mode(self) -> str:
        return self.options.mode

    def prepare(self) -> None:
        """Turn the O/X questions due for it into 4-choice ones (`--kind mixed|choice`) and draw
        the glossary questions' options, once."""
        if self._to_mix is not None:
            studied, self._to_mix = self._to_mix, None
            self._queue = with_choice_questions(self.content, self.options, self._queue, studied)
        self._prepare_kinds()

    def _prepare_kinds(self) -> None:
        if self._unprepared:
            self._unprepared = False
            # The first question stays as it is (it may be on screen): prepared at start, or not
            # one a kind prepares late (first_ready).
            self._queue = prepared(self.content, self._queue, self.options.seed)

    @property
    def queue(self) -> list[Question]:
        self.prepare()
        return self._queue

    @property
    def current(self) -> Question | None:
        queue = self._queue if self.position == 0 else self.queue  # mixing never changes the first
        return queue[self.position] if self.position < len(queue) else None

    @property
    def finished(self) -> bool:
        return self.current is None

    @property
    def total(self) -> int:
        """How many questions; before `prepare` it can still shrink by the items an early 4-choice
        question takes as options (rare: distractors come from outside the queue first)."""
        return len(self._queue)

    def mark_shown(self) -> None:
        """Call when the question appears on screen; response time counts from here."""
        self.shown_at = self.store.clock()

    def answer(self, response: str, unsure: bool = False) -> Feedback | None:
        """Grade and record the current question. None (nothing recorded) if unreadable.

        The question's kind reads the response and says which reviews to store: one for an O/X
        item or a drill, one per credited option for a 4-choice question (key first)."""
        self.prepare()
        question = self.current
        if question is None:
            raise StudyappError("the session has no question left")
        graded = kind_of(question).read(question, response, unsure)
        if graded is None:
            return None
        now = self.store.clock()
        elapsed_ms = max(0, int((now - self.shown_at).total_seconds() * 1000))
        # Never raises for a failed write (see Feedback). The checkpoint waits for `settle()`.
        schedules, save_problem = record_credits(
            self.store,
            graded.credits,
            question.kind,
            mode=self.mode,
            session_id=self.session_id,
            response_ms=elapsed_ms,
            reviewed_at=now,
        )
        self.answers.append(
            AnswerRecord(question, graded.shown, graded.correct, unsure, elapsed_ms, writes=len(schedules))
        )
        self.position += 1
        return Feedback(
            question,
            graded.shown,
            graded.correct,
            unsure,
            Grade.from_answer(graded.correct, unsure),
            schedules[0].due,
            save_problem=save_problem,
            picked=graded.picked,
        )

    def settle(self) -> None:
        """Call once the feedback is shown: copies the answer from the -wal into progress.db."""
        self.store.checkpoint()

    def undo(self) -> Question | None:
        """Take back the last answer of this session; that question becomes current again."""
        if not self.answers:
            return None
        removed = None
        for _ in range(self.answers[-1].writes):  # a 4-choice answer stored several reviews
            removed = self.store.undo_last(session_id=self.session_id)
        if removed is None:
            return None
        self.answers.pop()
        self.position -= 1
        self.mark_shown()
        return self.current

    def summary(self) -> Summary:
        per_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for record in self.answers:
            per_topic[record.question.topic][0 if record.correct else 1] += 1
        misses = [r for r in self.answers if not r.correct]
        by_misconception: dict[str, list[AnswerRecord]] = defaultdict(list)
        for record in misses:
            by_misconception[record.question.misconception or "-"].append(record)
        now = self.store.clock()
        schedules = self.store.schedules()
        upcoming = sorted(s.due for s in schedules.values() if s.due > now)
        return Summary(
            mode=self.mode,
            answered=len(self.answers),
            correct=sum(r.correct for r in self.answers),
            per_topic={topic: (right, wrong) for topic, (right, wrong) in per_topic.items()},
            misses=misses,
            elapsed_s=(now - self.started_at).total_seconds(),
            due_now=sum(1 for s in schedules.values() if s.due <= now),
            next_due=upcoming[0] if upcoming else None,
            by_misconception=dict(by_misconception),
        )


def with_choice_questions(
    content: Content, options: SessionOptions, selected: list[Question], studied: set[str]
) -> list[Question]:
    """Ask some of the selected O/X items as 4-choice questions (`--kind choice|mixed`);
    distractors prefer `studied` items, so a question does not pull in three new ones."""
    kind = options.kind
    if not builds_from_others(kind):
        return selected

    # Seeded apart from the selection so the same seed gives the same O/X order as before.
    rng = random.Random(None if options.seed is None else options.seed + 1)
    # The generator (cue solver, similarity index) is imported here, after the first question is on
    # screen (QuizSession.prepare), not with the engine: it is the largest import on the quiz's path.
    from studyapp.quiz.choice import mix_into_queue, shared_builder

    return mix_into_queue(shared_builder(content), selected, kind, rng, studied=studied)


def builds_from_others(kind: str | None) -> bool:
    """A session whose questions are partly built from other kinds' (a mix: some O/X items asked as
    4-choice questions), or wholly (a kind `asked_from` another)."""
    known = kinds().get(kind) if kind is not None else None
    return kind == MIXED or (known is not None and known.asked_from is not None)


def first_ready(queue: list[Question]) -> list[Question]:
    """`queue` with its first question whose kind does not prepare late (a glossary question draws
    its options with a generator) moved to the front, so a mixed session can paint it before any
    generator loads; unchanged when it has none."""
    first = next((index for index, question in enumerate(queue) if not kind_of(question).prepares_late), None)
    if not first:  # 0: nothing to move; None: terms alone, prepared at once
        return list(queue)
    return [queue[first], *queue[:first], *queue[first + 1 :]]


def prepared(content: Content, queue: list[Question], seed: int | None = None) -> list[Question]:
    """Each question as its kind asks it (a glossary question draws its options here); one whose
    content is gone since it was selected is left out."""
    # Seeded apart from the selection and the 4-choice mix, which keep their orders as before.
    rng = random.Random(None if seed is None else seed + 2)
    queued = frozenset(question.id for question in queue)
    ready = (kind_of(question).prepare(question, content, rng, queued) for question in queue)
    return [question for question in ready if question is not None]


def due_window_end(now: datetime, tz: tzinfo | None = None) -> datetime:
    """The end of the learner's local day: 'due today' means due before local midnight."""
    local = now.astimezone(tz or local_tz())
    midnight = (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight


def finish_unsaved(store: ProgressStore) -> str | None:
    """At the end of a session, write the answers kept after a failed write.

    None when nothing is left unsaved. Otherwise one line for the learner: the answers are put
    in an export file (the data directory, else the temp directory) that `studyapp progress
    --import-data` merges once the disk has space again; only if no file can be written at all
    are they lost, and the line says so."""
    if not store.unsaved:
        return None
    try:
        store.flush_unsaved()
        return None
    except StoreError as exc:
        problem = str(exc)
    # the export format is needed only when the disk refused the answers, not at every start
    from studyapp.progress.transfer import unsaved_export

    count = len(store.unsaved)
    text = json.dumps(unsaved_export(store), ensure_ascii=False, indent=1)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for folder in (store.path.parent, Path(tempfile.gettempdir())):
        target = folder / f"unsaved-answers-{stamp}.json"
        try:
            write_text_atomically(target, text, prefix=".unsaved-answers-")
        except OSError:
            continue
        return (
            f"{count} answer(s) could not be saved ({problem}); they were written to {target} — "
            f"once that is fixed run: studyapp progress --import-data {target}"
        )
    return f"{count} answer(s) could not be saved ({problem}) and no file could hold them"
