"""Command handlers for the quiz, labs and progress (registered by `studyapp.cli`).

Each handler imports its engine lazily so `studyapp check` stays fast, and nothing on the quiz
path imports torch, numpy or pytest.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from studyapp import locations
from studyapp.errors import EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.i18n import Translator


def _say_waiting(line: str) -> None:
    print(f"studyapp: {line}", file=sys.stderr, flush=True)


def open_store(args: argparse.Namespace, read_only_ok: bool = False) -> Any:
    """The learner's progress store; a moved-aside bad file is announced in one line.

    `read_only_ok`: a command that only reads (the progress report) still works on a data
    directory that cannot be written; every other command refuses it up front, in one line."""
    from studyapp.progress.store import ProgressStore

    store = ProgressStore.in_dir(
        locations.data_dir(getattr(args, "data_dir", None)), read_only_ok=read_only_ok, on_wait=_say_waiting
    )
    if store.notice:
        print(f"studyapp: {store.notice}", file=sys.stderr)
    return store


def load_content(args: argparse.Namespace) -> Any:
    """The checked content (cached in the data directory while the files are unchanged)."""
    from studyapp.content.cache import load_cached

    cache_dir = locations.data_dir(getattr(args, "data_dir", None)) / "cache"
    return load_cached(locations.content_dir(getattr(args, "content", None)), cache_dir)


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


# An exam date further out than this is almost surely a mistyped year.
_EXAM_DATE_HORIZON_DAYS = 3 * 366


def _parse_exam_date(text: str) -> date:
    """An exam date from today on: a past or far-off date would silently change the new-item quota."""
    exam = _parse_date(text)
    today = date.today()
    if exam < today:
        raise argparse.ArgumentTypeError(f"{exam.isoformat()} is in the past (today is {today.isoformat()})")
    if (exam - today).days > _EXAM_DATE_HORIZON_DAYS:
        raise argparse.ArgumentTypeError(f"{exam.isoformat()} is more than 3 years away; check the year")
    return exam


# ---------------------------------------------------------------------------------------------
# quiz
# ---------------------------------------------------------------------------------------------


def add_quiz_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    from studyapp.quiz.engine import MODES, QUIZ_KINDS

    quiz = sub.add_parser("quiz", parents=[common], help="drill O/X items with spaced repetition")
    quiz.add_argument("--topic", help="only this topic (and its sub-topics)")
    quiz.add_argument("--checklist", metavar="ID", help="only items linked to this checklist item")
    quiz.add_argument("--mode", choices=MODES, default="due", help="due (default), new, wrong, exam, cram")
    quiz.add_argument("--count", type=int, help="how many questions")
    quiz.add_argument(
        "--kind",
        choices=QUIZ_KINDS,
        help="ox, choice (4지선다), drill, or mixed (default: mixed; ox for --mode wrong; choice for --mode exam)",
    )
    quiz.add_argument(
        "--dump",
        type=_positive_int,
        metavar="N",
        help="print N generated 4-choice questions (with --kind choice) and exit; progress untouched",
    )
    quiz.add_argument("--json", action="store_true", help="with --dump: print JSON")
    quiz.add_argument("--plain", action="store_true", help="line mode without the TUI (reads o/x from stdin)")
    quiz.add_argument("--exam-date", type=_parse_exam_date, metavar="YYYY-MM-DD", help="store your exam date")
    quiz.add_argument("--no-drills", action="store_true", help="O/X items only, no calculation drills")
    quiz.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    from studyapp.cli.exam import add_exam_options

    add_exam_options(quiz)  # --time-limit, --pass-mark, --retry, --schedule/--no-schedule
    quiz.set_defaults(handler=cmd_quiz)


def _session_options(args: argparse.Namespace) -> Any:
    from studyapp.quiz.engine import SessionOptions, default_kind

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
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def dump_choice_questions(args: argparse.Namespace, content: Any) -> int:
    """`quiz --kind choice --dump N [--json]`: generated questions for scripts; no store is opened."""
    import random

    from studyapp.quiz.choice import generate_choice_questions
    from studyapp.quiz.engine import topic_family

    topics = topic_family(content, args.topic) if args.topic else None
    questions = generate_choice_questions(content.items.values(), args.dump, random.Random(args.seed), topics)
    if args.json:
        print(json.dumps([q.to_dict() for q in questions], ensure_ascii=False, indent=2))
        return EXIT_OK
    for number, question in enumerate(questions, start=1):
        print(f"{number}. [{question.topic}] {question.stem}")
        for index, item in enumerate(question.options):
            mark = "*" if index == question.answer_index else " "
            print(f"  {mark}{index + 1}) {item.statement}  [{item.id}]")
    return EXIT_OK


def cmd_quiz(args: argparse.Namespace, t: Translator) -> int:
    from studyapp.cli import exam_cli

    exam_cli.check_option_scope(args, t)
    if args.dump is not None and args.kind != "choice":
        raise StudyappError("quiz: --dump prints generated 4-choice questions; use it with --kind choice")
    if args.json and args.dump is None:
        raise StudyappError("quiz: --json goes with --dump N (the quiz itself is interactive)")
    content = load_content(args)
    if args.dump is not None:
        return dump_choice_questions(args, content)
    store = open_store(args)
    if args.exam_date:
        store.set_exam_date(args.exam_date)
    if args.mode == "exam":  # the mock exam: studyapp/quiz/exam.py
        return exam_cli.run_exam_command(args, t, content, store)
    options = _session_options(args)
    if args.plain:
        from studyapp.cli.plain import run_plain

        return run_plain(content, store, options, t, sys.stdin, sys.stdout)
    return run_tui(args, t, start="quiz", content=content, store=store, options=options)


# ---------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------


def add_progress_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    progress = sub.add_parser("progress", parents=[common], help="progress and checklist readiness")
    progress.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_argument("--export", metavar="FILE.md", help="write a markdown readiness report")
    progress.add_argument("--export-data", metavar="FILE.json", help="write all progress to move machines")
    progress.add_argument("--import-data", metavar="FILE.json", help="merge progress exported elsewhere")
    progress.add_argument("--self-check", metavar="ID", help="mark a checklist item as 'I can explain this'")
    progress.add_argument("--uncheck", metavar="ID", help="take a self-check back")
    progress.set_defaults(handler=cmd_progress)


def cmd_progress(args: argparse.Namespace, t: Translator) -> int:
    from studyapp.report import progress_report as report

    content = load_content(args)
    store = open_store(args, read_only_ok=not (args.import_data or args.self_check or args.uncheck))
    if args.import_data:
        added = report.import_file(store, Path(args.import_data))
        print(t("progress.imported", **added))
        return EXIT_OK
    if args.export_data:
        path = report.export_file(store, Path(args.export_data))
        print(t("progress.exported", path=path))
        return EXIT_OK
    for entry_id, value in ((args.self_check, True), (args.uncheck, False)):
        if entry_id:
            if content.checklist_entry(entry_id) is None:
                raise StudyappError(f"unknown checklist item '{entry_id}'")
            store.set_self_check(entry_id, value)
    data = report.full_report(content, store)
    if args.export:
        report.write_atomically(Path(args.export), report.to_markdown(data, t))
        print(t("progress.exported", path=args.export))
        return EXIT_OK
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return EXIT_OK
    report.print_report(data, t)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# labs
# ---------------------------------------------------------------------------------------------


def add_lab_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    lab = sub.add_parser(
        "lab",
        parents=[common],
        add_help=False,  # `studyapp lab NAME --help` shows the lab's own options
        help="run a hands-on lab (studyapp lab list | studyapp lab NAME [options])",
        description="Run a lab. Options other than those below are passed to the lab itself; "
        "`studyapp lab NAME --help` lists them.",
    )
    lab.add_argument("-h", "--help", action="store_true", help="this help, or the lab's options with NAME")
    lab.add_argument("name", nargs="?", help="a lab id, or 'list'")
    lab.add_argument("--quick", action="store_true", help="small settings, finishes in seconds")
    lab.add_argument("--json", action="store_true", help="print one JSON result object on stdout")
    lab.add_argument("--out", metavar="DIR", help="artifact directory (default DATA_DIR/runs/NAME/TIMESTAMP)")
    lab.add_argument(
        "--timeout", type=_timeout_seconds, metavar="SECONDS", help="stop the lab after this long"
    )
    lab.set_defaults(handler=cmd_lab, lab_args=[], lab_parser=lab)


MAX_LAB_TIMEOUT_S = 24 * 3600.0


def _timeout_seconds(text: str) -> float:
    """--timeout: a positive, finite number of seconds (`nan` would switch the safety timeout off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= MAX_LAB_TIMEOUT_S:  # False for nan as well
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {MAX_LAB_TIMEOUT_S:.0f} seconds: {text!r}"
        )
    return value


def cmd_lab(args: argparse.Namespace, t: Translator) -> int:
    from studyapp.cli import lab as lab_cli

    if args.help and args.name in (None, "list"):
        args.lab_parser.print_help()
        return EXIT_OK
    if args.name is None:  # a usage mistake: one line on stderr, like every other one
        raise StudyappError("lab: name a lab to run, or 'list' (studyapp lab list; studyapp lab --help)")
    # 'lab list' only reads: it works on a read-only data directory like 'progress' does.
    return lab_cli.run_command(args, t, lambda a: open_store(a, read_only_ok=a.name == "list"))


# ---------------------------------------------------------------------------------------------
# the TUI
# ---------------------------------------------------------------------------------------------


def run_tui(
    args: argparse.Namespace,
    t: Translator,
    start: str,
    content: Any = None,
    store: Any = None,
    options: Any = None,
) -> int:
    content = content or load_content(args)
    store = store or open_store(args)
    from studyapp.quiz.engine import finish_unsaved
    from studyapp.tui.app import make_app

    app = make_app(content=content, store=store, lang=t.lang, start=start, options=options)
    # While the TUI owns the terminal a long silent wait for a lock would look like a hang: a
    # short one, then the quiz screen says the answer is kept and retried (see QuizScreen.submit).
    waits = store.lock_wait_s, store.on_wait
    store.lock_wait_s, store.on_wait = min(store.lock_wait_s, TUI_LOCK_WAIT_S), None
    try:
        app.run()
    finally:
        store.lock_wait_s, store.on_wait = waits
    lost = finish_unsaved(store)  # answers kept after a failed write: one last try, visibly
    if lost is not None:
        print(f"studyapp: {lost}", file=sys.stderr)
        return EXIT_USAGE
    return int(app.return_code or 0)


TUI_LOCK_WAIT_S = 3.0
