"""The mock exam's options on `studyapp quiz` (--time-limit, --pass-mark, --retry, --resume,
--schedule), apart from the exam itself: every `studyapp quiz` builds its parser, and only
`--mode exam` needs the exam session (studyapp.cli.exam), so the quiz's start-up does not pay for it.
"""

from __future__ import annotations

import argparse

from studyapp.cli.option_errors import option_error
from studyapp.errors import StudyappError
from studyapp.i18n import Translator
from studyapp.timetext import parse_pass_mark, parse_time_limit


def _time_limit(text: str) -> float:
    try:
        return parse_time_limit(text)
    except ValueError:
        raise option_error("cli.not_time_limit", value=repr(text)) from None


def _pass_mark(text: str) -> float:
    value = text.strip()
    if value.lstrip("+-").isdigit():  # a whole number is a percentage: `1` is 1 %, as `2` is 2 %
        value += "%"
    try:
        mark = parse_pass_mark(value)
    except ValueError:
        raise option_error("cli.not_pass_mark", value=repr(text)) from None
    if not MIN_PASS_MARK <= mark <= 1:  # 0.0001 would be shown as "pass mark 0%"
        raise option_error("cli.pass_mark_range", value=repr(text))
    return mark


MIN_PASS_MARK = 0.01


def add_exam_options(quiz: argparse.ArgumentParser) -> None:
    group = quiz.add_argument_group("mock exam (--mode exam)")
    group.add_argument(
        "--time-limit",
        type=_time_limit,
        metavar="MIN",
        help="time limit in minutes (or 90s, 1h); default 1 min a question",
    )
    group.add_argument(
        "--pass-mark", type=_pass_mark, metavar="PCT", help="pass mark in percent (default 60)"
    )
    group.add_argument(
        "--retry", metavar="ATTEMPT", help="retry the misses of an attempt (id from `progress`, or last)"
    )
    group.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="ATTEMPT",
        help="go on with an exam that ended without a submit (its id, or the newest)",
    )
    group.add_argument(
        "--schedule",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let the exam's answers update the FSRS schedule (default: --no-schedule)",
    )


def uses_exam_options(args: argparse.Namespace) -> bool:
    return any(
        getattr(args, name, None) is not None
        for name in ("time_limit", "pass_mark", "retry", "schedule", "resume")
    )


def check_option_scope(args: argparse.Namespace, t: Translator) -> None:
    """Exam-only options given with another mode: a usage error, not silently ignored."""
    if args.mode != "exam" and uses_exam_options(args):
        raise StudyappError(t("exam.option_scope"))
