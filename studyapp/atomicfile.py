"""Every file the app writes goes through here: whole or not at all, and only onto a file.

A whole-file write (an export, the content cache, an unsaved-answers file) makes a temp file in
the target's folder and renames it into place. A rename replaces whatever directory entry has the
name, so the target is checked first (issue 34, review H2: `export --anki /dev/null` as root left
/dev/null a regular file):

- a new path or a regular file: written by the rename;
- a symbolic link (of our own) to a regular file: the file it points at is replaced, the link
  stays;
- `-` (where a caller allows it): standard output;
- a pipe that has a reader (a FIFO someone reads, process substitution `>(gzip > deck.gz)`, which
  arrives as /dev/fd/N): streamed into it, since a pipe cannot be renamed onto;
- anything else (a device such as /dev/null or a terminal, a FIFO nobody reads, a folder, a
  socket, a link to one of those or to nothing): refused with `RefusedTarget`, nothing touched.

Files the app keeps open (a lab's stderr log, its run lock) are opened by
`open_regular_for_writing`, which never blocks on a FIFO and never writes into a device.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no FIFOs to unblock
    fcntl = None  # type: ignore[assignment]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

STDOUT = "-"  # the command-line convention for "write to standard output"

# English fallbacks; the i18n catalogue has each as `write.refused.<what>` (ko and en).
_REFUSAL_TEXT = {
    "device": "it is a device (like /dev/null or a terminal), not a file; nothing was written "
    "(name a file, or - for standard output)",
    "folder": "it is a folder; name a file",
    "fifo": "it is a named pipe that nobody is reading; nothing was written",
    "socket": "it is a socket, not a file; nothing was written",
    "dangling": "it is a symbolic link to something that does not exist; nothing was written",
    "foreign_link": "it is a symbolic link made by another user; nothing was written",
    "other": "it is not a regular file; nothing was written",
}


class RefusedTarget(OSError):
    """The path names something a file write must not replace. `what` is a key of the refusal
    (device, folder, fifo, socket, dangling, foreign_link, other); `key` its i18n catalogue entry."""

    def __init__(self, path: str | os.PathLike[str], what: str) -> None:
        code = errno.EISDIR if what == "folder" else errno.EINVAL
        super().__init__(code, _REFUSAL_TEXT[what], os.fspath(path))
        self.what = what
        self.key = f"write.refused.{what}"

    def __str__(self) -> str:  # one line without errno noise: "PATH: it is a folder; name a file"
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


def file_target(path: Path) -> Path:
    """Where a whole-file write of `path` lands: `path` itself when it is new or a regular file,
    the file a symbolic link points at when that is a regular file. Raises `RefusedTarget` for
    anything else, OSError where the path cannot be looked at (a parent that is a file, no
    permission)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISREG(info.st_mode):
        return path
    if stat.S_ISLNK(info.st_mode):
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            # another user's link (planted in /tmp, where unsaved answers may go) could aim the
            # write at any file of ours: only our own links are followed
            raise RefusedTarget(path, "foreign_link")
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise RefusedTarget(path, "dangling") from None
        if stat.S_ISREG(info.st_mode):
            return Path(os.path.realpath(path))
    raise RefusedTarget(path, _kind(info.st_mode))


def write_text_atomically(path: Path, text: str, prefix: str = ".studyapp-") -> None:
    """Write `text` (UTF-8) to `path` through a temp file in the same folder, renamed into place.

    Raises OSError (`RefusedTarget` when `path` is not a file, see `file_target`); the temp file
    never stays behind, and an earlier file is only replaced by a complete new one. The new file
    is mode 0600 (mkstemp): exports and unsaved answers are the learner's own data."""
    target = file_target(path)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _open_pipe_with_reader(path: Path) -> int | None:
    """A descriptor for writing into `path` when it is a pipe somebody reads, else None.

    O_NONBLOCK makes opening a FIFO without a reader fail at once (ENXIO) instead of waiting
    for one for ever; the descriptor is made blocking again before the write."""
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_WRONLY | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise RefusedTarget(path, "fifo") from None
        raise
    _make_blocking(fd)
    return fd


def _make_blocking(fd: int) -> None:
    if fcntl is not None:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)


def write_output(path: Path, text: str, prefix: str = ".studyapp-") -> bool:
    """Write a file the learner named on the command line: `-` is standard output, a pipe with a
    reader is streamed into, anything else goes through `write_text_atomically`.

    Returns True when the text went to a stream (stdout or a pipe), so the caller prints its
    confirmation on stderr, where it does not mix into the data."""
    if str(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return True
    fd = _open_pipe_with_reader(path)
    if fd is None:
        write_text_atomically(path, text, prefix=prefix)
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return True


def open_regular_for_writing(path: Path) -> int:
    """A descriptor open for writing on `path`, created (0600) or truncated; refuses (without
    blocking, without writing) anything but a regular file, a symbolic link included."""
    flags = os.O_WRONLY | os.O_CREAT | _NONBLOCK | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ELOOP, errno.EISDIR):  # FIFO with no reader, a link, a folder
            what = "folder" if exc.errno == errno.EISDIR else "fifo" if exc.errno == errno.ENXIO else "other"
            raise RefusedTarget(path, what) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise RefusedTarget(path, _kind(mode))
    _make_blocking(fd)
    os.ftruncate(fd, 0)
    return fd


__all__ = [
    "STDOUT",
    "RefusedTarget",
    "file_target",
    "open_regular_for_writing",
    "write_output",
    "write_text_atomically",
]
