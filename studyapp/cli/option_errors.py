"""The language of command-line option errors.

argparse calls an option's type function (`--count`, `--exam-date`, `--pass-mark`, ...) while it
parses, before `args.lang` exists, so `main()` picks the language from argv (`--lang`, else the
locale) and sets it here first; the type functions raise `option_error(KEY, ...)` from the i18n
catalogue, and the parser's own frame ("argument --count: ...") is put in the same language.
"""

from __future__ import annotations

import argparse

from studyapp.i18n import Translator

_current: list[Translator] = []


def use(t: Translator) -> None:
    """Option errors from now on speak t's language (main() calls this before parsing)."""
    _current[:] = [t]


def option_t() -> Translator:
    return _current[0] if _current else Translator(None)


def option_error(key: str, **values: object) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(option_t()(key, **values))
