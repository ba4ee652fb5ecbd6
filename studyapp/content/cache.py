"""A cache of the checked content model, so opening the quiz does not re-parse every YAML file.

Parsing and checking ~15 YAML files costs more than painting the first question. The checked
model is written into the learner's cache directory as JSON, together with a fingerprint of the
content files (path, size, modification time) and the app version; any change to a file, or a new
app version, rebuilds it through the full loader. `studyapp check` never uses the cache.

The cache is plain data, never code: anyone who can write the data directory (a synced folder, a
restored backup) could plant a file there, so it is JSON read into a fixed set of model classes
(`_MODEL_TYPES`) by the field types they declare, never a pickle. A cache that is unreadable, too big, of another version or of
an unexpected shape is ignored and rebuilt silently.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import stat
import types
import typing
import zlib
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

CACHE_FORMAT = 4  # 1 a pickle (never read again), 2 a self-describing JSON, 3 without the glossary
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
    """Every content file's path, size and mtime, one line each (a few KB, compared whole: hashing
    it would import hashlib, whose OpenSSL start is ~4 ms of every start-up); None when a file is
    not a regular file.

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
    return "\n".join(parts)


def _cache_file(root: Path, cache_dir: Path) -> Path:
    # One file per content folder; two folders with the same checksum only rewrite each other's
    # cache (the stamp inside names the folder), never read it.
    return cache_dir / f"content-{zlib.crc32(str(root).encode()):08x}.json"


# -- plain data <-> model ----------------------------------------------------------------------
# Each model class is a JSON list of its field values in declaration order, and each field is
# read by a converter built once from the field's type hint: the cache is read on every command,
# and a schema-driven read is a few times faster than a self-describing one. A value that does
# not have the declared type raises TypeError: another shape, so the cache is rebuilt.
Converter = Callable[[Any], Any]


def _wrong(value: Any) -> Any:
    raise TypeError(f"not what the model holds: {type(value).__name__}")


@functools.cache
def _codec(hint: Any) -> tuple[Converter, Converter]:
    """(model value → plain data, plain data → model value) for a field declared as `hint`."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and _MODEL_TYPES.get(hint.__name__) is hint:
        return _model_codec(hint)
    if origin in (types.UnionType, typing.Union) and len(args) == 2 and type(None) in args:
        encode_inner, decode_inner = _codec(next(arg for arg in args if arg is not type(None)))
        return (
            lambda value: None if value is None else encode_inner(value),
            lambda value: None if value is None else decode_inner(value),
        )
    if origin in (tuple, list) and args and (origin is list or args[1:] in ((), (Ellipsis,))):
        encode_element, decode_element = _codec(args[0])
        if args[0] is str:  # the commonest field shape (tags, sources, ids): no call per element

            def decode_strings(value: Any) -> Any:
                if type(value) is not list or not all(type(v) is str for v in value):
                    return _wrong(value)
                return origin(value)

            return lambda value: [encode_element(v) for v in value], decode_strings

        def decode_sequence(value: Any) -> Any:
            return origin(decode_element(v) for v in value) if type(value) is list else _wrong(value)

        return lambda value: [encode_element(v) for v in value], decode_sequence
    if origin is dict and args and args[0] is str:
        encode_value, decode_value = _codec(args[1])

        def encode_mapping(value: Any) -> Any:
            if not all(type(k) is str for k in value):
                raise _NotCacheable("dict with non-text keys")
            return {k: encode_value(v) for k, v in value.items()}

        def decode_mapping(value: Any) -> Any:
            return {k: decode_value(v) for k, v in value.items()} if type(value) is dict else _wrong(value)

        return encode_mapping, decode_mapping
    if hint in (str, int, bool):
        exact = hint

        def same(value: Any) -> Any:
            return value if type(value) is exact else _wrong(value)

        return same, same
    if hint is float:

        def number(value: Any) -> Any:
            return value if type(value) in (int, float) else _wrong(value)

        return number, number
    if hint is Path:
        # Every Location names one of ~25 files: one Path each (building ~3,400 of them was ~40 %
        # of reading the cache). Paths are immutable, so sharing them is safe.
        known: dict[str, Path] = {}

        def path(value: Any) -> Any:
            if type(value) is not str:
                return _wrong(value)
            found = known.get(value)
            if found is None:
                found = known[value] = Path(value)
            return found

        return str, path
    raise _NotCacheable(repr(hint))  # a field type the cache has no spelling for


def _model_codec(cls: type) -> tuple[Converter, Converter]:
    fields = dataclasses.fields(cls)
    if not all(f.init and not f.kw_only for f in fields):
        raise _NotCacheable(f"{cls.__name__}: a field outside __init__'s positions")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in fields]
    codecs = [_codec(hints[name]) for name in names]
    encoders = list(zip(names, (encode for encode, _ in codecs), strict=True))
    decoders = [decode for _, decode in codecs]
    count = len(decoders)

    def encode(value: Any) -> Any:
        if type(value) is not cls:
            raise _NotCacheable(type(value).__name__)
        return [encode_field(getattr(value, name)) for name, encode_field in encoders]

    def decode(value: Any) -> Any:
        if type(value) is not list or len(value) != count:
            return _wrong(value)
        return cls(*[decode_field(v) for decode_field, v in zip(decoders, value, strict=True)])

    return encode, decode


def to_json(stamp: str, content: Content) -> str:
    encode, _ = _codec(Content)
    return json.dumps(
        {"format": CACHE_FORMAT, "stamp": stamp, "content": encode(content)}, ensure_ascii=False
    )


def from_json(text: str, stamp: str) -> Content | None:
    """The cached model when `text` is a cache of these files, else None (never raises)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("stamp") != stamp:
            return None
        _, decode = _codec(Content)
        content = decode(data["content"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, _NotCacheable):
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
