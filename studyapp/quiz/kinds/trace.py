"""Trace reading, "[트레이스: …] 다음 발췌에서 …?": a compact excerpt of a real profiler trace and four
options, 1-4 picks, 0 is "don't know". The excerpt and the key are computed from the trace's events
(studyapp.quiz.trace_reading), never typed by hand, so a changed trace file changes the question.

Sources: the traces shipped under content/traces/ (traces.yaml), and the traces the profiler lab
recorded on the learner's machine — the newest run under `<data dir>/runs/profiler/` — when there
are any (none: nothing, no error). A trace question that asks for a number (a share, a gap, a
speedup) is the `trace-drill` kind (kinds/trace_drill.py), which shares the sources below.

Reading traces costs a few hundred ms (gzip + JSON), so these kinds are `on_request`: their
questions join a session that asks for them (`--kind trace`, `--kind trace-drill`) and the mock
exam's mix, not the bank that Home and the stats count at every start. The trace modules are
imported on first use: every quiz imports this package, and its first paint is measured.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.kinds.base import (
    INPUT_PICK,
    Credit,
    ExamScope,
    FeedbackBlock,
    FeedbackView,
    Graded,
    QuestionKind,
    graded_pick,
    row_answer_index,
    row_ids,
)
from studyapp.quiz.question import Option, Question

if TYPE_CHECKING:
    from studyapp.content.traces import TraceFile
    from studyapp.quiz.engine import Feedback
    from studyapp.quiz.trace_reading import TraceQuestion

KIND_TRACE = "trace"
LAB_RUNS = ("runs", "profiler")  # under the data directory: studyapp.labrunner.runner.default_out_dir
# A learner's trace bigger than this on disk is left out: reading it would stall the quiz's start
# (the lab's own traces are well under a megabyte; a long custom recording can be hundreds).
MAX_LEARNER_TRACE_BYTES = 16 * 1024 * 1024
LEARNER_TOPIC = "pytorch-profiling"


# -- the sources, shared with kinds/trace_drill.py --------------------------------------------


def learner_traces(data_dir: Path) -> list[TraceFile]:
    """The traces of the newest profiler lab run that recorded any: its first profiled cycle, and
    the eager/compiled pair of its `--compile` step. [] when the lab never ran here."""
    from studyapp.content.traces import TraceFile

    runs = data_dir.joinpath(*LAB_RUNS)
    try:
        stamps = sorted((run for run in runs.iterdir() if run.is_dir()), reverse=True)
    except OSError:
        return []  # no lab run yet (or an unreadable folder: nothing to ask from)
    from studyapp.i18n import en as english
    from studyapp.i18n import ko as korean

    ko, en = korean.STRINGS, english.STRINGS

    def mine(trace_id: str, path: Path, title_key: str, stamp: str, eager_of: str | None = None) -> TraceFile:
        return TraceFile(
            trace_id,
            path,
            ko[title_key].format(stamp=stamp),
            en[title_key].format(stamp=stamp),
            LEARNER_TOPIC,
            en["trace.learner_source"],
            ko["trace.learner_source"],
            eager_of=eager_of,
        )

    for run in stamps:
        stamp = run.name[:15]  # 20261205T141259 of the runner's folder name
        found: list[TraceFile] = []
        cycles = sorted(run.glob("*.pt.trace.json*"))
        if cycles and _small(cycles[0]):
            found.append(mine("my-run", cycles[0], "trace.learner_title", stamp))
        eager, compiled = run / "compile" / "eager.json", run / "compile" / "compiled.json"
        if _small(eager) and _small(compiled):
            found.append(mine("my-eager", eager, "trace.learner_eager", stamp))
            found.append(mine("my-compiled", compiled, "trace.learner_compiled", stamp, eager_of="my-eager"))
        if found:
            return found
    return []


def _small(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size <= MAX_LEARNER_TRACE_BYTES
    except OSError:
        return False


class _Computed(NamedTuple):  # not a frozen dataclass: this module is imported at every quiz start
    signature: tuple[tuple[str, str, tuple[int, int, int] | None], ...]
    questions: tuple[TraceQuestion, ...]


_computed: dict[tuple[str, str], _Computed] = {}
# Every trace question handed out, by id: a question's options and explanation are read here
# (a `Question` carries its prompt and key, not the options of a kind added later).
_handed_out: dict[str, TraceQuestion] = {}


def trace_questions(content: Content, data_dir: Path | None = None) -> tuple[TraceQuestion, ...]:
    """Every trace question of the shipped traces and the learner's own, in the content's topics.
    Computed again only when a trace file changed (its path, size, modification time or inode)."""
    from studyapp import locations
    from studyapp.content.traces import TraceProblem, file_state, read_manifest, trace_facts
    from studyapp.content.yamlfile import FileProblem
    from studyapp.quiz.trace_reading import problems, questions_from

    home = data_dir or locations.data_dir()
    try:
        files = read_manifest(content.root)
    except (TraceProblem, FileProblem, OSError):
        files = []  # `studyapp check` reports a broken manifest; the quiz asks what it can
    files = [*files, *learner_traces(home)]
    signature = tuple((trace.id, str(trace.path), file_state(trace)) for trace in files)
    key = (str(content.root), str(home))
    cached = _computed.get(key)
    if cached is None or cached.signature != signature:
        facts = []
        for trace in files:
            try:
                facts.append(trace_facts(trace))
            except (TraceProblem, OSError):
                continue  # a broken or vanished trace asks nothing
        made = tuple(
            question
            for question in questions_from(facts)
            if question.topic in content.topics and not problems(question)
        )
        cached = _computed[key] = _Computed(signature, made)
    _handed_out.update((question.id, question) for question in cached.questions)
    return cached.questions


def traced(question: Question) -> TraceQuestion:
    """The trace question behind `question` (handed out by `trace_questions` in this process)."""
    found = _handed_out.get(question.id)
    if found is None:
        raise ValueError(f"trace question '{question.id}' was asked before its trace was read")
    return found


def handed_out(question_id: str) -> bool:
    return question_id in _handed_out


def stem(question: TraceQuestion) -> str:
    """The question, then the excerpt under it (plain text: the front ends never read it as markup)."""
    return "\n".join([question.prompt, *question.excerpt]) if question.excerpt else question.prompt


def as_question(question: TraceQuestion, kind: str) -> Question:
    """A trace question as every front end and the mock exam ask it; a pick question's options are
    all evidence about the one question (their item id is its id), the key explained."""
    key = question.key
    return Question(
        id=question.id,
        kind=kind,
        topic=question.topic,
        prompt=stem(question),
        answer=str(key + 1) if key is not None else repr(question.number),
        explanation=question.explanation,
        tolerance=question.tolerance,
        unit=question.unit,
        options=tuple(
            Option(question.id, text, question.explanation if index == key else "", index == key)
            for index, text in enumerate(question.options)
        )
        if key is not None
        else (),
    )


def explained(question: TraceQuestion, t: Translator) -> str:
    return f"{question.explanation}\n{t('trace.source', source=question.source)}"


def dump_row(question: TraceQuestion) -> dict[str, Any]:
    """`quiz --kind trace|trace-drill --dump N --json`: the question as a script reads it."""
    row: dict[str, Any] = {
        "id": question.id,
        "kind": "trace" if question.key is not None else "trace-drill",
        "topic": question.topic,
        "trace": question.trace_id,
        "stem": question.prompt,
        "excerpt": list(question.excerpt),
        "explanation": question.explanation,
        "source": question.source,
        "digest": question.digest,
    }
    if question.key is not None:
        row["options"] = [{"item_id": question.id, "text": text} for text in question.options]
        row["answer"] = question.key
    else:
        row.update(answer=question.number, tolerance=question.tolerance, unit=question.unit)
    return row


# -- the kind ------------------------------------------------------------------------------------


class TraceKind(QuestionKind):
    name: ClassVar[str] = KIND_TRACE
    guess_rate: ClassVar[float] = 0.25
    input: ClassVar[str] = INPUT_PICK
    on_request: ClassVar[bool] = True
    exam_share: ClassVar[float] = 0.1  # 3 of a 30-question mock exam
    own_skill: ClassVar[bool] = True  # reading a trace: the bank's items do not teach it
    label_key: ClassVar[str | None] = "trace.label"
    hint_key: ClassVar[str] = "choice.hint"
    unreadable_key: ClassVar[str] = "choice.unreadable"
    plain_prompt_key: ClassVar[str] = "plain.prompt_choice"
    plain_unreadable_key: ClassVar[str] = "plain.unreadable_choice"

    def source(self, content: Content) -> Iterable[Question]:
        return [as_question(q, self.name) for q in trace_questions(content) if q.key is not None]

    def prepare(
        self, question: Question, content: Content, rng: random.Random, queued: Collection[str]
    ) -> Question | None:
        """None when its trace is gone or no longer supports it (the learner's run was deleted)."""
        if question.id not in _handed_out:
            trace_questions(content)
        return question if question.id in _handed_out else None

    def read(self, question: Question, response: str, unsure: bool) -> Graded | None:
        asked = traced(question)

        def credits(picked: int | None) -> list[Credit]:
            answer = "?" if picked is None else str(picked + 1)
            return [Credit(question.id, answer, picked == asked.key, unsure, question.text_hash)]

        return graded_pick(response, unsure, len(asked.options), credits, lambda p: p == asked.key)

    def option_lines(self, question: Question) -> list[str]:
        return [f"{index + 1}) {text}" for index, text in enumerate(traced(question).options)]

    def answer_text(self, question: Question) -> str:
        asked = _handed_out.get(question.id)
        return asked.answer_text if asked is not None else question.answer

    def feedback(self, feedback: Feedback, content: Content, t: Translator) -> FeedbackView:
        """The key with the computation that makes it the key, and the trace's source."""
        asked = traced(feedback.question)
        assert asked.key is not None
        blocks = [
            FeedbackBlock(
                explained(asked, t),
                heading=f"{asked.key + 1}) {asked.options[asked.key]}",
                true_statement=True,
                verdict=True,
                tags=(t("choice.key"),),
                emphasised=True,
            )
        ]
        if feedback.picked is not None and feedback.picked != asked.key:
            blocks.append(
                FeedbackBlock(
                    t("trace.not_key"),
                    heading=f"{feedback.picked + 1}) {asked.options[feedback.picked]}",
                    true_statement=False,
                    verdict=False,
                    tags=(t("choice.picked"),),
                    emphasised=True,
                )
            )
        response = (
            t("choice.no_pick")
            if feedback.picked is None
            else t("choice.your_pick", number=feedback.picked + 1)
        )
        return FeedbackView(
            answer=t("choice.answer", number=asked.key + 1),
            response=response,
            blocks=tuple(blocks),
            says_unsure=feedback.picked is None,
        )

    def miss_line(self, question: Question) -> str:
        """The question without its excerpt, and the key."""
        return f"[{question.id}] {question.prompt.split(chr(10), 1)[0]} → {self.answer_text(question)}"

    def recorded_answer(self, question: Question, answer: str, content: Content, t: Translator) -> str:
        if answer == "?":
            return t("choice.no_pick")
        asked = _handed_out.get(question.id)
        try:
            return f"{answer}) {asked.options[int(answer) - 1]}" if asked is not None else answer
        except (ValueError, IndexError):
            return answer

    # -- the mock exam: `exam_share` of a 4-choice exam (studyapp.quiz.exam.build_questions) ---------

    def exam_questions(
        self, content: Content, scope: ExamScope, count: int, rng: random.Random
    ) -> list[Question]:
        """Up to `count` trace questions with options in the scope's topics, drawn at random."""
        if count <= 0:
            return []
        pool = [q for q in self.source(content) if scope.admits(q)]
        return rng.sample(pool, min(count, len(pool)))

    def dump_row(self, question: Question) -> dict[str, Any]:
        """The excerpt apart from the stem, the trace and its source (`--dump --json`)."""
        return dump_row(traced(question))

    def exam_from_row(self, row: dict[str, Any], content: Content) -> Question | None:
        """The question as asked when its trace still gives the same options and key; None (shown
        as archived) when the trace changed or is gone since."""
        current = _current(row, content)
        if current is None or current.key is None:
            return None
        texts = [str(option.get("text", "")) for option in row.get("options", []) if isinstance(option, dict)]
        if tuple(texts) != current.options or row_answer_index(row, len(texts)) != current.key:
            return None
        return as_question(current, self.name)

    def exam_retried(
        self, row: dict[str, Any], content: Content, rng: random.Random, shared: dict[str, Any]
    ) -> list[Question]:
        """Today's question from the same trace and template (its key is computed again)."""
        current = _current(row, content)
        return [as_question(current, self.name)] if current is not None and current.key is not None else []


def _current(row: dict[str, Any], content: Content) -> TraceQuestion | None:
    """Today's trace question of an archived row's id, if its trace still asks it."""
    ids = row_ids(row)
    return {q.id: q for q in trace_questions(content)}.get(ids[0]) if ids else None


KIND = TraceKind()
