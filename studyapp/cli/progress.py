"""`studyapp progress`: the readiness report, exports and the self-check marks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from studyapp.cli.common import load_content, open_store
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator
from studyapp.report import progress_report as report


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    progress = sub.add_parser("progress", parents=[common], help="progress and checklist readiness")
    progress.add_argument("--json", action="store_true", help="print the report as JSON")
    progress.add_argument("--export", metavar="FILE.md", help="write a markdown readiness report")
    progress.add_argument("--export-data", metavar="FILE.json", help="write all progress to move machines")
    progress.add_argument("--import-data", metavar="FILE.json", help="merge progress exported elsewhere")
    progress.add_argument("--self-check", metavar="ID", help="mark a checklist item as 'I can explain this'")
    progress.add_argument("--uncheck", metavar="ID", help="take a self-check back")
    progress.set_defaults(handler=cmd_progress)


def cmd_progress(args: argparse.Namespace, t: Translator) -> int:
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
