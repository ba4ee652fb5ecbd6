"""`studyapp export --anki FILE`: the O/X bank for Anki / AnkiDroid (studyapp/content/anki.py).

Import the file in Anki with File › Import: the headers set the separator, HTML, note type,
deck, tags and GUID columns. Importing a newer export updates the same notes (the GUID is the
item's id), so the learner's Anki scheduling is kept.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studyapp.atomicfile import RefusedTarget
from studyapp.cli.common import load_content
from studyapp.content.anki import DEFAULT_DECK, deck_control_character, export_anki
from studyapp.errors import EXIT_OK, StudyappError
from studyapp.i18n import Translator


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    export = sub.add_parser("export", parents=[common], help="export the O/X bank (Anki text import)")
    export.add_argument(
        "--anki", metavar="FILE", required=True, help="write an Anki text import file (- for standard output)"
    )
    export.add_argument("--deck", default=DEFAULT_DECK, help=f"the Anki deck (default: {DEFAULT_DECK})")
    export.add_argument("--topic", help="only this topic (and its sub-topics)")
    export.add_argument("--json", action="store_true", help="print the result as JSON")
    export.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace, t: Translator) -> int:
    control = deck_control_character(args.deck)
    if control is not None:  # an ESC/OSC sequence would reach the terminal and the file's #deck: line
        raise StudyappError(t("export.deck_control", char=f"U+{ord(control):04X}"))
    content = load_content(args)
    if args.topic is not None and args.topic not in content.topics:
        raise StudyappError(t("cards.unknown", topic=args.topic, choices=", ".join(content.topics)))
    path = Path(args.anki)
    try:
        count, streamed = export_anki(content, path, deck=args.deck, topic=args.topic)
    except OSError as exc:
        if isinstance(exc, RefusedTarget):
            raise StudyappError(t(exc.key, path=path)) from None
        raise StudyappError(t("export.failed", path=path, problem=exc.strerror or str(exc))) from None
    # the deck went to stdout or a pipe: the confirmation goes to stderr, out of the deck's way
    where = sys.stderr if streamed else sys.stdout
    if args.json:
        print(
            json.dumps({"path": str(path), "notes": count, "deck": args.deck}, ensure_ascii=False), file=where
        )
    else:
        print(t("export.anki_done", path=path, count=count, deck=args.deck), file=where)
    return EXIT_OK
