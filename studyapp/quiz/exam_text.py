"""The mock exam's words, shared by the line mode (`studyapp.cli.exam`) and the TUI screens:
the intro, the score line, per-topic scores and every miss with its options' explanations."""

from __future__ import annotations

from studyapp.content.model import Content
from studyapp.i18n import Translator
from studyapp.quiz.exam import KIND_CHOICE, KIND_OX, ExamResult, ExamSession, QuestionResult
from studyapp.quiz.presenting import percent, topic_path
from studyapp.safetext import printable
from studyapp.timetext import format_clock

STRINGS = {
    "ko": {
        "exam.intro": "모의고사: {count}문항 · 제한 시간 {limit} · 합격선 {mark}",
        "exam.kind.choice": "4지선다",
        "exam.kind.ox": "O/X",
        "exam.kind_line": "문항 형식: {kind}",
        "exam.rules": "끝날 때까지 채점·해설·카드·실습 보기는 없습니다. 시간이 다 되면 자동으로 제출됩니다.",
        "exam.schedule_off": "이 시험은 복습 일정(FSRS)을 바꾸지 않습니다 (--schedule로 반영).",
        "exam.schedule_on": "이 시험의 답은 복습 일정(FSRS)에 반영됩니다.",
        "exam.plain_keys": "입력: 1–4 또는 o/x 답 · f 표시 · g N 이동 · n/Enter 다음 · p 이전 · s 제출",
        "exam.clock_starts": "지금 시간이 시작됩니다.",
        "exam.header": "[{number}/{total}] 남은 시간 {left} · 답함 {answered}/{total}{flags}",
        "exam.flags": " · 표시: {numbers}",
        "exam.flagged_mark": "⚑ 검토 표시",
        "exam.your_pick": "현재 답: {answer}",
        "exam.prompt": "> ",
        "exam.unreadable": "알 수 없는 입력입니다. {keys}",
        "exam.flag_on": "{number}번에 검토 표시를 했습니다.",
        "exam.flag_off": "{number}번의 검토 표시를 지웠습니다.",
        "exam.all_answered": "모든 문항에 답했습니다. s로 제출하거나 g N으로 다시 보세요.",
        "exam.late": "시간이 다 되어 마지막 입력은 반영하지 않았습니다.",
        "exam.time_up": "시간 종료: 자동 제출했습니다.",
        "exam.submitted": "제출했습니다.",
        "exam.result": "결과: {score}/{total} ({percent}) · {verdict} (합격선 {mark})",
        "exam.pass": "합격",
        "exam.fail": "불합격",
        "exam.time_used": "사용 시간: {used} / {limit}{auto}",
        "exam.auto": " (시간 종료로 자동 제출)",
        "exam.unanswered": "답하지 않은 문항: {count}",
        "exam.per_topic": "주제별 점수:",
        "exam.topic_line": "  {topic}: {right}/{total} ({percent})",
        "exam.review": "틀린 문항 다시 보기:",
        "exam.no_misses": "틀린 문항이 없습니다.",
        "exam.miss_head": "{number}. [{topic}] {stem}",
        "exam.you": "내 답: {answer}",
        "exam.no_answer": "답하지 않음",
        "exam.key": "정답: {answer}",
        "exam.option_true": "옳음",
        "exam.option_false": "옳지 않음",
        "exam.attempt": "응시 기록 {id} · 틀린 문항 다시: studyapp quiz --mode exam --retry {id}",
        "exam.fallback": "알림: {notice}",
        "exam.save_problem": "저장하지 못했습니다 — 답은 메모리에 있고 다음 답에서 다시 저장합니다: {problem}",
        "exam.not_archived": "이 응시 기록은 저장되지 않았습니다: {problem}",
        "exam.fewer": "이 범위에서 만들 수 있는 문항은 {built}개입니다 (요청 {asked}개).",
        "exam.notice.no_choice": "4지선다 문항을 만들 수 없어 O/X 문항으로 출제합니다.",
        "exam.notice.too_few": "이 범위에는 4지선다를 만들 문항이 모자라 O/X 문항으로 출제합니다.",
        "exam.option_scope": "--time-limit, --pass-mark, --retry, --schedule은 --mode exam에서만 씁니다",
    },
    "en": {
        "exam.intro": "Mock exam: {count} questions · time limit {limit} · pass mark {mark}",
        "exam.kind.choice": "4-choice",
        "exam.kind.ox": "O/X",
        "exam.kind_line": "Questions: {kind}",
        "exam.rules": "No grading, explanations, cards or labs until the end. At the time limit the exam is submitted.",
        "exam.schedule_off": "This exam does not change your review schedule (FSRS); --schedule opts in.",
        "exam.schedule_on": "This exam's answers update your review schedule (FSRS).",
        "exam.plain_keys": "Keys: 1–4 or o/x answer · f flag · g N jump · n/Enter next · p back · s submit",
        "exam.clock_starts": "The clock starts now.",
        "exam.header": "[{number}/{total}] time left {left} · answered {answered}/{total}{flags}",
        "exam.flags": " · flagged: {numbers}",
        "exam.flagged_mark": "⚑ flagged for review",
        "exam.your_pick": "Your answer so far: {answer}",
        "exam.prompt": "> ",
        "exam.unreadable": "Not an input here. {keys}",
        "exam.flag_on": "Question {number} flagged for review.",
        "exam.flag_off": "Flag removed from question {number}.",
        "exam.all_answered": "Every question is answered. s submits; g N goes back to one.",
        "exam.late": "The time ran out: the last input was not counted.",
        "exam.time_up": "Time is up: the exam was submitted.",
        "exam.submitted": "Submitted.",
        "exam.result": "Result: {score}/{total} ({percent}) · {verdict} (pass mark {mark})",
        "exam.pass": "PASS",
        "exam.fail": "FAIL",
        "exam.time_used": "Time used: {used} / {limit}{auto}",
        "exam.auto": " (submitted at the time limit)",
        "exam.unanswered": "Unanswered: {count}",
        "exam.per_topic": "Score per topic:",
        "exam.topic_line": "  {topic}: {right}/{total} ({percent})",
        "exam.review": "Review of every miss:",
        "exam.no_misses": "No misses.",
        "exam.miss_head": "{number}. [{topic}] {stem}",
        "exam.you": "Your answer: {answer}",
        "exam.no_answer": "no answer",
        "exam.key": "Answer: {answer}",
        "exam.option_true": "true",
        "exam.option_false": "false",
        "exam.attempt": "Attempt {id} · retry its misses: studyapp quiz --mode exam --retry {id}",
        "exam.fallback": "Note: {notice}",
        "exam.save_problem": "Could not save — the answer is kept in memory and saved with the next one: {problem}",
        "exam.not_archived": "This attempt was not archived: {problem}",
        "exam.fewer": "This scope holds {built} questions ({asked} asked for).",
        "exam.notice.no_choice": "4-choice questions are not available here: this exam asks O/X questions.",
        "exam.notice.too_few": "Too few items for 4-choice questions in this scope: this exam asks O/X questions.",
        "exam.option_scope": "--time-limit, --pass-mark, --retry and --schedule go with --mode exam",
    },
}


def register(t: Translator) -> None:
    t.register(STRINGS)


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


def intro_lines(session: ExamSession, t: Translator) -> list[str]:
    register(t)
    lines = [
        t(
            "exam.intro",
            count=session.total,
            limit=format_clock(session.time_limit_s),
            mark=percent(session.settings.pass_mark),
        ),
        t("exam.kind_line", kind=t(f"exam.kind.{session.kind}")),
        t("exam.rules"),
        t("exam.schedule_on") if session.settings.schedule else t("exam.schedule_off"),
    ]
    if session.notice:
        lines.append(t("exam.fallback", notice=t(session.notice)))
    if session.requested > session.total and session.settings.retry_of is None:
        lines.append(t("exam.fewer", built=session.total, asked=session.requested))
    return lines


def result_lines(result: ExamResult, content: Content, t: Translator) -> list[str]:
    register(t)
    lines = [score_line(result, t), time_used_line(result, t)]
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
    if question.kind == KIND_CHOICE:
        for number, option in enumerate(question.options, start=1):
            marks = ("✓ " if str(number) == question.answer else "  ") + (
                "← " if record.response == str(number) else ""
            )
            truth = t("exam.option_true") if option.true_statement else t("exam.option_false")
            lines.append(f"   {marks}{number}) {option.text} — {truth}")
            lines.append(f"        {option.explanation}")
    else:
        lines.append(f"   {question.explanation}")
    item = content.items.get(question.item_ids[0]) if question.item_ids else None
    if question.kind == KIND_OX and item is not None and item.exam_note:
        lines.append(f"   {item.exam_note}")
    return lines
