"""How a lab talks to whoever runs it.

A lab is an ordinary Python program (`python -m labs.NAME`). When studyapp runs it, the
environment variable STUDYAPP_LAB_PROTOCOL=jsonl is set and the lab writes one JSON object per
line on stdout:

    {"type": "progress", "phase": "profiling", "fraction": 0.4, "message": "step 3/7"}
    {"type": "result", "result": {...}}          # exactly once, at the end
    {"type": "error", "message": "...", "kind": "usage" | "dependency" | "crash"}
    {"type": "serving", "url": null, "seconds": null}   # the untimed, Ctrl+C-ended phase: `serving`

Anything else a lab (or a library it uses) prints goes to stderr, which studyapp keeps out of the
screen. Run by hand (no environment variable), a lab prints its progress to stderr and a plain
text report on stdout, so a learner can read and change a lab without studyapp.

Exit codes: 0 ok, 1 crashed, 2 bad options or input, 3 a dependency is missing, 130 Ctrl+C.
The lines and the codes are written by `labs/_wire.py`, which exercise checkers use too.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import re
import signal
import stat
import sys
import tempfile
import traceback
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from labs._wire import (
    EXIT_CRASH,
    EXIT_DEPENDENCY,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    clean,
    emit,
    protocol_mode,
)
from labs._wire import LAB_PROTOCOL_ENV as PROTOCOL_ENV


class LabUsageError(Exception):
    """Bad options or input data: reported in one line, exit 2."""


class LabDependencyError(Exception):
    """A package the lab needs is missing: reported in one line, exit 3."""


def write_artifact(path: Path, text: str) -> str:
    """Write one file of the lab's output folder whole: a temp file beside it, renamed into place.

    Only a new name or a regular file is written. Anything else there (a FIFO that would block
    the lab until its time limit, a device, a folder, a link) is refused: `--out` may name any
    folder of the learner's. Returns the file's absolute path, for the result's `artifacts`."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise LabUsageError(
                f"{path}: 파일이 아닌 것(폴더, 파이프, 장치, 링크)이 있어 쓰지 않았습니다; 다른 --out을 주세요"
            )
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:  # csv text keeps its \r\n
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return str(path.resolve())


def csv_text(rows: Sequence[Sequence[Any]]) -> str:
    """Rows as CSV text (the csv module's dialect), for `write_artifact`."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue()


def _protocol_mode() -> bool:
    return protocol_mode(PROTOCOL_ENV)


def progress(phase: str, fraction: float | None = None, message: str = "") -> None:
    """Report what the lab is doing now. `fraction` is overall progress from 0 to 1."""
    if _protocol_mode():
        emit("progress", phase=phase, fraction=fraction, message=message)
    else:
        pct = "" if fraction is None else f"{fraction * 100:5.1f}% "
        print(printable(f"[{pct}{phase}] {message}"), file=sys.stderr, flush=True)


def serving(url: str | None, seconds: float | None) -> None:
    """Say the measured work is done and what follows serves the learner (TensorBoard at `url`,
    once known) until Ctrl+C, or ends within `seconds`.

    Under studyapp the lab's time limit stops here (`seconds`, if given, bounds the rest), and
    Ctrl+C (or cancel in the TUI) reaches the lab as SIGINT: a KeyboardInterrupt the lab catches
    to end this phase and still send its result. On Windows studyapp sends CTRL_BREAK instead
    (SIGINT cannot be sent to one process there): it is made the same KeyboardInterrupt.
    """
    if hasattr(signal, "SIGBREAK"):
        signal.signal(signal.SIGBREAK, signal.default_int_handler)
    if _protocol_mode():
        emit("serving", url=url, seconds=seconds)


def finite_float(text: str) -> float:
    """A float option value: `nan` and `inf` are refused (a NaN compares false with every limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"숫자가 아닙니다 (not a number): {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"유한한 숫자여야 합니다 (must be a finite number): {text!r}")
    return value


def bounded_float(low: float, high: float, *, above: bool = False) -> Callable[[str], float]:
    """An argparse `type` for a float in [low, high] (or (low, high] with above=True), never nan/inf."""

    def parse(text: str) -> float:
        value = finite_float(text)
        if value > high or value < low or (above and value == low):
            opening = "(" if above else "["
            raise argparse.ArgumentTypeError(
                f"{opening}{low:g}, {high:g}] 범위의 숫자여야 합니다 (must be in {opening}{low:g}, {high:g}]): {text!r}"
            )
        return value

    return parse


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse `type` for a whole number in [low, high]: absurd sizes are refused before any work."""

    def parse(text: str) -> int:
        stripped = text.strip()
        digits = stripped[1:] if stripped[:1] in "+-" else stripped
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
            raise argparse.ArgumentTypeError(
                f"{low}..{high} 범위의 정수여야 합니다 (must be a whole number {low}..{high}): {text!r}"
            )
        value = int(stripped)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{low}..{high} 범위의 정수여야 합니다 (must be a whole number {low}..{high}): {text!r}"
            )
        return value

    return parse


def _harden(parser: argparse.ArgumentParser) -> None:
    """No option abbreviations, and no float option that takes nan or inf (in every lab's parser)."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if action.type is float:
            action.type = finite_float


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """argparse that raises LabUsageError instead of printing usage and exiting."""

    def fail(message: str) -> NoReturn:
        raise LabUsageError(message)

    parser.error = fail  # type: ignore[method-assign]
    _harden(parser)
    if _protocol_mode():
        # --help would print to the protocol stream and exit without a result: say it in one line.
        parser.print_help = lambda file=None: fail(  # type: ignore[method-assign]
            "run the lab by hand for its options: " + " ".join(parser.format_usage().split())
        )
    return parser.parse_args(argv)


# Terminal control characters (C0 but tab/newline, DEL, C1): a label read from a learner's CSV or a
# trace could hold an escape sequence that retitles or clears the terminal when printed by hand.
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with control characters shown as visible `\\xNN` escapes (newline and tab kept)."""
    return _CONTROL_CHARS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def format_report(result: dict[str, Any]) -> str:
    """A plain-text report of a result: tables, findings, artifacts (for runs by hand)."""
    return printable(_format_report(result))


def _format_report(result: dict[str, Any]) -> str:
    lines: list[str] = []
    if result.get("summary"):
        lines += [str(result["summary"]), ""]
    for table in result.get("tables", []):
        columns = [str(c) for c in table.get("columns", [])]
        rows = [[_cell(v) for v in row] for row in table.get("rows", [])]
        widths = [
            max([_width(c)] + [_width(r[i]) for r in rows if i < len(r)]) for i, c in enumerate(columns)
        ]
        lines.append(f"== {table.get('title', '')}")
        lines.append("  ".join(_pad(c, w) for c, w in zip(columns, widths, strict=False)))
        for row in rows:
            lines.append("  ".join(_pad(v, w) for v, w in zip(row, widths, strict=False)))
        lines.append("")
    for finding in result.get("findings", []):
        lines.append(f"- {finding}")
    artifacts = result.get("artifacts") or {}
    if artifacts:
        lines.append("")
        lines += [f"{name}: {path}" for name, path in artifacts.items()]
    return "\n".join(lines)


def _width(text: str) -> int:
    """Terminal cells: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def run_lab(
    name: str, main: Callable[[Sequence[str] | None], dict[str, Any]], argv: Sequence[str] | None = None
) -> NoReturn:
    """Run `main(argv)`, which returns the result dict, and exit with the protocol's codes."""
    try:
        result = main(argv)
    except KeyboardInterrupt:
        _fail(name, "interrupted", "cancelled", EXIT_INTERRUPTED)
    except LabUsageError as exc:
        _fail(name, str(exc), "usage", EXIT_USAGE)
    except LabDependencyError as exc:
        _fail(name, str(exc), "dependency", EXIT_DEPENDENCY)
    except Exception as exc:  # a crash: full traceback to stderr, one line on the protocol
        # stderr may be a log on the same full disk: the protocol line below still says why.
        with contextlib.suppress(OSError):
            traceback.print_exc(file=sys.stderr)
        _fail(name, f"{type(exc).__name__}: {exc}", "crash", EXIT_CRASH)
    result.setdefault("lab", name)
    result.setdefault("status", "ok")
    if _protocol_mode():
        emit("result", result=result)
    else:
        print(format_report(clean(result)))
    sys.exit(EXIT_OK)


def _fail(name: str, message: str, kind: str, code: int) -> NoReturn:
    if _protocol_mode():
        emit("error", message=message, kind=kind)
    else:
        print(printable(f"{name}: {message}"), file=sys.stderr)
    sys.exit(code)
