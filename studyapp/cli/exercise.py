"""`studyapp exercise list|start|check|watch|hint|solution|verify`.

Exit codes: 0 passed (or done), 1 not yet (a failing or broken check; a locked solution),
2 bad usage or bad input (unknown exercise, missing workspace or dependency), 3 undecided (a speed
check the busy machine could not decide: not a failure, check again), 130 interrupted. Imports stay light: the checker, the store and watchfiles load on use.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from studyapp import locations
from studyapp.child import describe_leftovers
from studyapp.cli.common import load_content, open_store, timeout_seconds
from studyapp.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.exercises import checker, workspace
from studyapp.exercises.checker import PASSED, USAGE, run_check
from studyapp.exercises.registry import get, ignored, scan
from studyapp.exercises.status import all_statuses, has_passed
from studyapp.exercises.strings import verdict_line
from studyapp.exercises.study_path import next_exercise, study_path
from studyapp.exercises.workspace import default_workspace
from studyapp.i18n import Translator
from studyapp.progress import exercise_store


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    exercise = sub.add_parser(
        "exercise",
        parents=[common],
        help="write code, check it on your machine (list | start | check | watch | hint | solution)",
        description="Exercises: studyapp copies a starter, you write the code, a checker says what passes.",
    )
    actions = exercise.add_subparsers(dest="exercise_command", metavar="ACTION", parser_class=type(exercise))
    listing = actions.add_parser("list", parents=[common], help="exercises with checklist items and status")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.add_argument("--lab", help="only this lab's exercises")
    start = actions.add_parser("start", parents=[common], help="copy the starter into a workspace")
    start.add_argument("id")
    start.add_argument("--dir", metavar="DIR", help="workspace folder (default DATA_DIR/exercises/ID)")
    start.add_argument("--force", action="store_true", help="start over; your old files are moved aside")
    for name, text in (
        ("check", "run the checker on your workspace"),
        ("watch", "check again on every save"),
    ):
        action = actions.add_parser(name, parents=[common], help=text)
        action.add_argument("id")
        action.add_argument("--path", metavar="DIR", help="check this folder instead of the workspace")
        action.add_argument("--quick", action="store_true", help="small settings (CI and tests)")
        action.add_argument("--json", action="store_true", help="print each verdict as one JSON object")
        action.add_argument(
            "--timeout",
            type=timeout_seconds,
            metavar="SECONDS",
            help="stop a check after this long (default: exercise.yaml)",
        )
    hint = actions.add_parser("hint", parents=[common], help="reveal the next hint")
    hint.add_argument("id")
    solution = actions.add_parser("solution", parents=[common], help="the reference solution, after a pass")
    solution.add_argument("id")
    solution.add_argument("--force", action="store_true", help="show it before passing")
    _add_verify_parser(actions, common)
    exercise.set_defaults(handler=cmd_exercise, exercise_parser=exercise)


# ---------------------------------------------------------------------------------------------


def _translator(t: Translator) -> Translator:
    return t


def _open_store(args: argparse.Namespace, read_only_ok: bool = False) -> Any:
    return open_store(args, read_only_ok=read_only_ok)


def _exercises() -> dict[str, Any]:
    """All exercises; a broken exercise.yaml is reported as one line each and skipped."""

    found = scan()
    for problem in found.problems:
        if not problem.warning:
            print(f"studyapp: {problem.format(Path.cwd())}", file=sys.stderr)
    return study_path(found.exercises)


def _next_exercise(current: str, store: Any) -> Any | None:
    exercises = _exercises()
    return next_exercise(exercises, current, all_statuses(exercises, store))


def _exercise(exercise_id: str) -> Any:
    return get(exercise_id, _exercises())


def cmd_exercise(args: argparse.Namespace, t: Translator) -> int:
    t = _translator(t)
    handlers = {
        "list": cmd_list,
        "start": cmd_start,
        "check": cmd_check,
        "watch": cmd_watch,
        "hint": cmd_hint,
        "solution": cmd_solution,
        "verify": cmd_verify,
    }
    handler = handlers.get(args.exercise_command or "")
    if handler is None:
        args.exercise_parser.print_help(sys.stderr)
        return EXIT_USAGE
    return handler(args, t)


def cmd_list(args: argparse.Namespace, t: Translator) -> int:
    exercises = _exercises()
    if args.lab:
        exercises = {k: v for k, v in exercises.items() if v.lab == args.lab}
    store = _open_store(args, read_only_ok=True)  # listing only reads
    statuses = all_statuses(exercises, store)
    rows = []
    for exercise_id, info in exercises.items():
        status = statuses[exercise_id]
        workspace = _workspace_for(args, store, info)
        rows.append(
            {
                "id": exercise_id,
                "title": info.title,
                "title_en": info.title_en,
                "checklist": list(info.checklist),
                "lab": info.lab,
                "status": status.status,
                "solution_path": str(info.solution_dir),
                "readme": str(info.readme),
                "workspace": str(workspace) if workspace.is_dir() else None,
                "hints": len(info.hints()),
                "hints_revealed": exercise_store.hints_revealed(store, exercise_id),
                **{k: v for k, v in status.to_dict().items() if k != "status"},
            }
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        print(t("ex.none"))
        return EXIT_OK

    console = Console()
    # One line per exercise: under 100 columns the title is cut (`--json` has it whole).
    narrow = console.width < 100
    table = Table(box=None)
    for column in ("ex.col.id", "ex.col.status", "ex.col.checklist", "ex.col.lab", "ex.col.title"):
        title = column == "ex.col.title"
        typed = column == "ex.col.id"  # an id is typed (`exercise start ID`): never cut (c13)
        table.add_column(
            t(column),
            no_wrap=narrow,
            overflow="ellipsis",
            max_width=24 if title and narrow else None,
            min_width=max(len(r["id"]) for r in rows) if typed else 11 if column == "ex.col.status" else None,
        )
    styles = {"passed": "green", "failing": "yellow", "started": "cyan", "not started": "dim"}
    numbers = _checklist_numbers(args)
    for row in rows:
        status = t(f"ex.status.{row['status']}")
        if row["stale"]:
            status += f" ({t('ex.stale')})"
        elif row["broken"]:
            status += f" ({t('ex.broken')})"
        table.add_row(
            row["id"],
            Text(status, style=styles.get(row["status"], "")),
            ", ".join(numbers.get(c, c) for c in row["checklist"]),  # numbers, as the app names items
            row["lab"],
            Text(row["title"] if t.lang == "ko" else row["title_en"]),
        )
    console.print(table)
    return EXIT_OK


def _checklist_numbers(args: argparse.Namespace) -> dict[str, str]:
    """Checklist id → its number; empty when the content cannot be read (ids are shown then)."""
    try:
        content = load_content(args)
    except StudyappError:
        return {}
    return {entry.id: str(entry.number) for entry in content.checklist}


def _workspace_for(args: argparse.Namespace, store: Any, info: Any) -> Path:
    recorded = exercise_store.workspace(store, info.id)
    return recorded or default_workspace(locations.data_dir(getattr(args, "data_dir", None)), info.id)


def cmd_start(args: argparse.Namespace, t: Translator) -> int:
    info = _exercise(args.id)
    store = _open_store(args)
    target = Path(args.dir) if args.dir else _workspace_for(args, store, info)  # the one started before
    result = workspace.start(info, target, force=args.force)
    exercise_store.set_workspace(store, info.id, result.path)
    print(t("ex.started", path=result.path))
    if result.backup is not None:
        print(t("ex.started.backup", path=result.backup))
    if result.copied:
        print(t("ex.started.copied", count=len(result.copied), id=info.id))
    else:
        print(t("ex.started.again", id=info.id))
    if info.readme.is_file():
        print(f"README: {info.readme}")
    return EXIT_OK


def _check_target(args: argparse.Namespace, t: Translator, store: Any, info: Any) -> Path:
    path = Path(args.path).expanduser() if args.path else _workspace_for(args, store, info)
    if not path.is_dir():
        if args.path:
            raise StudyappError(f"no such folder: {path}")
        raise StudyappError(t("ex.no_workspace", id=info.id, path=path))
    path = path.resolve()
    if path.is_relative_to(info.path.resolve()):
        # The exercise's own folders (starter, solution) are not a workspace: a check would write
        # into them, and passing the reference solution is no evidence of the learner's skill.
        raise StudyappError(f"{path} is inside the exercise itself; start a workspace or copy it elsewhere")
    return path


# Undecided is not "not yet": a script can tell "check again later" from "fix the code" by the exit
# code alone, the same 3 the checker itself exits with.
EXIT_UNDECIDED = 3


def exit_code_for(verdict: str) -> int:
    return {
        checker.PASSED: EXIT_OK,
        checker.UNDECIDED: EXIT_UNDECIDED,
        checker.USAGE: EXIT_USAGE,
        checker.INTERRUPTED: EXIT_INTERRUPTED,
    }.get(verdict, EXIT_FAILURE)


def check_and_record(
    info: Any,
    path: Path,
    store: Any,
    quick: bool,
    on_event: Any = None,
    cancel: Any = None,
    timeout: float | None = None,
    lang: str | None = None,
) -> Any:
    """Run the checker and store the check (all but refused runs: a missing dependency is no check)."""

    passed_before = exercise_store.passed_check_uids(store)  # a pass written meanwhile is not counted
    outcome = run_check(info, path, quick=quick, on_event=on_event, cancel=cancel, timeout=timeout, lang=lang)
    if outcome.verdict != USAGE:
        recorded = exercise_store.record_check(
            store,
            info.id,
            info.checker_hash(),
            outcome.verdict,
            outcome.details(),
            outcome.duration_s,
            passed_before,
        )
        outcome.forged_passes = recorded.forged_passes
    return outcome


def _requirement_line(requirement: Any) -> str:
    mark = "✓" if requirement.passed else "✗"
    return f"  {mark} {requirement.name}" + (f" — {requirement.message}" if requirement.message else "")


def _print_verdict(
    outcome: Any, info: Any, t: Translator, already_printed: int, following: Any | None = None
) -> None:
    for requirement in outcome.requirements[already_printed:]:  # listed only in the result line
        print(_requirement_line(requirement))
    if outcome.learner_traceback:
        print(t("ex.traceback"))
        for line in outcome.learner_traceback.splitlines():
            print(f"    {line}")
    print(verdict_line(outcome, t, f"studyapp exercise hint {info.id}"))
    if outcome.stopped_count:
        names = describe_leftovers(outcome.stopped_processes, outcome.stopped_count)
        print(t("ex.leftovers", count=outcome.stopped_count, names=names))
    if outcome.forged_passes:
        print(t("ex.forged", count=outcome.forged_passes))
    if outcome.verdict == PASSED:
        print(t("ex.passed.next", id=info.id))
        if following is not None:
            print(t("ex.next_exercise", id=following.id, title=following.title))
        else:
            print(t("ex.path_done"))
    sys.stdout.flush()


def _one_check(args: argparse.Namespace, t: Translator, info: Any, path: Path, store: Any) -> int:
    if args.timeout is not None and args.timeout <= 0:
        raise StudyappError(t("cli.timeout_positive", value=f"{args.timeout:g}"))
    printed: list[Any] = []

    def on_event(event: Any) -> None:
        """Each requirement as the checker reports it; progress goes to stderr."""
        if event.requirement is not None:
            printed.append(event.requirement)
            print(_requirement_line(event.requirement), flush=True)
        elif event.message:
            print(f"  … {event.message}", file=sys.stderr, flush=True)

    if not args.json:
        print(t("ex.checking", id=info.id, path=path), flush=True)
    outcome = check_and_record(
        info, path, store, args.quick, None if args.json else on_event, timeout=args.timeout, lang=t.lang
    )
    if outcome.verdict == USAGE:
        raise StudyappError(outcome.message)
    if args.json:
        data = outcome.to_dict()
        data["checker_hash"] = info.checker_hash()
        print(json.dumps(data, ensure_ascii=False), flush=True)
    else:
        following = _next_exercise(info.id, store) if outcome.verdict == PASSED else None
        _print_verdict(outcome, info, t, already_printed=len(printed), following=following)
    return exit_code_for(outcome.verdict)


def cmd_check(args: argparse.Namespace, t: Translator) -> int:
    info = _exercise(args.id)
    store = _open_store(args)
    path = _check_target(args, t, store, info)
    code = _one_check(args, t, info, path, store)
    if code == EXIT_INTERRUPTED:
        print(f"studyapp: {t('ex.interrupted')}", file=sys.stderr)
    return code


def _watch_filter(root: Path) -> Any:
    def accept(change: Any, raw: str) -> bool:
        try:
            relative = Path(raw).resolve().relative_to(root)
        except ValueError:
            return False
        if ignored(relative) or any(part.startswith(".") for part in relative.parts):
            return False
        # What the learner writes: Python files and text. Checkers may write traces, JSON and
        # logs into the workspace; those must not trigger an endless loop of re-checks.
        return relative.suffix in {".py", ".txt", ".md", ".toml", ".cfg", ".ini", ".yaml", ".yml"}

    return accept


def _moved_to(args: argparse.Namespace, t: Translator, store: Any, info: Any) -> Path:
    """The workspace of the exercise `watch` moves on to, started from its starter if there is none."""
    target = _workspace_for(args, store, info)
    if not target.is_dir():
        target = workspace.start(info, target, force=False).path
        exercise_store.set_workspace(store, info.id, target)
    print("", flush=True)
    print(t("ex.watch.moved", id=info.id, title=info.title, path=target), flush=True)
    if info.readme.is_file():
        print(f"README: {info.readme}", flush=True)
    return target.resolve()


def cmd_watch(args: argparse.Namespace, t: Translator) -> int:
    try:
        import watchfiles
    except ImportError:
        raise StudyappError("`watch` needs the watchfiles package: pip install watchfiles") from None
    info = _exercise(args.id)
    store = _open_store(args)
    path = _check_target(args, t, store, info)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)  # each verdict shows as it comes, even in a pipe
    print(t("ex.watching", path=path), flush=True)
    try:
        code = _one_check(args, t, info, path, store)
        if code in (EXIT_INTERRUPTED, EXIT_USAGE):
            return code
        while True:
            moved = False
            if code == EXIT_OK and not args.path:  # like rustlings: a pass moves on along the path
                following = _next_exercise(info.id, store)
                if following is not None:
                    info, path = following, _moved_to(args, t, store, following)
                    code, moved = _one_check(args, t, info, path, store), True
                    if code == EXIT_INTERRUPTED:
                        break
            if moved:
                continue  # the new exercise may pass already (a finished workspace): move again
            seen = _file_states(path)
            for changes in watchfiles.watch(path, watch_filter=_watch_filter(path), raise_interrupt=True):
                # Files the check itself wrote (learner code that writes a .py) changed before the
                # check ended: only a change since then is the learner's, else every check would
                # start the next.
                changed = [
                    raw for _, raw in changes if _file_state(Path(raw)) != seen.get(os.path.realpath(raw))
                ]
                if not changed:
                    continue
                files = sorted({Path(raw).name for raw in changed})
                if not args.json:
                    print("", flush=True)
                    print(t("ex.watch.change", files=", ".join(files)), flush=True)
                code = _one_check(args, t, info, path, store)
                if code in (EXIT_INTERRUPTED, EXIT_OK):
                    break
                seen = _file_states(path)
            if code == EXIT_INTERRUPTED:
                break
    except KeyboardInterrupt:
        pass
    print(t("ex.watch.stopped"), file=sys.stderr, flush=True)
    return EXIT_INTERRUPTED


_BLOCK_START = re.compile(r"^(?:[-*+>#|]|```|\d+[.)]\s)")


def unwrap_paragraphs(text: str) -> str:
    """hints.md is wrapped at ~100 columns in the source; printed as is, an 80-column terminal
    breaks every line twice (N33). Join each paragraph's (and list item's) lines into one and let
    the terminal wrap; code blocks, tables and headings stay as written."""
    out: list[str] = []
    in_code = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            out.append(line)
            continue
        previous = out[-1].strip() if out else ""
        joinable = (
            not in_code
            and stripped
            and previous
            and not _BLOCK_START.match(stripped)
            and not previous.startswith(("```", "|", "#"))
        )
        if joinable:
            out[-1] = out[-1].rstrip() + " " + stripped
        else:
            out.append(line)
    return "\n".join(out)


def _file_state(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _file_states(root: Path) -> dict[str, tuple[int, int] | None]:
    """(mtime, size) of every file in the workspace when a check ended."""
    files = workspace.workspace_files(root) or []
    return {os.path.realpath(root / relative): _file_state(root / relative) for relative in files}


def bold_spans(text: str) -> Text:
    """Markdown's `**bold**` as bold text, not raw asterisks (c14); the rest stays as written."""
    result = Text()
    for index, part in enumerate(re.split(r"\*\*(.+?)\*\*", text, flags=re.DOTALL)):
        result.append(part, style="bold" if index % 2 else "")
    return result


def cmd_hint(args: argparse.Namespace, t: Translator) -> int:
    info = _exercise(args.id)
    hints = info.hints()
    if not hints:
        print(t("ex.hint.none"))
        return EXIT_OK
    store = _open_store(args)
    revealed = exercise_store.reveal_next_hint(store, info.id, len(hints))
    print(t("ex.hint", number=revealed, total=len(hints)))
    # wrapped at spaces by terminal cells (Hangul is two wide), not cut mid-word by the terminal
    Console(highlight=False).print(bold_spans(unwrap_paragraphs(hints[revealed - 1])))
    if revealed == len(hints):
        print(t("ex.hint.last", id=info.id))
    return EXIT_OK


def cmd_solution(args: argparse.Namespace, t: Translator) -> int:
    info = _exercise(args.id)
    store = _open_store(args)
    if not has_passed(exercise_store.checks(store, info.id)) and not args.force:
        print(f"studyapp: {t('ex.solution.locked', id=info.id)}", file=sys.stderr)
        return EXIT_FAILURE
    exercise_store.mark_solution_seen(store, info.id)
    print(t("ex.solution.path", path=info.solution_dir))
    for relative in info.solution_files():
        print(f"\n── {relative.as_posix()} ──")
        try:
            print((info.solution_dir / relative).read_text(encoding="utf-8").rstrip())
        except (OSError, UnicodeDecodeError):
            print("(binary file)")
    return EXIT_OK


# -- verify: for exercise authors; the logic lives in studyapp/exercises/verify.py ------------------


def _add_verify_parser(actions: Any, common: argparse.ArgumentParser) -> None:
    verify = actions.add_parser(
        "verify",
        parents=[common],
        help="authors: the starter fails, the solution passes, every recorded slip is caught",
    )
    verify.add_argument("ids", nargs="*", metavar="ID", help="exercises (default: every exercise)")
    verify.add_argument("--full", action="store_true", help="full settings instead of --quick ones")
    verify.add_argument(
        "--mutants",
        action="store_true",
        help="mutation-test the checker: mutate the reference solution (cosmic-ray) and count the "
        "mutants the checker kills; long, run it by hand",
    )


def cmd_verify(args: argparse.Namespace, t: Translator) -> int:
    from studyapp.exercises.verify import verify_command

    def echo(line: str) -> None:
        print(line, flush=True)

    if args.mutants:
        from studyapp.exercises.mutants import mutants_command

        return mutants_command(_exercises(), args.ids, quick=not args.full, echo=echo)
    exercises = _exercises()
    if not args.ids:
        return verify_command(exercises, None, quick=not args.full, echo=echo)
    # Several exercises: each verified in turn; a problem (1) outweighs "cannot run here" (2).
    codes = {
        verify_command(exercises, exercise_id, quick=not args.full, echo=echo) for exercise_id in args.ids
    }
    return EXIT_FAILURE if EXIT_FAILURE in codes else max(codes)
