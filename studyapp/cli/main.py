"""The `studyapp` command line: the parser, the command table and the error frame.

Thin by design: each command's module (`studyapp.cli.content`, `.quiz`, `.explain`, `.progress`,
`.lab`, `.exercise`; the mock exam's options in `.exam`) adds its parser with `add_parsers`,
loads what it needs and hands over to the domain or the TUI.
Nothing here imports Textual or torch; the TUI is imported by `cli.common.run_tui` only.
Exit codes: 0 success, 2 bad usage or bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import re
import signal
import sys
from collections.abc import Sequence
from typing import Any

from studyapp import __version__, clock
from studyapp.cli import option_errors
from studyapp.cli.common import run_tui
from studyapp.errors import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, StudyappError
from studyapp.i18n import LANGS, Translator


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so every error is one line and exit 2.

    Abbreviations are off: `studyapp lab errors --data FILE` must pass `--data` to the lab, not
    take it as a short form of studyapp's own `--data-dir`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:  # type: ignore[override]
        # The error frame prints "studyapp: " already: name the subcommand only, not the program
        # twice ("studyapp: studyapp quiz: …", N12).
        command = self.prog.removeprefix("studyapp").strip()
        message = _argparse_message(message, option_errors.option_t())
        raise StudyappError(f"{command}: {message}" if command else message)


# argparse's own sentences (Python's English, not gettext-translated here), each to a catalogue key;
# what they quote is kept as argparse wrote it. Anything else passes through unchanged.
_ARGPARSE_MESSAGES = [
    (re.compile(r"invalid (?P<type>\w+) value: (?P<value>.+)"), "cli.invalid_value"),
    (re.compile(r"invalid choice: (?P<value>.+?) \(choose from (?P<choices>.+)\)"), "cli.invalid_choice"),
    (re.compile(r"expected one argument"), "cli.expected_one"),
    (re.compile(r"the following arguments are required: (?P<names>.+)"), "cli.required"),
    (re.compile(r"unrecognized arguments: (?P<args>.+)"), "cli.unrecognized"),
]


def _argparse_message(message: str, t: Translator) -> str:
    """argparse's error in t's language: "argument --count: invalid int value: 'x'" and the like."""
    name = None
    argument = re.fullmatch(r"argument (?P<name>\S+?): (?P<message>.+)", message, re.DOTALL)
    if argument:
        name, message = argument["name"], argument["message"]
    for pattern, key in _ARGPARSE_MESSAGES:
        found = pattern.fullmatch(message)
        if found:
            values = found.groupdict()
            if "type" in values:  # int, float: a word in t's language where the catalogue has one
                values["type"] = (
                    t(f"cli.type.{values['type']}") if values["type"] in ("int", "float") else values["type"]
                )
            message = t(key, **values)
            break
    return t("cli.argument", name=name, message=message) if name else message


def _requested_lang(argv: Sequence[str]) -> str | None:
    """`--lang` as argparse will read it (the last one given), before parsing: an option's error
    is raised while parsing, and it speaks this language. None: not given, or not one of LANGS."""
    lang = None
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            break
        if token == "--lang":
            lang = next(tokens, None)
        elif token.startswith("--lang="):
            lang = token.removeprefix("--lang=")
    return lang if lang in LANGS else None


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


# The module of each command. Only the command being run is imported (`studyapp --help`, no
# argv or an unknown command import them all): every command's domain together costs ~100 ms of
# imports (python -X importtime) that `studyapp quiz` would pay before its first question.
COMMAND_MODULES = {
    "check": "studyapp.cli.content",
    "topics": "studyapp.cli.content",
    "cards": "studyapp.cli.content",
    "quiz": "studyapp.cli.quiz",
    "lab": "studyapp.cli.lab",
    "progress": "studyapp.cli.progress",
    "exercise": "studyapp.cli.exercise",
    "explain": "studyapp.cli.explain",
    "export": "studyapp.cli.export",
    "serve": "studyapp.cli.serve",
}
_VALUED_GLOBALS = ("--content", "--data-dir", "--lang")


def _requested_command(argv: Sequence[str] | None) -> str | None:
    """The command word of `argv` (None: no argv, no command, or asking for help)."""
    if argv is None:
        return None
    tokens = iter(argv)
    for token in tokens:
        if token in ("-h", "--help"):
            return None
        if token in _VALUED_GLOBALS:
            next(tokens, None)
        elif not token.startswith("-"):
            return token
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(prog="studyapp", description="성능 분석 시험 대비 학습 앱 — quiz, cards, labs, progress")
    parser.add_argument("--version", action="version", version=f"studyapp {__version__}")
    _global_options(parser, suppress=False)
    common = _Parser(add_help=False)
    _global_options(common, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    wanted = _requested_command(argv)
    modules = [COMMAND_MODULES[wanted]] if wanted in COMMAND_MODULES else COMMAND_MODULES.values()
    for module in dict.fromkeys(modules):
        importlib.import_module(module).add_parsers(sub, common)
    return parser


def cmd_home(args: argparse.Namespace, t: Translator) -> int:
    return run_tui(args, t, start="home")


def _lab_args(extra: list[str]) -> list[str]:
    """The lab's own options; a `--` separator (`studyapp lab NAME -- --opt`) is not one of them."""
    if "--" in extra:
        extra = list(extra)
        extra.remove("--")
    return extra


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


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (`kill`, `timeout`, an IDE's stop button, a closed terminal), handled as
    Ctrl+C is: a running lab or check is stopped and recorded as cancelled, not left behind."""

    def __init__(self, signum: int) -> None:
        super().__init__()
        self.signum = signum


_terminated_by: list[int] = []  # the signal, once one came (a run may catch the exception itself)


def _raise_terminated(signum: int, frame: object) -> None:
    _terminated_by.append(signum)
    raise Terminated(signum)


def _stop_on_terminate() -> dict[int, Any]:
    """Turn SIGTERM and SIGHUP into `Terminated` (the TUI puts the defaults back: cli.common.run_tui).
    Returns the handlers they had, for `_restore_handlers`."""
    previous: dict[int, Any] = {}
    for number in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
        if number is not None:
            with contextlib.suppress(ValueError, OSError):  # ValueError: not the main thread
                previous[number] = signal.signal(number, _raise_terminated)
    return previous


def _restore_handlers(previous: dict[int, Any]) -> None:
    """Put back what `_stop_on_terminate` replaced: `main()` also runs inside another program
    (the in-process CLI tests), whose own SIGTERM handling must outlive the command."""
    for number, handler in previous.items():
        if handler is not None:  # None: set outside Python, nothing to put back
            with contextlib.suppress(ValueError, OSError):
                signal.signal(number, handler)


def _fill_closed_standard_streams() -> bool:
    """Put /dev/null where fd 0, 1 or 2 is closed (`<&-`, `>&-`); False when stdout was closed.

    Python leaves sys.stdin/sys.stdout None then, and the next file studyapp opens (the progress
    database) would get fd 0 or 1 and be written to by a print. A closed stdin reads as the end
    of input; a closed stdout is refused in one line (nothing could be shown)."""
    stdout_open = True
    for fd, name, flags in (
        (0, "stdin", os.O_RDONLY),
        (1, "stdout", os.O_WRONLY),
        (2, "stderr", os.O_WRONLY),
    ):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        with contextlib.suppress(OSError):
            opened = os.open(os.devnull, flags)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", closefd=False))  # noqa: SIM115
        stdout_open = stdout_open and fd != 1
    return stdout_open


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    t = Translator(_requested_lang(arguments))
    option_errors.use(t)
    if not _fill_closed_standard_streams():
        print("studyapp: cannot write the output: standard output is closed", file=sys.stderr)
        return EXIT_USAGE
    _tolerate_narrow_output()
    _terminated_by.clear()
    previous_handlers = _stop_on_terminate()
    try:
        args, extra = build_parser(arguments).parse_known_args(arguments)
        if extra and args.command != "lab":
            raise StudyappError(t("cli.unrecognized", args=" ".join(extra)))
        if args.command == "lab":
            args.lab_args = _lab_args(extra)  # options for the lab itself, passed through
        t = Translator(args.lang)
        option_errors.use(t)
        try:
            clock.check_setting()  # a mistyped STUDYAPP_NOW is one line, before anything is written
        except clock.ClockSettingError as exc:
            raise StudyappError(str(exc), key=exc.key, values=exc.values) from None
        if args.command is None:
            return cmd_home(args, t)
        handler = args.handler
        code = int(handler(args, t))
        # A lab or check stopped by SIGTERM/SIGHUP ends as if by Ctrl+C (recorded, nothing left
        # running); the exit status still says which signal ended studyapp.
        return 128 + _terminated_by[0] if _terminated_by else code
    except StudyappError as exc:
        message = exc.text(t)
        print(f"studyapp: {message}" if "\n" not in message else message, file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        with contextlib.suppress(OSError, ValueError):  # a closed terminal takes no more lines
            print(f"studyapp: {t('interrupted')}", file=sys.stderr)
        return 128 + exc.signum if isinstance(exc, Terminated) else EXIT_INTERRUPTED
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
    finally:
        _restore_handlers(previous_handlers)


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
