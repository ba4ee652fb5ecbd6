"""A problem found in content or metadata, reported as `FILE:LINE: message`.

Light on purpose (no YAML): the near-duplicate check and the exercise registry report problems
too, and the quiz path imports them without paying for the loader.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studyapp.errors import StudyappError
from studyapp.safetext import printable


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    message: str
    warning: bool = False

    def format(self, base: Path | None = None) -> str:
        shown = self.path
        if base is not None and self.path.is_relative_to(base):
            shown = self.path.relative_to(base)
        prefix = "warning: " if self.warning else ""
        # Messages quote content (a bad id, a bad answer): never send its control characters to a terminal.
        return printable(f"{shown}:{self.line}: {prefix}{self.message}")


class ContentError(StudyappError):
    """Content that cannot be used; carries every problem found."""

    def __init__(self, problems: list[Problem], base: Path | None = None) -> None:
        self.problems = problems
        # Commands other than `check` say it in one line: the first problem and how many more.
        first = problems[0].format(base) if problems else "content is invalid"
        more = f" (and {len(problems) - 1} more: run `studyapp check`)" if len(problems) > 1 else ""
        super().__init__(f"invalid content: {first}{more}")
