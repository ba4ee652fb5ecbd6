"""`studyapp progress`: the readiness report, exports and the self-check marks."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from studyapp.cli.common import load_content, open_store
from studyapp.cli.option_errors import option_error
from studyapp.cli.quiz import parse_exam_date
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator
from studyapp.progress import goals
from studyapp.progress.store import ProgressStore
from studyapp.report import progress_report as report
from studyapp.timetext import parse_pass_mark


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    progress = sub.add_parser("progress", parents=[common], help="progress and checklist readiness")
    progress.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_argument("--export", metavar="FILE.md", help="write a markdown readiness report")
    progress.add_argument("--export-data", metavar="FILE.json", help="write all progress to move machines")
    progress.add_argument("--import-data", metavar="FILE.json", help="merge progress exported elsewhere")
    progress.add_argument("--self-check", metavar="ID", help="mark a checklist item as 'I can explain this'")
    progress.add_argument("--uncheck", metavar="ID", help="take a self-check back")
    progress.add_argument(
        "--exam-date", type=_exam_date, metavar="YYYY-MM-DD", help="store your exam date ('none' clears it)"
    )
    progress.add_argument(
        "--pass-mark", type=_share, metavar="PERCENT", help="the exam's pass mark, e.g. 60 ('none' clears it)"
    )
    progress.add_argument(
        "--cutoff", type=_share, metavar="PERCENT", help="per-topic cutoff (과락), e.g. 40 ('none' clears it)"
    )
    progress.set_defaults(handler=cmd_progress)


_CLEAR = ("none", "off", "-")


def _exam_date(text: str) -> date | str:
    return "none" if text.strip().lower() in _CLEAR else parse_exam_date(text)


def _share(text: str) -> float | str:
    if text.strip().lower() in _CLEAR:
        return "none"
    try:
        value = parse_pass_mark(text)
    except ValueError:
        raise option_error("cli.not_percentage", value=repr(text)) from None
    if not 0 < value <= 1:
        raise option_error("cli.share_range", value=repr(text))
    return value


def _set_goals(args: argparse.Namespace, store: ProgressStore, t: Translator) -> bool:
    """Store the exam date, pass mark and cutoff given on the command line; True if any was."""
    given = False
    if args.exam_date is not None:
        store.set_exam_date(None if args.exam_date == "none" else args.exam_date)
        given = True
    for value, setter in ((args.pass_mark, goals.set_pass_mark), (args.cutoff, goals.set_topic_cutoff)):
        if value is not None:
            setter(store, None if value == "none" else value)
            given = True
    if given:
        exam, mark, cutoff = store.exam_date(), goals.pass_mark(store), goals.topic_cutoff(store)
        none = t("progress.goal_none")
        print(
            t(
                "progress.goals_saved",
                date=exam.isoformat() if exam else none,
                mark=f"{mark * 100:.0f}%" if mark else none,
                cutoff=f"{cutoff * 100:.0f}%" if cutoff else none,
            )
        )
    return given


def cmd_progress(args: argparse.Namespace, t: Translator) -> int:
    content = load_content(args)
    writes = args.import_data or args.self_check or args.uncheck
    writes = writes or any(v is not None for v in (args.exam_date, args.pass_mark, args.cutoff))
    store = open_store(args, read_only_ok=not writes)
    _set_goals(args, store, t)
    if args.import_data:
        added = report.import_file(store, Path(args.import_data))
        print(t("progress.imported", **added))
        if added.get(report.SKIPPED_OUT_OF_RANGE):
            print(t("progress.import_skipped_clock", count=added[report.SKIPPED_OUT_OF_RANGE]))
        return EXIT_OK
    if args.export_data:
        streamed = report.export_file(store, Path(args.export_data))
        # written to stdout or a pipe: the confirmation goes to stderr, out of the data's way
        print(t("progress.exported", path=args.export_data), file=sys.stderr if streamed else sys.stdout)
        return EXIT_OK
    for entry_id, value in ((args.self_check, True), (args.uncheck, False)):
        if entry_id:
            if content.checklist_entry(entry_id) is None:
                raise StudyappError(f"unknown checklist item '{entry_id}'")
            store.set_self_check(entry_id, value)
    data = report.full_report(content, store)
    if args.export:
        streamed = report.write_atomically(
            Path(args.export), report.to_markdown(data, t, goals.topic_cutoff(store))
        )
        print(t("progress.exported", path=args.export), file=sys.stderr if streamed else sys.stdout)
        return EXIT_OK
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return EXIT_OK
    report.print_report(data, t, goals.topic_cutoff(store))
    return EXIT_OK
