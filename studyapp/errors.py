"""Errors that end a command with one clear line and an exit code, never a traceback."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class StudyappError(Exception):
    """A problem the learner can fix; the CLI prints `studyapp: MESSAGE` and exits with `exit_code`."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
