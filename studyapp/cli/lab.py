"""`studyapp lab list` and `studyapp lab NAME`: progress on the terminal, then a readable report."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studyapp.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from studyapp.i18n import Translator
from studyapp.labrunner import registry
from studyapp.labrunner.runner import (
    STATUS_CANCELLED,
    STATUS_OK,
    LabOutcome,
    ProgressEvent,
    run_and_record,
    sweep_stale_runs,
)
from studyapp.safetext import printable

STRINGS = {
    "ko": {
        "lab.id": "실습",
        "lab.title": "제목",
        "lab.topics": "주제",
        "lab.checklist": "체크리스트",
        "lab.last": "최근 결과",
        "lab.never": "실행 안 함",
        "lab.check_question": "확인 문제 (O/X): {statement}",
        "lab.answer_prompt": "o / x (Enter=건너뛰기) > ",
        "lab.right": "정답입니다.",
        "lab.wrong": "오답입니다. 정답: {answer}",
        "lab.artifacts": "결과 파일",
        "lab.findings": "해석",
    },
    "en": {
        "lab.id": "lab",
        "lab.title": "title",
        "lab.topics": "topics",
        "lab.checklist": "checklist",
        "lab.last": "last result",
        "lab.never": "never run",
        "lab.check_question": "Check question (O/X): {statement}",
        "lab.answer_prompt": "o / x (Enter to skip) > ",
        "lab.right": "Right.",
        "lab.wrong": "Wrong. Answer: {answer}",
        "lab.artifacts": "artifacts",
        "lab.findings": "findings",
    },
}


def run_command(
    args: argparse.Namespace, t: Translator, open_store: Callable[[argparse.Namespace], Any]
) -> int:
    t.register(STRINGS)
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
        from rich.console import Console

        console = Console()
        for part in render_result(outcome, t):
            console.print(part)
        if info.check_question and sys.stdin.isatty():
            _ask_check_question(store, info, t)
    if outcome.status != STATUS_OK:
        print(printable(f"studyapp: {outcome.message}"), file=sys.stderr)
    return exit_code(outcome)


def show_lab_help(info: registry.LabInfo) -> int:
    """The lab's own `--help`, run outside the protocol so argparse prints it as usual."""
    import os
    import subprocess

    from studyapp.labrunner.runner import lab_command

    command = [*lab_command(info, [], quick=False, out_dir=Path(os.devnull))[:3], "--help"]
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
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

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
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None)
    for column in ("lab.id", "lab.title", "lab.topics", "lab.checklist", "lab.last"):
        table.add_column(t(column))
    for row in rows:
        last = f"{row['last_status']}: {row['last_summary'] or ''}" if row["last_status"] else t("lab.never")
        table.add_row(
            row["id"],
            Text(row["title"]),
            ", ".join(row["topics"]),
            ", ".join(row["checklist"]),
            Text(last[:60]),
        )
    Console().print(table)
    return EXIT_OK


def render_result(outcome: LabOutcome, t: Translator) -> list[Any]:
    """Rich renderables for a result: summary, tables, plots, findings, artifacts."""
    from rich.table import Table
    from rich.text import Text

    result = outcome.result or {}
    parts: list[Any] = [Text(str(result.get("summary", "")), style="bold")]
    for spec in result.get("tables", []):
        table = Table(title=Text(str(spec.get("title", ""))), title_justify="left")
        for column in spec.get("columns", []):
            table.add_column(str(column))
        for row in spec.get("rows", []):
            table.add_row(*(Text(format_cell(v)) for v in row))
        parts.append(table)
    for plot in result.get("plots", []):
        text = plot_text(plot)
        if text:
            parts.append(Text.from_ansi(text))
    findings = result.get("findings", [])
    if findings:
        parts.append(Text(t("lab.findings"), style="bold"))
        parts += [Text(f"• {finding}") for finding in findings]
    artifacts = dict(result.get("artifacts") or {})
    artifacts.setdefault("dir", str(outcome.artifact_dir))
    parts.append(Text(t("lab.artifacts"), style="bold"))
    parts += [Text(printable(f"  {name}: {path}")) for name, path in artifacts.items()]
    return parts


def format_cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def plot_text(plot: dict[str, Any], width: int = 70, height: int = 16) -> str:
    """A terminal line plot of `plot` ({title, x, series, xlabel, ylabel}) via plotext."""
    try:
        import plotext as plt
    except ImportError:
        return ""
    x = plot.get("x") or []
    series = plot.get("series") or {}
    if not x or not series:
        return ""
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("pro")  # coloured series, readable on dark and light terminals
    for name, values in series.items():
        points = [(a, b) for a, b in zip(x, values, strict=False) if isinstance(b, (int, float))]
        if points:
            plt.plot([p[0] for p in points], [p[1] for p in points], label=str(name), marker="dot")
    plt.title(str(plot.get("title", "")))
    plt.xlabel(str(plot.get("xlabel", "")))
    plt.ylabel(str(plot.get("ylabel", "")))
    return str(plt.build())


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


__all__ = ["exit_code", "plot_text", "render_result", "run_command"]
