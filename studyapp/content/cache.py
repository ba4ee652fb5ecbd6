"""A cache of the checked content model, so opening the quiz does not re-parse every YAML file.

Parsing and checking ~15 YAML files costs more than painting the first question. The checked
model is written into the learner's data directory as JSON, together with a fingerprint of the
content files (path, size, modification time) and the app version; any change to a file, or a new
app version, rebuilds it through the full loader. `studyapp check` never uses the cache.

The cache is plain data, never code: anyone who can write the data directory (a synced folder, a
restored backup) could plant a file there, so it is JSON read into a fixed set of model classes
(`_MODEL_TYPES`), never a pickle. A cache that is unreadable, too big, of another version or of
an unexpected shape is ignored and rebuilt silently.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import stat
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studyapp import __version__
from studyapp.atomicfile import write_text_atomically
from studyapp.content.model import (
    Bullet,
    ChecklistEntry,
    Content,
    Example,
    Item,
    Location,
    Section,
    Term,
    Topic,
)

CACHE_FORMAT = 3  # 1 was a pickle: never read again; 3 added the glossary to the model
MAX_CACHE_BYTES = 64 * 1024 * 1024  # the real cache is a few hundred KB; anything bigger is not ours

# The only classes a cache file can produce. Fields are taken from the dataclasses themselves, so
# a field added to the model is cached (and checked by tests/test_content_cache.py) automatically.
_MODEL_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (Content, Topic, Section, Bullet, Example, Item, ChecklistEntry, Term, Location)
}


class _NotCacheable(Exception):
    """The model holds a value the cache format has no spelling for: skip the cache."""


def fingerprint(root: Path) -> str | None:
    """A hash of every content file's path, size and mtime; None when a file is not a regular file.

    Dangling or looping symlinks, FIFOs, devices and directories named `*.yaml` are left to the
    loader, which reports each as a `FILE:LINE` problem; the cache never stats them twice.
    """
    parts = [f"{CACHE_FORMAT}:{__version__}:{root}"]
    try:
        paths = sorted(root.rglob("*.y*ml"))
    except OSError:
        return None
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        parts.append(f"{path.relative_to(root)}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _cache_file(root: Path, cache_dir: Path) -> Path:
    return cache_dir / f"content-{hashlib.sha256(str(root).encode()).hexdigest()[:16]}.json"


# -- plain data <-> model ----------------------------------------------------------------------
def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _MODEL_TYPES.get(name) is not type(value):
            raise _NotCacheable(name)
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$type": name, "fields": fields}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _NotCacheable("dict with non-text keys")
        return {"$dict": {k: _encode(v) for k, v in value.items()}}
    if isinstance(value, Path):
        return {"$path": str(value)}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise _NotCacheable(type(value).__name__)


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(_decode(v) for v in value["$tuple"])
    if "$dict" in value:
        return {str(k): _decode(v) for k, v in value["$dict"].items()}
    if "$path" in value:
        return Path(value["$path"])
    cls = _MODEL_TYPES[value["$type"]]  # KeyError for anything else: not our cache
    fields = {str(k): _decode(v) for k, v in value["fields"].items()}
    hints = _hints(cls)
    for name, field_value in fields.items():
        if name not in hints or not _fits(field_value, hints[name]):
            raise TypeError(f"{cls.__name__}.{name}: not what the model holds")  # another shape: rebuild
    return cls(**fields)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _fits(value: Any, hint: Any) -> bool:
    """Whether a decoded value has the type a model field declares (str, tuple[str, ...], …)."""
    return _checker(hint)(value)


@functools.cache
def _checker(hint: Any) -> Callable[[Any], bool]:
    """A type test for `hint`, built once per hint (the cache is read on every command)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        options = [_checker(arg) for arg in args]
        return lambda value: any(check(value) for check in options)
    if hint is type(None):
        return lambda value: value is None
    if origin in (tuple, list):
        element = _checker(args[0])
        return lambda value: isinstance(value, origin) and all(element(v) for v in value)
    if origin is dict:
        element = _checker(args[1])
        return lambda value: isinstance(value, dict) and all(element(v) for v in value.values())
    if hint is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return lambda value: type(value) is str
    return lambda value: isinstance(value, hint)


def to_json(stamp: str, content: Content) -> str:
    return json.dumps(
        {"format": CACHE_FORMAT, "stamp": stamp, "content": _encode(content)}, ensure_ascii=False
    )


def from_json(text: str, stamp: str) -> Content | None:
    """The cached model when `text` is a cache of these files, else None (never raises)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("stamp") != stamp:
            return None
        content = _decode(data["content"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    return content if isinstance(content, Content) else None


def _read_cache(target: Path, stamp: str) -> Content | None:
    try:
        with target.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            raw = handle.read(MAX_CACHE_BYTES + 1)
    except OSError:
        return None  # no cache yet
    if len(raw) > MAX_CACHE_BYTES:
        return None
    return from_json(raw.decode("utf-8", errors="replace"), stamp)


def _write_cache(target: Path, stamp: str, content: Content) -> None:
    try:
        text = to_json(stamp, content)
    except (_NotCacheable, RecursionError, ValueError):
        return  # the model cannot be written as plain data: load it every time instead
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(target, text, prefix=".content-")
        for old in target.parent.glob("content-*.pickle"):  # format 1, never read again
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only or full data directory only costs speed


def load_cached(root: Path, cache_dir: Path | None) -> Content:
    """The content model, from the cache when the files are unchanged, else loaded and checked."""
    stamp = fingerprint(root) if cache_dir is not None and root.is_dir() else None
    if cache_dir is None or stamp is None:
        return _load_checked(root)
    target = _cache_file(root, cache_dir)
    cached = _read_cache(target, stamp)
    if cached is not None:
        return cached

    content = _load_checked(root)  # raises ContentError on broken content; nothing is cached then
    _write_cache(target, stamp, content)
    return content


def _load_checked(root: Path) -> Content:
    # The loader brings PyYAML (~50 ms): a warm start reads the JSON cache and never imports it.
    from studyapp.content.loader import load_content

    return load_content(root)
