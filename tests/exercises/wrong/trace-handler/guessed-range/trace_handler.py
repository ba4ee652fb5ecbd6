"""A WRONG solution of trace-handler: it guesses the step range from prof.step_num and assumes
every cycle records two steps (true for one schedule of the checker, not for the other)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

ACTIVE = 2  # the bug: the handler does not know the schedule's `active`


def make_handler(out_dir: str) -> Callable[[Any], None]:
    out = Path(out_dir)

    def handler(prof: Any) -> None:
        first, last = prof.step_num - ACTIVE, prof.step_num - 1
        name = f"steps_{first}-{last}"
        prof.export_chrome_trace(str(out / f"{name}.pt.trace.json"))
        table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=20)
        (out / f"{name}.key_averages.txt").write_text(table, encoding="utf-8")

    return handler
