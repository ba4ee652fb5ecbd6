"""Where things live: content, labs and the learner's data directory.

One module answers these questions so tests can redirect every location through environment
variables (`STUDYAPP_CONTENT`, `STUDYAPP_HOME`, `STUDYAPP_CACHE`, `STUDYAPP_LABS`) or explicit arguments.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT_ROOT = _PACKAGE_DIR.parent
_BUNDLED = _PACKAGE_DIR / "_bundled"


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[-1]


def content_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The content directory: the option, then $STUDYAPP_CONTENT, then the checkout, then the wheel."""
    chosen = override or os.environ.get("STUDYAPP_CONTENT")
    if chosen:
        return Path(chosen).expanduser().resolve()
    return _first_existing(_CHECKOUT_ROOT / "content", _BUNDLED / "content")


def labs_root() -> Path:
    """The directory that *contains* the `labs` package (what goes on the lab's PYTHONPATH)."""
    chosen = os.environ.get("STUDYAPP_LABS")
    if chosen:
        return Path(chosen).expanduser().resolve().parent
    if (_CHECKOUT_ROOT / "labs" / "_protocol.py").is_file():
        return _CHECKOUT_ROOT
    return _BUNDLED


def labs_dir() -> Path:
    return labs_root() / "labs"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The learner's data directory (progress database, lab runs). Created on first use."""
    chosen = override or os.environ.get("STUDYAPP_HOME")
    if chosen:
        return Path(chosen).expanduser().resolve()
    from platformdirs import user_data_dir

    return Path(user_data_dir("studyapp", appauthor=False))


def cache_dir() -> Path:
    """Where the checked content model is cached: $STUDYAPP_CACHE, else the platform's user cache
    directory. Not the data directory: the cache is rebuilt from the content at any time and is
    shared by every data directory on the machine, so a new learner profile starts as fast as an
    old one (benchmarks/startup.py --fresh)."""
    chosen = os.environ.get("STUDYAPP_CACHE")
    if chosen:
        return Path(chosen).expanduser().resolve()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("studyapp", appauthor=False))
