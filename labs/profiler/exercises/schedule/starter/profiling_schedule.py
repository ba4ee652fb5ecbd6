"""Pick a profiler schedule (exercise schedule; README.md says what to record).

The checker's loop runs 18 steps (0–17) and calls prof.step() after each one.
"""

from __future__ import annotations

from typing import Any

from torch.profiler import schedule


def make_schedule() -> Any:
    """A schedule that records exactly steps 3–5 and 9–11, each after a warmup step."""
    # TODO: choose wait, warmup, active, repeat and skip_first. This one records 2–3, 6–7, 10–11, ...
    return schedule(wait=1, warmup=1, active=2)
