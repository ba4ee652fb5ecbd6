"""A custom on_trace_ready handler (exercise trace-handler; README.md says what to write).

`torch.profiler.profile(schedule=..., on_trace_ready=make_handler(out_dir))` calls the handler
once per cycle, with the profiler (`prof`) holding that cycle's events.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def make_handler(out_dir: str) -> Callable[[Any], None]:
    """The handler: per cycle, out_dir/steps_FIRST-LAST.pt.trace.json and .key_averages.txt."""
    out = Path(out_dir)

    def handler(prof: Any) -> None:
        # TODO 1: this overwrites one file every cycle. Export once per cycle, then name the file
        #         after the cycle's step range: steps_FIRST-LAST.pt.trace.json.
        prof.export_chrome_trace(str(out / "trace.json"))
        # TODO 2: write prof.key_averages().table(...) sorted by self CPU time into
        #         steps_FIRST-LAST.key_averages.txt.

    return handler
