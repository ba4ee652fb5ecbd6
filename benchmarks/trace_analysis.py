"""Time every `lab profiler --trace` view on synthetic traces of 10⁴ … 10⁶ events.

python benchmarks/trace_analysis.py [--sizes 10000,100000,1000000] [--shape steps|nested|both]

Two shapes:
  steps   a training loop: one ProfilerStep per 1000 events, a DataLoader wait, `layer:` labels,
          operators calling operators, and a GPU kernel (with its cudaLaunchKernel) per operator;
          the shape that made the step views quadratic (every step re-merged every category)
  nested  `layer:` annotations nested inside one another, all in one ProfilerStep: the shape that
          made the per-event ancestor walks quadratic

Each view is timed on its own (the trace is built in memory; `load` is parsing its JSON text, as
`--trace` does after reading the file), and `total` is the sum: about what `--trace` spends. Analysis time should grow linearly: the last column
is time per 10⁶ events, which stays roughly flat when it does.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from labs.profiler import gpu_analysis, tb_overview, trace_analysis, views

EVENTS_PER_STEP = 1000


def synthetic_trace(
    events: int, shape: str = "steps", seed: int = 3, events_per_step: int = EVENTS_PER_STEP
) -> dict[str, Any]:
    """A Chrome trace document of about `events` complete events (see the module docstring)."""
    if shape == "nested":
        return _nested_trace(events)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    ts = 0.0
    correlation = 0
    units_per_step = max((events_per_step - 4) // 5, 2)  # 5 events per unit, 4 per step around them
    for step in range(max(events // events_per_step, 1)):
        step_start = ts
        wait = rng.uniform(50, 200)
        out.append(
            _x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", ts, wait)
        )
        ts += wait + 1
        for layer in ("layer:conv", "layer:fc"):
            layer_start = ts
            for k in range(units_per_step // 2):
                child = rng.uniform(1, 5)
                launch = 2.0
                correlation += 1
                out.append(_x("cpu_op", f"aten::op{k % 50}", ts, child + launch + 2))
                out.append(_x("cpu_op", "aten::empty", ts + 0.5, child))
                out.append(
                    _x(
                        "cuda_runtime",
                        "cudaLaunchKernel",
                        ts + child + 1,
                        launch,
                        args={"correlation": correlation},
                    )
                )
                kernel_start = ts + child + 1 + launch + rng.uniform(0, 20)
                out.append(
                    _x(
                        "kernel",
                        f"void kernel_{k % 20}<float>",
                        kernel_start,
                        rng.uniform(2, 30),
                        pid=0,
                        tid=7,
                        args={"correlation": correlation, "stream": 7},
                    )
                )
                out.append(_x("cpu_op", "aten::add_", ts + child + launch + 2.5, 0.5))
                ts += child + launch + 4
            out.append(_x("user_annotation", layer, layer_start, ts - layer_start))
            ts += 1
        out.append(_x("user_annotation", f"ProfilerStep#{step}", step_start, ts - step_start))
        ts += 5
    return {"traceEvents": out}


def _nested_trace(events: int) -> dict[str, Any]:
    """`layer:` labels each inside the previous one, in one ProfilerStep (a 2 MB file at 2×10⁴)."""
    out = [_x("user_annotation", "ProfilerStep#1", 0.0, 4.0 * events + 10)]
    out += [_x("user_annotation", "layer:x", 1.0 + i, 4.0 * events - 2.0 * i) for i in range(events - 1)]
    return {"traceEvents": out}


def _x(
    cat: str, name: str, ts: float, dur: float, pid: int = 1, tid: int = 1, args: dict | None = None
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "ph": "X",
        "cat": cat,
        "name": name,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": dur,
    }
    if args:
        event["args"] = args
    return event


def timed_views(document: dict[str, Any]) -> dict[str, float]:
    """Seconds each view of `--trace` takes on `document`, and their sum as 'total'."""
    documents = [("synthetic.json", document)]
    text = json.dumps(document)
    parts: dict[str, Callable[[], Any]] = {
        "load (json)": lambda: json.loads(text),
        "events+nesting": lambda: trace_analysis.analyse_events(trace_analysis.complete_events(document)),
        "overview (plugin + corrected)": lambda: tb_overview.overviews(document),
        "step table": lambda: views.step_table(document),
        "operator view": lambda: views.operator_view(document),
        "kernel view": lambda: views.kernel_view(document),
        "gpu (HTA)": lambda: gpu_analysis.analyse_documents(documents),
    }
    times = {}
    for name, run in parts.items():
        started = time.perf_counter()
        run()
        times[name] = time.perf_counter() - started
    times["total"] = sum(times.values())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="event counts, comma-separated")
    parser.add_argument("--shape", choices=("steps", "nested", "both"), default="both")
    args = parser.parse_args()
    shapes = ("steps", "nested") if args.shape == "both" else (args.shape,)
    for shape in shapes:
        print(f"\nshape: {shape} (seconds per view)")
        header = None
        for size in (int(s) for s in args.sizes.split(",")):
            document = synthetic_trace(size, shape)
            count = len(document["traceEvents"])
            times = timed_views(document)
            if header is None:
                header = ["events", *times, "s per 10⁶ events"]
                print("| " + " | ".join(header) + " |")
                print("|" + "---:|" * len(header))
            cells = [
                f"{count:,}",
                *(f"{t:.2f}" for t in times.values()),
                f"{times['total'] * 1e6 / count:.1f}",
            ]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
