"""`studyapp quiz --mode exam`: the mock exam's options, its line mode and its result text.

Options (only with `--mode exam`): `--time-limit` (minutes, or `90s`, `1h`), `--pass-mark`
(percent, default 60), `--retry ATTEMPT` (the misses of an archived attempt; `last` for the
latest), `--schedule` / `--no-schedule` (default: the exam does not touch FSRS). `--count`,
`--topic`, `--checklist`, `--seed` work as for any quiz; `--kind ox` asks O/X instead of 4-choice,
`--kind glossary` only "다음 설명에 해당하는 것은?" questions (the default mix has a share of them).

Line mode (`--plain`): numbered questions, the time left shown with each; `1`–`4` (or `o`/`x`)
answers, `f` flags the question for review, `g N` jumps to question N, `n`/Enter next, `p` back,
`s` submits (so do `q` and the end of input). The clock is checked at every input: an answer typed
after the time ran out is not counted, and the exam is submitted.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TextIO

from studyapp.cli.common import run_tui
from studyapp.content.model import Content
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator
from studyapp.progress import exams, goals
from studyapp.progress.store import ProgressStore
from studyapp.quiz.engine import MIXED
from studyapp.quiz.exam import (
    DEFAULT_KIND,
    DEFAULT_PASS_MARK,
    ExamSession,
    ExamSettings,
    retry_questions,
    retry_time_limit,
)
from studyapp.quiz.exam_resume import find_unfinished, resume_session
from studyapp.quiz.exam_text import archive_warning, intro_lines, result_lines
from studyapp.timetext import format_clock


def settings_from_args(
    args: argparse.Namespace, default_pass_mark: float | None = None, topic_cutoff: float | None = None
) -> ExamSettings:
    """The exam's settings; without --pass-mark, `default_pass_mark` (the learner's stored one);
    `topic_cutoff`: the learner's 과락 share (settings, F8)."""
    default_pass_mark = default_pass_mark or ExamSettings().pass_mark
    kind = getattr(args, "kind", None)
    if kind in (None, MIXED):
        kind = DEFAULT_KIND  # a mock exam's own mix: 4-choice with the shares other kinds take
    return ExamSettings(
        count=args.count if args.count is not None else ExamSettings().count,
        time_limit_s=args.time_limit,
        pass_mark=args.pass_mark if args.pass_mark is not None else default_pass_mark,
        topic_cutoff=topic_cutoff,
        kind=kind,
        topic=args.topic,
        checklist=args.checklist,
        schedule=bool(args.schedule),
        seed=args.seed,
    ).validated()


def session_from_args(content: Content, store: ProgressStore, args: argparse.Namespace) -> ExamSession:
    settings = settings_from_args(args, goals.pass_mark(store), goals.topic_cutoff(store))
    if args.retry is not None:  # `--retry ''` is a mistake to name, not a fresh exam
        attempt = exams.find_attempt(store, args.retry)
        damage = exams.attempt_problem(attempt)
        if damage is not None:  # stored before imports checked inside the JSON columns
            raise StudyappError(f"attempt {attempt.short_id} cannot be retried: {damage}")
        questions = retry_questions(content, attempt)
        if args.count is not None:
            questions = questions[: args.count]
        old = attempt.settings
        per_question = (old.get("time_limit_s") or 0) / max(1, attempt.total)
        settings = replace(
            settings,
            retry_of=attempt.uid,
            pass_mark=settings.pass_mark
            if args.pass_mark is not None
            else float(old.get("pass_mark") or DEFAULT_PASS_MARK),
            topic_cutoff=old.get("topic_cutoff"),  # the attempt's own rules, as its pass mark
            time_limit_s=settings.time_limit_s
            if settings.time_limit_s is not None
            else (retry_time_limit(per_question, len(questions)) if per_question else None),
        )
        return ExamSession(content, store, settings, questions=questions)
    return ExamSession(content, store, settings)


def run_exam_command(args: argparse.Namespace, t: Translator, content: Content, store: ProgressStore) -> int:
    if getattr(args, "resume", None) is not None:  # the same attempt, with the time it had left
        session = resume_session(content, store, find_unfinished(store, args.resume))
    else:
        # numpy and the model load only for an exam, not for every command that imports this
        from studyapp.report.prediction import attach_prediction

        session = session_from_args(content, store, args)
        attach_prediction(session)  # archived with the attempt: "predicted 72 %, scored 68 %"
    if args.plain:
        return run_plain_exam(session, t, sys.stdin, sys.stdout)
    return run_tui(args, t, start="exam", content=content, store=store, options=session)


# ---------------------------------------------------------------------------------------------
# --plain
# ---------------------------------------------------------------------------------------------


def question_lines(session: ExamSession, t: Translator) -> list[str]:
    question = session.current
    flags = sorted(n + 1 for n in session.flags)
    lines = [
        t(
            "exam.header",
            number=session.position + 1,
            total=session.total,
            left=format_clock(session.remaining_s()),
            answered=len(session.answers),
            flags=t("exam.flags", numbers=", ".join(map(str, flags))) if flags else "",
        ),
        question.stem,
    ]
    for number, option in enumerate(question.options, start=1):
        lines.append(f"  {number}) {option.text}")
    if session.position in session.flags:
        lines.append(t("exam.flagged_mark"))
    current = session.answers.get(session.position)
    if current is not None:
        lines.append(t("exam.your_pick", answer=current))
    return lines


def run_plain_exam(session: ExamSession, t: Translator, stdin: TextIO, stdout: TextIO) -> int:

    def say(*lines: str) -> None:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()

    say(*intro_lines(session, t), t("exam.plain_keys"), t("exam.clock_starts"))
    session.start()
    auto = False
    while True:
        say("", *question_lines(session, t))
        stdout.write(t("exam.prompt"))
        stdout.flush()
        line = stdin.readline()
        if session.time_up():  # checked at every input: a late answer does not count
            if line:
                say(t("exam.late"))
            auto = True
            break
        if not line:
            say("")
            break
        command = line.strip()
        lowered = command.lower()
        if lowered in ("s", "q", "submit"):
            break
        if lowered in ("", "n"):
            session.next()
            continue
        if lowered == "p":
            session.previous()
            continue
        if lowered == "f":
            flagged = session.toggle_flag()
            key = "exam.flag_on" if flagged else "exam.flag_off"
            say(t(key, number=session.position + 1))
            continue
        if lowered.startswith("g"):
            try:
                session.go(int(lowered[1:].strip()))
            except (ValueError, StudyappError) as exc:
                say(
                    str(exc)
                    if isinstance(exc, StudyappError)
                    else t("exam.unreadable", keys=t("exam.plain_keys"))
                )
            continue
        if session.answer(command):
            warning = archive_warning(session, t)
            if warning:
                say(warning)
            following = session.next_unanswered()
            if following is None:
                say(t("exam.all_answered"))
            else:
                session.position = following
            continue
        say(t("exam.unreadable", keys=t("exam.plain_keys")))
    result = session.submit(auto=auto)
    say("", t("exam.time_up") if auto else t("exam.submitted"), "", *result_lines(result, session.content, t))
    warning = archive_warning(session, t)
    if warning:
        say(warning)
    return EXIT_OK
