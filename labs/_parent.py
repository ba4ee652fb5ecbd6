"""Is the process that started us still alive? For children that must not outlive their parent.

POSIX: `os.getppid()` changes when the parent dies (we are re-parented). Windows never changes that
value (Python's docs), so there a handle to the parent is opened once and asked without waiting.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

_SYNCHRONIZE = 0x00100000
_WAIT_TIMEOUT = 0x102


def parent_alive_probe(parent_pid: int) -> Callable[[], bool]:
    """A cheap function that answers "is `parent_pid` still our living parent?"."""
    if sys.platform != "win32":
        return lambda: os.getppid() == parent_pid
    return _windows_probe(parent_pid)


def _windows_probe(parent_pid: int, kernel32: object | None = None) -> Callable[[], bool]:
    """WaitForSingleObject(handle, 0) is WAIT_TIMEOUT while the process runs. `kernel32` is for
    tests, which fake the Windows calls at this boundary."""
    if kernel32 is None:
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    handle = kernel32.OpenProcess(_SYNCHRONIZE, False, parent_pid)  # type: ignore[attr-defined]
    if not handle:
        return lambda: False  # already gone (or never ours to watch)
    return lambda: kernel32.WaitForSingleObject(handle, 0) == _WAIT_TIMEOUT  # type: ignore[attr-defined]
