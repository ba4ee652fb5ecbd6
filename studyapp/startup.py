"""Start-up without cyclic garbage collection.

Starting studyapp creates tens of thousands of long-lived objects (modules, classes, dataclasses,
the content model, then Textual's widgets and styles) and next to no cyclic garbage, yet the
collector walks them every few hundred allocations: about a tenth of the time to the first
question (benchmarks/startup.py). So collection waits while studyapp imports itself and while the
TUI starts, and runs as usual from the first frame on. Commands that do real work (check, labs,
export) run with it on.

At the first frame those objects are also frozen out of the collector's way (`first_frame_shown`):
they live as long as the process, and every later full collection would walk them again.

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


_frozen = False


def imports_done() -> None:
    """The command line is imported: freeze its modules and classes out of the collector's way
    (they live as long as the process; walking ~20,000 young objects once costs ~5 ms) and resume."""
    if _paused:
        gc.freeze()
    resume_collection()


def first_frame_shown() -> None:
    """The TUI's first frame is on screen: move what exists now (modules, Textual, the content, the
    first screen) into the collector's permanent generation, once per process, and resume.

    Young garbage is collected first so little is pinned. That walk costs ~20 ms after Textual's
    import, which is why it waits for the first frame instead of delaying it."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect(1)
        gc.freeze()
    resume_collection()
