"""`studyapp lab list` and `studyapp lab NAME`: progress on the terminal, then a readable report
(`studyapp.labrunner.render`, shared with the TUI)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from studyapp.child import describe_leftovers
from studyapp.cli import common
from studyapp.cli.common import timeout_seconds
from studyapp.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.i18n import Translator
from studyapp.labrunner import registry
from studyapp.labrunner.render import render_result
from studyapp.labrunner.runner import (
    STATUS_CANCELLED,
    STATUS_OK,
    LabOutcome,
    ProgressEvent,
    lab_command,
    run_and_record,
    sweep_stale_runs,
)
from studyapp.safetext import printable


def run_command(
    args: argparse.Namespace, t: Translator, open_store: Callable[[argparse.Namespace], Any]
) -> int:
    store = open_store(args)
    if args.name == "list":
        sweep_stale_runs(store)  # runs of a studyapp that was killed are not "running" for ever
        return _list(args, t, store)
    info = registry.get(args.name)
    if args.help:
        return show_lab_help(info)
    out_dir = Path(args.out).expanduser().resolve() if args.out else None
    cancel = threading.Event()
    outcome = _run_with_progress(
        store, info, args, out_dir, cancel, show=not args.json and sys.stderr.isatty()
    )
    if args.json:
        payload = (
            outcome.result
            if outcome.status == STATUS_OK and outcome.result
            else {
                "lab": info.id,
                "status": outcome.status,
                "message": outcome.message,
            }
        )
        print(json.dumps(payload, ensure_ascii=False))
    elif outcome.status == STATUS_OK:
        console = Console()
        for part in render_result(outcome, t):
            console.print(part)
        if info.check_question and sys.stdin.isatty():
            _ask_check_question(store, info, t)
    if outcome.status != STATUS_OK:
        print(printable(f"studyapp: {outcome.message}"), file=sys.stderr)
    if outcome.leftover_count:
        names = describe_leftovers(outcome.leftovers, outcome.leftover_count)
        print(
            printable(f"studyapp: {t('lab.leftovers', count=outcome.leftover_count, names=names)}"),
            file=sys.stderr,
        )
    return exit_code(outcome)


def show_lab_help(info: registry.LabInfo) -> int:
    """The lab's own `--help`, run outside the protocol so argparse prints it as usual."""
    import os
    import subprocess

    command = [*lab_command(info, [], quick=False, out_dir=Path(os.devnull))[:-2], "--help"]  # not --out
    env = {k: v for k, v in os.environ.items() if k != "STUDYAPP_LAB_PROTOCOL"}
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    print(completed.stdout or completed.stderr, end="")
    return EXIT_OK if completed.returncode == 0 else EXIT_USAGE


def exit_code(outcome: LabOutcome) -> int:
    if outcome.status == STATUS_OK:
        return EXIT_OK
    if outcome.status == STATUS_CANCELLED:
        return EXIT_INTERRUPTED
    return EXIT_USAGE if outcome.reason in ("usage", "dependency") else EXIT_FAILURE


def _run_with_progress(
    store: Any,
    info: registry.LabInfo,
    args: argparse.Namespace,
    out_dir: Path | None,
    cancel: threading.Event,
    show: bool,
) -> LabOutcome:
    kwargs: dict[str, Any] = {
        "quick": args.quick,
        "timeout": args.timeout,
        "cancel": cancel,
        "out_dir": out_dir,
    }
    if not show:
        return run_and_record(store, info, args.lab_args, **kwargs)

    with Progress(
        TextColumn("[bold]{task.fields[lab]}"),
        BarColumn(),
        TextColumn("{task.fields[phase]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("", total=1.0, lab=info.id, phase="start")

        def on_progress(event: ProgressEvent) -> None:
            text = f"{event.phase}: {event.message}" if event.message else event.phase
            progress.update(
                task, completed=event.fraction if event.fraction is not None else None, phase=text[:60]
            )

        return run_and_record(store, info, args.lab_args, on_progress=on_progress, **kwargs)


def _list(args: argparse.Namespace, t: Translator, store: Any) -> int:
    labs = registry.discover()
    last_runs = store.last_lab_runs()
    rows = []
    for lab_id, info in labs.items():
        last = last_runs.get(lab_id)
        rows.append(
            {
                "id": lab_id,
                "title": info.title,
                "topics": list(info.topics),
                "checklist": list(info.checklist),
                "last_status": last.status if last else None,
                "last_summary": printable(last.summary) if last and last.summary else None,
            }
        )
    if getattr(args, "json", False):
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK

    console = Console()
    # One line per lab: under 100 columns the wide cells are cut (`--json` has them whole).
    narrow = console.width < NARROW_COLUMNS
    table = Table(box=None)
    for column, room in LIST_COLUMNS:
        # an id is typed (`studyapp lab ID`): never cut (c13)
        widest = max((len(r["id"]) for r in rows), default=0) if column == "lab.id" else 0
        table.add_column(
            t(column),
            no_wrap=narrow,
            overflow="ellipsis",
            max_width=max(room, widest) if narrow else None,
            min_width=widest or None,
        )
    for row in rows:
        last = (
            last_result(row["id"], row["last_status"], row["last_summary"])
            if row["last_status"]
            else t("lab.never")
        )
        table.add_row(
            row["id"],
            Text(row["title"]),
            ", ".join(row["topics"]),
            ", ".join(row["checklist"]),
            Text(last[:60]),
        )
    console.print(table)
    return EXIT_OK


NARROW_COLUMNS = 100
LIST_COLUMNS = (
    ("lab.id", 11),
    ("lab.title", 22),
    ("lab.topics", 12),
    ("lab.checklist", 12),
    ("lab.last", 11),
)


def last_result(lab_id: str, status: str, summary: str | None) -> str:
    """`cancelled (app closed)`, not `cancelled: amdahl: cancelled (app closed)` (N27): the run's
    summary often starts with the lab id and its status already."""
    text = (summary or "").strip()
    text = text.removeprefix(f"{lab_id}:").strip()
    if not text:
        return status
    return text if text.startswith(status) else f"{status}: {text}"


def _ask_check_question(store: Any, info: registry.LabInfo, t: Translator) -> None:
    question = info.check_question
    assert question is not None
    print(t("lab.check_question", statement=question.statement))
    try:
        reply = input(t("lab.answer_prompt")).strip().upper()
    except EOFError:
        return
    reply = {"1": "O", "2": "X"}.get(reply, reply)
    if reply not in ("O", "X"):
        return
    correct = reply == question.answer
    store.record_lab_answer(info.id, reply, correct)
    print(t("lab.right") if correct else t("lab.wrong", answer=question.answer))
    if question.explanation:
        print(question.explanation)


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
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
        "--timeout", type=timeout_seconds, metavar="SECONDS", help="stop the lab after this long"
    )
    lab.set_defaults(handler=cmd_lab, lab_args=[], lab_parser=lab)


def cmd_lab(args: argparse.Namespace, t: Translator) -> int:
    if args.help and args.name in (None, "list"):
        args.lab_parser.print_help()
        return EXIT_OK
    if args.name is None:  # a usage mistake: one line on stderr, like every other one
        raise StudyappError("lab: name a lab to run, or 'list' (studyapp lab list; studyapp lab --help)")
    # 'lab list' only reads: it works on a read-only data directory like 'progress' does.
    return run_command(args, t, lambda a: common.open_store(a, read_only_ok=a.name == "list"))
