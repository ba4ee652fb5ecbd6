"""A custom on_trace_ready handler (a WRONG solution of trace-handler: the table is sorted by total CPU time, not self)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

STEP_PREFIX = "ProfilerStep#"


def recorded_steps(trace_path: Path) -> list[int]:
    """The ProfilerStep#N numbers of an exported Chrome trace.

    `prof.events()` merges these events under the name "ProfilerStep*", so the numbers are read
    back from the file that was just written.
    """
    with open(trace_path, encoding="utf-8") as handle:
        events = json.load(handle)["traceEvents"]
    steps = set()
    for event in events:
        name = event.get("name", "")
        if name.startswith(STEP_PREFIX) and name[len(STEP_PREFIX) :].isdigit():
            steps.add(int(name[len(STEP_PREFIX) :]))
    return sorted(steps)


def make_handler(out_dir: str) -> Callable[[Any], None]:
    """The handler: per cycle, out_dir/steps_FIRST-LAST.pt.trace.json and .key_averages.txt."""
    out = Path(out_dir)

    def handler(prof: Any) -> None:
        # A Kineto trace can be exported only once per cycle: export under a temporary name,
        # learn the step range from the file, then rename it.
        scratch = out / "cycle.tmp.json"
        prof.export_chrome_trace(str(scratch))
        steps = recorded_steps(scratch)
        name = f"steps_{steps[0]}-{steps[-1]}" if steps else f"steps_at-{prof.step_num}"
        os.replace(scratch, out / f"{name}.pt.trace.json")
        table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=20)
        (out / f"{name}.key_averages.txt").write_text(table + "\n", encoding="utf-8")

    return handler
