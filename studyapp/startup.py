"""Start-up without cyclic garbage collection.

Starting studyapp creates tens of thousands of long-lived objects (modules, classes, dataclasses,
the content model, then Textual's widgets and styles) and next to no cyclic garbage, yet the
collector walks them every few hundred allocations: about a tenth of the time to the first
question (benchmarks/startup.py). So collection waits while studyapp imports itself and while the
TUI starts, and runs as usual from the first frame on. Commands that do real work (check, labs,
export) run with it on.

A leaf: it imports nothing from studyapp.
"""

from __future__ import annotations

import gc

_paused = False


def pause_collection() -> None:
    """Hold cyclic collection (no-op when it is already off, e.g. switched off by the caller)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collection() -> None:
    """Let it run again if `pause_collection` held it; safe to call any number of times."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
