"""The `studyapp` command line: the parser, `check`, `topics`, `cards`, and the error frame.

Thin by design: each command (`studyapp.cli.quiz`, `.exam`, `.explain`, `.progress`, `.lab`,
`.exercise`) parses its options, loads what it needs and hands over to the domain or the TUI.
Nothing here imports Textual or torch; the TUI is imported by `cli.common.run_tui` only.
Exit codes: 0 success, 2 bad usage or bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studyapp import __version__, locations
from studyapp.cli.common import load_content, run_tui
from studyapp.cli.exercise import add_exercise_parser
from studyapp.cli.explain import add_explain_parser
from studyapp.cli.lab import add_lab_parser
from studyapp.cli.progress import add_progress_parser
from studyapp.cli.quiz import add_quiz_parser
from studyapp.content.explain import check_explain, checklist_texts
from studyapp.content.loader import check_content
from studyapp.content.model import Content
from studyapp.content.render import render_topic, topic_to_dict
from studyapp.content.similarity import duplicate_problems
from studyapp.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.exercises.registry import metadata_problems
from studyapp.i18n import LANGS, Translator
from studyapp.labrunner import registry


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so every error is one line and exit 2.

    Abbreviations are off: `studyapp lab errors --data FILE` must pass `--data` to the lab, not
    take it as a short form of studyapp's own `--data-dir`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise StudyappError(f"{self.prog}: {message}")


def _global_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--content", metavar="DIR", default=default, help="content directory ($STUDYAPP_CONTENT)"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", default=default, help="progress and lab runs ($STUDYAPP_HOME)"
    )
    parser.add_argument(
        "--lang", choices=LANGS, default=default, help="interface language (default: from the locale)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="studyapp", description="성능 분석 시험 대비 학습 앱 — quiz, cards, labs, progress")
    parser.add_argument("--version", action="version", version=f"studyapp {__version__}")
    _global_options(parser, suppress=False)
    common = _Parser(add_help=False)
    _global_options(common, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sub.add_parser("check", parents=[common], help="validate the content and report every problem")
    topics = sub.add_parser("topics", parents=[common], help="list topics with item counts")
    topics.add_argument("--json", action="store_true")
    cards = sub.add_parser("cards", parents=[common], help="read the concept cards")
    cards.add_argument("topic", nargs="?", help="topic id (default: all)")
    cards.add_argument("--json", action="store_true", help="print the content model as JSON")

    add_quiz_parser(sub, common)
    add_lab_parser(sub, common)
    add_progress_parser(sub, common)
    add_exercise_parser(sub, common)
    add_explain_parser(sub, common)
    return parser


def load_content_for(args: argparse.Namespace) -> Content:
    """Load and check the content; broken content raises ContentError (one line per problem)."""
    return load_content(args)


def cmd_check(args: argparse.Namespace, t: Translator) -> int:
    root = locations.content_dir(args.content)
    content, problems = check_content(root, known_labs=set(registry.discover()))
    problems += metadata_problems(content, set(registry.discover()))  # labs/*/exercises/*/exercise.yaml
    problems += check_explain(root, checklist_texts(content))[1]  # content/explain.yaml
    if content is not None:  # near-duplicate statements and siblings: studyapp/content/similarity.py
        problems += duplicate_problems(content, base=Path.cwd())
    errors = [p for p in problems if not p.warning]
    for problem in problems:
        print(problem.format(Path.cwd()), file=sys.stderr if not problem.warning else sys.stdout)
    if errors or content is None:
        print(t("check.failed", count=len(errors)), file=sys.stderr)
        return EXIT_USAGE
    print(
        t("check.ok", topics=len(content.topics), items=len(content.items), checklist=len(content.checklist))
    )
    if content.glossary:  # content/glossary.yaml is optional
        print(t("check.glossary", terms=len(content.glossary)))
    return EXIT_OK


def cmd_topics(args: argparse.Namespace, t: Translator) -> int:
    content = load_content_for(args)
    rows = []
    for topic in content.ordered_topics():
        items = content.items_for_topic(topic.id)
        rows.append(
            {
                "id": topic.id,
                "title": topic.title,
                "title_en": topic.title_en,
                "parent": topic.parent,
                "items": len(items),
                "o_items": sum(i.answer == "O" for i in items),
                "labs": list(topic.labs),
            }
        )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None)
    for column in ("id", t("topics.header"), t("topics.items"), t("topics.labs")):
        table.add_column(column)
    for row in rows:
        indent = "  └ " if row["parent"] else ""
        table.add_row(row["id"], f"{indent}{row['title']}", str(row["items"]), ", ".join(row["labs"]))
    Console().print(table)
    return EXIT_OK


def cmd_cards(args: argparse.Namespace, t: Translator) -> int:
    content = load_content_for(args)
    if args.topic:
        topic = content.topics.get(args.topic)
        if topic is None:
            raise StudyappError(t("cards.unknown", topic=args.topic, choices=", ".join(content.topics)))
        chosen = [topic]
    else:
        chosen = content.ordered_topics()
    if args.json:
        print(
            json.dumps(
                [topic_to_dict(topic, content) for topic in chosen], ensure_ascii=False, indent=2, default=str
            )
        )
        return EXIT_OK
    from rich.console import Console

    console = Console()
    for topic in chosen:
        console.print(render_topic(topic, content, t))
    return EXIT_OK


def cmd_home(args: argparse.Namespace, t: Translator) -> int:
    return run_tui(args, t, start="home")


def _lab_args(extra: list[str]) -> list[str]:
    """The lab's own options; a `--` separator (`studyapp lab NAME -- --opt`) is not one of them."""
    if "--" in extra:
        extra = list(extra)
        extra.remove("--")
    return extra


COMMANDS = {"check": cmd_check, "topics": cmd_topics, "cards": cmd_cards}

# errno values that mean "the output could not be written" (stdout on /dev/full, a full disk)
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG}


def _tolerate_narrow_output() -> None:
    """A strictly ASCII stdout (PYTHONIOENCODING=ascii) prints '?' for Korean text instead of
    ending in UnicodeEncodeError; UTF-8 streams are left exactly as they are."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and encoding not in ("utf-8", "utf8"):
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def _drop_stdout() -> None:
    """After stdout failed, point it at /dev/null so the exit-time flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    t = Translator(None)
    _tolerate_narrow_output()
    try:
        args, extra = build_parser().parse_known_args(argv)
        if extra and args.command != "lab":
            raise StudyappError(f"studyapp: unrecognized arguments: {' '.join(extra)}")
        if args.command == "lab":
            args.lab_args = _lab_args(extra)  # options for the lab itself, passed through
        t = Translator(args.lang)
        if args.command is None:
            return cmd_home(args, t)
        handler = COMMANDS.get(args.command) or args.handler
        return int(handler(args, t))
    except StudyappError as exc:
        print(f"studyapp: {exc}" if "\n" not in str(exc) else str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"studyapp: {t('interrupted')}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `studyapp cards | head`
        sys.stderr.close()
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRNOS:
            return _internal_error(exc)
        _drop_stdout()
        print(f"studyapp: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: one line for the learner, the traceback on request
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    if os.environ.get("STUDYAPP_DEBUG"):
        raise exc
    print(
        f"studyapp: internal error: {type(exc).__name__}: {exc} (set STUDYAPP_DEBUG=1 for details)",
        file=sys.stderr,
    )
    return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
