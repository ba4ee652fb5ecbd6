"""Pick a profiler schedule (a WRONG solution of schedule: the right steps, but no warmup before recording)."""

from __future__ import annotations

from typing import Any

from torch.profiler import schedule


def make_schedule() -> Any:
    """A schedule that records exactly steps 3–5 and 9–11, each after a warmup step.

    A cycle is wait + warmup + active = 2 + 1 + 3 = 6 steps: steps 0–1 wait, 2 warms up, 3–5 are
    recorded; the second cycle is 6–7, 8, 9–11; repeat=2 stops there (repeat=0 would go on to 15–17).
    """
    return schedule(wait=3, warmup=0, active=3, repeat=2)
