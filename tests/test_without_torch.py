"""torch is the `labs` extra (pyproject.toml): where it has no wheel, `pip install .` still gives a
working quiz, and a lab or exercise check that needs torch says in one line what to install (exit 2,
no traceback). Real `python -m studyapp` processes with tests/emulation/notorch first on PYTHONPATH,
so torch cannot be imported in them nor in the children they start."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

NO_TORCH = REPO / "tests" / "emulation" / "notorch"
TRACE_HANDLER = REPO / "labs" / "profiler" / "exercises" / "trace-handler" / "solution"


def _studyapp(*args: str, stdin: str = "", lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(NO_TORCH), str(REPO)]), "STUDYAPP_LANG": lang}
    return subprocess.run(
        [sys.executable, "-m", "studyapp", *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_torch_is_an_extra_not_a_dependency() -> None:
    """What `pip install .` asks for: torch only under [project.optional-dependencies] labs."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M)
    labs = re.search(r"^labs = \[(.*?)^\]", text, re.S | re.M)
    assert dependencies and labs
    assert "torch" not in dependencies.group(1)
    assert re.search(r'"torch>=2\.1,<3"', labs.group(1))  # admits the 2.13.0 the README installs


def test_the_emulation_takes_torch_away() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import torch"],
        env={**os.environ, "PYTHONPATH": str(NO_TORCH)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "import of torch halted" in done.stderr


def test_quiz_check_and_progress_work_without_torch() -> None:
    assert _studyapp("check").returncode == 0
    quiz = _studyapp("quiz", "--plain", "--kind", "ox", "--count", "1", stdin="o\n\n")
    assert quiz.returncode == 0, quiz.stdout + quiz.stderr
    assert "Traceback" not in quiz.stderr
    progress = _studyapp("progress")
    assert progress.returncode == 0, progress.stderr
    assert "1" in progress.stdout  # the answer just given is counted


def test_a_lab_whose_torch_part_is_optional_runs_without_it(tmp_path: Path) -> None:
    """The pipeline lab measures its DataLoader part only with torch; the rest runs and reports."""
    result = _studyapp("lab", "pipeline", "--quick", "--json", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "run" / "result.json").is_file()


@pytest.mark.parametrize("lab", ["profiler", "distributed"])
def test_a_torch_lab_says_what_to_install(lab: str) -> None:
    result = _studyapp("lab", lab, "--quick")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"studyapp: {lab}: the {lab} lab needs PyTorch: pip install torch"
    ]


NEEDS_TORCH = {
    "en": "studyapp: this exercise needs torch, which is not installed here: pip install torch",
    "ko": "studyapp: 이 연습에는 torch이(가) 필요한데 설치되어 있지 않습니다: pip install torch",
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_torch_exercise_check_says_what_to_install(lang: str, tmp_path: Path) -> None:
    workspace = tmp_path / "trace-handler"
    shutil.copytree(TRACE_HANDLER, workspace)
    result = _studyapp("exercise", "check", "trace-handler", "--quick", "--path", str(workspace), lang=lang)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [NEEDS_TORCH[lang]]
