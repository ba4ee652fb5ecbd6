"""A logdir for the TensorBoard profiler plugin, and what its Overview shows (exercise tensorboard-logdir).

README.md says what to write. The checker calls write_logdir(logdir, workloads) with two runs,
then read_overview() on each run folder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

STEPS = 5  # wait 1 + warmup 1 + active 3


def write_logdir(logdir: str, workloads: dict[str, Callable[[], None]]) -> None:
    """Profile each workload into its own run folder under logdir, gzipped."""
    for _name, step in workloads.items():
        # TODO: one folder per run (logdir/NAME), and gzip the traces.
        with profile(
            activities=[ProfilerActivity.CPU],
            schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
            on_trace_ready=tensorboard_trace_handler(logdir),
        ) as prof:
            for _ in range(STEPS):
                step()
                prof.step()


def read_overview(run_dir: str) -> dict[str, Any]:
    """What the Overview's step time breakdown shows for this run:
    {"steps": int, "step_ms": float, "cpu_exec_pct": float, "other_pct": float}."""
    # TODO: read the run's *.pt.trace.json.gz and compute the four numbers (hints.md helps).
    raise NotImplementedError("read_overview() is not written yet")
