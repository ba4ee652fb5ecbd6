"""`studyapp quiz`: options, the 4-choice and glossary dumps, and handing over to the TUI, the
line mode or the mock exam (`studyapp.cli.exam`)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import date
from typing import Any

from studyapp.cli.common import load_content, open_store, run_tui
from studyapp.cli.exam_options import add_exam_options, check_option_scope
from studyapp.cli.option_errors import option_error
from studyapp.clock import local_today
from studyapp.content.model import Content
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator
from studyapp.quiz.engine import MIXED, MODES, SessionOptions, default_kind, quiz_kinds, topic_family


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise option_error("cli.not_date", value=repr(text)) from None


# An exam date further out than this is almost surely a mistyped year.
_EXAM_DATE_HORIZON_DAYS = 3 * 366


def parse_exam_date(text: str) -> date:
    """An exam date from today on: a past or far-off date would silently change the new-item quota."""
    exam = _parse_date(text)
    today = local_today()  # STUDYAPP_NOW moves it too
    if exam < today:
        raise option_error("settings.past_date", value=exam.isoformat(), today=today.isoformat())
    if (exam - today).days > _EXAM_DATE_HORIZON_DAYS:
        raise option_error("settings.far_date", value=exam.isoformat())
    return exam


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    quiz = sub.add_parser("quiz", parents=[common], help="drill O/X items with spaced repetition")
    quiz.add_argument("--topic", help="only this topic (and its sub-topics)")
    quiz.add_argument("--checklist", metavar="ID", help="only items linked to this checklist item")
    quiz.add_argument("--mode", choices=MODES, default="due", help="due (default), new, wrong, exam, cram")
    quiz.add_argument("--count", type=int, help="how many questions")
    quiz.add_argument(
        "--kind",
        choices=quiz_kinds(),  # every kind module registered (a new kind is one file)
        help="ox, choice (4지선다), drill, glossary (다음 설명에 해당하는 것은?), or mixed "
        "(default: mixed; ox for --mode wrong; choice for --mode exam)",
    )
    quiz.add_argument(
        "--dump",
        type=_positive_int,
        metavar="N",
        help="print N generated questions (with --kind choice, glossary, trace or trace-drill) and exit; "
        "progress untouched",
    )
    quiz.add_argument("--json", action="store_true", help="with --dump: print JSON")
    quiz.add_argument("--plain", action="store_true", help="line mode without the TUI (reads o/x from stdin)")
    quiz.add_argument("--exam-date", type=parse_exam_date, metavar="YYYY-MM-DD", help="store your exam date")
    quiz.add_argument(
        "--no-drills",
        action="store_true",
        help="O/X items only (and 4-choice questions built from them): no calculation drills or glossary terms",
    )
    quiz.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    add_exam_options(quiz)  # --time-limit, --pass-mark, --retry, --schedule/--no-schedule
    quiz.set_defaults(handler=cmd_quiz)


def _session_options(args: argparse.Namespace) -> SessionOptions:
    return SessionOptions(
        mode=args.mode,
        topic=args.topic,
        checklist=args.checklist,
        count=args.count,
        include_drills=not args.no_drills,
        seed=args.seed,
        kind=args.kind or default_kind(args.mode),
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise option_error("cli.not_whole_number", value=repr(text)) from None
    if value < 1:
        raise option_error("cli.at_least_1", value=repr(text))
    return value


def dump_questions(args: argparse.Namespace, content: Content) -> int:
    """`quiz --kind NAME --dump N [--json]`: questions as the kind builds them for a mock exam,
    for scripts (stem, options, answer); no store is opened. Each row is the kind's
    (`QuestionKind.dump_row`): a 4-choice or glossary question keeps its generator's shape."""
    from studyapp.quiz.kinds import kind_of
    from studyapp.quiz.kinds.base import ExamScope

    kind = kind_of(args.kind)
    topics = frozenset(topic_family(content, args.topic)) if args.topic else None
    items = [item for item in content.items.values() if topics is None or item.topic in topics]
    rng = random.Random(args.seed)
    questions = kind.exam_questions(content, ExamScope(items, topics, None), args.dump, rng)
    rows = [kind.dump_row(q) for q in questions]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    for number, row in enumerate(rows, start=1):
        stem = row["stem"].replace("\n", "\n   ")  # a glossary stem: the definition on its own line
        print(f"{number}. [{row['topic']}] {stem}")
        for index, option in enumerate(row["options"]):
            mark = "*" if index == row["answer"] else " "
            print(f"  {mark}{index + 1}) {option['text']}  [{option['item_id']}]")
        if not row["options"]:
            print(f"  * {row['answer']}")
    return EXIT_OK


def cmd_quiz(args: argparse.Namespace, t: Translator) -> int:
    check_option_scope(args, t)
    if args.dump is not None and (args.kind is None or args.kind == MIXED):
        raise StudyappError(
            "quiz: --dump prints one kind's generated questions; name it with --kind (e.g. choice)"
        )
    if args.json and args.dump is None:
        raise StudyappError("quiz: --json goes with --dump N (the quiz itself is interactive)")
    content = load_content(args)
    if args.kind == "glossary" and not content.glossary:
        raise StudyappError(t("glossary.none"))
    if args.dump is not None:
        return dump_questions(args, content)
    store = open_store(args)
    if args.exam_date:
        store.set_exam_date(args.exam_date)
    # the exam session and line mode are imported only when asked for: start-up of the TUI quiz
    # is measured (benchmarks/startup.py) and neither is on its path
    if args.mode == "exam":  # the mock exam: studyapp/quiz/exam.py
        from studyapp.cli.exam import run_exam_command

        return run_exam_command(args, t, content, store)
    options = _session_options(args)
    if args.plain:
        from studyapp.cli.plain import run_plain

        return run_plain(content, store, options, t, sys.stdin, sys.stdout)
    return run_tui(args, t, start="quiz", content=content, store=store, options=options)
