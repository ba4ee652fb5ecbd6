"""A custom `on_trace_ready` handler: what `tensorboard_trace_handler` does, and more.

`torch.profiler.profile(schedule=..., on_trace_ready=handler)` calls `handler(prof)` once at the
end of every active cycle (the RECORD_AND_SAVE step). Inside, `prof` holds that cycle's events.

Rule learned the hard way: **a trace can be exported only once per cycle** — a second
`prof.export_chrome_trace(...)` raises `RuntimeError: Trace is already saved.` So this handler
exports once and derives everything else from that file or from `prof.key_averages()`:

  1. `{out}/{run}_cycle{N}.pt.trace.json[.gz]`   the Chrome trace (Perfetto, chrome://tracing)
  2. `{tensorboard_dir}/{worker}.{time_ns}.pt.trace.json[.gz]`  a copy named the way
     `tensorboard_trace_handler` names its files, so `tensorboard --logdir` finds it
  3. `{out}/{run}_cycle{N}_key_averages.txt`     the operator table sorted by self CPU time
  4. a record of the cycle: which ProfilerStep#N it holds, how long the handler took
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any

from torch.autograd import DeviceType

from labs._protocol import progress, write_artifact
from labs.profiler import trace_analysis

TOP_ROWS = 15


class StudyTraceHandler:
    """`profile(..., on_trace_ready=StudyTraceHandler(out, out / "tensorboard", "run"))`.

    The profiler calls the instance with itself (`prof`) once per cycle; `calls` counts those calls
    and `cycles` keeps what each one wrote, so the lab can check them against the schedule.
    """

    def __init__(
        self,
        out_dir: Path,
        tensorboard_dir: Path,
        run_name: str,
        *,
        use_gzip: bool = False,
        sort_by: str = "self_cpu_time_total",
        memory: bool = False,
        shapes: bool = False,
        stack: bool = False,
        device_table: bool = False,
        show_second_export: bool = True,
    ) -> None:
        self.out_dir = out_dir
        self.tensorboard_dir = tensorboard_dir
        self.run_name = run_name
        self.use_gzip = use_gzip
        self.sort_by = sort_by
        self.memory, self.shapes, self.stack = memory, shapes, stack
        self.device_table = device_table  # on a GPU: also sort by time spent on the device
        self.show_second_export = show_second_export
        # Same default worker name as tensorboard_trace_handler: "{hostname}_{pid}".
        self.worker_name = f"{socket.gethostname()}_{os.getpid()}"
        self.calls = 0  # how many times the profiler called us (= number of cycles)
        self.cycles: list[dict[str, Any]] = []  # what each call wrote and saw
        self.second_export_error: str | None = None

    def __call__(self, prof: Any) -> None:
        self.calls += 1
        cycle = self.calls
        started = time.perf_counter()
        suffix = ".pt.trace.json.gz" if self.use_gzip else ".pt.trace.json"

        # 1. Export the trace: the one export this cycle allows (".gz" → torch gzips it).
        trace_path = self.out_dir / f"{self.run_name}_cycle{cycle}{suffix}"
        prof.export_chrome_trace(str(trace_path))

        if self.show_second_export and self.second_export_error is None:
            # Prove the rule once: a second export of the same cycle fails.
            spare = self.out_dir / f".{self.run_name}_second_export.json"
            try:
                prof.export_chrome_trace(str(spare))
                self.second_export_error = "(no error: this torch version allows a second export)"
            except RuntimeError as exc:
                self.second_export_error = f"RuntimeError: {exc}"
            spare.unlink(missing_ok=True)

        # 2. TensorBoard's file name scheme, made by copying — not by exporting again.
        self.tensorboard_dir.mkdir(parents=True, exist_ok=True)
        tensorboard_path = self.tensorboard_dir / f"{self.worker_name}.{time.time_ns()}{suffix}"
        shutil.copyfile(trace_path, tensorboard_path)

        # 3. Tables from key_averages(): one row per operator name, summed over the cycle.
        averages = prof.key_averages()
        # Operators only: leave out record_function labels, Python functions (with_stack) and, on a
        # GPU, the kernels themselves (their time is in each operator's device_time_total).
        operators = {
            e.name
            for e in prof.events()
            if not e.is_user_annotation and not e.is_python_function and e.device_type == DeviceType.CPU
        }
        tables = [
            f"# key_averages() sorted by {self.sort_by}\n"
            + averages.table(sort_by=self.sort_by, row_limit=TOP_ROWS)
        ]
        memory_rows = shape_rows = stack_rows = None
        if self.device_table:
            tables.append(
                "# sorted by self_device_time_total (GPU kernels launched by each op)\n"
                + averages.table(sort_by="self_device_time_total", row_limit=TOP_ROWS)
            )
        if self.memory:
            tables.append(
                "# sorted by self_cpu_memory_usage (profile_memory=True)\n"
                + averages.table(sort_by="self_cpu_memory_usage", row_limit=TOP_ROWS)
            )
            memory_rows = _memory_rows(averages, operators)
        if self.shapes:
            by_shape = prof.key_averages(group_by_input_shape=True)
            tables.append(
                "# group_by_input_shape=True (record_shapes=True)\n"
                + by_shape.table(sort_by=self.sort_by, row_limit=TOP_ROWS)
            )
            shape_rows = _shape_rows(by_shape, operators)
        if self.stack:
            by_stack = prof.key_averages(group_by_stack_n=5)
            tables.append(
                "# group_by_stack_n=5 (with_stack=True + verbose experimental_config)\n"
                + by_stack.table(sort_by=self.sort_by, row_limit=TOP_ROWS)
            )
            stack_rows = _stack_rows(prof.events(), operators)
        table_path = self.out_dir / f"{self.run_name}_cycle{cycle}_key_averages.txt"
        write_artifact(table_path, "\n\n".join(tables))

        # 4. Which steps did this cycle capture? Read them back from the file just written.
        steps = trace_analysis.steps_in_file(str(trace_path))
        self.cycles.append(
            {
                "cycle": cycle,
                "steps": steps,
                "trace": str(trace_path),
                "tensorboard_trace": str(tensorboard_path),
                "table": str(table_path),
                "trace_bytes": trace_path.stat().st_size,
                "key_averages": _operator_self_times(averages, operators),
                "memory": memory_rows,
                "shapes": shape_rows,
                "stacks": stack_rows,
                "handler_ms": (time.perf_counter() - started) * 1000,
            }
        )
        progress("trace", None, f"{self.run_name}: cycle {cycle} 저장, step {steps} → {trace_path.name}")


def _operator_self_times(averages: Any, operators: set[str]) -> dict[str, dict[str, float]]:
    """Self CPU (and device) time per operator name, in ms."""
    rows = {}
    for row in averages:
        if row.key not in operators:
            continue
        rows[row.key] = {
            "self_ms": row.self_cpu_time_total / 1000,
            "total_ms": row.cpu_time_total / 1000,
            "calls": row.count,
            "device_ms": row.self_device_time_total / 1000,
        }
    return rows


def _memory_rows(averages: Any, operators: set[str]) -> list[dict[str, Any]]:
    rows = [
        {
            "name": row.key,
            "self_cpu_mb": row.self_cpu_memory_usage / 2**20,
            "cpu_mb": row.cpu_memory_usage / 2**20,
            "self_device_mb": row.self_device_memory_usage / 2**20,
            "calls": row.count,
        }
        for row in averages
        if row.key in operators
    ]
    rows.sort(key=lambda r: -r["self_cpu_mb"] - r["self_device_mb"])
    return rows[:10]


def _shape_rows(averages: Any, operators: set[str]) -> list[dict[str, Any]]:
    rows = [
        {
            "name": row.key,
            "input_shapes": str(row.input_shapes),
            "self_ms": row.self_cpu_time_total / 1000,
            "calls": row.count,
        }
        for row in averages
        if row.key in operators
    ]
    rows.sort(key=lambda r: -r["self_ms"])
    return rows[:10]


def _stack_rows(events: Any, operators: set[str]) -> list[dict[str, Any]]:
    """Self time per (operator, first frame of *your* code in its Python stack).

    A stack reads innermost first: torch's own frames, then the line in your model that made the
    call. Backward ops carry the stack of the forward op they differentiate.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events:
        if event.name not in operators or not event.stack:
            continue
        origin = next((f for f in event.stack if not f.startswith(_LIBRARY_FRAMES)), event.stack[-1])
        row = rows.setdefault(
            (event.name, origin),
            {
                "name": event.name,
                "origin": origin,
                "stack": list(event.stack[:8]),
                "self_ms": 0.0,
                "calls": 0,
            },
        )
        row["self_ms"] += event.self_cpu_time_total / 1000
        row["calls"] += 1
    return sorted(rows.values(), key=lambda r: -r["self_ms"])[:10]


_LIBRARY_FRAMES = ("torch/", "<built-in", "nn.Module:", "<frozen")
