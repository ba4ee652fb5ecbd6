"""Shared fixtures: every test gets its own data directory, so none touches a learner's files."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# tests/data holds third-party material (e.g. pytest-benchmark's own suite) that labs run on:
# input for the tests, not tests of studyapp.
collect_ignore = ["data"]


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "studyapp-home"
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    monkeypatch.setenv("STUDYAPP_CACHE", str(home / "cache"))  # the content cache, per test
    monkeypatch.delenv("STUDYAPP_CONTENT", raising=False)
    monkeypatch.delenv("STUDYAPP_LABS", raising=False)
    monkeypatch.delenv("STUDYAPP_NOW", raising=False)  # each test sets its own "now"
    monkeypatch.setenv("STUDYAPP_LANG", "en")
    return home


class FakeClock:
    """A clock tests move by hand (UTC)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def run_cli(
    *args: str, env: dict[str, str] | None = None, input_text: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m studyapp ARGS` in a subprocess, as a learner would."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in ((env or {}).get("PYTHONPATH"), str(REPO)) if p)
    return subprocess.run(
        [sys.executable, "-m", "studyapp", *args],
        capture_output=True,
        text=True,
        input=input_text,
        env=full_env,
        cwd=cwd or REPO,
        timeout=120,
    )
