"""The TensorBoard profiler plugin's Overview, computed from a trace the way the plugin computes it.

The plugin (`torch-tb-profiler`, last release 0.4.3; deprecated in 2023 and removed from the kineto
repository in 2026, but it still installs and runs with tensorboard 2.21) opens on a "step time
breakdown": the average ProfilerStep split into Kernel, Memcpy, Memset, Communication, Runtime,
DataLoader, CPU Exec and Other. Each moment of a step is given to the FIRST of these categories
that was active then, in that order, so the parts add up to the step time:

    Kernel > Memcpy > Memset > Communication > Runtime > DataLoader > CPU Exec > Other

`plugin_overview` follows the plugin's own parsing, including two places where it no longer fits
traces written by today's PyTorch (2.x):

* DataLoader: the plugin keeps only `cpu_op` events named `enumerate(DataLoader)#….__next__`;
  it drops every `user_annotation` except ProfilerStep#N. PyTorch 2.x records the DataLoader's
  `__next__` as a user_annotation, so the plugin shows DataLoader 0 % and the wait lands in "Other"
  (pytorch/kineto issues #610, #844).
* Runtime: the plugin knows the category "Runtime"; kineto has long written `cuda_runtime` (and
  `cuda_driver`), so the plugin shows Runtime 0 % and the launch time lands in CPU Exec / Other.

`corrected_overview` is the same computation with those two fixed, and `disagreements` names the
categories where the two differ by more than `DISAGREE_PP` percentage points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from labs.profiler.gpu_analysis import intersect, merge, subtract, window_totals

CATEGORIES = ("Kernel", "Memcpy", "Memset", "Communication", "Runtime", "DataLoader", "CPU Exec", "Other")
DISAGREE_PP = 3.0
_STEP = re.compile(r"^ProfilerStep#(\d+)")
_COMM_OPS = re.compile(r"^(nccl|gloo|c10d::|record_param_comms)", re.IGNORECASE)


def _is_dataloader(name: str) -> bool:
    return (name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__")) or name.startswith(
        "enumerate(DataPipe)#"
    )


def _role(event: dict[str, Any], corrected: bool) -> str | None:
    """The plugin's category for one complete event, or None when the plugin ignores it."""
    return _role_of(str(event.get("cat", "")).lower(), str(event.get("name", "")), corrected)


def _role_of(cat: str, name: str, corrected: bool) -> str | None:
    if cat == "kernel":
        return "Communication" if "nccl" in name.lower() else "Kernel"
    if cat in ("gpu_memcpy", "memcpy"):
        return "Memcpy"
    if cat in ("gpu_memset", "memset"):
        return "Memset"
    if cat == "runtime" or (corrected and cat in ("cuda_runtime", "cuda_driver")):
        return "Runtime"
    if cat in ("user_annotation", "gpu_user_annotation"):
        if corrected and _is_dataloader(name):
            return "DataLoader"
        return "Communication" if _COMM_OPS.match(name) else None  # the plugin drops the rest
    if cat in ("cpu_op", "operator", "python"):
        if _is_dataloader(name):
            return "DataLoader"
        return "Communication" if _COMM_OPS.match(name) else "CPU Exec"
    return None


def _steps(events: Iterable[dict[str, Any]]) -> list[tuple[float, float]]:
    found = []
    for e in events:
        if _STEP.match(str(e.get("name", ""))) and str(e.get("cat", "")).lower() in (
            "cpu_op",
            "user_annotation",
        ):
            found.append((float(e["ts"]), float(e["ts"]) + float(e["dur"])))
    return sorted(found)


def _complete(document: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for e in document.get("traceEvents", []):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if isinstance(ts, bool) or isinstance(dur, bool) or not isinstance(ts, (int, float)):
            continue
        if not isinstance(dur, (int, float)) or dur < 0 or ts != ts or dur != dur:  # NaN
            continue
        out.append(e)
    return out


def overview(document: dict[str, Any], corrected: bool) -> dict[str, Any] | None:
    """Average step time breakdown (ms and % of the average step); None without ProfilerStep#N."""
    plugin, fixed = overviews(document)
    return fixed if corrected else plugin


def overviews(document: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The plugin's overview and the corrected one, from one pass over the trace's events."""
    events = _complete(document)
    steps = _steps(events)
    if not steps:
        return None, None
    plugin: dict[str, list[tuple[float, float]]] = {c: [] for c in CATEGORIES[:-1]}
    fixed: dict[str, list[tuple[float, float]]] = {c: [] for c in CATEGORIES[:-1]}
    for e in events:
        name = str(e.get("name", ""))
        if _STEP.match(name):
            continue
        cat = str(e.get("cat", "")).lower()
        plugin_role, fixed_role = _role_of(cat, name, False), _role_of(cat, name, True)
        if plugin_role is None and fixed_role is None:
            continue
        span = (float(e["ts"]), float(e["ts"]) + float(e["dur"]))
        if plugin_role is not None:
            plugin[plugin_role].append(span)
        if fixed_role is not None:
            fixed[fixed_role].append(span)
    return _breakdown(steps, plugin), _breakdown(steps, fixed)


def _breakdown(
    steps: list[tuple[float, float]], ranges: dict[str, list[tuple[float, float]]]
) -> dict[str, Any]:
    # Priority assignment, as the plugin's OverallParser.Statistics.create_from_range does it.
    # intersect and subtract of merged lists give merged lists: each category is merged once.
    slots = merge(steps)
    cost_ranges: dict[str, list[tuple[float, float]]] = {}
    for index, category in enumerate(CATEGORIES[:-1]):
        role = merge(ranges[category])
        got = role if index == 0 else intersect(slots, role)
        cost_ranges[category] = got
        slots = subtract(slots, got)
    cost_ranges["Other"] = slots
    # Each category's time inside each step: one sweep per category over all steps (not one scan
    # of the category per step, which made a 1000-step trace quadratic).
    count = len(steps)
    average = {c: sum(window_totals(cost_ranges[c], steps)) / count for c in CATEGORIES}
    average["Total"] = sum(end - start for start, end in steps) / count
    step_us = average["Total"]
    return {
        "steps": count,
        "step_ms": step_us / 1000,
        "ms": {c: average[c] / 1000 for c in CATEGORIES},
        "pct": {c: (100 * average[c] / step_us if step_us else 0.0) for c in CATEGORIES},
    }


def plugin_overview(document: dict[str, Any]) -> dict[str, Any] | None:
    return overview(document, corrected=False)


def corrected_overview(document: dict[str, Any]) -> dict[str, Any] | None:
    return overview(document, corrected=True)


def disagreements(plugin: dict[str, Any], corrected: dict[str, Any]) -> list[dict[str, Any]]:
    """Categories where the plugin's number is off by more than DISAGREE_PP, with the reason."""
    reasons = {
        "DataLoader": "the plugin drops user_annotation events, and PyTorch 2.x records DataLoader.__next__ as one",
        "Runtime": "the plugin knows the category 'Runtime'; kineto writes 'cuda_runtime'/'cuda_driver'",
    }
    out = []
    for category in CATEGORIES:
        gap = plugin["pct"][category] - corrected["pct"][category]
        if abs(gap) > DISAGREE_PP:
            out.append(
                {
                    "category": category,
                    "plugin_pct": plugin["pct"][category],
                    "corrected_pct": corrected["pct"][category],
                    "reason": reasons.get(
                        category, "time the plugin could not place lands here (see the other rows)"
                    ),
                }
            )
    return out


def recommendations(corrected: dict[str, Any]) -> list[str]:
    """The plugin's Overview recommendations, applied to the corrected numbers (Korean)."""
    pct = corrected["pct"]
    out = []
    if pct["DataLoader"] > 5:
        out.append(
            f"DataLoader가 스텝 시간의 {pct['DataLoader']:.1f} %다 (플러그인 권고 기준 5 %): DataLoader의 "
            "num_workers를 늘리고 pin_memory=True, persistent_workers=True를 써 보라."
        )
    if pct["Kernel"] == 0 and pct["Memcpy"] == 0 and pct["CPU Exec"] > 50:
        out.append(
            f"GPU 활동 없이 CPU Exec가 {pct['CPU Exec']:.1f} %다: CPU에서 도는 모델이다 — 연산자 표(self time)에서 "
            "무거운 연산을 찾고 torch.set_num_threads, batch 크기를 조절해 보라."
        )
    if pct["Kernel"] and pct["Kernel"] < 50 and pct["Runtime"] + pct["CPU Exec"] > 30:
        out.append(
            f"Kernel이 스텝의 {pct['Kernel']:.1f} %뿐이고 Runtime+CPU Exec가 {pct['Runtime'] + pct['CPU Exec']:.1f} %다: "
            "GPU가 CPU를 기다린다 — batch를 키우거나 CUDA Graphs / torch.compile로 launch 비용을 줄여라."
        )
    if pct["Memcpy"] > 10:
        out.append(
            f"Memcpy가 {pct['Memcpy']:.1f} %다: pinned 메모리(pin_memory=True)와 non_blocking=True로 복사를 계산과 겹쳐라."
        )
    return out
