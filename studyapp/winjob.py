"""A Windows Job Object with kill-on-job-close, through ctypes: Windows' way to hold a process tree.

Every process a job's member starts is in the job too (no breakaway is allowed), so the tree can be
listed and ended whatever it did, and when the last handle to the job closes (studyapp ends, even
killed) Windows ends every process in it. `studyapp.child` puts each child guard in one.

All calls go through `kernel32`, which tests replace with a fake at this boundary
(tests/test_child.py); nothing here runs a Windows call at import time.
"""

from __future__ import annotations

import ctypes
from typing import Any

JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9
JOB_OBJECT_BASIC_PROCESS_ID_LIST_CLASS = 3
MAX_LISTED = 1024  # process ids asked for at once; a larger tree is still ended whole by terminate()


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _IoCounters(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in ("Reads", "Writes", "Others", "ReadBytes", "WriteBytes", "OtherBytes")
    ]


class ExtendedLimits(ctypes.Structure):
    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


class ProcessIdList(ctypes.Structure):
    _fields_ = [
        ("NumberOfAssignedProcesses", ctypes.c_uint32),
        ("NumberOfProcessIdsInList", ctypes.c_uint32),
        ("ProcessIdList", ctypes.c_size_t * MAX_LISTED),
    ]


def _kernel32() -> Any:
    return ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]


class JobObject:
    """One job: `assign` a process (its Popen `_handle`), `pids` of what runs in it, `terminate`
    all of it, `close` the handle (which also ends all of it: kill-on-job-close)."""

    def __init__(self, kernel32: Any | None = None) -> None:
        self.kernel32 = kernel32 if kernel32 is not None else _kernel32()
        self.handle = self.kernel32.CreateJobObjectW(None, None)
        if not self.handle:
            raise OSError("CreateJobObjectW failed")
        limits = ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        if not self.kernel32.SetInformationJobObject(
            self.handle,
            JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS,
            ctypes.byref(limits),
            ctypes.sizeof(limits),
        ):
            self.close()
            raise OSError("SetInformationJobObject (kill on job close) failed")

    def assign(self, process_handle: int) -> bool:
        return bool(self.kernel32.AssignProcessToJobObject(self.handle, process_handle))

    def pids(self) -> tuple[list[int], int]:
        """(ids listed, how many processes the job holds): what is still running in it."""
        listing = ProcessIdList()
        if not self.kernel32.QueryInformationJobObject(
            self.handle,
            JOB_OBJECT_BASIC_PROCESS_ID_LIST_CLASS,
            ctypes.byref(listing),
            ctypes.sizeof(listing),
            None,
        ):
            return [], 0
        shown = min(listing.NumberOfProcessIdsInList, MAX_LISTED)
        return [int(listing.ProcessIdList[i]) for i in range(shown)], int(listing.NumberOfAssignedProcesses)

    def terminate(self) -> None:
        self.kernel32.TerminateJobObject(self.handle, 1)

    def close(self) -> None:
        if self.handle:
            self.kernel32.CloseHandle(self.handle)
            self.handle = None
