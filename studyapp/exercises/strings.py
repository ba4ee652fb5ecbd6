"""How the exercises speak (CLI and TUI): verdict lines built from the catalogue's strings."""

from __future__ import annotations

from typing import Any

from studyapp.i18n import Translator


def verdict_line(outcome: Any, t: Translator, hint: str) -> str:
    """The one line that ends a check, in the interface language; `hint` says how to get a hint."""
    total = len(outcome.requirements)
    failing = sum(not r.passed for r in outcome.requirements)
    if outcome.verdict == "passed":
        return t("ex.verdict.passed", total=total, seconds=outcome.duration_s)
    if outcome.verdict == "failed":
        return t("ex.verdict.failed", total=total, failing=failing, seconds=outcome.duration_s, hint=hint)
    if outcome.verdict == "undecided":
        return t("ex.verdict.undecided")
    return t("ex.verdict.other", verdict=outcome.verdict, message=outcome.message)
