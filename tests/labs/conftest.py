"""Running a lab for real, the way studyapp runs it: a subprocess speaking the JSON-lines protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def run_lab_process(
    name: str, *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`python -m labs.NAME ARGS` in protocol mode: the process and its parsed stdout messages.

    Every stdout line must be a protocol message (json.loads fails the test otherwise): anything
    else would break the app's reader.
    """
    full_env = dict(env if env is not None else os.environ, STUDYAPP_LAB_PROTOCOL="jsonl")
    proc = subprocess.run(
        [sys.executable, "-m", f"labs.{name}", *args],
        cwd=REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc, [json.loads(line) for line in proc.stdout.splitlines()]
