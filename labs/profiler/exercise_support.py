"""What the profiler lab's exercise checkers share (labs/profiler/exercises/*/check.py).

Reading only: traces, key_averages tables and logdirs are parsed with the standard library (via
trace_analysis), so a checker's own process never imports torch; torch runs in the learner's
child process (labs._exercise.run_learner), in the `drive_*` functions of each check.py.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from labs._exercise import say
from labs._protocol import LabUsageError
from labs.profiler import trace_analysis

# The torch-tb-profiler plugin's file pattern (torch_tb_profiler/consts.py WORKER_PATTERN): a run is
# any folder holding at least one such file; its name is the folder's path relative to the logdir.
TRACE_FILE = re.compile(r"^(?P<worker>.*?)(?P<span>\.\d+)?\.pt\.trace\.json(?P<gz>\.gz)?$")

_TIME = re.compile(r"^(?P<value>-?\d+(?:\.\d+)?)(?P<unit>ns|us|ms|s)$")
_UNITS_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def schedule_text(settings: dict[str, int]) -> str:
    return "schedule(" + ", ".join(f"{key}={value}" for key, value in settings.items()) + ")"


def recorded_cycles(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, steps: int
) -> list[tuple[int, int]]:
    """(first, last) step of every cycle `torch.profiler.schedule` records within `steps` steps.

    Only complete cycles count: a cycle still recording when the loop ends is saved by the profiler
    too, but the exercises give loops that end between cycles.
    """
    cycles = []
    length = wait + warmup + active
    index = 0
    while repeat == 0 or index < repeat:
        first = skip_first + index * length + wait + warmup
        last = first + active - 1
        if last >= steps:
            break
        cycles.append((first, last))
        index += 1
    return cycles


def trace_steps(path: str | os.PathLike[str]) -> list[int]:
    """The ProfilerStep#N numbers in a trace file (.json or .json.gz); ValueError with one line."""
    try:
        return trace_analysis.steps_in_file(os.fspath(path))
    except LabUsageError as exc:
        raise ValueError(str(exc)) from None


def load_trace(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        return trace_analysis.load_trace(os.fspath(path))
    except LabUsageError as exc:
        raise ValueError(str(exc)) from None


def ranges_text(steps: Iterable[int]) -> str:
    """[2, 3, 4, 8, 9] → "2–4, 8–9" (how a learner reads a set of steps)."""
    ordered = sorted(set(steps))
    if not ordered:
        return say("none", "없음")
    parts: list[str] = []
    start = previous = ordered[0]
    for step in [*ordered[1:], None]:
        if step is not None and step == previous + 1:
            previous = step
            continue
        parts.append(str(start) if start == previous else f"{start}–{previous}")
        if step is not None:
            start = previous = step
    return ", ".join(parts)


def parse_time_us(text: str) -> float | None:
    """ "201.241us" / "1.234ms" / "2.000s" → microseconds; None when it is not a time."""
    match = _TIME.match(text.strip())
    if not match:
        return None
    return float(match.group("value")) * _UNITS_US[match.group("unit")]


def table_rows(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """Parse a `key_averages().table()` text: (column names, rows as {column: cell}).

    The table is fixed-width: a dashed rule, a header row, a rule, the rows, a rule. Column bounds
    come from the rule's dash groups, so names with spaces (autograd::engine::...) stay whole.
    """
    lines = text.splitlines()
    rules = [i for i, line in enumerate(lines) if line.strip() and set(line.strip()) <= {"-", " "}]
    if len(rules) < 3:
        raise ValueError(
            say(
                "no key_averages table in it (the dashed rules of .table() are missing)",
                "key_averages 표가 없습니다 (.table()이 그리는 대시(-) 구분선이 없습니다)",
            )
        )
    rule = lines[rules[0]]
    bounds = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
    header = lines[rules[0] + 1]
    columns = [header[a:b].strip() for a, b in bounds]
    rows = []
    for line in lines[rules[1] + 1 : rules[2]]:
        if not line.strip():
            continue
        rows.append({column: line[a:b].strip() for column, (a, b) in zip(columns, bounds, strict=True)})
    return columns, rows


def plugin_runs(logdir: str | os.PathLike[str]) -> dict[str, list[Path]]:
    """The runs the TensorBoard profiler plugin finds in `logdir`, as its `_get_run_dirs` does:
    every folder (at any depth) holding a trace file is a run, named by its path relative to the
    logdir (the logdir itself: its own name)."""
    root = Path(logdir)
    runs: dict[str, list[Path]] = {}
    for folder, _dirs, files in os.walk(root):
        traces = sorted(Path(folder) / f for f in files if TRACE_FILE.match(f))
        if traces:
            here = Path(folder)
            name = root.name if here == root else here.relative_to(root).as_posix()
            runs[name] = traces
    return dict(sorted(runs.items()))


def gzipped(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"
