"""Reading one YAML file safely, keeping line numbers for every mapping and list.

Content is data, never code: the loader is PyYAML's safe loader (the C one when available).
Mappings come back as `LinedDict` and lists as `LinedList`, which remember the line each key or
element started on, so every problem can be reported as `FILE:LINE: message`.
"""

from __future__ import annotations

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

    def line_of(self, key: str) -> int:
        return getattr(self, "key_lines", {}).get(key, self.line)


class LinedList(list[Any]):
    line: int = 1
    item_lines: list[int]

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


_LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader.construct_lined_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _LineLoader.construct_lined_seq)


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


def read_yaml(path: Path) -> Any:
    """Parse one YAML file into LinedDict/LinedList values, or raise FileProblem."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise FileProblem(1, f"cannot read file: {exc.strerror or exc}") from None
    text = decode_utf8(raw)
    try:
        data = yaml.load(text, Loader=_LineLoader)  # _LineLoader derives from a SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = min(mark.line + 1 if mark else 1, text.count("\n") + 1)  # EOF errors: the last line
        reason = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            reason += f" ({exc.context} at line {exc.context_mark.line + 1})"
        raise FileProblem(line, f"YAML syntax error: {reason}") from None
    except yaml.YAMLError as exc:
        raise FileProblem(1, f"YAML error: {exc}") from None
    if data is None:
        raise FileProblem(1, "empty file (no YAML document)")
    return data
