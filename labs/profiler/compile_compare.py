"""Eager vs `torch.compile`: the same small block profiled both ways, side by side.

Run alone: `python -m labs.profiler.compile_compare OUT_DIR`. It times the first compiled call
(tracing + code generation), then profiles a few steps of each and writes `eager.json` and
`compiled.json` (Chrome traces) to OUT_DIR. Open them next to each other: the compiled trace has
one `Torch-Compiled Region` per call with a `TorchDynamo Cache Lookup` (the guard check) and one
`CompiledFxGraph` call where eager shows each elementwise op (`aten::gelu`, `aten::mul`, …)
separately; the matrix multiply stays a library call in both.

Where no compiler works (e.g. Windows without a C++ toolchain), `compile_available()` says why in
one line and the lab skips this step.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

STEPS = 8  # profiled steps per mode
WARMUP = 3


def block(x: Any, w: Any) -> Any:
    """A matrix multiply followed by elementwise work: what a compiler can fuse."""
    import torch

    y = x @ w
    return torch.nn.functional.gelu(y) * 2.0 + 1.0


def compile_available() -> str | None:
    """None when `torch.compile` can build code here, else the one-line reason it cannot."""
    try:
        import torch

        torch.compile(lambda t: t + 1)(torch.ones(2))
    except Exception as error:  # a missing compiler surfaces as many different exceptions
        return (
            f"torch.compile is not available here: {type(error).__name__}: {str(error).splitlines()[0][:160]}"
        )
    return None


def record(out_dir: Path, rows: int = 256, width: int = 512) -> dict[str, float]:
    """Profile both modes; returns the first compiled call's seconds and each mode's mean step ms."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.manual_seed(0)
    x, w = torch.randn(rows, width), torch.randn(width, width)
    compiled = torch.compile(block)
    started = time.perf_counter()
    compiled(x, w)
    result = {"first_compiled_call_s": time.perf_counter() - started}
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, function in (("eager", block), ("compiled", compiled)):
        for _ in range(WARMUP):
            function(x, w)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(STEPS):
                with record_function("step"):
                    function(x, w)
        prof.export_chrome_trace(str(out_dir / f"{name}.json"))
        steps = [e for e in prof.events() if e.name == "step"]
        result[f"{name}_step_ms"] = sum(e.cpu_time_total for e in steps) / len(steps) / 1000
    return result


if __name__ == "__main__":
    reason = compile_available()
    if reason:
        print(reason)
        sys.exit(0)
    print(record(Path(sys.argv[1] if len(sys.argv) > 1 else "compile-traces")))
