"""`studyapp explain [ID]`: explain-it prompts from the command line.

`ID` is a prompt id (`explain-bias-variance`), a checklist id (`bias-variance`) or a checklist
number (`6`); without it, the prompt to practise next (never answered, else answered longest ago).
The TUI opens on the prompt; `--plain` is the line mode: the answer is typed over several lines
and ends with an empty line or a line holding only `.`; then the model answer and each key point
are shown and answered with y/n. `--list` prints every prompt with its latest coverage (`--json`).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import Any, TextIO

from studyapp.cli.common import load_content, open_store, run_tui
from studyapp.content.explain import ExplainPrompt, load_explain
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator
from studyapp.progress.store import ProgressStore
from studyapp.quiz.explain import (
    MAX_ANSWER_CHARS,
    ExplainSession,
    drafted,
    find_prompt,
    keep_unsaved,
    latest_by_prompt,
    next_prompt,
)
from studyapp.safetext import printable

_YES = {"y", "yes", "ㅛ", "o", "1", "예", "네"}
_NO = {"n", "no", "ㅜ", "x", "0", "2", "아니오", "아니요"}


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    explain = sub.add_parser(
        "explain", parents=[common], help="explain-it prompts: write, compare, tick the key points"
    )
    explain.add_argument("id", nargs="?", help="prompt id, checklist id or checklist number (default: next)")
    explain.add_argument("--plain", action="store_true", help="line mode without the TUI")
    explain.add_argument("--list", action="store_true", help="list the prompts with their latest coverage")
    explain.add_argument("--json", action="store_true", help="with --list: print JSON")
    explain.set_defaults(handler=cmd_explain)


def resolve_prompts(
    content: Any, prompts: list[ExplainPrompt], wanted: str | None, t: Translator
) -> list[ExplainPrompt]:
    """The prompts `wanted` names (a checklist number is read as its id); all when None."""
    if wanted is None:
        return list(prompts)
    key = wanted.strip()
    if key.isdigit() and len(key) <= 6:  # int() of a 5000-digit number is a ValueError
        entry = next((e for e in content.checklist if e.number == int(key)), None)
        key = entry.id if entry is not None else key
    found = find_prompt(prompts, key)
    if not found:
        shown = printable(wanted if len(wanted) <= 80 else wanted[:79] + "…")  # echoed: no raw escapes
        raise StudyappError(t("explain.unknown", wanted=shown, choices=", ".join(p.id for p in prompts)))
    return found


def cmd_explain(args: argparse.Namespace, t: Translator) -> int:
    content = load_content(args)
    prompts = load_explain(content)
    if not prompts:
        raise StudyappError(t("explain.none"))
    chosen = resolve_prompts(content, prompts, args.id, t)
    store = open_store(args, read_only_ok=args.list)  # listing only reads (a read-only data dir works)
    if args.list:
        return _list(content, store, chosen, t, args.json, sys.stdout)
    # Several prompts (no ID, or a checklist item with more than one): the one due for practice.
    prompt = (next_prompt(chosen, store) if len(chosen) > 1 else None) or chosen[0]
    if args.plain:
        return run_plain_explain(content, store, prompt, t, sys.stdin, sys.stdout)
    return run_tui(args, t, start="explain:" + prompt.id, content=content, store=store)


def _list(
    content: Any,
    store: ProgressStore,
    prompts: list[ExplainPrompt],
    t: Translator,
    as_json: bool,
    out: TextIO,
) -> int:
    latest = latest_by_prompt(store)
    drafts = drafted(store)
    numbers = {e.id: e.number for e in content.checklist}
    if as_json:
        rows = [
            {
                "id": p.id,
                "checklist": p.checklist,
                "number": numbers.get(p.checklist),
                "prompt": p.prompt,
                "key_points": len(p.key_points),
                "draft": p.id in drafts,
                "latest": None
                if p.id not in latest
                else {
                    "covered": len(latest[p.id].covered),
                    "total": latest[p.id].total_points,
                    "answered_at": latest[p.id].answered_at.isoformat(),
                },
            }
            for p in prompts
        ]
        out.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    for p in prompts:
        result = latest.get(p.id)
        number = numbers.get(p.checklist, 0)
        if result is None:
            line = t("explain.list_row_never", id=p.id, number=number)
        else:
            shown = f"{len(result.covered)}/{result.total_points} ({result.answered_at.astimezone().date()})"
            line = t("explain.list_row", id=p.id, number=number, latest=shown)
        out.write(line + (t("explain.list_draft") if p.id in drafts else "") + "\n")
    return EXIT_OK


def read_answer(stdin: TextIO) -> str:
    """Lines until an empty line, a line with only `.`, or the end of input."""
    lines: list[str] = []
    while True:
        line = stdin.readline()
        if not line:
            break
        text = line.rstrip("\n")
        if text.strip() in ("", "."):
            if lines or text.strip() == ".":
                break
            continue  # blank lines before the first word are not the end
        lines.append(text)
    return "\n".join(lines)


def run_plain_explain(
    content: Any, store: ProgressStore, prompt: ExplainPrompt, t: Translator, stdin: TextIO, stdout: TextIO
) -> int:

    def say(*lines: str) -> None:
        for line in lines:
            stdout.write(line + "\n")
        stdout.flush()

    entry = content.checklist_entry(prompt.checklist)
    say(
        t(
            "explain.header",
            id=prompt.id,
            number=entry.number if entry else "?",
            text=entry.text if entry else prompt.checklist,
        ),
        "",
        prompt.prompt,
        "",
        t("explain.write"),
    )
    session = ExplainSession(prompt)
    answer = read_answer(stdin)
    if not answer.strip():
        say(t("explain.empty"))
        return EXIT_OK
    session.submit_answer(answer)
    if len(answer.strip()) > MAX_ANSWER_CHARS:  # said, not cut silently
        say(t("explain.cut", limit=MAX_ANSWER_CHARS))
    say("", t("explain.model"), prompt.model_answer, "", t("explain.points"))
    total = len(prompt.key_points)
    for index, point in enumerate(prompt.key_points):
        while True:
            stdout.write(t("explain.ask", n=index + 1, total=total, point=point))
            stdout.flush()
            line = stdin.readline()
            if not line:
                say("", t("explain.stopped"))
                return EXIT_OK
            reply = line.strip().lower()
            if reply in _YES or reply in _NO:
                session.set_point(index, reply in _YES)
                break
            say(t("explain.yn"))
    try:
        result = session.finish(store)
    except (StudyappError, sqlite3.Error, OSError) as exc:  # a full disk: the typed answer is kept in a file
        raise StudyappError(keep_unsaved(store, session, str(exc) or type(exc).__name__)) from None
    say(
        "",
        t(
            "explain.saved",
            covered=len(result.covered),
            total=result.total_points,
            percent=f"{result.coverage:.0%}",
            date=result.answered_at.astimezone().date().isoformat(),
        ),
    )
    return EXIT_OK
