"""Writing a file so that it is either wholly there or not at all (a temp file renamed into place)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_text_atomically(path: Path, text: str, prefix: str = ".studyapp-") -> None:
    """Write `text` (UTF-8) to `path` through a temp file in the same folder, renamed into place.

    Raises OSError; the temp file never stays behind, and an earlier `path` is only replaced by
    a complete new one."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
