"""Reading one YAML file safely, keeping line numbers for every mapping and list.

Content is data, never code: the loader is PyYAML's safe loader (the C one when available).
Mappings come back as `LinedDict` and lists as `LinedList`, which remember the line each key or
element started on, so every problem can be reported as `FILE:LINE: message`.

A content file cannot exhaust the machine or hang a command: only regular files are read (a FIFO,
a device or a directory named `*.yaml` is a problem, not a read that never ends), at most
`MAX_FILE_BYTES` of them; anchors and aliases are refused before anything is built (content has
no use for them, and a billion-laughs alias tree expands to gigabytes in any error message that
prints it); integers are bounded and impossible dates are problems with a line, like every other
mistake.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml

try:  # the C parser is ~10x faster; it is optional in PyYAML builds
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader


class LinedDict(dict[str, Any]):
    line: int = 1
    key_lines: dict[str, int]
    duplicate_keys: list[tuple[str, int]]
    control_findings: list[tuple[int, str]]  # the loader's, kept with a reused document

    def line_of(self, key: str) -> int:
        return getattr(self, "key_lines", {}).get(key, self.line)


class LinedList(list[Any]):
    line: int = 1
    item_lines: list[int]
    control_findings: list[tuple[int, str]]

    def line_of(self, index: int) -> int:
        lines = getattr(self, "item_lines", [])
        return lines[index] if index < len(lines) else self.line


class _LineLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    def construct_lined_map(self, node: yaml.MappingNode) -> Any:
        data = LinedDict()
        data.line = node.start_mark.line + 1
        yield data
        data.key_lines = {}
        data.duplicate_keys = []
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key must be a plain value", key_node.start_mark
                )
            key = str(key)
            if key in data:
                data.duplicate_keys.append((key, key_node.start_mark.line + 1))
            data.key_lines[key] = key_node.start_mark.line + 1
            data[key] = self.construct_object(value_node, deep=True)

    def construct_lined_seq(self, node: yaml.SequenceNode) -> Any:
        data = LinedList()
        data.line = node.start_mark.line + 1
        yield data
        data.item_lines = [child.start_mark.line + 1 for child in node.value]
        data.extend(self.construct_object(child, deep=True) for child in node.value)

    def construct_bounded_int(self, node: yaml.ScalarNode) -> Any:
        # Python refuses to parse ints over 4300 digits with a ValueError; content numbers are small.
        if len(str(node.value)) > MAX_INT_CHARS:
            raise yaml.constructor.ConstructorError(
                None, None, f"number too large (more than {MAX_INT_CHARS} characters)", node.start_mark
            )
        return super().construct_yaml_int(node)

    def construct_checked_timestamp(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError):  # 2024-02-30: matches the date pattern, is no date
            raise yaml.constructor.ConstructorError(
                None, None, f"not a real date: {node.value}", node.start_mark
            ) from None


_LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader.construct_lined_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _LineLoader.construct_lined_seq)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _LineLoader.construct_bounded_int)
_LineLoader.add_constructor("tag:yaml.org,2002:timestamp", _LineLoader.construct_checked_timestamp)

MAX_FILE_BYTES = 64 * 1024 * 1024  # the biggest shipped file is ~60 KB
MAX_INT_CHARS = 18


class FileProblem(Exception):
    """A file that cannot be read as YAML at all: where and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def decode_utf8(raw: bytes) -> str:
    """Decode content bytes, explaining the likely mistake when they are not UTF-8."""
    if not raw.strip():
        raise FileProblem(1, "empty file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        hint = ""
        try:
            raw.decode("cp949")
            hint = " — it decodes as CP949/EUC-KR: re-save the file as UTF-8"
        except UnicodeDecodeError:
            pass
        raise FileProblem(
            line, f"not UTF-8: invalid byte 0x{raw[exc.start]:02x} at offset {exc.start}{hint}"
        ) from None


def read_file_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, or FileProblem: never blocks on a FIFO, never reads /dev/zero."""
    try:
        info = os.stat(path)  # follows symlinks: a dangling or looping one fails here
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileProblem(1, "cannot read file: symbolic link loop") from None
        if exc.errno == errno.ENOENT and os.path.islink(path):
            raise FileProblem(1, f"cannot read file: broken symbolic link to {os.readlink(path)}") from None
        raise FileProblem(1, f"cannot read file: {exc.strerror or exc}") from None
    _require_regular(info.st_mode)
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, open does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileProblem(1, f"cannot read file: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        _require_regular(os.fstat(fd).st_mode)
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise FileProblem(1, f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > limit:
        size = f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        raise FileProblem(1, f"file too large (over {size}): content files are a few KB")
    return raw


def _require_regular(mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise FileProblem(1, "cannot read file: Is a directory")
    kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device or socket"
    raise FileProblem(1, f"cannot read file: not a regular file but {kind}")


def _refuse_anchors(text: str) -> None:
    """Anchors (&a) and aliases (*a) are refused, found from parse events before anything is built."""
    if "&" not in text and "*" not in text:
        return  # neither can occur: skip the extra pass
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.AliasEvent):
            what = f"alias '*{event.anchor}'"
        elif getattr(event, "anchor", None):
            what = f"anchor '&{event.anchor}'"
        else:
            continue
        raise FileProblem(
            event.start_mark.line + 1,
            f"YAML {what}: anchors and aliases are not allowed in content (write the value out)",
        )


# Parsed documents by their text, for callers that only read them (reuse=True): the content is
# parsed again whenever a command, a test or the TUI loads it in the same process, though one file
# at most has changed — building the Python objects is most of a 20-file load (~0.3 s of ~0.35 s).
_PARSED: OrderedDict[str, Any] = OrderedDict()
_PARSED_KEEP = 64


def read_yaml(path: Path, limit: int = MAX_FILE_BYTES, *, reuse: bool = False) -> Any:
    """Parse one YAML file (at most `limit` bytes) into LinedDict/LinedList values, or raise FileProblem.

    With `reuse`, an unchanged text (the file is still read and checked each time) gives the
    document parsed before: the same objects, so the caller must not change them."""
    raw = read_file_bytes(path, limit)
    text = decode_utf8(raw)
    if reuse and text in _PARSED:
        _PARSED.move_to_end(text)
        return _PARSED[text]
    data = _parse(text)
    if reuse:
        _PARSED[text] = data
        if len(_PARSED) > _PARSED_KEEP:
            _PARSED.popitem(last=False)
    return data


def _parse(text: str) -> Any:
    try:
        _refuse_anchors(text)
        data = yaml.load(text, Loader=_LineLoader)  # _LineLoader derives from a SafeLoader
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, most C0 controls)
        line = text[: exc.position].count("\n") + 1 if isinstance(exc.position, int) else 1
        code = f" (character #x{exc.character:04x})" if isinstance(exc.character, int) else ""
        raise FileProblem(line, f"YAML error: {_one_line(str(exc.reason))}{code}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = min(mark.line + 1 if mark else 1, text.count("\n") + 1)  # EOF errors: the last line
        reason = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            reason += f" ({exc.context} at line {exc.context_mark.line + 1})"
        raise FileProblem(line, f"YAML syntax error: {reason}") from None
    except yaml.YAMLError as exc:
        raise FileProblem(1, f"YAML error: {_one_line(str(exc))}") from None
    except (ValueError, OverflowError, RecursionError) as exc:  # a constructor's own error
        raise FileProblem(1, f"YAML error: {_one_line(str(exc))}") from None
    if data is None:
        raise FileProblem(1, "empty file (no YAML document)")
    return data


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]
