"""Quitting the app (ctrl+q) during a lab run ends the lab and records the run as cancelled.

Before, the run's finished message arrived after the screen was gone: the record stayed
"running" for ever (TUI and `studyapp lab list`), and nothing but the worker thread stopped the lab.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from studyapp.progress.store import ProgressStore
from tests.tui.helpers import SIZE, screen_text
from tests.tui.test_labs_screen import open_labs, wait_for


def lab_processes(marker: Path) -> list[int]:
    """Pids of live processes whose command line mentions `marker` (the fake labs folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(marker).encode() in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads /proc to find the lab process")
async def test_ctrl_q_during_a_run_stops_the_lab_and_records_it_cancelled(
    make: Any, fake_labs: Path, store: ProgressStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LAB_STEPS", "100000")
    monkeypatch.setenv("FAKE_LAB_PAUSE", "0.05")
    app = make()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_labs(app, pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: "단계" in screen_text(app))
        assert screen.running == "fake"
        assert lab_processes(fake_labs.parent), "the lab is not running"
        assert [r.status for r in store.lab_runs("fake")] == ["running"]
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert [(r.status, r.ended_at is not None) for r in store.lab_runs("fake")] == [("cancelled", True)]
    deadline = time.monotonic() + 15
    while lab_processes(fake_labs.parent) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert lab_processes(fake_labs.parent) == [], "the lab outlived the app"
