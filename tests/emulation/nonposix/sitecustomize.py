"""A Linux process made to look like it lacks what Windows lacks (issue 30): put this folder first
on PYTHONPATH (and name this file in STUDYAPP_TEST_EMULATION for the child guard, which runs with
-I). Taken away: the modules fcntl, resource and termios; os.fork/forkpty/setsid/setpgid/setpgrp/
getpgid/killpg (not register_at_fork: below); Popen's pass_fds and preexec_fn (refused, as on Windows) and start_new_session /
process_group (ignored, as on Windows); select() on anything but a socket (WinError 10038 there);
the fork and forkserver start methods of multiprocessing (spawn is the default).

What it cannot take away: the kernel's own behaviour (a subreaper set through ctypes, /proc), and
it does not add what only Windows has (Job Objects: tests/test_child.py fakes those).
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys

for _module in ("fcntl", "resource", "termios"):
    sys.modules[_module] = None  # type: ignore[assignment]  # `import fcntl` now raises ImportError

# os.register_at_fork stays: torch calls it unguarded wherever sys.platform is not "win32" (which an
# emulation cannot change), and with fork gone the hooks it registers never run anyway.
for _name in ("fork", "forkpty", "setsid", "setpgid", "setpgrp", "getpgid", "killpg"):
    if hasattr(os, _name):
        delattr(os, _name)

_popen_init = subprocess.Popen.__init__


def _windows_like_popen(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    if kwargs.get("pass_fds"):
        raise ValueError("pass_fds is not supported on this platform (emulated Windows)")
    if kwargs.get("preexec_fn") is not None:
        raise ValueError("preexec_fn is not supported on Windows platforms")
    kwargs.pop("start_new_session", None)
    kwargs.pop("process_group", None)
    _popen_init(self, *args, **kwargs)


subprocess.Popen.__init__ = _windows_like_popen  # type: ignore[method-assign]

_select = select.select


def _sockets_only_select(rlist, wlist, xlist, *timeout):  # type: ignore[no-untyped-def]
    for item in (*rlist, *wlist, *xlist):
        if not isinstance(item, socket.socket):
            raise OSError(10038, "An operation was attempted on something that is not a socket")
    return _select(rlist, wlist, xlist, *timeout)


select.select = _sockets_only_select

import multiprocessing  # noqa: E402  (after the changes above: it reads os at import)
import multiprocessing.context  # noqa: E402

for _method in ("fork", "forkserver"):
    multiprocessing.context._concrete_contexts.pop(_method, None)  # type: ignore[attr-defined]
multiprocessing.set_start_method("spawn", force=True)
