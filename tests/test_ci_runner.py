"""tools/ci.py, the one runner .ci/run and .github/workflows/ci.yml call: what it would run."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REPO


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_runner", REPO / "tools" / "ci.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _waits_for(path: Path, then: str = "") -> list[str]:
    """A Python command that waits until `path` exists (exit 3 after 30 s), then runs `then`."""
    return [
        sys.executable,
        "-c",
        "import pathlib, sys, time\n"
        "end = time.monotonic() + 30\n"
        f"while not pathlib.Path({str(path)!r}).exists():\n"
        "    if time.monotonic() > end: sys.exit(3)\n"
        "    time.sleep(0.05)\n"
        f"{then}",
    ]


def _plan(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "ci.py"), "--dry-run", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_runner_installs_the_labs_extra_then_lints_then_runs_both_legs() -> None:
    plan = _plan("--torch", "2.13.0")
    assert "torch==2.13.0" in plan[0]
    assert "-e .[test,tensorboard,labs]" in plan[1]
    assert any("ruff format --check" in line for line in plan)
    assert any("lint_imports_command" in line for line in plan)
    parallel, serial = plan[-2], plan[-1]
    assert '-m "not serial"' in parallel and "--dist loadgroup" in parallel
    # the serial leg: the CPU-bound speed checks, and beside them the ones of sleeping threads
    cpu_bound, sleeping = serial.split("   &   ")
    assert cpu_bound.endswith('-m pytest -q -m "serial and not serial_sleeps"')
    assert sleeping.endswith("-m pytest -q -m serial_sleeps")


def test_commands_run_at_once_report_one_after_the_other_and_fail_on_either(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ci = _runner()
    flag = tmp_path / "second-started"
    # the first waits for the second to have started: run one after the other, it would exit 3
    first = _waits_for(flag, then="print('first done')")
    second = [
        sys.executable,
        "-c",
        f"import pathlib; pathlib.Path({str(flag)!r}).touch(); print('second done')",
    ]
    failing = [sys.executable, "-c", "raise SystemExit(1)"]
    assert ci.run_at_once([first, second, failing], dict(os.environ)) == 1  # the third's failure counts
    out = capfd.readouterr().out
    assert out.index("first done") < out.index("second done")  # its report after the first's
    no_tests = [sys.executable, "-c", "raise SystemExit(5)"]  # pytest's "no test selected"
    assert ci.run_at_once([no_tests, no_tests], dict(os.environ)) == 0


def test_every_serial_test_runs_in_exactly_one_part_of_the_serial_leg() -> None:
    def selected(marks: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marks],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
        )
        return {line for line in done.stdout.splitlines() if "::" in line}

    cpu_bound, sleeping = selected("serial and not serial_sleeps"), selected("serial_sleeps")
    assert cpu_bound and sleeping and not cpu_bound & sleeping
    assert cpu_bound | sleeping == selected("serial")
    assert all("pipeline" in test for test in sleeping)


def test_without_install_nothing_is_installed() -> None:
    assert not any("pip install" in line for line in _plan("--no-install"))


def test_the_workflow_calls_the_runner_on_every_platform() -> None:
    workflow = (REPO / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "python tools/ci.py" in workflow
    for name in ("ubuntu-latest", "windows-latest", "macos-latest", '"3.10"', '"3.13"'):
        assert name in workflow


@pytest.mark.skipif(sys.platform == "win32", reason="looks the process up with signal 0 (POSIX)")
def test_an_interrupted_leg_leaves_nothing_running_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C while the first command runs: the commands beside it are ended, not left running."""
    ci = _runner()
    pid_file = tmp_path / "beside.pid"
    beside = [
        sys.executable,
        "-c",
        f"import os, pathlib, time; pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid())); time.sleep(60)",
    ]
    first = _waits_for(pid_file)  # returns once the command beside it has started
    real_run = subprocess.run

    def interrupted(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        real_run(command, **kwargs)
        raise KeyboardInterrupt  # as if Ctrl+C had come while it ran

    monkeypatch.setattr(ci.subprocess, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ci.run_at_once([first, beside], dict(os.environ))
    monkeypatch.undo()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # ended and reaped
