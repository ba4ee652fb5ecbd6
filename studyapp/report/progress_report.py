"""`studyapp progress`: the full report (stats, labs, checklist readiness), its text and markdown
forms, and moving progress between machines (export / import).
"""

from __future__ import annotations

import json
import os
import stat
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from studyapp.atomicfile import STDOUT, RefusedTarget, write_output
from studyapp.content.model import Content
from studyapp.errors import StudyappError
from studyapp.exercises.registry import discover as discover_exercises
from studyapp.exercises.status import all_statuses
from studyapp.i18n import Translator
from studyapp.labrunner.registry import discover
from studyapp.progress import exams
from studyapp.progress.exams import attempt_lines
from studyapp.progress.store import ProgressStore
from studyapp.progress.transfer import EXPORT_TABLES, export_data, import_data_counted
from studyapp.report import plan, prediction
from studyapp.report.prediction_text import plan_lines, prediction_lines
from studyapp.report.readiness import checklist_readiness, overall, step_of_row
from studyapp.report.stats import progress_report


def full_report(content: Content, store: ProgressStore) -> dict[str, Any]:
    now = store.clock()
    labs = discover()
    data = progress_report(content, store, now)
    runs = store.lab_runs()
    last = store.last_lab_runs()
    data["labs"] = {}
    for lab_id in labs:
        latest = last.get(lab_id)
        data["labs"][lab_id] = {
            "runs": sum(r.lab == lab_id for r in runs),
            "ok_runs": sum(r.lab == lab_id and r.status == "ok" for r in runs),
            "last_status": latest.status if latest else None,
            "last_summary": latest.summary if latest else None,
            "last_run": latest.started_at.isoformat() if latest else None,
        }

    exercises = discover_exercises()
    statuses = all_statuses(exercises, store)
    data["exercises"] = {k: v.to_dict() for k, v in statuses.items()}
    readiness = checklist_readiness(
        content, store, now, {i for i, info in labs.items() if info.check_question}, exercises
    )
    data["checklist"] = [r.to_dict() for r in readiness]
    data["readiness"] = round(overall(readiness), 4)

    data["exams"] = [attempt.to_dict() for attempt in exams.attempts(store)]  # mock-exam attempts

    # The predicted mock-exam score today and on the exam day, its check on the learner's own
    # answers, and today's plan (docs/READINESS.md, "Exam prediction").
    forecast = prediction.predict(content, store, now)
    data["exam_prediction"] = forecast.to_dict()
    data["calibration"] = forecast.calibration.to_dict()
    data["today_plan"] = plan.today_plan(
        content, store, now, forecast, exercises=exercises, statuses=statuses
    )
    return data


def _today(data: dict[str, Any]) -> date:
    """The report's own day (local), from when it was generated."""
    return datetime.fromisoformat(data["generated_at"]).astimezone().date()


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _bar(value: float, width: int = 10) -> str:
    filled = round(value * width)
    return "█" * filled + "░" * (width - filled)


def _lab_state(status: str | None, t: Translator) -> str:
    return t(f"labs.status.{status}") if status else t("progress.never")


def first_lines(data: dict[str, Any], t: Translator) -> list[str]:
    """What the report adds up to (N14): the exam date with the days left and the pace that sees
    every item before it (or that it cannot be kept: m6), and what to do first today: the first
    two entries of today's plan, so the report makes one recommendation, not two (m7)."""
    lines: list[str] = []
    unseen = sum(max(0, int(s["items"]) - int(s["seen"])) for s in data["topics"].values())
    today_plan = data.get("today_plan", [])
    new = next((entry for entry in today_plan if entry["kind"] == "new"), None)
    if data.get("exam_date"):
        today = datetime.fromisoformat(str(data["generated_at"])).astimezone().date()
        exam = date.fromisoformat(str(data["exam_date"]))
        days = (exam - today).days
        if days > 0:
            per_day = -(-unseen // days)  # ceiling: every unseen item before the exam
            key = "progress.plan_date_triage" if new and "triage" in new else "progress.plan_date"
            lines.append(t(key, date=exam.isoformat(), days=days, unseen=unseen, per_day=per_day))
        else:
            lines.append(
                t(
                    "progress.plan_date_today" if days == 0 else "progress.plan_date_past",
                    date=exam.isoformat(),
                )
            )
    first = [_plan_step(entry, t) for entry in today_plan[:2]]
    if first:
        lines.append(t("progress.plan_first", steps=" → ".join(first)))
    return lines


def _plan_step(entry: dict[str, Any], t: Translator) -> str:
    """A plan entry in a few words, for the `먼저 할 일` line."""
    kind = entry["kind"]
    if kind == "reviews":
        return t("progress.plan_due", due=entry["count"])
    if kind == "new":
        return t("progress.plan_new", count=entry["per_day"])
    if kind in ("exercise", "explain"):
        return t(f"progress.plan_{kind}", id=entry["id"])
    return t("progress.plan_mock_exam")


# Below this many columns the checklist's commands do not fit a table cell: they broke mid-way
# (`studyapp quiz` / `--checklist …`), so each item is printed as a few lines instead (c18).
WIDE_TABLE = 120


def _print_with_command(console: Console, line: str, indent: str) -> None:
    """A plan line `what — command`: on one line when it fits, else the command on a line of its
    own, so a terminal's wrapping never splits a command a learner copies (c18)."""
    what, dash, command = line.rpartition(" — ")
    if not dash or cell_len(indent + line) <= console.width:
        console.print(Text(f"{indent}{line}"))
        return
    console.print(Text(f"{indent}{what}"))
    console.print(Text(f"{indent}  → {command}"), overflow="ignore", crop=False)


def _print_checklist_table(console: Console, rows: list[dict[str, Any]], t: Translator) -> None:
    checklist = Table(box=None)
    checklist.add_column("#")
    checklist.add_column(t("progress.readiness", value=""))
    checklist.add_column("")
    checklist.add_column(t("progress.next"))
    for entry in rows:
        step = Text(step_of_row(entry, t))  # in the --lang language (N11)
        if entry.get("raise_with"):  # the exercises whose pass would raise this item
            step.append(f"\n{t('progress.raise_with')}: {', '.join(entry['raise_with'])}", style="dim")
        checklist.add_row(
            str(entry["number"]),
            f"{_bar(entry['readiness'])} {_pct(entry['readiness'])}",
            Text(entry["text"]),
            step,
        )
    console.print(checklist)


def _print_checklist_list(console: Console, rows: list[dict[str, Any]], t: Translator) -> None:
    """The checklist on a narrow terminal: the item, then its next step, each command whole."""
    for entry in rows:
        console.print(
            Text(
                f"{entry['number']:>2}. {_bar(entry['readiness'])} {_pct(entry['readiness'])}  {entry['text']}"
            )
        )
        step = step_of_row(entry, t)
        label, colon, command = step.partition(": ")
        if colon and command.startswith("studyapp "):
            _print_with_command(console, f"{t('progress.next')}: {label} — {command}", "    ")
        else:
            console.print(Text(f"    {t('progress.next')}: {step}"))
        if entry.get("raise_with"):
            console.print(
                Text(f"    {t('progress.raise_with')}: {', '.join(entry['raise_with'])}", style="dim")
            )


def print_report(data: dict[str, Any], t: Translator, cutoff: float | None = None) -> None:
    """The report on the terminal; `cutoff`: the learner's per-topic cutoff, named with the pass mark."""

    console = Console()
    console.print(Text(t("prediction.title"), style="bold"))
    for line in prediction_lines(data, _today(data), t, cutoff):
        console.print(Text(line))
    console.print(Text(t("plan.title"), style="bold"))
    for line in plan_lines(data.get("today_plan", []), t):
        _print_with_command(console, line, "  ")
    console.print()
    console.print(Text(t("progress.title"), style="bold"))
    console.print(
        t(
            "progress.reviews",
            total=data["reviews_total"],
            accuracy=_pct(data["accuracy"]),
            due=data["due_today"],
            streak=data["streak_days"],
        )
    )
    for line in first_lines(data, t):
        console.print(Text(line, style="bold"))
    topics = Table(box=None)
    for column in (
        "progress.topic",
        "progress.mastery",
        "progress.seen",
        "progress.accuracy",
        "progress.due",
    ):
        topics.add_column(t(column))
    for stats in data["topics"].values():
        topics.add_row(
            Text(stats["title"]),
            f"{_bar(stats['mastery'])} {_pct(stats['mastery'])}",
            f"{stats['seen']}/{stats['items']}",
            _pct(stats["accuracy"]),
            str(stats["due"]),
        )
    console.print(topics)
    console.print(Text(t("progress.readiness", value=_pct(data["readiness"])), style="bold"))
    if console.width < WIDE_TABLE:
        _print_checklist_list(console, data["checklist"], t)
    else:
        _print_checklist_table(console, data["checklist"], t)
    forecast = " ".join(f"{d['date'][5:]}:{d['due']}" for d in data["due_forecast"])
    console.print(f"{t('progress.forecast')}: {forecast}")
    # words, not raw ids and states (N12): "amdahl 성공 · benchmark 아직 없음"
    labs = " · ".join(f"{lab} {_lab_state(info['last_status'], t)}" for lab, info in data["labs"].items())
    console.print(f"{t('progress.labs')}: {labs}")
    if data.get("exercises"):
        shown = " · ".join(f"{k} {t('ex.status.' + v['status'])}" for k, v in data["exercises"].items())
        console.print(f"{t('progress.exercises')}: {shown}")

    for line in attempt_lines(data.get("exams", []), t):
        console.print(Text(line))


def to_markdown(data: dict[str, Any], t: Translator, cutoff: float | None = None) -> str:
    lines = [f"# {t('progress.title')} — {data['generated_at'][:10]}", ""]
    lines.append(
        t(
            "progress.reviews",
            total=data["reviews_total"],
            accuracy=_pct(data["accuracy"]),
            due=data["due_today"],
            streak=data["streak_days"],
        )
    )
    lines += ["", f"## {t('prediction.title')}", ""]
    lines += [f"- {line}" for line in prediction_lines(data, _today(data), t, cutoff)]
    lines += ["", f"## {t('plan.title')}", ""]
    lines += [f"- {line}" for line in plan_lines(data.get("today_plan", []), t)]
    first = first_lines(data, t)
    if first:
        lines += ["", *first]
    lines += ["", f"## {t('progress.readiness', value=_pct(data['readiness']))}", ""]
    lines += ["| # | 항목 | 준비도 | 다음 할 일 | 올릴 과제 |", "| --- | --- | --- | --- | --- |"]
    for entry in data["checklist"]:
        raise_with = ", ".join(entry.get("raise_with", [])) or "-"
        lines.append(
            f"| {entry['number']} | {entry['text']} | {_pct(entry['readiness'])} | {step_of_row(entry, t)} | {raise_with} |"
        )
    lines += ["", f"## {t('progress.mastery')}", ""]
    lines += ["| 주제 | 숙달 | 본 문항 | 최근 정답률 | 오늘 복습 |", "| --- | --- | --- | --- | --- |"]
    for stats in data["topics"].values():
        lines.append(
            f"| {stats['title']} | {_pct(stats['mastery'])} | {stats['seen']}/{stats['items']} | {_pct(stats['accuracy'])} | {stats['due']} |"
        )
    lines += ["", f"## {t('progress.labs')}", ""]
    for lab, info in data["labs"].items():
        lines.append(f"- **{lab}**: {info['last_status'] or '-'} {info['last_summary'] or ''}".rstrip())
    lines += ["", f"## {t('progress.forecast')}", ""]
    lines += [f"- {d['date']}: {d['due']}" for d in data["due_forecast"]]

    exam_lines = attempt_lines(data.get("exams", []), t)
    lines += ["", f"## {exam_lines[0]}", ""] + [f"- {line.strip()}" for line in exam_lines[1:]]
    return "\n".join(lines) + "\n"


SKIPPED_OUT_OF_RANGE = "skipped_out_of_range"  # import_file: rows dated before 2000 or in the future
MAX_IMPORT_BYTES = 512 << 20  # a 300 000-answer export is about 80 MB


def write_atomically(path: Path, text: str) -> bool:
    """Write `text` to `path` through a temp file renamed into place (`-` is stdout, a pipe with
    a reader is streamed into: `atomicfile.write_output`); any failure is one line
    (StudyappError) and leaves neither a half-written file nor the temp file behind. A device,
    a folder or a FIFO nobody reads is refused, never replaced. Returns True when the text went
    to a stream, so the caller confirms on stderr."""
    if str(path) != STDOUT:
        path = path.expanduser()
        if path.is_dir():
            raise StudyappError(
                f"cannot write {path}: it is a directory; name a file",
                key="write.refused.folder",
                values={"path": path},
            )
        above = next((p for p in path.parents if os.path.lexists(p)), None)
        if above is not None and not above.is_dir():  # mkdir would only say "File exists"
            raise StudyappError(f"cannot write {path}: {above} is a file, not a folder")
    try:
        if str(path) != STDOUT and not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
        return write_output(path, text, prefix=".studyapp-export-")
    except RefusedTarget as exc:
        raise StudyappError(
            f"cannot write {path}: {exc.strerror}", key=exc.key, values={"path": path}
        ) from None
    except OSError as exc:
        raise StudyappError(f"cannot write {path}: {exc.strerror or exc}") from None


def export_file(store: ProgressStore, path: Path) -> bool:
    """Write all progress as JSON, atomically (a temp file renamed into place); True when it
    went to a stream (`-`, a pipe)."""
    data = export_data(store)
    return write_atomically(path, json.dumps(data, ensure_ascii=False, indent=1))


def import_file(store: ProgressStore, path: Path) -> dict[str, int]:
    """Merge an export; a malformed file changes nothing and raises one clear line."""
    path = path.expanduser()
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise StudyappError(f"cannot read {path}: it is a directory")
        if not stat.S_ISREG(info.st_mode):  # /dev/zero would never end, a FIFO may never start
            raise StudyappError(f"cannot read {path}: not a regular file")
        if info.st_size > MAX_IMPORT_BYTES:
            raise StudyappError(f"{path}: too large for a progress export ({info.st_size >> 20} MB)")
        with path.open("rb") as handle:
            raw = handle.read(MAX_IMPORT_BYTES + 1)
        if len(raw) > MAX_IMPORT_BYTES:
            raise StudyappError(f"{path}: too large for a progress export")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise StudyappError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StudyappError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StudyappError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise StudyappError(f"{path}: not a progress export (JSON nested too deeply)") from None
    try:
        added, out_of_range = import_data_counted(store, data)
    except StudyappError as exc:
        raise StudyappError(f"{path}: {exc}") from None
    main = ("reviews", "lab_runs", "lab_answers", "self_checks")
    other = sum(added[name] for name in EXPORT_TABLES if name not in main)
    return {**added, "other": other, SKIPPED_OUT_OF_RANGE: out_of_range}
