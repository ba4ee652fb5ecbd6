"""Errors that end a command with one clear line and an exit code, never a traceback."""

from __future__ import annotations

from collections.abc import Callable

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class StudyappError(Exception):
    """A problem the learner can fix; the CLI prints `studyapp: MESSAGE` and exits with `exit_code`.

    `key` (with `values`) names the message in the i18n catalogue, for code that has no translator
    at hand (the quiz engine, the exam's settings): the CLI's error frame prints it in the learner's
    language, and `str()` stays the English message given here.
    """

    exit_code = EXIT_USAGE

    def __init__(
        self,
        message: str,
        exit_code: int | None = None,
        *,
        key: str | None = None,
        values: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
        self.key = key
        self.values = dict(values or {})

    def text(self, t: Callable[..., str] | None = None) -> str:
        """The message in `t`'s language where it has a catalogue key, else as raised."""
        if t is None or self.key is None:
            return str(self)
        return t(self.key, **self.values)
