"""A cache of the checked content model, so opening the quiz does not re-parse every YAML file.

Parsing and checking ~15 YAML files costs more than painting the first question. The checked
model is pickled into the learner's data directory together with a fingerprint of the content
files (path, size, modification time) and the app version; any change to a file, or a new app
version, rebuilds it through the full loader. `studyapp check` never uses the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from studyapp import __version__
from studyapp.content.model import Content

CACHE_FORMAT = 1


def fingerprint(root: Path) -> str:
    parts = [f"{CACHE_FORMAT}:{__version__}:{root}"]
    for path in sorted(root.rglob("*.y*ml")):
        stat = path.stat()
        parts.append(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _cache_file(root: Path, cache_dir: Path) -> Path:
    return cache_dir / f"content-{hashlib.sha256(str(root).encode()).hexdigest()[:16]}.pickle"


def load_cached(root: Path, cache_dir: Path | None) -> Content:
    """The content model, from the cache when the files are unchanged, else loaded and checked."""
    if cache_dir is None or not root.is_dir():
        from studyapp.content.loader import load_content

        return load_content(root)
    stamp = fingerprint(root)
    target = _cache_file(root, cache_dir)
    try:
        with target.open("rb") as handle:
            saved_stamp, content = pickle.load(handle)
        if saved_stamp == stamp and isinstance(content, Content):
            return content
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
        pass  # no cache yet, or one from another version: rebuild it
    from studyapp.content.loader import load_content

    content = load_content(root)  # raises ContentError on broken content; nothing is cached then
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".content-")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump((stamp, content), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
    except OSError:
        pass  # a read-only data directory only costs speed
    return content
