"""A pytest plugin the pytest-benchmark checker loads (`-p probe_plugin`) into the learner's run.

It sees what the benchmark JSON cannot say:
- which of the two given implementations each test called, and whether each call of the in-place
  `insertion_sort` got an unsorted list (a benchmark without setup sorts an already sorted list
  from its second round on);
- whether a test used `benchmark.pedantic`, with which rounds and whether it passed a setup;
- how long each call of an implementation took inside it (the fastest per test), so the checker can
  compare it with the benchmark's own time per call: whatever else the timed callable does (a
  setup inside the timed call) is the difference.

It also puts the checker's own copy of sorting.py in place of the learner's, so an edited copy in
the workspace cannot change what is measured. Configured by environment variables (set by check.py):
BENCH_PROBE_REFERENCE (the reference sorting.py) and BENCH_PROBE_OUT (where to write the record).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import itertools
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

_current: dict[str, str | None] = {"test": None}
_calls: dict[str, dict[str, dict[str, Any]]] = {}  # nodeid -> function -> counts
_pedantic: dict[str, dict[str, Any]] = {}  # nodeid -> how pedantic was called
_benchmark_tests: list[str] = []  # tests that take the `benchmark` fixture
_depth = {"calls": 0}  # merge_sorted calls itself: only the outermost call is the learner's
_inside: dict[tuple[str, str], list[float]] = {}  # (nodeid, function) -> seconds of each outermost call


def _load_reference() -> None:
    path = os.environ["BENCH_PROBE_REFERENCE"]
    spec = importlib.util.spec_from_file_location("sorting", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("insertion_sort", "merge_sorted"):
        setattr(module, name, _counted(name, getattr(module, name)))
    sys.modules["sorting"] = module  # `from sorting import ...` in the learner's file gets these


def _counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(values: list[int], *args: Any, **kwargs: Any) -> Any:
        if _depth["calls"]:
            return function(values, *args, **kwargs)
        started = time.perf_counter()  # the probe's own work below counts as inside, not as extra
        counts = _calls.setdefault(_current["test"] or "<outside a test>", {}).setdefault(
            name, {"calls": 0, "presorted": 0}
        )
        counts["calls"] += 1
        sizes = counts.setdefault(
            "sizes", []
        )  # every list size this test gave it (one, in a fair comparison)
        if len(values) not in sizes:
            sizes.append(len(values))
        if len(values) > 1 and all(a <= b for a, b in itertools.pairwise(values)):
            counts["presorted"] += 1
        _depth["calls"] += 1
        try:
            return function(values, *args, **kwargs)
        finally:
            _inside.setdefault((_current["test"] or "<outside a test>", name), []).append(
                time.perf_counter() - started
            )
            _depth["calls"] -= 1

    return wrapper


def _patch_pedantic() -> None:
    from pytest_benchmark.fixture import BenchmarkFixture

    original = BenchmarkFixture.pedantic
    signature = inspect.signature(original)

    @functools.wraps(original)
    def pedantic(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            _pedantic[_current["test"] or "<outside a test>"] = {
                "setup": bound.arguments.get("setup") is not None,
                "rounds": bound.arguments.get("rounds"),
                "iterations": bound.arguments.get("iterations"),
                "target": getattr(bound.arguments.get("target"), "__name__", None),
            }
        except TypeError:
            pass  # the original raises the learner's mistake with its own message
        return original(self, *args, **kwargs)

    BenchmarkFixture.pedantic = pedantic  # type: ignore[method-assign]


_load_reference()
_patch_pedantic()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _current["test"] = item.nodeid
    if "benchmark" in getattr(item, "fixturenames", ()):
        _benchmark_tests.append(item.nodeid)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    _current["test"] = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    for (test, name), seconds in _inside.items():
        # the fastest call: a busy machine only adds time, and among a hundred calls some ran
        # undisturbed even when most did not (a quartile moves once a quarter are slowed)
        _calls[test][name]["min_inside_s"] = min(seconds)  # type: ignore[assignment]
    with open(os.environ["BENCH_PROBE_OUT"], "w", encoding="utf-8") as out:
        json.dump({"calls": _calls, "pedantic": _pedantic, "benchmark_tests": _benchmark_tests}, out)
