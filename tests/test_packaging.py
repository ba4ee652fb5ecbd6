"""`pip install .` ships the content and the labs: the installed app works from any directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("studyapp-*.whl")
    return built


def test_wheel_contains_content_and_labs(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "studyapp/_bundled/content/checklist.yaml" in names
    assert "studyapp/_bundled/labs/_protocol.py" in names
    assert any(n.startswith("studyapp/_bundled/labs/errors/") for n in names)
    assert "studyapp/tui/app.tcss" in names


def test_installed_app_works_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUDYAPP_CONTENT")}
    env["PYTHONPATH"] = str(target)  # the installed copy only, not the checkout
    commands = (
        ["check"],
        ["topics"],
        ["cards", "torch-profiler"],
        ["lab", "list"],
        ["exercise", "list", "--json"],
    )
    for command in commands:
        result = subprocess.run(
            [sys.executable, "-m", "studyapp", *command],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, (command, result.stderr)
        if command[0] == "exercise":  # the exercises are found in the wheel's _bundled/labs
            from studyapp.exercises.registry import discover

            listed = [row["id"] for row in json.loads(result.stdout)]
            assert sorted(listed) == sorted(discover(REPO / "labs"))  # listed in study-path order
            assert all("/_bundled/labs/" in row["solution_path"] for row in json.loads(result.stdout))
    located = subprocess.run(
        [sys.executable, "-c", "from studyapp import locations; print(locations.content_dir())"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(target) in located.stdout
