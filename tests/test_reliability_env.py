"""Environment faults (issue 9, review section 7): a strictly ASCII stdout, stdout on a full
device, no terminal for the TUI. One line and a sensible exit code, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

QUIZ = ("quiz", "--plain", "--mode", "cram", "--no-drills", "--kind", "ox")


def clean(stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr and "crashed" not in stderr, stderr


@pytest.mark.parametrize(
    "command", [("topics",), ("cards",), QUIZ, ("progress",), ("lab", "errors", "--quick")]
)
def test_ascii_only_stdout_prints_replacement_characters(command: tuple[str, ...]) -> None:
    """Cases 7.24–7.28 (L10): UnicodeEncodeError from topics, cards, quiz --plain and the lab."""
    result = run_cli(*command, env={"PYTHONIOENCODING": "ascii"}, input_text="o\nq\n")
    assert result.returncode == 0, result.stderr
    clean(result.stderr)
    assert result.stdout.strip()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", [("topics",), ("cards",), QUIZ, ("progress",)])
def test_stdout_on_a_full_device_is_one_line(command: tuple[str, ...], isolated_home: Path) -> None:
    """Cases 7.38–7.39 (L10): `internal error: OSError: [Errno 28]`."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "studyapp", *command],
            input="o\nq\n",
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
            timeout=120,
        )
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["studyapp: cannot write the output: No space left on device"], result.stderr


@pytest.mark.parametrize("command", [("quiz",), ()])
def test_tui_without_a_terminal_says_use_plain(command: tuple[str, ...]) -> None:
    """Cases 7.32–7.33 (M5): the TUI used to start in a pipe and wait forever."""
    result = run_cli(*command, input_text="")
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--plain" in lines[0], result.stderr
