"""Command handlers for the quiz, labs and progress (registered by `studyapp.cli`).

Each handler imports its engine lazily so `studyapp check` stays fast and torch-free.
"""

from __future__ import annotations

import argparse
from typing import Any

from studyapp.errors import StudyappError
from studyapp.i18n import Translator


def _not_built(name: str) -> Any:
    def handler(args: argparse.Namespace, t: Translator) -> int:
        raise StudyappError(t("not_built", command=name))

    return handler


def add_quiz_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    quiz = sub.add_parser("quiz", parents=[common], help="drill O/X items with spaced repetition")
    quiz.set_defaults(handler=_not_built("quiz"))


def add_lab_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    lab = sub.add_parser("lab", parents=[common], help="run a hands-on lab")
    lab.add_argument("name", nargs="?")
    lab.set_defaults(handler=_not_built("lab"))


def add_progress_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    progress = sub.add_parser("progress", parents=[common], help="progress and checklist readiness")
    progress.set_defaults(handler=_not_built("progress"))


def run_tui(args: argparse.Namespace, t: Translator, start: str) -> int:
    raise StudyappError(t("not_built", command="tui"))
