"""tools/ci.py, the one runner .ci/run and .github/workflows/ci.yml call: what it would run."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


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
    assert serial.endswith("-m pytest -q -m serial")


def test_without_install_nothing_is_installed() -> None:
    assert not any("pip install" in line for line in _plan("--no-install"))


def test_the_workflow_calls_the_runner_on_every_platform() -> None:
    workflow = (REPO / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "python tools/ci.py" in workflow
    for name in ("ubuntu-latest", "windows-latest", "macos-latest", '"3.10"', '"3.13"'):
        assert name in workflow
