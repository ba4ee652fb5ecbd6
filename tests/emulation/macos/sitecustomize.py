"""A Linux process made to look like macOS where it matters to the runner (issue 30): no /proc
(os.listdir, os.scandir and open refuse every path under it) and spawn, not fork, as
multiprocessing's default start method. Put this folder first on PYTHONPATH and name this file in
STUDYAPP_TEST_EMULATION (the child guard runs with -I).

What it cannot take away: the Linux subreaper (prctl) the child guard still becomes; on a real Mac a
process that leaves the group or session is not adopted by the guard (README, "Platforms").
"""

from __future__ import annotations

import builtins
import io
import os

_PROC = "/proc"


def _is_proc(path: object) -> bool:
    try:
        text = os.fsdecode(path)  # type: ignore[arg-type]
    except TypeError:
        return False  # a file descriptor
    return text == _PROC or text.startswith(_PROC + "/")


def _refusing(function):  # type: ignore[no-untyped-def]
    def call(path=".", *args, **kwargs):  # type: ignore[no-untyped-def]
        if _is_proc(path):
            raise FileNotFoundError(2, "No such file or directory (emulated macOS)", os.fsdecode(path))
        return function(path, *args, **kwargs)

    return call


os.listdir = _refusing(os.listdir)
os.scandir = _refusing(os.scandir)
builtins.open = _refusing(builtins.open)
io.open = builtins.open

import multiprocessing  # noqa: E402

multiprocessing.set_start_method("spawn", force=True)
