"""The JSON-lines wire between a child (a lab or an exercise checker) and whoever runs it.

Both children write one JSON object per line on stdout when an environment variable says so
(`STUDYAPP_LAB_PROTOCOL=jsonl` for labs, `STUDYAPP_EXERCISE_PROTOCOL=jsonl` for checkers), and exit
with the codes below. Each line is `{"type": ..., **fields}` with NaN and inf turned into null, since
JSON has no such numbers. `labs/_protocol.py` (labs) and `labs/_exercise/checker.py` (checkers) say
which types they send; this module only writes them.

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any, TextIO

LAB_PROTOCOL_ENV = "STUDYAPP_LAB_PROTOCOL"
EXERCISE_PROTOCOL_ENV = "STUDYAPP_EXERCISE_PROTOCOL"

# One set of exit codes; a lab and a checker each use the name that says what it means to them.
EXIT_OK = EXIT_PASSED = 0  # a lab's result; a checker's `passed`
EXIT_CRASH = EXIT_FAILED = 1  # a lab crashed; a checker's `failed`
EXIT_USAGE = 2  # bad options or input: no result, no verdict
EXIT_DEPENDENCY = EXIT_UNDECIDED = 3  # a lab's missing package; a checker's `undecided`
EXIT_INTERRUPTED = 130  # Ctrl+C (and SIGTERM, for a checker)

# The protocol stream is the real stdout, saved before anything can redirect it.
_STDOUT: TextIO = sys.stdout


def protocol_mode(env_name: str) -> bool:
    """Is the child run by studyapp (write JSON lines), rather than by hand (write a report)?"""
    return os.environ.get(env_name) == "jsonl"


def clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf become None (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy / torch scalars
        return clean(value.item())
    return value


def emit(message_type: str, /, *, out: TextIO | None = None, **fields: Any) -> None:
    """Write `{"type": message_type, **fields}` as one line on `out` (default: the real stdout)."""
    stream = _STDOUT if out is None else out
    stream.write(json.dumps(clean({"type": message_type, **fields}), ensure_ascii=False) + "\n")
    stream.flush()
