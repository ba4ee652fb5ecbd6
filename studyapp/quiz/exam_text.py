"""The mock exam's words, shared by the line mode (`studyapp.cli.exam`) and the TUI screens:
the intro, the score line, per-topic scores and every miss with its options' explanations."""

from __future__ import annotations

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.exam import ExamResult, ExamSession, QuestionResult
from studyapp.quiz.kinds import kind_of
from studyapp.quiz.pass_rule import RULE_TOPIC_CUTOFF
from studyapp.quiz.presenting import percent, topic_path
from studyapp.quiz.question import Option, Question
from studyapp.safetext import printable
from studyapp.timetext import format_clock

# ---------------------------------------------------------------------------------------------


def score_line(result: ExamResult, t: Translator) -> str:
    """`Result: 7/10 (70%) · PASS (pass mark 60%)` — the first line of every result."""
    return t(
        "exam.result",
        score=result.score,
        total=result.total,
        percent=percent(result.percent),
        verdict=t("exam.pass") if result.passed else t("exam.fail"),
        mark=percent(result.settings.pass_mark),
    )


def verdict_line(result: ExamResult, content: Content, t: Translator) -> str:
    """Which rule decided: `과락: 토픽 X 35% < 40%`, or the pass mark (and no 과락, when one is set)."""
    decided = result.verdict
    if decided.rule == RULE_TOPIC_CUTOFF and decided.topic is not None:
        return t(
            "exam.verdict_cutoff",
            topic=topic_path(content, decided.topic),
            share=percent(decided.topic_share or 0.0),
            cutoff=percent(decided.cutoff or 0.0),
        )
    line = t(
        "exam.verdict_mark_pass" if decided.passed else "exam.verdict_mark_fail",
        percent=percent(decided.share),
        mark=percent(decided.pass_mark),
    )
    if decided.cutoff is not None:
        line += " · " + t("exam.verdict_no_cutoff", cutoff=percent(decided.cutoff))
    return line


def time_used_line(result: ExamResult, t: Translator) -> str:
    return t(
        "exam.time_used",
        used=format_clock(result.time_used_s),
        limit=format_clock(result.time_limit_s),
        auto=t("exam.auto") if result.auto_submitted else "",
    )


def topic_scores(result: ExamResult, content: Content) -> list[tuple[str, int, int]]:
    """(topic id, right, total) per topic, in the content's topic order."""
    order = {topic.id: index for index, topic in enumerate(content.ordered_topics())}
    ranked = sorted(result.per_topic.items(), key=lambda kv: order.get(kv[0], 99))
    return [(topic_id, right, total) for topic_id, (right, total) in ranked]


def intro_lines(session: ExamSession, t: Translator, keys: bool = False) -> list[str]:
    """The intro; `keys`: the front end changes settings with keys (the TUI), so name the key
    rather than the command-line option."""
    retry_of = session.settings.retry_of
    if session.resumed:  # the same attempt again: say so, with what it has left (m4)
        first = t(
            "exam.intro_resume",
            id=session.attempt_id[:8],
            answered=len(session.answers),
            count=session.total,
            left=format_clock(session.remaining_s()),
            mark=percent(session.settings.pass_mark),
        )
    else:
        first = t(
            "exam.intro_retry" if retry_of else "exam.intro",
            count=session.total,
            limit=format_clock(session.time_limit_s),
            mark=percent(session.settings.pass_mark),
            id=(retry_of or "")[:8],
        )
    lines = [
        first,
        t("exam.kind_line", kind=t(f"exam.kind.{session.kind}")),
        t("exam.rules"),
        t("exam.schedule_on")
        if session.settings.schedule
        else t("exam.schedule_off_key" if keys else "exam.schedule_off"),
    ]
    if session.notice:
        lines.append(t("exam.fallback", notice=t(session.notice)))
    if session.requested > session.total and session.settings.retry_of is None:
        lines.append(t("exam.fewer", built=session.total, asked=session.requested))
    return lines


def result_lines(result: ExamResult, content: Content, t: Translator) -> list[str]:
    lines = [score_line(result, t), verdict_line(result, content, t), time_used_line(result, t)]
    if result.unanswered:
        lines.append(t("exam.unanswered", count=result.unanswered))
    lines.append(t("exam.per_topic"))
    for topic_id, right, total in topic_scores(result, content):
        lines.append(
            t(
                "exam.topic_line",
                topic=topic_path(content, topic_id),
                right=right,
                total=total,
                percent=percent(right / total if total else 0.0),
            )
        )
    lines += ["", t("exam.review")]
    if not result.misses:
        lines.append("  " + t("exam.no_misses"))
    for record in result.misses:
        lines += ["", *miss_lines(record, content, t)]
    lines += ["", t("exam.attempt", id=result.attempt_id[:8])]
    return lines


def archive_warning(session: ExamSession, t: Translator) -> str | None:
    if session.save_problem is None:
        return None
    key = "exam.not_archived" if session.finished else "exam.save_problem"
    return t(key, problem=printable(session.save_problem))


def option_truth(question: Question, option: Option, t: Translator) -> str:
    """` — 옳음` after a 4-choice option's statement; nothing after a term (✓ marks the one defined)."""
    if not kind_of(question).options_are_statements:
        return ""
    return " — " + (t("exam.option_true") if option.true_statement else t("exam.option_false"))


def miss_lines(record: QuestionResult, content: Content, t: Translator) -> list[str]:
    """One miss: the stem, the learner's answer, the key, and every option's explanation."""
    question = record.question
    lines = [
        t(
            "exam.miss_head",
            number=record.number,
            topic=topic_path(content, question.topic),
            stem=question.stem,
        ),
        "   "
        + t("exam.you", answer=record.response if record.response is not None else t("exam.no_answer"))
        + " · "
        + t("exam.key", answer=question.answer),
    ]
    if question.options:  # 4-choice, or glossary (its options are terms, explained by definitions)
        for number, option in enumerate(question.options, start=1):
            mine = record.response == str(number)  # ✓ the answer, ✗ a wrong pick (as in the quiz)
            marks = ("✓ " if str(number) == question.answer else "✗ " if mine else "  ") + (
                "← " if mine else ""
            )
            lines.append(f"   {marks}{number}) {option.text}{option_truth(question, option, t)}")
            lines.append(f"        {option.explanation}")
    else:
        lines.append(f"   {question.explanation}")
    note = kind_of(question).exam_note(question, content)
    if note:
        lines.append(f"   {note}")
    return lines
