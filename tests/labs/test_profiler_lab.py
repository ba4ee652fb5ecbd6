"""The profiler lab, run for real: `python -m labs.profiler` in a subprocess, JSON lines on stdout.

Two lab runs are shared by the whole module (fixtures): the default quick run and a quick run with
every option on. Everything else (`--trace`, bad input) runs without torch and takes a fraction
of a second. No timing constant is asserted: the checks compare the lab's numbers with each other
and with the artifacts it wrote.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.labs.conftest import run_lab_process

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

OPTIONS_RUN = [
    "--memory",
    "--shapes",
    "--stack",
    "--gzip",
    "--wait",
    "0",
    "--warmup",
    "1",
    "--active",
    "2",
    "--repeat",
    "2",
    "--workers",
    "1",
]


def run_lab(*args: str, timeout: float = 120) -> tuple[int, list[dict[str, Any]], str]:
    proc, messages = run_lab_process("profiler", *args, timeout=timeout)
    return proc.returncode, messages, proc.stderr


def the_result(messages: list[dict[str, Any]]) -> dict[str, Any]:
    results = [m for m in messages if m["type"] == "result"]
    assert len(results) == 1, messages[-3:]
    assert messages[-1]["type"] == "result"
    return results[0]["result"]


def scheduled_steps(wait: int, warmup: int, active: int, repeat: int) -> list[int]:
    """The step numbers torch.profiler.schedule records, worked out by hand."""
    cycle = wait + warmup + active
    return [c * cycle + wait + warmup + k for c in range(repeat) for k in range(active)]


def read_trace(path: str) -> dict[str, Any]:
    data = Path(path).read_bytes()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return json.loads(data)


def profiler_steps(trace: dict[str, Any]) -> list[int]:
    return sorted(
        int(e["name"].split("#")[1])
        for e in trace["traceEvents"]
        if e.get("name", "").startswith("ProfilerStep#")
    )


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("profiler-quick")
    code, messages, stderr = run_lab("--quick", "--out", str(out))
    assert code == 0, stderr[-3000:]
    return the_result(messages), messages


@pytest.fixture(scope="module")
def options_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("profiler-options")
    code, messages, stderr = run_lab("--quick", "--out", str(out), *OPTIONS_RUN)
    assert code == 0, stderr[-3000:]
    return the_result(messages)


# --------------------------------------------------------------------------- the default quick run


def test_protocol_stream(quick):
    result, messages = quick
    assert [m["type"] for m in messages[:-1]] == ["progress"] * (len(messages) - 1)
    fractions = [m["fraction"] for m in messages if m["type"] == "progress" and m["fraction"] is not None]
    assert fractions and all(0 <= f <= 1 for f in fractions)
    assert result["lab"] == "profiler" and result["status"] == "ok"
    assert result["summary"] and result["findings"] and all(isinstance(f, str) for f in result["findings"])
    for table in result["tables"]:
        assert all(len(row) == len(table["columns"]) for row in table["rows"]), table["title"]
    for path in result["artifacts"].values():
        assert Path(path).exists(), path


def test_handler_ran_once_per_cycle(quick):
    result, _ = quick
    assert result["schedule"] == {"wait": 1, "warmup": 1, "active": 3, "repeat": 1}
    assert result["handler_calls"] == 1 == len(result["cycles"])
    assert result["workers_run"]["handler_calls"] == 1
    assert "already saved" in result["second_export_error"]  # the export-once rule, observed


def test_trace_holds_exactly_the_scheduled_steps(quick):
    result, _ = quick
    expected = scheduled_steps(1, 1, 3, 1)
    assert result["steps"] == result["scheduled_steps"] == expected
    assert profiler_steps(read_trace(result["trace_path"])) == expected
    assert profiler_steps(read_trace(result["workers_run"]["trace_path"])) == expected


def test_tensorboard_file_is_a_copy_named_like_tensorboard_trace_handler(quick):
    result, _ = quick
    (tb_file,) = result["tensorboard_files"]
    assert Path(tb_file).parent.parent == Path(result["tensorboard_dir"])
    assert re.fullmatch(r".+_\d+\.\d+\.pt\.trace\.json", Path(tb_file).name)
    assert Path(tb_file).read_bytes() == Path(result["trace_path"]).read_bytes()
    table = Path(result["artifacts"]["key_averages"]).read_text(encoding="utf-8")
    assert "Self CPU" in table and "aten::" in table


def test_schedule_phases_add_up(quick):
    result, _ = quick
    phases = result["phases"]
    assert sum(p["steps"] for p in phases.values()) == result["total_steps"] == len(result["step_records"])
    assert phases["WARMUP"]["steps"] == 1
    assert phases["RECORD"]["steps"] + phases["RECORD_AND_SAVE"]["steps"] == 3
    recorded = [r["step"] for r in result["step_records"] if r["phase"].startswith("RECORD")]
    assert recorded == result["steps"]


def test_bottleneck_is_the_planted_layer(quick):
    result, _ = quick
    layers = result["layers"]
    assert set(layers) == {"layer:conv1", "layer:conv2", "layer:conv3", "layer:fc"}
    assert result["bottleneck"] == max(layers, key=layers.get)
    assert result["bottleneck"] == result["planted_layer"] == "layer:conv2"


def test_data_loading_share_falls_with_workers(quick):
    result, _ = quick
    share, workers = result["data_loading_share"], result["workers_run"]
    assert workers["num_workers"] == 2
    assert 0 < workers["data_loading_share"] < share <= 1
    assert share > 0.1  # the 2 ms-per-sample Dataset is a large part of each step...
    assert workers["data_loading_share"] < share / 2  # ...and workers hide most of it


def test_timings_are_consistent(quick):
    result, _ = quick
    assert result["device"] in ("cpu", "cuda")
    assert result["overhead_ratio"] > 0 and result["overhead_ratio_compute"] > 0
    assert result["first_step_ms"] > 0 and result["later_step_ms"] > 0 and result["model_setup_ms"] > 0
    assert result["step_ms"] > 0 and result["workers_run"]["step_ms"] > 0
    for record in result["step_records"]:
        assert record["wall_ms"] >= record["data_ms"] >= 0
    # overhead = recorded steps / the unprofiled steps after the cycle, in the same loop
    after = [r for r in result["step_records"] if r["step"] in result["unprofiled_steps"]]
    assert len(after) == 3 and all(r["phase"] == "NONE" for r in after)
    assert result["overhead_ratio"] == pytest.approx(
        result["profiled_step_ms"] / result["unprofiled_step_ms"]
    )
    # the workers run's first step includes starting the worker processes
    assert result["workers_run"]["first_step_ms"] > result["workers_run"]["step_ms"]


def test_trace_self_times_agree_with_key_averages(quick):
    result, _ = quick
    from_trace = {r["name"]: r for r in result["top_ops"]}
    from_torch = {r["name"]: r for r in result["key_averages_top"]}
    common = [name for name in from_torch if name in from_trace]
    assert len(common) >= 5
    assert result["top_ops"][0]["name"] == result["key_averages_top"][0]["name"]
    for name in common:
        assert from_trace[name]["calls"] == from_torch[name]["calls"], name
        assert from_trace[name]["self_ms"] == pytest.approx(
            from_torch[name]["self_ms"], rel=1e-3, abs=1e-3
        ), name
    assert [r["self_ms"] for r in result["top_ops"]] == sorted(
        (r["self_ms"] for r in result["top_ops"]), reverse=True
    )


# --------------------------------------------------------------------------- --trace on the lab's own traces


def test_trace_mode_reproduces_the_run(quick, tmp_path):
    result, _ = quick
    plain = Path(result["trace_path"])
    packed = tmp_path / "copy.pt.trace.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        code, messages, stderr = run_lab("--trace", str(path))
        assert code == 0, stderr[-2000:]
        report = the_result(messages)
        assert report["mode"] == "trace"
        assert report["steps"] == result["steps"]
        assert report["step_ms"] == pytest.approx(result["step_ms"])
        assert report["data_loading_share"] == pytest.approx(result["data_loading_share"])
        assert report["bottleneck"] == result["bottleneck"]
        assert report["top_ops"] == result["top_ops"]
        by_name = {r["name"]: r["self_ms"] for r in result["key_averages_top"]}
        for row in report["top_ops"]:
            if row["name"] in by_name:
                assert row["self_ms"] == pytest.approx(by_name[row["name"]], rel=1e-3, abs=1e-3)


def test_trace_mode_does_not_import_torch(quick):
    result, _ = quick
    code = (
        "import sys\n"
        "from labs.profiler.lab import main\n"
        f"report = main(['--trace', {result['trace_path']!r}])\n"
        "assert report['steps'], report\n"
        "print('torch' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "False"


def test_trace_mode_on_a_hand_made_trace(tmp_path):
    """Self time = duration minus direct children, per thread; everything else follows from it."""

    def x(name, cat, ts, dur, tid=1, pid=1):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}

    events = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
        x("ProfilerStep#5", "user_annotation", 0, 100),
        x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", 1, 30),
        x("layer:big", "user_annotation", 35, 40),
        x("aten::conv2d", "cpu_op", 36, 38),
        x("aten::convolution", "cpu_op", 37, 36),
        x("aten::mkldnn_convolution", "cpu_op", 38, 30),
        x("layer:small", "user_annotation", 76, 10),
        x("aten::linear", "cpu_op", 77, 8),
        x("aten::addmm", "cpu_op", 78, 6),
        x("ProfilerStep#6", "user_annotation", 100, 60),
        x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", 101, 10),
        x("layer:big", "user_annotation", 115, 30),
        x("aten::conv2d", "cpu_op", 116, 25),
        x("layer:small", "user_annotation", 150, 5),
        x("aten::conv2d", "cpu_op", 5, 500, tid=2),  # another thread: nests with nothing above
        x("sgemm_kernel", "kernel", 40, 20, tid=7, pid=0),
        {
            "ph": "i",
            "s": "t",
            "name": "[memory]",
            "pid": 1,
            "tid": 1,
            "ts": 50,
            "args": {"Device Type": 0, "Bytes": 1024, "Total Allocated": 3 * 2**20},
        },
    ]
    path = tmp_path / "hand.json"
    path.write_text(json.dumps({"traceEvents": events}), encoding="utf-8")
    code, messages, stderr = run_lab("--trace", str(path))
    assert code == 0, stderr[-2000:]
    report = the_result(messages)
    assert report["steps"] == [5, 6]
    assert report["step_ms"] == pytest.approx(0.080)
    assert report["data_loading_share"] == pytest.approx(40 / 160)
    assert report["layers"] == pytest.approx({"layer:big": 0.035, "layer:small": 0.0075})
    assert report["bottleneck"] == "layer:big"
    self_ms = {r["name"]: (r["self_ms"], r["calls"]) for r in report["top_ops"]}
    assert self_ms == {
        "aten::conv2d": (pytest.approx((2 + 25 + 500) / 1000), 3),
        "aten::mkldnn_convolution": (pytest.approx(0.030), 1),
        "aten::convolution": (pytest.approx(0.006), 1),
        "aten::addmm": (pytest.approx(0.006), 1),
        "aten::linear": (pytest.approx(0.002), 1),
    }
    assert report["top_ops"][0]["name"] == "aten::conv2d"
    assert report["device"] == "cuda" and report["top_kernels"][0]["name"] == "sgemm_kernel"
    assert report["memory_peak_mb"] == {"cpu": pytest.approx(3.0)}


def _broken_files(tmp: Path, real_trace: Path) -> dict[str, Path]:
    data = real_trace.read_bytes()
    files = {
        "not-json": b"this is not a trace\n",
        "truncated": data[: len(data) // 2],
        "truncated-gzip": gzip.compress(data)[:200],
        "empty": b"",
        "empty-object": b"{}",
        "no-events": b'{"traceEvents": []}',
    }
    paths = {}
    for name, content in files.items():
        path = tmp / f"{name}.json"
        path.write_bytes(content)
        paths[name] = path
    paths["missing"] = tmp / "does-not-exist.json"
    return paths


@pytest.mark.parametrize(
    "case", ["not-json", "truncated", "truncated-gzip", "empty", "empty-object", "no-events", "missing"]
)
def test_trace_mode_rejects_broken_files(quick, tmp_path, case):
    result, _ = quick
    path = _broken_files(tmp_path, Path(result["trace_path"]))[case]
    code, messages, _ = run_lab("--trace", str(path))
    assert code == 2
    errors = [m for m in messages if m["type"] == "error"]
    assert len(errors) == 1 and messages[-1] is errors[0]
    assert errors[0]["kind"] == "usage"
    assert "\n" not in errors[0]["message"] and str(path.name) in errors[0]["message"]


# --------------------------------------------------------------------------- bad options, missing torch


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["--active", "0"],
        ["--wait", "-1"],
        ["--repeat", "0"],
        ["--workers", "many"],
        ["--threads", "0"],
    ],
)
def test_bad_options_exit_2(args):
    code, messages, _ = run_lab(*args)
    assert code == 2
    assert len(messages) == 1 and messages[0]["type"] == "error" and messages[0]["kind"] == "usage"
    assert "\n" not in messages[0]["message"]


def test_missing_torch_is_a_dependency_error(tmp_path):
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # makes `import torch` fail as if it were not installed\n"
        "from labs._protocol import run_lab\n"
        "from labs.profiler.lab import main\n"
        f"run_lab('profiler', main, ['--quick', '--out', {str(tmp_path)!r}])\n"
    )
    env = {**os.environ, "STUDYAPP_LAB_PROTOCOL": "jsonl"}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 3
    message = json.loads(proc.stdout.splitlines()[-1])
    assert message == {
        "type": "error",
        "message": "the profiler lab needs PyTorch: pip install torch",
        "kind": "dependency",
    }


# --------------------------------------------------------------------------- every option at once


def test_repeat_two_cycles_two_handler_calls(options_run):
    result = options_run
    expected = scheduled_steps(0, 1, 2, 2)
    assert result["handler_calls"] == 2 == len(result["cycles"])
    assert result["workers_run"]["handler_calls"] == 2
    assert [c["steps"] for c in result["cycles"]] == [expected[:2], expected[2:]]
    assert result["steps"] == result["workers_run"]["steps"] == expected
    assert sum(p["steps"] for p in result["phases"].values()) == result["total_steps"] == 2 * 3 + 2
    assert result["phases"]["WARMUP"]["steps"] == 2


def test_gzip_traces_and_tensorboard_copies(options_run):
    result = options_run
    for cycle in result["cycles"]:
        assert cycle["trace"].endswith(".pt.trace.json.gz")
        assert re.fullmatch(r".+_\d+\.\d+\.pt\.trace\.json\.gz", Path(cycle["tensorboard_trace"]).name)
        assert Path(cycle["tensorboard_trace"]).read_bytes() == Path(cycle["trace"]).read_bytes()
        assert profiler_steps(read_trace(cycle["trace"])) == cycle["steps"]


def test_memory_shapes_stacks(options_run):
    result = options_run
    assert result["memory_by_op"] and all(isinstance(r["self_cpu_mb"], float) for r in result["memory_by_op"])
    assert max(result["memory_peak_mb"].values()) > 0
    assert result["shapes"] and all(r["input_shapes"].startswith("[") for r in result["shapes"])
    assert result["stacks"] and any("labs/profiler/model.py" in r["origin"] for r in result["stacks"])
    assert not any(r["name"].startswith("<built-in") for r in result["stacks"] + result["shapes"])
    assert result["bottleneck"] == max(result["layers"], key=result["layers"].get)
    assert 0 <= result["workers_run"]["data_loading_share"] <= 1 and result["workers_run"]["num_workers"] == 1
